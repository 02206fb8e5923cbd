// Package datacard writes the dataset card (README.md) of a published
// corpus: the Hub's YAML metadata header (configs with data_files,
// license, pretty_name, task categories and tags) and a Markdown body
// written from the run's report: what the corpus is, its format and
// options, where its manifest came from, the accounting, the version of
// foldcorpus that built it, and the report's plots.
package datacard

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/report"
)

// Manifest is where the run's manifest came from, when it was fetched from
// the Hub (fetch-manifest's lock file).
type Manifest struct {
	Repo      string // OWNER/NAME
	Requested string // the revision asked for
	Commit    string // the commit it resolved to
	Path      string
	LockFile  string // the lock file's name (_hf.lock.json)
}

// Input is what a card is written from.
type Input struct {
	Repo       string // OWNER/NAME of the published dataset
	PrettyName string // default: the repository's name
	License    string // an SPDX-like id the Hub knows ("cc-by-4.0")
	// DataFiles is the glob of the shard files in the repository
	// (data/*.parquet), the one split "train".
	DataFiles string
	Run       *ledger.Run // the run's ledger record (optional)
	Summary   report.Summary
	Manifest  *Manifest // optional
	Version   string    // foldcorpus version that published it
	// Plots are the report's plots, by their path in the repository.
	Plots []report.Plot
	// Report is the folder of the report's files in the repository.
	Report string
	// Partial names the shards that are not published (--partial).
	Partial []string
}

// Header is the card's YAML metadata, as the Hub reads it.
type Header struct {
	License        string   `yaml:"license"`
	PrettyName     string   `yaml:"pretty_name"`
	TaskCategories []string `yaml:"task_categories"`
	Tags           []string `yaml:"tags"`
	SizeCategories []string `yaml:"size_categories,omitempty"`
	Configs        []Config `yaml:"configs"`
}

// Config is one dataset configuration.
type Config struct {
	Name      string     `yaml:"config_name"`
	DataFiles []DataFile `yaml:"data_files"`
	Default   bool       `yaml:"default,omitempty"`
}

// DataFile maps a split to the files' glob.
type DataFile struct {
	Split string `yaml:"split"`
	Path  string `yaml:"path"`
}

// sizeCategory is the Hub's size_categories bucket for n rows.
func sizeCategory(n int64) string {
	switch {
	case n < 1_000:
		return "n<1K"
	case n < 10_000:
		return "1K<n<10K"
	case n < 100_000:
		return "10K<n<100K"
	case n < 1_000_000:
		return "100K<n<1M"
	case n < 10_000_000:
		return "1M<n<10M"
	case n < 100_000_000:
		return "10M<n<100M"
	case n < 1_000_000_000:
		return "100M<n<1B"
	}
	return "n>1T"
}

