package firestoreledger

import (
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/ledger/ledgertest"
)

// TestConformance runs the ledger.Ledger suite over Firestore on the
// emulator, a fresh project per test.
func TestConformance(t *testing.T) {
	ledgertest.Run(t, func(t *testing.T, now func() time.Time) ledger.Ledger {
		l, _ := newLedger(t)
		l.now = now
		return l
	})
}
