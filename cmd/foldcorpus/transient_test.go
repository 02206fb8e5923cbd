package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// TestCLIRunNoNetworkOneWord runs a manifest whose one row is a gs://
// object with no network (the GCS endpoint a closed port) (issue 53): run
// said the shard FAILED while status said missing, after three attempts in
// 0.63 s. The run and status must use one word for the state (missing:
// a rerun retries it), and print each attempt and the wait before the
// next, waits a user can see.
//
// Two ways of having no network: a host name that never resolves, and a
// closed port (connection refused), which the GCS client used to retry
// on its own until the context ended: the run hung for over 10 minutes.
func TestCLIRunNoNetworkOneWord(t *testing.T) {
	bin := buildCLI(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, addr := range []string{"foldcorpus-no-network.invalid:80", closed} {
		t.Run(addr, func(t *testing.T) { checkNoNetwork(t, bin, addr) })
	}
}

func checkNoNetwork(t *testing.T, bin, addr string) {
	dir := t.TempDir()
	data, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}},
		[][]any{{"AF-NONET-F1", "gs://no-such-bucket/AF-NONET-F1.cif"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "m.parquet")
	if err := os.WriteFile(m, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	env := append(os.Environ(), "STORAGE_EMULATOR_HOST="+addr)
	var o, e bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--manifest", m, "--out", out)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &o, &e
	start := time.Now()
	if err := cmd.Run(); err == nil {
		t.Fatalf("run without network succeeded:\n%s%s", o.String(), e.String())
	}
	wall := time.Since(start)
	runOut := o.String() + e.String()
	if strings.Contains(runOut, "FAILED") || !strings.Contains(runOut, "shard 00000 missing") {
		t.Errorf("run should call the shard missing, as status does, not FAILED:\n%s", runOut)
	}
	if n := len(regexp.MustCompile(`attempt [123] of 3`).FindAllString(runOut, -1)); n != 3 {
		t.Errorf("run printed %d of the 3 attempts:\n%s", n, runOut)
	}
	if !strings.Contains(runOut, "retrying in 1s") || !strings.Contains(runOut, "retrying in 2s") {
		t.Errorf("run does not print the waits between attempts (1s, 2s):\n%s", runOut)
	}
	if wall < 3*time.Second {
		t.Errorf("3 attempts in %v: want the 1 s and 2 s waits between them", wall)
	}
	st := exec.Command(bin, "status", out)
	st.Env = env
	status, _ := st.CombinedOutput()
	if !strings.Contains(string(status), "missing shard 00000") || strings.Contains(strings.ToLower(string(status)), "failed shard") {
		t.Errorf("status should call the shard missing:\n%s", status)
	}
}
