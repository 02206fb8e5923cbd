package shardfn_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localqueue"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/planner"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

// TestProcessBadRows: a shard with several bad rows goes on to the end,
// fails naming every one of them (entry, row, stage) in input order, in the
// error and in the ledger, bounded by ledger.MaxBadRows with the rest
// counted, and writes no output.
func TestProcessBadRows(t *testing.T) {
	mixed := []row{{"A", "data_a"}, {"X", "garbage"}, {"B", "data_short"}, {"Z", "data_bad"}, {"M", ""}, {"C", "data_c"}, {"Y", "oops"}}
	var many []row
	for i := range ledger.MaxBadRows + 7 {
		many = append(many, row{fmt.Sprintf("G%03d", i), "data_g"}, row{fmt.Sprintf("E%03d", i), "not mmcif"})
	}
	var manyWant []ledger.BadRow
	for i := range ledger.MaxBadRows {
		manyWant = append(manyWant, ledger.BadRow{EntryID: fmt.Sprintf("E%03d", i), Row: int64(2*i + 1), Stage: "parse"})
	}
	for _, tc := range []struct {
		name     string
		rows     []row
		want     []ledger.BadRow // Error not compared
		wantMore int64
		wantMsg  string
	}{
		{name: "parse, generate, fetch and parse again", rows: mixed,
			want: []ledger.BadRow{{EntryID: "X", Row: 1, Stage: "parse"}, {EntryID: "Z", Row: 3, Stage: "generate"},
				{EntryID: "M", Row: 4, Stage: "fetch"}, {EntryID: "Y", Row: 6, Stage: "parse"}},
			wantMsg: "4 bad rows: entry X (row 1): parse: "},
		{name: "bounded", rows: many, want: manyWant, wantMore: 7,
			wantMsg: fmt.Sprintf("%d bad rows: entry E000 (row 1)", ledger.MaxBadRows+7)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, deps, dir := setup(t, tc.rows, false, plain)
			ctx := context.Background()
			_, err := shardfn.Process(ctx, deps, p.Messages[0])
			var bad *shardfn.BadRowsError
			if !errors.As(err, &bad) || !errors.Is(err, derrors.ErrPermanent) || errors.Is(err, derrors.ErrTransient) {
				t.Fatalf("Process = %v, want a permanent *BadRowsError", err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not say %q", err, tc.wantMsg)
			}
			if len(bad.Rows) != len(tc.want) || bad.More != tc.wantMore {
				t.Errorf("BadRowsError has %d rows + %d more, want %d + %d", len(bad.Rows), bad.More, len(tc.want), tc.wantMore)
			}
			shards, err := deps.Ledger.Shards(ctx, p.Run.ID)
			if err != nil {
				t.Fatal(err)
			}
			s := shards[0]
			if s.Status != ledger.Failed || s.EntryID != tc.want[0].EntryID || s.BadRowsMore != tc.wantMore {
				t.Errorf("ledger shard %s at entry %s, %d more bad rows; want failed at %s, %d more", s.Status, s.EntryID, s.BadRowsMore, tc.want[0].EntryID, tc.wantMore)
			}
			if len(s.BadRows) != len(tc.want) {
				t.Fatalf("ledger has %d bad rows, want %d: %+v", len(s.BadRows), len(tc.want), s.BadRows)
			}
			for i, b := range s.BadRows {
				w := tc.want[i]
				if b.EntryID != w.EntryID || b.Row != w.Row || b.Stage != w.Stage || b.Error == "" {
					t.Errorf("bad row %d = %+v, want %+v with an error", i, b, w)
				}
			}
			if _, err := os.Stat(p.Messages[0].Output); err == nil {
				t.Errorf("failed shard left an output file")
			}
			// A rerun that succeeds clears the bad rows.
			for _, r := range tc.rows {
				if r.content != "data_g" && r.content != "data_a" && r.content != "data_c" && r.content != "data_short" {
					if err := os.WriteFile(filepath.Join(dir, "cif", r.id+".cif"), []byte("data_fixed"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := shardfn.Process(ctx, deps, p.Messages[0]); err != nil {
				t.Fatalf("rerun after the fix: %v", err)
			}
			shards, _ = deps.Ledger.Shards(ctx, p.Run.ID)
			if s := shards[0]; s.Status != ledger.Done || len(s.BadRows) != 0 || s.BadRowsMore != 0 || s.Error != "" {
				t.Errorf("ledger shard after a good rerun = %+v, want done without bad rows", s)
			}
		})
	}
}

// TestProcessBadRowsInline: the inline-text path (sequential) also goes on
// past a bad row and names every one.
func TestProcessBadRowsInline(t *testing.T) {
	dir := t.TempDir()
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "cif_content", Type: format.String}}
	rows := [][]any{{"A", "data_a"}, {"X", "garbage"}, {"Z", "data_bad"}, {"", "data_b"}, {"C", "data_c"}}
	// The planner refuses an empty entry_id before any shard runs; the
	// shard's own check is for a message published by hand: plan over a
	// manifest with an id there, then put the empty one back.
	planned := append([][]any(nil), rows...)
	planned[3] = []any{"B", "data_b"}
	data, err := manifest.Encode(cols, planned, 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := (localblob.Store{}).Create(ctx, filepath.Join(dir, "m.parquet"), data); err != nil {
		t.Fatal(err)
	}
	led, err := localledger.Open(filepath.Join(dir, "out", localledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	p, err := planner.Plan(ctx, planner.Deps{Store: localblob.Store{}, Ledger: led, Publisher: localqueue.New(), NewFormat: newFake},
		planner.Spec{Manifest: filepath.Join(dir, "m.parquet"), Format: "fake", Output: filepath.Join(dir, "out"), TextColumn: "cif_content"})
	if err != nil {
		t.Fatal(err)
	}
	if data, err = manifest.Encode(cols, rows, 2); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "m.parquet"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = shardfn.Process(ctx, shardfn.Deps{Store: localblob.Store{}, Ledger: led, Parse: fakeParse, NewFormat: newFake}, p.Messages[0])
	var bad *shardfn.BadRowsError
	if !errors.As(err, &bad) {
		t.Fatalf("Process = %v, want a *BadRowsError", err)
	}
	var got []string
	for _, r := range bad.Rows {
		got = append(got, fmt.Sprintf("%s/%d/%s", r.EntryID, r.Row, r.Stage))
	}
	if want := "[X/1/parse Z/2/generate /3/manifest]"; fmt.Sprint(got) != want {
		t.Errorf("bad rows %v, want %s", got, want)
	}
	shards, _ := led.Shards(ctx, p.Run.ID)
	if s := shards[0]; s.Status != ledger.Failed || len(s.BadRows) != 3 {
		t.Errorf("ledger shard %s with %d bad rows, want failed with 3", s.Status, len(s.BadRows))
	}
	if _, err := os.Stat(p.Messages[0].Output); err == nil {
		t.Errorf("failed shard left an output file")
	}
}
