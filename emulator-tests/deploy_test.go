package emulatortests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"

	"github.com/foldcorpus/foldcorpus/internal/buildpack"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// TestDeployLayout serves the three functions as Cloud Functions would:
// one process each of the binary the Go buildpack builds from the uploaded
// source (functionsBinary: after the buildpack's move, its main imports the
// module root, deploy.go), with FUNCTION_TARGET naming the function. It
// drives each as infra/ wires it, a push subscription each: the manifest
// bucket's notification to the planner, the published shard messages to the
// shard function (shard 0) and, with the dead-letter attributes Pub/Sub
// adds, to the dead-letter function (shard 1).
func TestDeployLayout(t *testing.T) {
	dir, gs := afdbGolden(t)
	gs = gs[:3]
	s := newStack(t, stackOpts{noFunctions: true, rowGroupsPerShard: 1})
	if mod := strings.TrimSpace(must(buildpack.GoIn(context.Background(), repoRoot(), nil, "list", "-m"))); fnPkg != mod {
		t.Errorf("the buildpack's main imports %s, want the module root %s (the buildpack never finds a folder named after the package once it has moved the source)", fnPkg, mod)
	}
	s.subscribe("events", eventsTopic, "", nil)
	s.subscribe("pull", shardTopic, "", nil)
	fns := map[string]*fnProc{}
	for _, target := range []string{"Planner", "ShardFn", "DeadLetter"} {
		fns[target] = startFn(t, functionsBinary(t), s.env, target, 0)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for name, p := range fns {
				t.Logf("--- %s log ---\n%s", name, p.tail(30))
			}
		}
	})

	// Two row groups, one per shard. The manifest's bucket notification
	// goes to the events topic (fake-gcs-server publishes it, as GCS does).
	rows := s.uploadStructures(dir, gs, "")
	data, err := manifest.Encode(manifestCols, rows, 2)
	if err != nil {
		t.Fatal(err)
	}
	gen := s.put(manifestBucket, "runs/deploy.parquet", data, "")
	runID := fmt.Sprintf("gs://%s/runs/deploy.parquet#%d", manifestBucket, gen)
	note := s.pullAll("events", 1, 30*time.Second)[0].Message
	if note.Attributes["eventType"] != "OBJECT_FINALIZE" || note.Attributes["objectId"] != "runs/deploy.parquet" {
		t.Fatalf("bucket notification attributes %v", note.Attributes)
	}
	pushTo(t, fns["Planner"], eventsTopic, note, nil, s.sub("events"))
	msgs := s.pullAll("pull", 2, 30*time.Second)
	byShard := map[string]*pubsubpb.PubsubMessage{}
	for _, m := range msgs {
		if m.Message.Attributes["run"] != runID {
			t.Fatalf("published attributes %v, want run %s", m.Message.Attributes, runID)
		}
		byShard[m.Message.Attributes["shard"]] = m.Message
	}
	if len(byShard) != 2 || byShard["0"] == nil || byShard["1"] == nil {
		t.Fatalf("published shards %v, want 0 and 1", slices.Collect(maps.Keys(byShard)))
	}
	pushTo(t, fns["ShardFn"], shardTopic, byShard["0"], nil, s.sub("pull"))
	pushTo(t, fns["DeadLetter"], deadTopic, byShard["1"], map[string]string{
		"CloudPubSubDeadLetterSourceDeliveryCount": "5",
		"CloudPubSubDeadLetterSourceSubscription":  s.sub("pull"),
	}, s.sub("dead"))

	shards, err := s.ledger.Shards(s.ctx, runID)
	if err != nil || len(shards) != 2 || shards[0].Status != ledger.Done || shards[1].Status != ledger.DeadLettered {
		t.Fatalf("shards = %+v, %v; want shard 0 done, shard 1 dead-lettered", shards, err)
	}
	if !strings.Contains(shards[1].Error, "dead-lettered after 5 delivery attempts") {
		t.Errorf("dead-lettered shard error %q", shards[1].Error)
	}
	docs, _ := s.outputs(shards)
	checkGolden(t, docs, gs[:2])
	if n := len(fns["Planner"].logRecords("cross-region")); n != 0 {
		t.Errorf("planner logged %d cross-region warnings with every bucket in its region", n)
	}
	// status shows the shard time the guide's projection (step 7) uses,
	// even with no shard left in flight.
	wall := shards[0].Finished.Sub(shards[0].Started).Round(time.Millisecond)
	if out, _ := s.cli("status", "--run", runID); !strings.Contains(out, fmt.Sprintf("shard time  mean %s, max %s over 1 done shards", wall, wall)) {
		t.Errorf("status does not show the shard time %s of the one done shard:\n%s", wall, out)
	}
	for _, want := range []string{`"severity":"INFO"`, `"message":"shard done"`, `"run":"` + runID + `"`} {
		if !strings.Contains(fns["ShardFn"].log.String(), want) {
			t.Errorf("ShardFn log lacks %s", want)
		}
	}
}

