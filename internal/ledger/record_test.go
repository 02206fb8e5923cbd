package ledger_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
)

// failingLedger answers every Fail and Release with a transient error.
type failingLedger struct{ ledger.Ledger }

func (failingLedger) Fail(context.Context, ledger.Shard) error {
	return derrors.Transient(errors.New("ledger unavailable"))
}

func (failingLedger) Release(context.Context, ledger.Shard) error {
	return derrors.Transient(errors.New("ledger unavailable"))
}

// TestRecord: what each failure leaves in the ledger and the answer the
// worker gives.
func TestRecord(t *testing.T) {
	ctx := context.Background()
	led, err := localledger.Open(filepath.Join(t.TempDir(), "ledger.json"))
	if err != nil {
		t.Fatal(err)
	}
	const run = "r"
	if err := led.CreateRun(ctx, ledger.Run{ID: run, Shards: 4}); err != nil {
		t.Fatal(err)
	}
	claim := func(i int) ledger.Shard {
		s, err := led.Claim(ctx, run, i, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	status := func(i int) ledger.Shard {
		shards, err := led.Shards(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		return shards[i]
	}
	bad := derrors.Permanent(errors.New("row E1: no atoms"))
	busy := derrors.Transient(errors.New("storage 503"))

	// transient: back to pending, the cause its last error; answered transient
	s := claim(0)
	if err := ledger.Record(ctx, led, s, busy); !errors.Is(err, derrors.ErrTransient) || errors.Is(err, derrors.ErrPermanent) {
		t.Errorf("transient: answer %v, want transient", err)
	}
	if got := status(0); got.Status != ledger.Pending || got.LastError != "storage 503" || got.Error != "" {
		t.Errorf("transient: shard %s error %q last error %q, want pending with the cause as last error", got.Status, got.Error, got.LastError)
	}
	// permanent: failed with the cause and entry id; answered permanent
	s = claim(1)
	s.EntryID = "E1"
	if err := ledger.Record(ctx, led, s, bad); !errors.Is(err, derrors.ErrPermanent) || errors.Is(err, derrors.ErrTransient) {
		t.Errorf("permanent: answer %v, want permanent", err)
	}
	if got := status(1); got.Status != ledger.Failed || got.Error != "row E1: no atoms" || got.EntryID != "E1" {
		t.Errorf("permanent: shard %s error %q entry %q, want failed, the cause, E1", got.Status, got.Error, got.EntryID)
	}
	// without a claim, and dead-lettered
	if err := ledger.Record(ctx, led, ledger.Shard{RunID: run, Index: 2, Status: ledger.DeadLettered}, bad); !errors.Is(err, derrors.ErrPermanent) {
		t.Errorf("dead letter: answer %v, want permanent", err)
	}
	if got := status(2); got.Status != ledger.DeadLettered || got.Error != "row E1: no atoms" {
		t.Errorf("dead letter: shard %s error %q, want dead-lettered with the cause", got.Status, got.Error)
	}
	// a done shard stays done; an unknown run has nothing to record
	s = claim(3)
	s.Output = "part-3"
	if err := led.Complete(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := ledger.Record(ctx, led, ledger.Shard{RunID: run, Index: 3}, bad); !errors.Is(err, derrors.ErrPermanent) {
		t.Errorf("done: answer %v, want permanent", err)
	}
	if got := status(3); got.Status != ledger.Done {
		t.Errorf("done: shard %s, want done", got.Status)
	}
	if err := ledger.Record(ctx, led, ledger.Shard{RunID: "unknown", Index: 0}, bad); !errors.Is(err, derrors.ErrPermanent) {
		t.Errorf("unknown run: answer %v, want permanent", err)
	}
	// the ledger failing: answered transient only, so that the message is
	// redelivered, never acknowledged unrecorded
	for _, cause := range []error{bad, busy} {
		if err := ledger.Record(ctx, failingLedger{led}, ledger.Shard{RunID: run, Index: 0}, cause); !errors.Is(err, derrors.ErrTransient) || errors.Is(err, derrors.ErrPermanent) {
			t.Errorf("ledger failing on %v: answer %v, want transient only", cause, err)
		}
	}
}

// TestRecordBoundsTheCause: a long cause is cut to MaxError bytes of valid
// UTF-8.
func TestRecordBoundsTheCause(t *testing.T) {
	ctx := context.Background()
	led, err := localledger.Open(filepath.Join(t.TempDir(), "ledger.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := led.CreateRun(ctx, ledger.Run{ID: "r", Shards: 1}); err != nil {
		t.Fatal(err)
	}
	long := errors.New(strings.Repeat("é", ledger.MaxError))
	ledger.Record(ctx, led, ledger.Shard{RunID: "r", Index: 0}, long)
	shards, err := led.Shards(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if e := shards[0].Error; len(e) > ledger.MaxError+3 || !utf8.ValidString(e) || !strings.HasSuffix(e, "...") {
		t.Errorf("cause of %d bytes (valid UTF-8 %v), want at most %d and cut", len(e), utf8.ValidString(e), ledger.MaxError+3)
	}
}
