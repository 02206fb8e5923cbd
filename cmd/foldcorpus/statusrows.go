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

// rowsShown is how many rows a line of rowNotes names.
const rowsShown = 10

// rowNotes are the lines that name the rows of a run's done shards that
// were not written as they were given: skipped as missing objects
// (--lenient-missing), skipped as objects that failed to parse
// (--lenient-parse, each with its error), and written although their
// structure's length differs from the manifest's seq_len (suspect). The
// ledger's counts say how many; the shard files' accounting names them.
// Read-only; nil when there are none.
func rowNotes(ctx context.Context, store blob.Store, shards []ledger.Shard) []rowNote {
	var skipped, unparsed, suspect int64
	for _, s := range shards {
		if s.Status == ledger.Done {
			skipped += s.Counts.Skipped
			unparsed += s.Counts.SkippedParse
			suspect += s.Counts.SuspectSeqLen
		}
	}
	if unparsed == 0 && suspect == 0 {
		if line := skippedLine(ctx, store, shards); line != "" {
			return []rowNote{{"skipped", line}}
		}
		return nil
	}
	var missingIDs []string
	var parsed, suspects []corpus.RowIssue
	var err error
	for _, s := range shards {
		if s.Status != ledger.Done || s.Counts.Skipped+s.Counts.SuspectSeqLen == 0 {
			continue
		}
		m, merr := corpus.ReadMeta(ctx, store, s.Output)
		if merr != nil {
			err = fmt.Errorf("shard %05d (%s): %s", s.Index, s.Output, derrors.Describe(merr))
			break
		}
		a := m.Accounting
		unparseable := map[string]bool{}
		for _, p := range a.ParseErrors {
			unparseable[p.EntryID] = true
		}
		for _, id := range a.SkippedIDs {
			if !unparseable[id] {
				missingIDs = append(missingIDs, id)
			}
		}
		parsed = append(parsed, a.ParseErrors...)
		suspects = append(suspects, a.Suspects...)
	}
	var lines []rowNote
	add := func(kind string, n int64, what string, named []string) {
		if n == 0 {
			return
		}
		rows := "rows"
		if n == 1 {
			rows = "row"
		}
		if err != nil {
			lines = append(lines, rowNote{kind, fmt.Sprintf("%d %s %s; their entries could not be read: %v", n, rows, what, err)})
			return
		}
		more := ""
		if int64(len(named)) < n {
			more = fmt.Sprintf(" and %d more", n-int64(len(named)))
		}
		lines = append(lines, rowNote{kind, fmt.Sprintf("%d %s %s: %s%s", n, rows, what, strings.Join(named, ", "), more)})
	}
	add("skipped", skipped-unparsed, "skipped as missing objects (--lenient-missing)", firstRows(missingIDs))
	add("skipped", unparsed, "skipped as objects that failed to parse (--lenient-parse)", issues(parsed, 200))
	add("suspect", suspect, "suspect: the structure's length differs from the manifest's seq_len (a truncated object?); their documents were written", issues(suspects, 0))
	return lines
}

// rowNote is one line of rowNotes: its kind ("skipped" or "suspect") and
// its text.
type rowNote struct{ kind, text string }

// firstRows is the first rowsShown of ids.
func firstRows(ids []string) []string {
	return ids[:min(len(ids), rowsShown)]
}

// issues names the first rowsShown rows of rs, each with its detail cut to
// width bytes (0: whole).
func issues(rs []corpus.RowIssue, width int) []string {
	var out []string
	for _, r := range rs[:min(len(rs), rowsShown)] {
		d := r.Detail
		if width > 0 && len(d) > width {
			d = strings.ToValidUTF8(d[:width], "") + "..."
		}
		out = append(out, fmt.Sprintf("%s (row %d: %s)", r.EntryID, r.Row, d))
	}
	return out
}
