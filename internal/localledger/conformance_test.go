package localledger

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/ledger/ledgertest"
)

// TestConformance runs the ledger.Ledger suite over a fresh ledger file.
func TestConformance(t *testing.T) {
	ledgertest.Run(t, func(t *testing.T, now func() time.Time) ledger.Ledger {
		l, err := Open(filepath.Join(t.TempDir(), FileName))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		l.Now = now
		return l
	})
}
