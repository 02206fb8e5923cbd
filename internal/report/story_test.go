package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// TestStory: a PDB corpus's story is read from where select --pdb, dedup
// and leakage write it (selection_stats.json beside the run's manifest
// folder, dedup_stats.json in the folder, report/leakage.json) and told
// on the page; a folder without them has none.
func TestStory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sel/selection_stats.json", `{"mode":"pdb","rows_in":43,"rows_selected":36,
		"funnel":[{"filter":"no_release_date","rows":2},{"filter":"resolution_too_low","rows":0},{"filter":"eval_set","rows":1},{"filter":"selected","rows":36}]}`)
	write("cut/dedup_stats.json", `{"rows_in":71,"groups":56,"docs_out":56,"dropped_duplicates":15,"docs_by_subset":{"monomer":43,"multimer":13}}`)
	write("cut/report/leakage.json", `{"figures":[{"subset":"all","documents":56,"eval_pdb_ids_present":0,
		"exact_sequence_matches":null,"cluster40_homologous":2,"cluster40_fraction":0.035714,"eval_entries_total":1,"eval_entries_covered":1}]}`)
	ctx := context.Background()
	st, err := readStory(ctx, localblob.Store{}, filepath.Join(dir, "cut"), filepath.Join(dir, "sel", "manifest", "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if st == nil || st.Selection == nil || st.Dedup == nil || len(st.Leakage) != 1 {
		t.Fatalf("story %+v: want the selection, the cut and the leakage", st)
	}
	if s := st.Selection; s.Scanned != 43 || s.Selected != 36 || len(s.Rejected) != 2 || s.Rejected[1] != (Rejected{"eval_set", 1}) {
		t.Errorf("selection %+v", s)
	}
	if d := st.Dedup; d.Kept != 56 || d.Duplicates != 15 || d.BySubset["multimer"] != 13 {
		t.Errorf("dedup %+v", d)
	}
	if l := st.Leakage[0]; l.Exact != nil || l.Homologous == nil || *l.Homologous != 2 {
		t.Errorf("leakage %+v", l)
	}
	page, err := renderPage(Summary{Source: dir, Story: st, Accounting: Accounting{Entries: 36, UnitDocs: map[string]int64{"monomer": 58}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"From the folder to the corpus", "entries scanned", "rejected: eval_set</td><td>1<",
		"entries selected</td><td>36<", "documents: monomer</td><td>58<", "dropped as duplicates</td><td>15<", "n/a (n/a)", "2 (0.035714)"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if st, err := readStory(ctx, localblob.Store{}, filepath.Join(dir, "sel"), ""); err != nil || st != nil {
		t.Errorf("a folder without the files: story %+v, %v; want none", st, err)
	}
	write("bad/dedup_stats.json", "{")
	if _, err := readStory(ctx, localblob.Store{}, filepath.Join(dir, "bad"), ""); err == nil || !strings.Contains(err.Error(), "dedup_stats.json") {
		t.Errorf("an unreadable dedup_stats.json: %v, want an error naming it", err)
	}
}
