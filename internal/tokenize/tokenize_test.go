package tokenize

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
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
		{"no format", Request{RunID: "r", Shard: 0, Total: 2, Staged: "gs://o/s", Output: "gs://o/c"}, true},
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
	st := &Staged{Accounting: corpus.Accounting{RowsIn: 1}, Rows: []StagedRow{{EntryID: "a", Structure: "x", Input: json.RawMessage(`{"n":2}`)}}}
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
	if err != nil || len(back.Rows) != 1 || string(back.Rows[0].Input) != `{"n":2}` {
		t.Errorf("decoded %+v, %v", back, err)
	}
}

// TestStagedInputBytes: a row's input, staged as its format encoded it,
// gives the bytes the staging format wrote when it carried the adapted
// value itself (a typed field), so staged objects did not change.
func TestStagedInputBytes(t *testing.T) {
	type value struct {
		Names  []string  `json:"names"`
		Coords []float32 `json:"coords"`
		Note   string    `json:"note"`
	}
	v := &value{Names: []string{"N", "CA"}, Coords: []float32{0.1, -2.5e-7, 1e21}, Note: "<a&b>\u2028"}
	type typedRow struct {
		EntryID     string `json:"entry_id"`
		Structure   string `json:"structure"`
		Passthrough []any  `json:"passthrough,omitempty"`
		Input       *value `json:"input"`
	}
	type typedStaged struct {
		Accounting  corpus.Accounting `json:"accounting"`
		Passthrough []format.Column   `json:"passthrough,omitempty"`
		Rows        []typedRow        `json:"rows"`
	}
	cols := []format.Column{{Name: "split", Type: format.String, Nullable: true}}
	typed := typedStaged{Accounting: corpus.Accounting{RowsIn: 1}, Passthrough: cols, Rows: []typedRow{{EntryID: "a", Structure: "x", Passthrough: []any{"train"}, Input: v}}}
	enc, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	st := &Staged{Accounting: typed.Accounting, Passthrough: cols}
	if err := st.Add(fakeNeural{enc}, "a", "x", []any{"train"}, v); err != nil {
		t.Fatal(err)
	}
	got, err := EncodeStaged(st)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.NewEncoder(&want).Encode(typed); err != nil {
		t.Fatal(err)
	}
	if raw := gunzip(t, got); !bytes.Equal(raw, want.Bytes()) {
		t.Errorf("staged bytes changed:\n got %s\nwant %s", raw, want.Bytes())
	}
	if err := st.Add(fakeNeural{[]byte("{not json")}, "b", "y", nil, v); err == nil || !strings.Contains(err.Error(), "fake-neural") {
		t.Errorf("an encoding that is not JSON: %v, want an error naming the format", err)
	}
}

// fakeNeural is a format.Neural whose EncodeAdapted returns enc.
type fakeNeural struct{ enc []byte }

func (fakeNeural) Name() string                                 { return "fake-neural" }
func (fakeNeural) Kind() format.InputKind                       { return format.FromStructure }
func (fakeNeural) RecordColumns() []format.Column               { return nil }
func (fakeNeural) Columns() []format.Column                     { return nil }
func (fakeNeural) Generate(format.Input) (format.Result, error) { return format.Result{}, nil }
func (fakeNeural) Adapt(format.Input) (any, string, error)      { return nil, "", nil }
func (f fakeNeural) EncodeAdapted(any) ([]byte, error)          { return f.enc, nil }

func gunzip(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
