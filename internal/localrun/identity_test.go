package localrun

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/planner"
)

func TestNormalize(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "m", "*.parquet")
	defaults := registry.Builtin().WithDefaults("contacts-and-distances-v2", nil)
	with := func(k, v string) map[string]string {
		o := registry.Builtin().WithDefaults("contacts-and-distances-v2", nil)
		o[k] = v
		return o
	}
	tests := []struct {
		name     string
		manifest string
		opts     map[string]string
		want     map[string]string
	}{
		{"plain path, no options", m, nil, defaults},
		{"file:// URI", "file://" + m, nil, defaults},
		{"default passed explicitly", m, map[string]string{"residue_plddt_min": "70"}, defaults},
		{"default spelled otherwise", "file://" + m, map[string]string{"residue_plddt_min": "70.0"}, defaults},
		{"another value", m, map[string]string{"residue_plddt_min": "50"}, with("residue_plddt_min", "50")},
		{"a value that is not a number stays", m, map[string]string{"plddt_bin_edges": "70, 80"}, with("plddt_bin_edges", "70, 80")},
	}
	for _, tt := range tests {
		got, err := Normalize(registry.Builtin(), planner.Spec{Manifest: tt.manifest, Format: "contacts-and-distances-v2", Options: tt.opts, Output: "file://" + dir + "/out"})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got.Manifest != m || got.Output != filepath.Join(dir, "out") || !reflect.DeepEqual(got.Options, tt.want) {
			t.Errorf("%s: Normalize = manifest %s, output %s, options %v; want %s, %s, %v", tt.name, got.Manifest, got.Output, got.Options, m, filepath.Join(dir, "out"), tt.want)
		}
	}
}

func TestRunDiff(t *testing.T) {
	a := ledger.Run{ID: "run-a", Manifest: "/m/*.parquet", Format: "contacts-and-distances-v2", Output: "/o", Shards: 4,
		Options: map[string]string{"residue_plddt_min": "70", "pipeline.lenient_missing": "false"}}
	tests := []struct {
		name string
		edit func(r *ledger.Run)
		want []string
	}{
		{"option", func(r *ledger.Run) {
			r.Options = map[string]string{"residue_plddt_min": "50", "pipeline.lenient_missing": "false"}
		},
			[]string{`option residue_plddt_min: "70" (recorded) vs "50" (this command)`}},
		{"option set only now", func(r *ledger.Run) {
			r.Options = map[string]string{"residue_plddt_min": "70", "pipeline.lenient_missing": "false", "think_p": "0.2"}
		},
			[]string{`option think_p: unset (recorded) vs "0.2" (this command)`}},
		{"manifest and shards", func(r *ledger.Run) { r.Manifest, r.Shards = "/n/*.parquet", 5 },
			[]string{"manifest: /m/*.parquet (recorded) vs /n/*.parquet (this command)", "shards: 4 (recorded) vs 5 (this command)"}},
		{"nothing shown", func(r *ledger.Run) { r.ID = "run-b" }, []string{"the manifest files: the same glob lists other files or files of other sizes"}},
	}
	for _, tt := range tests {
		b := a
		tt.edit(&b)
		if got := runDiff(a, b); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: runDiff = %q, want %q", tt.name, got, tt.want)
		}
	}
}
