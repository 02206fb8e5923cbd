package emulatortests

import (
	"fmt"
	"slices"
	"strings"
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

// TestCrossRegionWarning: functions in one region, buckets in another (the
// fake reports US-CENTRAL1 for every bucket, as GCS reports a regional
// bucket): the planner's log and status name both regions; with the
// functions in the buckets' region (TestDeployLayout) nothing is said.
func TestCrossRegionWarning(t *testing.T) {
	dir, gs := afdbGolden(t)
	s := newStack(t, stackOpts{region: "europe-west4"})
	rows := s.uploadStructures(dir, gs[:1], "")
	runID := s.uploadManifest("runs/region.parquet", rows, 0)
	s.waitSettled(runID, 120*time.Second)
	var warnings []string
	for _, rec := range s.fns["Planner"].logRecords("cross-region") {
		warnings = append(warnings, fmt.Sprint(rec["warning"]))
	}
	for _, b := range []string{manifestBucket, dataBucket, outBucket} {
		want := "bucket " + b + " is in us-central1, the functions in europe-west4"
		if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("planner warnings %q lack %q", warnings, want)
		}
	}
	out, _ := s.cli("status", "--run", runID, "--region", "europe-west4")
	for _, b := range []string{manifestBucket, outBucket} {
		if want := "cross-region: bucket " + b + " is in us-central1, the functions in europe-west4"; !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if out, _ := s.cli("status", "--run", runID, "--region", "us-central1"); strings.Contains(out, "cross-region") {
		t.Errorf("status warns with every bucket in the functions' region:\n%s", out)
	}
}
