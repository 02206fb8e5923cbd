package shardfn_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

// TestProcessLenientParse: with LenientParse a row whose object fails to
// parse is skipped, counted (Skipped, SkippedParse) and named with its
// error; the shard is done and balanced, its ledger record counts it.
// A missing object and a generate error still fail the shard (neither is a
// parse failure).
func TestProcessLenientParse(t *testing.T) {
	ctx := context.Background()
	t.Run("skips and names", func(t *testing.T) {
		rows := []row{{"A", "data_a"}, {"X", "garbage"}, {"B", "data_b"}, {"Y", "oops"}, {"C", "data_c"}}
		p, deps, _ := setup(t, rows, false, plain)
		msg := p.Messages[0]
		msg.LenientParse = true
		res, err := shardfn.Process(ctx, deps, msg)
		if err != nil {
			t.Fatalf("Process: %v", err)
		}
		a := res.Accounting
		if a.RowsIn != 5 || a.DocsOut != 3 || a.Skipped != 2 || a.SkippedParse != 2 || !a.LenientParse || !a.Balanced() {
			t.Errorf("accounting %+v: want 5 rows in, 3 documents, 2 skipped, both unparseable, balanced", a)
		}
		if fmt.Sprint(a.SkippedIDs) != "[X Y]" {
			t.Errorf("skipped ids %v, want [X Y]", a.SkippedIDs)
		}
		want := []corpus.RowIssue{{EntryID: "X", Row: 1, Detail: "line 1: expected data_ block"}, {EntryID: "Y", Row: 3, Detail: "line 1: expected data_ block"}}
		if fmt.Sprint(a.ParseErrors) != fmt.Sprint(want) {
			t.Errorf("parse errors %+v, want %+v", a.ParseErrors, want)
		}
		meta, err := corpus.ReadMeta(ctx, deps.Store, msg.Output)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(meta.Accounting.ParseErrors) != fmt.Sprint(want) || meta.Accounting.SkippedParse != 2 {
			t.Errorf("the footer's accounting names %+v (%d), want %+v", meta.Accounting.ParseErrors, meta.Accounting.SkippedParse, want)
		}
		shards, _ := deps.Ledger.Shards(ctx, p.Run.ID)
		if c := shards[0].Counts; shards[0].Status != ledger.Done || c.Skipped != 2 || c.SkippedParse != 2 || !c.Balanced() {
			t.Errorf("ledger shard %s with counts %+v, want done with 2 skipped, 2 unparseable", shards[0].Status, c)
		}
	})
	for _, tc := range []struct {
		name, want string
		rows       []row
	}{
		{"a missing object still fails", "not found", []row{{"A", "data_a"}, {"M", ""}}},
		{"a generate error still fails", "single polymer chain", []row{{"A", "data_a"}, {"Z", "data_bad"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, deps, _ := setup(t, tc.rows, false, plain)
			msg := p.Messages[0]
			msg.LenientParse = true
			_, err := shardfn.Process(ctx, deps, msg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, derrors.ErrPermanent) {
				t.Fatalf("Process = %v, want a permanent error containing %q", err, tc.want)
			}
		})
	}
}

// residueParse reads "data_NAME" into a structure of one model and one
// chain of len(NAME)-1 polymer residues; anything else is a parse error.
func residueParse(st *structure.Structure, data []byte) error {
	if err := fakeParse(st, data); err != nil {
		return err
	}
	res := make([]structure.Residue, len(st.Name)-1)
	for i := range res {
		res[i] = structure.Residue{Name: "ALA", Subchain: "A", Entity: structure.EntityPolymer}
	}
	st.Models = []structure.Model{{Num: 1, Chains: []structure.Chain{{Name: "A", Residues: res}}}}
	return nil
}

// TestProcessSuspectSeqLen: a row whose structure has another length than
// its manifest's seq_len (setup writes seq_len = the row's index) is
// counted and named as suspect, whatever its outcome, and its document is
// written as any other; the ledger record counts it. The format writes its
// own seq_len, so the manifest's is read for the check only: the output's
// columns do not change.
func TestProcessSuspectSeqLen(t *testing.T) {
	ctx := context.Background()
	// residues: 0, 1, 2, 1 (seq_len 3), 4 (filtered), 0 (seq_len 5)
	rows := []row{{"A", "data_a"}, {"B", "data_bb"}, {"C", "data_cut"}, {"D", "data_dd"}, {"E", "data_short"}, {"F", "data_f"}}
	p, deps, _ := setup(t, rows, false, plain)
	deps.Parse = residueParse
	msg := p.Messages[0]
	res, err := shardfn.Process(ctx, deps, msg)
	if err != nil {
		t.Fatalf("Process: %v", err)
	}
	a := res.Accounting
	want := []corpus.RowIssue{{EntryID: "D", Row: 3, Detail: "seq_len 3 in the manifest, 1 residues in the structure"},
		{EntryID: "F", Row: 5, Detail: "seq_len 5 in the manifest, 0 residues in the structure"}}
	if a.SuspectSeqLen != 2 || fmt.Sprint(a.Suspects) != fmt.Sprint(want) {
		t.Errorf("suspects %d %+v, want 2 %+v", a.SuspectSeqLen, a.Suspects, want)
	}
	if a.RowsIn != 6 || a.DocsOut != 5 || !a.Balanced() {
		t.Errorf("accounting %+v: want 6 rows in, 5 documents, balanced", a)
	}
	meta, err := corpus.ReadMeta(ctx, deps.Store, msg.Output)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Accounting.SuspectSeqLen != 2 || fmt.Sprint(meta.Accounting.Suspects) != fmt.Sprint(want) {
		t.Errorf("the footer's accounting: suspects %d %+v, want 2 %+v", meta.Accounting.SuspectSeqLen, meta.Accounting.Suspects, want)
	}
	if got := fmt.Sprint(meta.Columns); got != "[entry_id structure document sha1 seq_len global_plddt split]" {
		t.Errorf("columns %s: the manifest's seq_len, read for the check, must not change them", got)
	}
	var docs []string
	err = corpus.Read(ctx, deps.Store, msg.Output, []string{"document"}, func(r *manifest.Rows) error {
		for _, v := range r.Values {
			docs = append(docs, v[0].(string))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(docs); got != "[doc A a doc B bb doc C cut doc D dd doc F f]" {
		t.Errorf("documents %s: the suspect rows' documents are written as any other", got)
	}
	shards, _ := deps.Ledger.Shards(ctx, p.Run.ID)
	if c := shards[0].Counts; c.SuspectSeqLen != 2 {
		t.Errorf("ledger counts %+v, want 2 suspect", c)
	}
}
