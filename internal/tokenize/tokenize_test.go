package tokenize

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

func TestMessageRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		req     Request
		wantErr bool
	}{
		{"valid", Request{RunID: "r", Shard: 1, Total: 2, Format: "bio2token-v2", Staged: "gs://o/s", Output: "gs://o/c"}, false},
		{"shard out of range", Request{RunID: "r", Shard: 2, Total: 2, Format: "bio2token-v2", Staged: "gs://o/s", Output: "gs://o/c"}, true},
		{"other format", Request{RunID: "r", Shard: 0, Total: 2, Format: "contacts-v1", Staged: "gs://o/s", Output: "gs://o/c"}, true},
	} {
		data, attrs, err := tc.req.Message()
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: Message err = %v, want error %v", tc.name, err, tc.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		back, err := DecodeRequest(data)
		if err != nil || back != tc.req || attrs[AttrRun] != "r" || attrs[AttrShard] != "1" {
			t.Errorf("%s: round trip %+v %v %v", tc.name, back, attrs, err)
		}
	}
}

func TestStageCreateOrVerify(t *testing.T) {
	ctx := context.Background()
	store := localblob.Store{}
	uri := filepath.Join(t.TempDir(), "s.json.gz")
	in := &b2t.Input{ResNames: []string{"GLY"}, AtomNames: []string{"N", "CA"}, AtomRes: []int32{0, 0}, Coords: []float32{0, 0, 0, 1, 1, 1}}
	st := &Staged{Accounting: corpus.Accounting{RowsIn: 1}, Rows: []StagedRow{{EntryID: "a", Structure: "x", Input: in}}}
	for i := range 2 { // a retry finds its own object
		if err := Stage(ctx, store, uri, st); err != nil {
			t.Fatalf("stage %d: %v", i, err)
		}
	}
	other := *st
	other.Accounting.RowsIn = 2
	if err := Stage(ctx, store, uri, &other); !errors.Is(err, derrors.ErrPermanent) {
		t.Errorf("different bytes at the same URI: %v, want permanent", err)
	}
	data, err := store.ReadAll(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeStaged(data)
	if err != nil || len(back.Rows) != 1 || back.Rows[0].Input.NumAtoms() != 2 {
		t.Errorf("decoded %+v, %v", back, err)
	}
}
