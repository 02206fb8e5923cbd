package tpujob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synth"
	"github.com/foldcorpus/foldcorpus/internal/tokenize"
)

// throwaway is a neural format that lives only in this test: its adapted
// value is a list of atoms (its own type and staged layout, not
// bio2token's), and its documents are the codes as text. Adding it takes
// the format itself and the one Register line below: no edit of
// tokenize, shardfn or this package.
type throwaway struct{}

const throwawayName = "throwaway-neural-v0"

func init() { Register(throwawayName, throwawayModel) }

type throwawayAtom struct {
	Res  string     `json:"res"`
	Name string     `json:"name"`
	XYZ  [3]float32 `json:"xyz"`
}

func (throwaway) Name() string                   { return throwawayName }
func (throwaway) Kind() format.InputKind         { return format.FromStructure }
func (throwaway) RecordColumns() []format.Column { return nil }
func (throwaway) Columns() []format.Column       { return throwawayModel.Columns }
func (throwaway) Generate(format.Input) (format.Result, error) {
	return format.Result{}, errors.New("runs on the job only")
}

// Adapt takes the atoms of a synthetic backbone whose length is the entry
// id's number.
func (throwaway) Adapt(in format.Input) (any, string, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(in.EntryID, "T"))
	if err != nil {
		return nil, "", err
	}
	bb := synth.Backbone(rand.New(rand.NewPCG(uint64(n), 9)), n, "ALA", 8)
	atoms := make([]throwawayAtom, n)
	for i := range atoms {
		atoms[i] = throwawayAtom{bb.ResNames[bb.AtomRes[i]], bb.AtomNames[i], [3]float32(bb.Coords[3*i : 3*i+3])}
	}
	return atoms, "", nil
}

func (throwaway) EncodeAdapted(adapted any) ([]byte, error) {
	atoms, ok := adapted.([]throwawayAtom)
	if !ok {
		return nil, fmt.Errorf("adapted to %T", adapted)
	}
	return json.Marshal(map[string]any{"atoms": atoms})
}

var throwawayModel = Model{
	Columns: []format.Column{{Name: "num_codes", Type: format.Int64}},
	Decode: func(data []byte) (*b2t.Input, error) {
		var v struct{ Atoms []throwawayAtom }
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, err
		}
		if len(v.Atoms) == 0 {
			return nil, errors.New("no atoms")
		}
		in := &b2t.Input{}
		for i, a := range v.Atoms {
			if i%4 == 0 {
				in.ResNames = append(in.ResNames, a.Res)
			}
			in.AtomRes = append(in.AtomRes, int32(len(in.ResNames)-1))
			in.AtomNames = append(in.AtomNames, a.Name)
			in.Coords = append(in.Coords, a.XYZ[:]...)
		}
		return in, nil
	},
	Result: func(entryID string, in *b2t.Input, codes []int32) (format.Result, error) {
		if codes == nil {
			return format.Result{Filtered: "too_long", Values: []any{nil}}, nil
		}
		return format.Result{Document: throwawayDoc(entryID, codes), Values: []any{int64(len(codes))}}, nil
	},
}

func throwawayDoc(entryID string, codes []int32) string {
	return fmt.Sprint(entryID, codes)
}

// TestThrowawayNeuralFormat stages a throwaway neural format's adapted
// rows the way the shard function does (Adapt, tokenize.Staged.Add,
// Stage) and runs them through the job, which picks the format's Model by
// the request's format name: every document is the one made from the
// row's own codes. A format the job does not know fails the shard
// permanently.
func TestThrowawayNeuralFormat(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	enc := testEncoder(t)
	var store localblob.Store
	l, err := localledger.Open(filepath.Join(dir, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var f format.Neural = throwaway{}
	ids := []string{"T8", "T20", "T36"}
	if err := l.CreateRun(ctx, ledger.Run{ID: "toy", Format: f.Name(), Shards: 2, Output: dir}); err != nil {
		t.Fatal(err)
	}
	st := &tokenize.Staged{Accounting: corpus.Accounting{RowsIn: int64(len(ids)), Filtered: map[string]int64{}}}
	want := map[string]string{}
	for _, id := range ids {
		adapted, _, err := f.Adapt(format.Input{EntryID: id})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Add(f, id, "gs://b/"+id+".cif", nil, adapted); err != nil {
			t.Fatal(err)
		}
		in, err := throwawayModel.Decode(st.Rows[len(st.Rows)-1].Input)
		if err != nil {
			t.Fatal(err)
		}
		codes, err := enc.Encode(in)
		if err != nil {
			t.Fatal(err)
		}
		want[id] = throwawayDoc(id, codes)
	}
	staged := filepath.Join(dir, "staged-0.json.gz")
	if err := tokenize.Stage(ctx, store, staged, st); err != nil {
		t.Fatal(err)
	}
	job, err := New(Config{Devices: 1, Ladder: testLadder, FlushAfter: 20 * time.Millisecond}, enc, store, l)
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	req := Request{RunID: "toy", Shard: 0, Total: 2, Format: f.Name(), Staged: staged, Output: filepath.Join(dir, "out-0.parquet")}
	if err := job.Handle(ctx, req); err != nil {
		t.Fatalf("Handle: %v", err)
	}
	got := map[string]string{}
	err = corpus.Read(ctx, store, req.Output, []string{corpus.EntryID, corpus.Document, "num_codes"}, func(r *manifest.Rows) error {
		for _, v := range r.Values {
			got[v[0].(string)] = v[1].(string)
			if v[2] != int64(len(strings.Fields(v[1].(string)))) {
				return fmt.Errorf("row %s: num_codes %v", v[0], v[2])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d documents, want %d", len(got), len(want))
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: document %.60q, want %.60q", id, got[id], w)
		}
	}

	// The same staged object under a name no Model has is permanent.
	other := req
	other.Shard, other.Format, other.Output = 1, "unregistered-neural-v0", filepath.Join(dir, "out-1.parquet")
	if err := job.Handle(ctx, other); !errors.Is(err, derrors.ErrPermanent) || !strings.Contains(err.Error(), "unregistered-neural-v0") {
		t.Errorf("unregistered format: %v, want a permanent error naming it", err)
	}
	shards, err := l.Shards(ctx, "toy")
	if err != nil {
		t.Fatal(err)
	}
	if shards[0].Status != ledger.Done || shards[1].Status != ledger.Failed {
		t.Errorf("ledger %v %v, want done and failed", shards[0].Status, shards[1].Status)
	}
}
