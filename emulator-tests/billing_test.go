package emulatortests

import (
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// TestUserProjectOnlyOnRequesterPays runs the whole flow twice and looks at
// every request the functions sent to fake-gcs-server. With the default
// configuration none carries userProject (on a real project it would need
// serviceusage.services.use, which the planner lacks: a 403 that the
// planner treats as permanent, so the run would silently never start).
// With the structures bucket configured requester-pays, every request to
// it, and only to it, carries userProject = the project.
func TestUserProjectOnlyOnRequesterPays(t *testing.T) {
	dir, gs := afdbGolden(t)
	gs = gs[:2]
	for _, tc := range []struct {
		name          string
		requesterPays []string
	}{
		{"default", nil},
		{"structures requester-pays", []string{dataBucket}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStack(t, stackOpts{requesterPays: tc.requesterPays})
			rows := s.uploadStructures(dir, gs, "")
			runID := s.uploadManifest("runs/billing.parquet", rows, 0)
			for _, sh := range s.waitSettled(runID, 120*time.Second) {
				if sh.Status != ledger.Done {
					t.Fatalf("shard %d: %s (%s)", sh.Index, sh.Status, sh.Error)
				}
			}
			seen := map[string]int{}
			for _, r := range s.proxy.requests() {
				seen[r.Bucket]++
				want := ""
				if len(tc.requesterPays) > 0 && r.Bucket == tc.requesterPays[0] {
					want = s.project
				}
				if r.UserProject != want {
					t.Errorf("%s %s (bucket %s): userProject %q, want %q", r.Method, r.Path, r.Bucket, r.UserProject, want)
				}
			}
			for _, b := range []string{manifestBucket, dataBucket, outBucket} {
				if seen[b] == 0 {
					t.Errorf("no request to bucket %s seen (saw %v)", b, seen)
				}
			}
		})
	}
}