// Build returns the card's bytes: "---", the YAML header, "---", the body.
// It is a function of its input (no timestamps), so a rerun writes the
// same card.
func Build(in Input) ([]byte, error) {
	if in.DataFiles == "" || in.Repo == "" {
		return nil, fmt.Errorf("datacard.Build: want a repository and a data_files glob")
	}
	s := in.Summary
	format := s.Format
	if format == "" && in.Run != nil {
		format = in.Run.Format
	}
	if in.PrettyName == "" {
		in.PrettyName = path.Base(in.Repo)
	}
	h := Header{License: in.License, PrettyName: in.PrettyName, TaskCategories: []string{"text-generation"},
		Tags:    []string{"biology", "protein", "protein-structure", "foldcorpus"},
		Configs: []Config{{Name: "default", Default: true, DataFiles: []DataFile{{Split: "train", Path: in.DataFiles}}}}}
	if h.License == "" {
		h.License = "other"
	}
	if format != "" {
		h.Tags = append(h.Tags, format)
	}
	if s.Documents > 0 {
		h.SizeCategories = []string{sizeCategory(s.Documents)}
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(h); err != nil {
		return nil, fmt.Errorf("datacard.Build: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("datacard.Build: %w", err)
	}
	buf.WriteString("---\n\n")
	body(&buf, in, format)
	return buf.Bytes(), nil
}

func body(b *bytes.Buffer, in Input, format string) {
	s := in.Summary
	a := s.Accounting
	fmt.Fprintf(b, "# %s\n\n", in.PrettyName)
	fmt.Fprintf(b, "A training corpus for protein language models built by [foldcorpus](https://github.com/foldcorpus/foldcorpus) from protein structures: %d documents in %d parquet files (`%s`), format `%s`.\n\n",
		s.Documents, s.Files, in.DataFiles, orDash(format))
	if len(in.Partial) > 0 {
		fmt.Fprintf(b, "**Partial:** %d shards of the run are not published (failed or missing): %s.\n\n", len(in.Partial), strings.Join(in.Partial, ", "))
	}
	b.WriteString("```python\nfrom datasets import load_dataset\nds = load_dataset(\"" + in.Repo + "\", split=\"train\")\n```\n\n")

	b.WriteString("## Format\n\n")
	fmt.Fprintf(b, "- format: `%s`\n", orDash(format))
	if s.ContextLength > 0 {
		fmt.Fprintf(b, "- context length: %d\n", s.ContextLength)
	}
	if in.Run != nil {
		keys := make([]string, 0, len(in.Run.Options))
		for k := range in.Run.Options {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := in.Run.Options[k]
			if v == "" {
				v = `""`
			}
			fmt.Fprintf(b, "- option `%s`: `%s`\n", k, v)
		}
	}
	b.WriteString("\n## Source\n\n")
	if in.Run != nil {
		fmt.Fprintf(b, "- manifest: `%s`\n- run: `%s`\n", in.Run.Manifest, in.Run.ID)
	}
	if m := in.Manifest; m != nil {
		fmt.Fprintf(b, "- fetched from the Hub: [%s](https://huggingface.co/datasets/%s) at commit `%s` (asked for `%s`), recorded in `%s`\n", m.Repo, m.Repo, m.Commit, orDash(m.Requested), m.LockFile)
		if m.Path != "" {
			fmt.Fprintf(b, "- path in that repository: `%s`\n", m.Path)
		}
	}
	fmt.Fprintf(b, "- built with foldcorpus %s\n\n", orDash(in.Version))

	b.WriteString("## Counts\n\n| | |\n|---|---:|\n")
	fmt.Fprintf(b, "| rows in | %d |\n| documents | %d |\n", a.RowsIn, a.DocsOut)
	reasons := make([]string, 0, len(a.Filtered))
	for k := range a.Filtered {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		fmt.Fprintf(b, "| filtered: %s | %d |\n", k, a.Filtered[k])
	}
	if len(reasons) == 0 {
		b.WriteString("| filtered | 0 |\n")
	}
	if a.Skipped > 0 {
		fmt.Fprintf(b, "| skipped (missing objects) | %d |\n", a.Skipped)
	}
	fmt.Fprintf(b, "| shards | %d of %d done |\n", a.ShardsDone, s.ShardsTotal)
	if d := s.NumTokens; d != nil {
		fmt.Fprintf(b, "| tokens per document (median, p99) | %.0f, %.0f |\n", d.P50, d.P99)
	}
	if d := s.SeqLen; d != nil {
		fmt.Fprintf(b, "| sequence length (median, p99) | %.0f, %.0f |\n", d.P50, d.P99)
	}
	b.WriteString("\n")
	story(b, s)
	if len(in.Plots) > 0 || in.Report != "" {
		b.WriteString("## Report\n\n")
		if in.Report != "" {
			fmt.Fprintf(b, "The figures as numbers: [`%s/summary.json`](%s/summary.json).\n\n", in.Report, in.Report)
		}
		for _, p := range in.Plots {
			fmt.Fprintf(b, "![%s](%s)\n\n", p.Title, p.File)
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// story writes a PDB corpus's way from its folder of files to these
// documents (report.Story and the run's funnel), when the report has one.
func story(b *bytes.Buffer, s report.Summary) {
	st, a := s.Story, s.Accounting
	if st == nil && a.Entries == 0 {
		return
	}
	b.WriteString("## From the folder to the corpus\n\n| step | n |\n|---|---:|\n")
	if st != nil && st.Selection != nil {
		fmt.Fprintf(b, "| entries scanned | %d |\n", st.Selection.Scanned)
		for _, r := range st.Selection.Rejected {
			fmt.Fprintf(b, "| rejected: %s | %d |\n", r.Filter, r.Entries)
		}
		fmt.Fprintf(b, "| entries selected | %d |\n", st.Selection.Selected)
	}
	if a.Entries > 0 {
		fmt.Fprintf(b, "| entries processed | %d |\n", a.Entries)
		for _, k := range sortedKeys(a.Funnel) {
			fmt.Fprintf(b, "| %s | %d |\n", k, a.Funnel[k])
		}
		for _, k := range sortedKeys(a.UnitDocs) {
			fmt.Fprintf(b, "| documents: %s | %d |\n", k, a.UnitDocs[k])
		}
	}
	if st != nil && st.Dedup != nil {
		d := st.Dedup
		fmt.Fprintf(b, "| deduplicated: rows in | %d |\n| cluster compositions | %d |\n| dropped as duplicates | %d |\n", d.RowsIn, d.Groups, d.Duplicates)
		for _, k := range sortedKeys(d.BySubset) {
			fmt.Fprintf(b, "| kept: %s | %d |\n", k, d.BySubset[k])
		}
	}
	b.WriteString("\n")
	if st == nil || len(st.Leakage) == 0 {
		return
	}
	b.WriteString("Leakage against the eval set (`foldcorpus leakage`, exp222's qc.py figures):\n\n")
	b.WriteString("| subset | documents | eval ids present | exact sequence matches | 40% cluster homologous | eval entries covered |\n|---|---:|---:|---:|---:|---:|\n")
	for _, r := range st.Leakage {
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s of %d |\n", r.Subset, r.Documents, optInt(r.EvalPresent), optInt(r.Exact), optInt(r.Homologous), optInt(r.Covered), r.EvalEntries)
	}
	b.WriteString("\n")
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// optInt is a figure that may not have been measured ("n/a").
func optInt(v *int64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprint(*v)
}
