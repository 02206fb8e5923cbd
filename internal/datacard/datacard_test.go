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
