package datacard_test

import (
	"bytes"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/foldcorpus/foldcorpus/internal/datacard"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/report"
)

// Parse splits a card into its YAML header (decoded by yaml.v3) and body.
func parse(t *testing.T, card []byte) (datacard.Header, map[string]any, string) {
	t.Helper()
	rest, ok := bytes.CutPrefix(card, []byte("---\n"))
	if !ok {
		t.Fatalf("the card does not start with ---:\n%s", card)
	}
	head, body, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		t.Fatalf("no closing --- in the card:\n%s", card)
	}
	var h datacard.Header
	if err := yaml.Unmarshal(head, &h); err != nil {
		t.Fatalf("YAML header: %v\n%s", err, head)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(head, &raw); err != nil {
		t.Fatal(err)
	}
	return h, raw, string(body)
}

func TestBuild(t *testing.T) {
	in := datacard.Input{Repo: "marinfold/afdb-cad", License: "cc-by-4.0", DataFiles: "data/*.parquet", Version: "v1.2.3",
		Run: &ledger.Run{ID: "r1", Manifest: "/m/*.parquet", Format: "contacts-and-distances-v2", Options: map[string]string{"context_length": "8192"}},
		Summary: report.Summary{Format: "contacts-and-distances-v2", Files: 3, ShardsTotal: 3, Documents: 12345, ContextLength: 8192,
			Accounting: report.Accounting{RowsIn: 13000, DocsOut: 12345, Filtered: map[string]int64{"too_long": 600, "low_plddt": 55}, ShardsDone: 3}},
		Manifest: &datacard.Manifest{Repo: "timodonnell/afdb", Requested: "main", Commit: "0123abcd", LockFile: "_hf.lock.json"},
		Plots:    []report.Plot{{File: "report/seq_len.png", Title: "Sequence length"}}, Report: "report"}
	card, err := datacard.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	h, raw, body := parse(t, card)
	if h.License != "cc-by-4.0" || h.PrettyName != "afdb-cad" || len(h.Configs) != 1 || h.Configs[0].Name != "default" ||
		len(h.Configs[0].DataFiles) != 1 || h.Configs[0].DataFiles[0] != (datacard.DataFile{Split: "train", Path: "data/*.parquet"}) {
		t.Errorf("header %+v", h)
	}
	if h.SizeCategories[0] != "10K<n<100K" || h.TaskCategories[0] != "text-generation" {
		t.Errorf("size %v, tasks %v", h.SizeCategories, h.TaskCategories)
	}
	for _, k := range []string{"license", "pretty_name", "configs", "tags", "task_categories"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("no %s key in the header", k)
		}
	}
	for _, want := range []string{"12345 documents", "| rows in | 13000 |", "| filtered: too_long | 600 |", "| filtered: low_plddt | 55 |",
		"0123abcd", "_hf.lock.json", "timodonnell/afdb", "foldcorpus v1.2.3", "option `context_length`: `8192`",
		"![Sequence length](report/seq_len.png)", "contacts-and-distances-v2"} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}
	again, _ := datacard.Build(in)
	if !bytes.Equal(card, again) {
		t.Error("two builds of the same input differ")
	}
}

// TestBuildStory: a PDB corpus's card tells its way from the folder of
// files: entries scanned, rejected by reason, selected and processed, the
// run's funnel, documents by subset, the deduplicated cut and the
// leakage figures; an AFDB card has no such section.
func TestBuildStory(t *testing.T) {
	two, one := int64(2), int64(0)
	s := report.Summary{Documents: 56, Files: 1,
		Accounting: report.Accounting{RowsIn: 36, Entries: 36, UnitDocs: map[string]int64{"monomer": 58, "multimer": 13},
			Funnel: map[string]int64{"asu_chain_dropped:not_protein": 3}},
		Story: &report.Story{
			Selection: &report.SelectionStory{Scanned: 43, Selected: 36, Rejected: []report.Rejected{{Filter: "eval_set", Entries: 1}}},
			Dedup:     &report.DedupStory{RowsIn: 71, Groups: 56, Kept: 56, Duplicates: 15, BySubset: map[string]int64{"monomer": 43}},
			Leakage:   []report.LeakageRow{{Subset: "all", Documents: 56, EvalPresent: &one, Homologous: &two, EvalEntries: 1}},
		}}
	card, err := datacard.Build(datacard.Input{Repo: "o/pdb", License: "cc0-1.0", DataFiles: "data/*.parquet", Summary: s})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## From the folder to the corpus", "| entries scanned | 43 |", "| rejected: eval_set | 1 |",
		"| entries selected | 36 |", "| entries processed | 36 |", "| asu_chain_dropped:not_protein | 3 |", "| documents: multimer | 13 |",
		"| dropped as duplicates | 15 |", "| kept: monomer | 43 |", "| all | 56 | 0 | n/a | 2 | n/a of 1 |"} {
		if !strings.Contains(string(card), want) {
			t.Errorf("card lacks %q:\n%s", want, card)
		}
	}
	s.Story, s.Accounting = nil, report.Accounting{RowsIn: 3}
	if card, _ := datacard.Build(datacard.Input{Repo: "o/afdb", License: "cc-by-4.0", DataFiles: "data/*.parquet", Summary: s}); strings.Contains(string(card), "From the folder") {
		t.Error("an AFDB card tells a PDB story")
	}
}