// pushTo posts m to the function as the push subscriptions of infra/pubsub.tf
// do (standard push JSON, to /projects/P/topics/TOPIC), with extra
// attributes added.
func pushTo(t *testing.T, p *fnProc, topic string, m *pubsubpb.PubsubMessage, extra map[string]string, sub string) {
	t.Helper()
	attrs := map[string]string{}
	for k, v := range m.Attributes {
		attrs[k] = v
	}
	for k, v := range extra {
		attrs[k] = v
	}
	push, _ := json.Marshal(map[string]any{
		"message": map[string]any{"data": m.Data, "attributes": attrs, "messageId": m.MessageId,
			"publishTime": time.Now().UTC().Format(time.RFC3339Nano)},
		"subscription": sub,
	})
	resp, err := http.Post(p.pushURL(projectOf(sub), topic), "application/json", bytes.NewReader(push))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("push to %s: HTTP %d\n%s", p.target, resp.StatusCode, p.tail(20))
	}
}

// TestBuildpackRefusesUnregisteredRoot replays the buildpack on a root
// package that registers nothing (the deploy.go of before: it imported only
// the framework's functions package): the build succeeds, and the binary
// exits at start as every revision would have.
func TestBuildpackRefusesUnregisteredRoot(t *testing.T) {
	app := t.TempDir()
	bin, _, err := buildpackBuildWith(app, map[string]string{"deploy.go": "// Package functions registers nothing.\npackage functions\n\nimport _ \"" + buildpack.FrameworkFunctions + "\"\n"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "FUNCTION_TARGET=Planner", "PORT=0")
	out, err := runWithTimeout(cmd, 20*time.Second)
	if err == nil || !strings.Contains(out, "no matching function found") {
		t.Fatalf("a root package that registers nothing: err %v, output %q; want the framework's exit with \"no matching function found\"", err, out)
	}
}

// TestFunctionSourceArchive checks the list of uploaded files against
// Terraform's own evaluation of local.function_source (terraform console,
// no provider needed), and that it holds only what the build needs.
func TestFunctionSourceArchive(t *testing.T) {
	files, err := buildpack.SourceFiles(repoRoot())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.Contains(f, "testdata/") ||
			!slices.ContainsFunc([]string{"functions/", "internal/", "planner/", "shardfn/"}, func(p string) bool { return strings.HasPrefix(f, p) }) &&
				!slices.Contains([]string{"go.mod", "go.sum", "deploy.go"}, f) {
			t.Errorf("the function source archive holds %s", f)
		}
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Skip("SKIP: terraform not installed: the archive list was not checked against Terraform's fileset (no Debian package; the check runs where the binary is)")
	}
	tf, err := os.ReadFile(filepath.Join(repoRoot(), "infra", "functions.tf"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(tf, []byte("locals {\n  function_source_files"))
	j := bytes.Index(tf, []byte(`data "archive_file" "source"`))
	if i < 0 || j < i {
		t.Fatal("infra/functions.tf: no locals block with function_source_files before the archive")
	}
	dir := t.TempDir()
	block := strings.ReplaceAll(string(tf[i:j]), "${path.module}/..", repoRoot())
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("terraform", "console")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("jsonencode(local.function_source)\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("terraform console: %v\n%s", err, out)
	}
	var quoted string
	var got []string
	if err := json.Unmarshal(bytes.TrimSpace(out), &quoted); err != nil {
		t.Fatalf("terraform console printed %q: %v", out, err)
	}
	if err := json.Unmarshal([]byte(quoted), &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, files) {
		t.Errorf("Terraform's local.function_source:\n%v\nthe test's reading of it:\n%v", got, files)
	}
}

// TestGoModTidy: go.mod and go.sum are what `go mod tidy` makes them, so
// the requirements the code imports are listed as direct (the buildpack's
// generated main imports only the root package, which imports the rest).
func TestGoModTidy(t *testing.T) {
	if out, err := buildpack.GoIn(context.Background(), repoRoot(), nil, "mod", "tidy", "-diff"); err != nil {
		t.Fatalf("go mod tidy would change go.mod or go.sum (run it):\n%s\n%v", out, err)
	}
}

// projectOf returns P of projects/P/subscriptions/S.
func projectOf(sub string) string {
	return strings.Split(sub, "/")[1]
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}
