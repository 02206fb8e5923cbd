package shardfn_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/blobmux"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localqueue"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/planner"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

// TestLocalRowsMapped: local rows, through the CLI's store (blobmux over
// localblob), are parsed from the file's mapping (large files) or the
// row's buffer (small ones) with the same documents; a file truncated
// while its mapping is parsed fails its row at the fetch stage naming the
// entry, and a parser that panics or faults on its own fails the row at
// the parse stage; the process goes on in every case.
func TestLocalRowsMapped(t *testing.T) {
	big := "data_big" + strings.Repeat(" ", localblob.MinMapSize) // mapped
	parseBig := func(st *structure.Structure, data []byte) error {
		return fakeParse(st, []byte(strings.TrimRight(string(data), " ")))
	}
	var truncate string // the file the truncating parser cuts
	tests := []struct {
		name      string
		parse     func(*structure.Structure, []byte) error
		wantDocs  []string
		wantStage string // of the bad row B; "" = none
		wantErr   string
	}{
		{name: "mapped and read", parse: parseBig, wantDocs: []string{"doc A a", "doc B big", "doc C c"}},
		{name: "truncated while mapped", parse: func(st *structure.Structure, data []byte) error {
			if len(data) >= localblob.MinMapSize {
				if err := os.Truncate(truncate, 0); err != nil {
					return err
				}
				_ = data[len(data)-1] // a lost page: SIGBUS
			}
			return parseBig(st, data)
		}, wantStage: "fetch", wantErr: "while mapped"},
		{name: "parser panics", parse: func(st *structure.Structure, data []byte) error {
			if len(data) >= localblob.MinMapSize {
				panic("boom")
			}
			return parseBig(st, data)
		}, wantStage: "parse", wantErr: "parser panicked: boom"},
		{name: "parser faults on its own", parse: func(st *structure.Structure, data []byte) error {
			if len(data) >= localblob.MinMapSize {
				var p *structure.Structure
				_ = p.Name // nil dereference, outside the mapping
			}
			return parseBig(st, data)
		}, wantStage: "parse", wantErr: "parser panicked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx := context.Background()
			var mrows [][]any
			for _, r := range []row{{"A", "data_a"}, {"B", big}, {"C", "data_c"}} {
				p := filepath.Join(dir, "cif", r.id+".cif")
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(r.content), 0o644); err != nil {
					t.Fatal(err)
				}
				if r.id == "B" {
					truncate = p
				}
				mrows = append(mrows, []any{r.id, "file://" + p})
			}
			data, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}, mrows, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, "m"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "m", "m.parquet"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			led, err := localledger.Open(filepath.Join(dir, "out", localledger.FileName))
			if err != nil {
				t.Fatal(err)
			}
			defer led.Close()
			store := blobmux.New()
			store.Register("file", localblob.Store{})
			p, err := planner.Plan(ctx, planner.Deps{Store: store, Ledger: led, Publisher: localqueue.New(), NewFormat: newFake},
				planner.Spec{Manifest: filepath.Join(dir, "m", "*.parquet"), Format: "fake", Output: filepath.Join(dir, "out")})
			if err != nil {
				t.Fatal(err)
			}
			res, err := shardfn.Process(ctx, shardfn.Deps{Store: store, Ledger: led, Parse: tt.parse, NewFormat: newFake}, p.Messages[0])
			if tt.wantStage == "" {
				if err != nil {
					t.Fatal(err)
				}
				var docs []string
				if err := corpus.Read(ctx, store, res.Shard.Output, []string{corpus.Document}, func(r *manifest.Rows) error {
					for _, v := range r.Values {
						docs = append(docs, v[0].(string))
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(docs) != fmt.Sprint(tt.wantDocs) {
					t.Errorf("documents %q, want %q", docs, tt.wantDocs)
				}
				return
			}
			var bad *shardfn.BadRowsError
			if !errors.As(err, &bad) || !errors.Is(err, derrors.ErrPermanent) || len(bad.Rows) != 1 {
				t.Fatalf("Process = %v, want one bad row", err)
			}
			if r := bad.Rows[0]; r.EntryID != "B" || r.Stage != tt.wantStage || !strings.Contains(r.Err.Error(), tt.wantErr) {
				t.Errorf("bad row %s at %s: %v; want B at %s saying %q", r.EntryID, r.Stage, r.Err, tt.wantStage, tt.wantErr)
			}
			if changed := errors.Is(err, blob.ErrFileChanged); changed != (tt.wantStage == "fetch") {
				t.Errorf("errors.Is(%v, ErrFileChanged) = %v", err, changed)
			}
		})
	}
}
