package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/planner"
)

const runUsage = `usage: foldcorpus run [--manifest GLOB|DIR] --out DIR [flags]

Builds a corpus on this machine: one parquet file of documents per manifest
file (or group of row groups), the ledger OUT/_ledger.jsonl and a report in
OUT/report/. Without --manifest it writes a synthetic sample (64 structures,
4 manifest files) into OUT/_sample/ and builds from it. The run is refused
before any row is read when --out is not writable, is the manifest's own
folder, holds a different run, or when two manifest rows share an entry_id
(--allow-duplicate-ids accepts them). Rerunning the same command resumes: it
processes only the shards not done. ` + "`foldcorpus status OUT`" + ` shows the run.

The manifest's required columns: entry_id (string or integer, unique unless
--allow-duplicate-ids, never null or empty: the document's id and seed) and,
for the formats that read structures, one of
  gcs_uri      each row's structure file (mmCIF or PDB format, plain or gzip):
               a path, file:// or gs:// URI (another column: --cif-uri-column)
  cif_content  the structure's text inline (--cif-text-column cif_content)
The formats that read analysis records (contacts-v1 without --opt rotlib=DIR)
need their record columns instead (foldcorpus formats). The columns of
--passthrough are copied to the output when present. Results (the output
folder, the report) go to stdout, progress to stderr.

flags:
`

// alreadyDocs describes the documents of the shards found done, for the
// run summary ("" when none were).
func alreadyDocs(sum *localrun.Summary) string {
	if sum.AlreadyDone == 0 {
		return ""
	}
	return fmt.Sprintf(" (+%d in the shards already done)", sum.DocsAlreadyDone)
}

// runManifestGlob makes a local --manifest absolute; a folder means its
// *.parquet files. A folder with none says where below it some are.
func runManifestGlob(arg string) (string, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return abs, nil // a glob or a file: the planner lists it
	}
	glob := filepath.Join(abs, "*.parquet")
	if m, _ := filepath.Glob(glob); len(m) > 0 {
		return glob, nil
	}
	var sub string
	_ = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			sub = filepath.Dir(p)
			return filepath.SkipAll
		}
		return nil
	})
	if sub != "" {
		return "", &exitError{2, fmt.Errorf("--manifest %s: no *.parquet files directly in this folder; some are in %s: use --manifest '%s'", arg, sub, filepath.Join(sub, "*.parquet"))}
	}
	return "", &exitError{2, fmt.Errorf("--manifest %s: the folder holds no *.parquet files", arg)}
}

// extraArgs refuses positional arguments of a command that takes none.
// They are most often a glob the shell expanded (--manifest a*.parquet
// becomes --manifest a1.parquet a2.parquet ...), which would otherwise
// silently drop all files but the first.
func extraArgs(globFlag string, args []string) error {
	if len(args) == 0 {
		return nil
	}
	shown := args
	if len(shown) > 3 {
		shown = append(shown[:3:3], "...")
	}
	return &exitError{2, fmt.Errorf("unexpected arguments %s: if these are files the shell expanded from a glob, quote the glob (%s 'DIR/*.parquet')",
		strings.Join(shown, " "), globFlag)}
}

// printDropped names the manifest columns the output does not carry: those
// --passthrough can keep, and apart from them those the format writes
// itself (the output's column of that name is the format's, computed from
// the structure; --passthrough refuses them).
func printDropped(w io.Writer, p *planner.Result) {
	var keepable, own []string
	for _, name := range p.Dropped {
		if p.Output.Index(name) >= 0 {
			own = append(own, name)
		} else {
			keepable = append(keepable, name)
		}
	}
	if len(keepable) > 0 {
		fmt.Fprintf(w, "manifest columns not in the output: %s (name the ones to keep with --passthrough)\n", strings.Join(keepable, ", "))
	}
	if len(own) > 0 {
		fmt.Fprintf(w, "manifest columns replaced by the format's own, computed from the structure: %s (--passthrough cannot keep them)\n", strings.Join(own, ", "))
	}
}

// formatCounts writes per-reason counts for people: "none", or
// "no polymer chain 2, no room in the context 1" (largest first).
func formatCounts(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
