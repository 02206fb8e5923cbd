package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// throwaway is a test-only format: its document counts the residues of
// the first chain. Everything the registry, `formats` and `run` need of it
// is the one Spec below, registered with one line.
type throwaway struct{ prefix string }

var throwawaySpec = format.Spec{
	Name:  "throwaway-test-v0",
	Input: format.FromStructure,
	Options: func() []format.Option {
		return []format.Option{{Key: "prefix", Default: "residues=", Doc: "text before the count"}}
	},
	New: format.OptionsOnly(func(opts map[string]string) (format.Format, error) {
		for k := range opts {
			if k != "prefix" {
				return nil, fmt.Errorf("throwaway-test-v0: unknown option %q", k)
			}
		}
		p, ok := opts["prefix"]
		if !ok {
			p = "residues="
		}
		return throwaway{prefix: p}, nil
	}),
}

func (throwaway) Name() string                   { return throwawaySpec.Name }
func (throwaway) Kind() format.InputKind         { return format.FromStructure }
func (throwaway) RecordColumns() []format.Column { return nil }
func (throwaway) Columns() []format.Column {
	return []format.Column{{Name: "seq_len", Type: format.Int64}}
}
func (f throwaway) Generate(in format.Input) (format.Result, error) {
	if len(in.Structure.Models) == 0 || len(in.Structure.Models[0].Chains) == 0 {
		return format.Result{Filtered: "no chain"}, nil
	}
	n := len(in.Structure.Models[0].Chains[0].Residues)
	return format.Result{Document: fmt.Sprintf("%s%d", f.prefix, n), Values: []any{int64(n)}}, nil
}

// captureStdout runs fn with os.Stdout redirected and returns what it
// printed.
func captureStdout(t *testing.T, fn func() error) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	ferr := fn()
	os.Stdout = saved
	w.Close()
	return string(<-done), ferr
}

// TestThrowawayFormat: a format added with one registration line, in a
// test's own package, is listed by `foldcorpus formats` with its option
// and default, and builds a corpus with `foldcorpus run` (the embedded
// sample) whose documents are its own.
func TestThrowawayFormat(t *testing.T) {
	if err := formatRegistry.Register(throwawaySpec); err != nil { // the one registration line
		t.Fatal(err)
	}
	t.Cleanup(func() { formatRegistry.Unregister(throwawaySpec.Name) })
	ctx := context.Background()

	listed, err := captureStdout(t, func() error { return runFormats(ctx, nil) })
	if err != nil || !strings.Contains(listed, "throwaway-test-v0\n  input: mmCIF or PDB format structures") ||
		!strings.Contains(listed, "prefix") || !strings.Contains(listed, "residues=") {
		t.Errorf("formats: %v\n%s\nwant throwaway-test-v0 with its option prefix (default residues=)", err, listed)
	}

	out := filepath.Join(t.TempDir(), "out")
	if _, err := captureStdout(t, func() error {
		return runRun(ctx, []string{"--format", throwawaySpec.Name, "--opt", "prefix=n=", "--out", out})
	}); err != nil {
		t.Fatalf("run --format %s: %v", throwawaySpec.Name, err)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "part-*.parquet"))
	if len(parts) == 0 {
		t.Fatalf("run wrote no shard into %s", out)
	}
	docs := 0
	for _, p := range parts {
		meta, err := corpus.ReadMeta(ctx, localblob.Store{}, p)
		if err != nil || meta.Accounting.Format != throwawaySpec.Name {
			t.Errorf("%s: accounting %+v, %v; want format %s", p, meta, err, throwawaySpec.Name)
		}
		err = corpus.Read(ctx, localblob.Store{}, p, []string{"document", "seq_len"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				if want := fmt.Sprintf("n=%d", v[1].(int64)); v[0] != want {
					t.Errorf("%s: document %q, want %q", p, v[0], want)
				}
				docs++
			}
			return nil
		})
		if err != nil {
			t.Errorf("reading %s: %v", p, err)
		}
	}
	if docs == 0 {
		t.Errorf("run wrote no documents of %s", throwawaySpec.Name)
	}
}
