package localrun

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/planner"
)

// TestGSOutputNeedsLedgerPath: a gs:// output has no folder for the ledger
// file, so a run without LedgerPath is refused before anything is read.
func TestGSOutputNeedsLedgerPath(t *testing.T) {
	_, err := Run(context.Background(), Config{Spec: planner.Spec{Manifest: "gs://m/x.parquet", Output: "gs://out/run"}})
	if !errors.Is(err, derrors.ErrPermanent) || !strings.Contains(err.Error(), "gs://out/run") || !strings.Contains(err.Error(), "ledger") {
		t.Errorf("Run with a gs:// output and no LedgerPath: err = %v, want a permanent error naming the output and the ledger", err)
	}
}
