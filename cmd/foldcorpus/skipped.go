package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// skippedRows counts the rows the done shards skipped as missing objects
// (--lenient-missing, the ledger's counts) and lists their entry ids, read
// from each such shard file's accounting. Read-only.
func skippedRows(ctx context.Context, store blob.Store, shards []ledger.Shard) (n int64, ids []string, err error) {
	for _, s := range shards {
		if s.Status != ledger.Done || s.Counts.Skipped == 0 {
			continue
		}
		n += s.Counts.Skipped
		if err != nil {
			continue
		}
		m, merr := corpus.ReadMeta(ctx, store, s.Output)
		if merr != nil {
			err = fmt.Errorf("shard %05d (%s): %s", s.Index, s.Output, derrors.Describe(merr))
			continue
		}
		ids = append(ids, m.Accounting.SkippedIDs...)
	}
	return n, ids, err
}

// skippedLine says how many rows were skipped and names their entries (the
// first 10): "" when none were.
func skippedLine(ctx context.Context, store blob.Store, shards []ledger.Shard) string {
	n, ids, err := skippedRows(ctx, store, shards)
	if n == 0 {
		return ""
	}
	rows := "rows"
	if n == 1 {
		rows = "row"
	}
	if err != nil {
		return fmt.Sprintf("%d %s skipped as missing objects (--lenient-missing); their entries could not be read: %v", n, rows, err)
	}
	shown := ids
	more := ""
	if len(shown) > 10 {
		shown, more = shown[:10], fmt.Sprintf(" and %d more", len(ids)-10)
	}
	return fmt.Sprintf("%d %s skipped as missing objects (--lenient-missing): %s%s", n, rows, strings.Join(shown, ", "), more)
}
