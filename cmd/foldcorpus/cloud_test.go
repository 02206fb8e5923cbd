package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/pubsubq"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/planner"
)

func TestSpecFromRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    map[string]string
		want    planner.Spec
		wantErr bool
	}{
		{"uri mode with format options", map[string]string{
			"residue_plddt_min": "0", "pipeline.uri_column": "gcs_uri", "pipeline.text_column": "",
			"pipeline.lenient_missing": "true", "pipeline.prefix": "part", "pipeline.row_groups_per_shard": "4",
		}, planner.Spec{URIColumn: "gcs_uri", LenientMissing: true, Prefix: "part", RowGroupsPerShard: 4, Options: map[string]string{"residue_plddt_min": "0"}}, false},
		{"text mode", map[string]string{"pipeline.text_column": "cif_content", "pipeline.uri_column": "gcs_uri"},
			planner.Spec{TextColumn: "cif_content"}, false},
		{"pinned manifest generation", map[string]string{"pipeline.manifest_generation": "1700000000000001"},
			planner.Spec{ManifestGeneration: 1700000000000001}, false},
		{"named passthrough", map[string]string{"pipeline.passthrough": "note,split"},
			planner.Spec{Passthrough: []string{"note", "split"}}, false},
		{"no passthrough", map[string]string{"pipeline.passthrough": ""}, planner.Spec{Passthrough: []string{}}, false},
		{"bad generation", map[string]string{"pipeline.manifest_generation": "latest"}, planner.Spec{}, true},
		{"bad bool", map[string]string{"pipeline.lenient_missing": "perhaps"}, planner.Spec{}, true},
	} {
		run := ledger.Run{ID: "gs://m/a.parquet#1", Manifest: "gs://m/a.parquet", Format: "f", Output: "gs://o/c", Options: tc.opts}
		got, err := specFromRun(run)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: err = %v", tc.name, err)
			continue
		}
		if tc.wantErr {
			continue
		}
		tc.want.RunID, tc.want.Manifest, tc.want.Format, tc.want.Output = run.ID, run.Manifest, run.Format, run.Output
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: specFromRun = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestGcloudCommand(t *testing.T) {
	for _, tc := range []struct {
		object string
		prefix string // how the --attribute value starts
	}{
		{"o'dd.parquet", "'run="},
		{"a,b=c.parquet", "'^;^run="},                 // gcloud would split at the comma
		{"a,b;c.parquet", "'^|^run="},                 // and ";" is taken too
		{"x=1,y=2;z|w.parquet", "'^~^run=gs://m/x=1"}, // "=" stays: a pair splits at its first "="
	} {
		m := queue.ShardMessage{RunID: "gs://m/" + tc.object + "#7", Shard: 1, Total: 2, Manifest: "gs://m/" + tc.object,
			Format: "f", Output: "gs://o/c/part-00001-of-00002.parquet", Columns: []string{"entry_id", "gcs_uri"}, URIColumn: "gcs_uri"}
		cmd, err := gcloudCommand("shards", m)
		if err != nil {
			t.Fatal(err)
		}
		// Undo the single-quoting as a POSIX shell would.
		words := strings.Split(cmd, " --")
		if len(words) != 3 || !strings.HasPrefix(words[0], "gcloud pubsub topics publish 'shards'") {
			t.Fatalf("command %q", cmd)
		}
		if a := strings.TrimPrefix(words[2], "attribute "); !strings.HasPrefix(a, tc.prefix) {
			t.Errorf("%s: --attribute %s, want it to start with %s", tc.object, a, tc.prefix)
		}
		unq := func(s string) string {
			s = strings.TrimSpace(s)
			return strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(s, "'"), "'"), `'\''`, "'")
		}
		body := unq(strings.TrimPrefix(words[1], "message "))
		// gcloud's dictionary flags: ^DELIM^ replaces the comma.
		dict, delim := unq(strings.TrimPrefix(words[2], "attribute ")), ","
		if rest, ok := strings.CutPrefix(dict, "^"); ok {
			delim, dict, _ = strings.Cut(rest, "^")
		}
		attrs := map[string]string{}
		for _, kv := range strings.Split(dict, delim) {
			k, v, _ := strings.Cut(kv, "=")
			attrs[k] = v
		}
		got, err := pubsubq.Decode([]byte(body), attrs)
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("%s: decoded %+v, %v; want %+v", tc.object, got, err, m)
		}
	}
}
