package shardfn_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/tokenize"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

// neuralFake is fakeFormat made neural: Adapt gives one atom per letter of
// the block name ("short" is filtered, "bad" fails, as in Generate).
type neuralFake struct{ fakeFormat }

func (neuralFake) Name() string { return "bio2token-v2" }
func (neuralFake) Adapt(in format.Input) (any, string, error) {
	switch in.Structure.Name {
	case "short":
		return nil, "too_short", nil
	case "bad":
		return nil, "", errors.New("no model in the structure")
	}
	a := &b2t.Input{ResNames: []string{"GLY"}}
	for i := range in.Structure.Name {
		a.AtomNames = append(a.AtomNames, "CA")
		a.AtomRes = append(a.AtomRes, 0)
		a.Coords = append(a.Coords, float32(i), 0, 0)
	}
	return a, "", nil
}

func (neuralFake) EncodeAdapted(adapted any) ([]byte, error) {
	in, ok := adapted.(*b2t.Input)
	if !ok {
		return nil, fmt.Errorf("adapted to %T", adapted)
	}
	return json.Marshal(in)
}

func TestProcessHandsOffNeuralFormats(t *testing.T) {
	good := []row{{"A", "data_alpha"}, {"B", "data_short"}, {"C", "data_gamma"}}
	for _, tc := range []struct {
		name       string
		rows       []row
		handoff    bool
		publishErr error
		wantErr    error // nil = success
		wantStatus ledger.Status
	}{
		{name: "staged and published, left pending", rows: good, handoff: true, wantStatus: ledger.Pending},
		{name: "adapt error fails the shard", rows: []row{{"A", "data_a"}, {"Z", "data_bad"}}, handoff: true, wantErr: derrors.ErrPermanent, wantStatus: ledger.Failed},
		{name: "publish failure is transient, staged object kept", rows: good, handoff: true, publishErr: errors.New("unavailable"), wantErr: derrors.ErrTransient, wantStatus: ledger.Pending},
		{name: "no hand-off runs inline (local runner)", rows: good, wantStatus: ledger.Done},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, deps, dir := setup(t, tc.rows, false, plain)
			deps.NewFormat = func(string, map[string]string) (format.Format, error) { return neuralFake{}, nil }
			staged := filepath.Join(dir, "staging", "s0.json.gz")
			var published []tokenize.Request
			if tc.handoff {
				deps.Handoff = &shardfn.Handoff{
					StagedURI: func(queue.ShardMessage) (string, error) { return staged, nil },
					Publish: func(_ context.Context, r tokenize.Request) error {
						if tc.publishErr != nil {
							return tc.publishErr
						}
						published = append(published, r)
						return nil
					},
				}
			}
			ctx := context.Background()
			msg := p.Messages[0]
			res, err := shardfn.Process(ctx, deps, msg)
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("Process = %v, want %v", err, tc.wantErr)
			}
			shards, _ := deps.Ledger.Shards(ctx, p.Run.ID)
			s := shards[0]
			if s.Status != tc.wantStatus || !s.Lease.IsZero() {
				t.Fatalf("ledger shard %+v, want %s without a lease", s, tc.wantStatus)
			}
			_, outErr := (localblob.Store{}).ReadAll(ctx, msg.Output)
			if tc.handoff && outErr == nil {
				t.Error("the handing-off shard function wrote the output")
			}
			if !tc.handoff {
				if outErr != nil || res.Staged != "" {
					t.Errorf("inline run: output %v, staged %q", outErr, res.Staged)
				}
				return
			}
			if tc.wantStatus == ledger.Failed {
				if s.EntryID != "Z" {
					t.Errorf("failed shard names entry %q, want Z", s.EntryID)
				}
				return
			}
			data, err := (localblob.Store{}).ReadAll(ctx, staged)
			if err != nil {
				t.Fatalf("staged object: %v", err)
			}
			st, err := tokenize.DecodeStaged(data)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range st.Rows {
				ids = append(ids, r.EntryID)
			}
			if a := st.Accounting; !reflect.DeepEqual(ids, []string{"A", "C"}) || a.RowsIn != 3 || a.Filtered["too_short"] != 1 || a.RunID != msg.RunID || a.Manifest != msg.Manifest {
				t.Errorf("staged rows %v, accounting %+v", ids, a)
			}
			var in0 b2t.Input
			if err := json.Unmarshal(st.Rows[0].Input, &in0); err != nil {
				t.Fatal(err)
			}
			if in0.NumAtoms() != len("alpha") || len(st.Passthrough) != len(st.Rows[1].Passthrough) || st.Rows[1].Passthrough[0] != "train" {
				t.Errorf("staged row 0: %d atoms; passthrough %v %v", in0.NumAtoms(), st.Passthrough, st.Rows[1].Passthrough)
			}
			if tc.publishErr != nil {
				// The redelivery verifies the staged object and publishes.
				tc.publishErr = nil
				if _, err := shardfn.Process(ctx, deps, msg); err != nil {
					t.Fatalf("retry after the publish failure: %v", err)
				}
				shards, _ = deps.Ledger.Shards(ctx, p.Run.ID)
				if shards[0].Attempts != 2 || shards[0].Status != ledger.Pending {
					t.Errorf("after the retry: %+v", shards[0])
				}
			} else if res.Staged != staged {
				t.Errorf("Result.Staged = %q, want %q", res.Staged, staged)
			}
			want := tokenize.Request{RunID: msg.RunID, Shard: msg.Shard, Total: msg.Total, Format: "bio2token-v2", Staged: staged, Output: msg.Output}
			if len(published) != 1 || published[0] != want {
				t.Errorf("published %+v, want %+v", published, want)
			}
			if s, _ := deps.Ledger.Shards(ctx, p.Run.ID); !strings.HasPrefix(s[0].LastError, shardfn.LastErrorStaged) {
				t.Errorf("last error %q, want the staging note", s[0].LastError)
			}
			// The job can claim it at once.
			if _, err := deps.Ledger.Claim(ctx, p.Run.ID, 0, 60e9); err != nil {
				t.Errorf("claim after the hand-off: %v", err)
			}
		})
	}
}
