// Package verify checks a corpus from its objects alone, never trusting the
// ledger: every manifest row accounted for exactly once across the shard
// files (a document, a filter by reason or a skip), every shard with exactly
// one output, no stray, temporary or partial object, each file's accounting
// agreeing with its rows, and (Deep) every document's sha1.
//
// What it reads: the manifests' footers (to recompute the run's shards with
// the planner's own split, planner.Split), every top-level object name in
// the output folder, each shard file's footer (its accounting) and its
// entry_id column, and the entry_id column of the manifest rows of each
// shard; with Deep, also the document and sha1 columns. Never a whole file.
//
// How "exactly once" is proved without a global set of ids: the planner's
// shards are disjoint slices of the manifest (row groups of files), so a
// shard file is right when its rows_in is its slice's row count, its
// accounting balances (rows_in = documents + filtered + skipped), and the
// entry ids of its documents and skips are rows of its slice, each as often
// as there (a multiset). An entry id in two files is then an id outside
// one file's slice, unless the manifest itself holds it in both slices (a
// run that allowed duplicate ids). A second file for a shard is found by
// its footer, whatever its name.
package verify

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// DefaultConcurrency bounds the shard files (and manifest files) read at
// once: reads are latency-bound on object storage.
const DefaultConcurrency = 32

// Options say what to verify.
type Options struct {
	// Out is the output folder or gs://BUCKET/PREFIX.
	Out string
	// Manifest is the run's manifest glob. When empty, each shard file's
	// footer names its manifest file and row groups, and the shard count
	// comes from the files' names: a shard with no file is then found, but
	// its manifest rows cannot be named.
	Manifest string
	// ManifestGeneration pins Manifest (one object) at the generation the
	// run was planned on (the run's pipeline.manifest_generation).
	ManifestGeneration int64
	// Prefix starts every shard file name ("part" when empty);
	// RowGroupsPerShard is the run's split (planner.Spec).
	Prefix            string
	RowGroupsPerShard int
	// RunID is the run the files must belong to; when empty, the run id
	// most of the shard files' footers name.
	RunID string
	// Ledger, when known, is the run's shard records: a missing file whose
	// shard the ledger says done, and a file whose counts the ledger
	// records otherwise, are named as such. Verify never takes the
	// ledger's word for anything.
	Ledger []ledger.Shard
	// Deep recomputes every document's sha1 from its bytes.
	Deep bool
	// Concurrency bounds the files read at once (DefaultConcurrency when 0).
	Concurrency int
}

// Report is what Verify found. The corpus is whole when OK.
type Report struct {
	Out      string `json:"out"`
	RunID    string `json:"run_id"`
	Manifest string `json:"manifest,omitempty"`
	Deep     bool   `json:"deep"`
	// Shards is the run's shard count; Files the shard files found under
	// their own names.
	Shards int `json:"shards"`
	Files  int `json:"files"`
	// Rows is the manifest's row count (-1 when no manifest was given);
	// Accounted the rows the shard files account for, as Documents,
	// Filtered (by reason) and Skipped.
	Rows      int64            `json:"manifest_rows"`
	Accounted int64            `json:"accounted_rows"`
	Documents int64            `json:"documents"`
	Filtered  map[string]int64 `json:"filtered"`
	Skipped   int64            `json:"skipped"`
	// SkippedParse counts the skipped rows whose object failed to parse
	// (--lenient-parse); SuspectSeqLen the rows written although their
	// structure's length differs from the manifest's seq_len, Suspects the
	// entry ids the files name of them. Neither makes a corpus not whole.
	SkippedParse  int64    `json:"skipped_parse,omitempty"`
	SuspectSeqLen int64    `json:"suspect_seq_len,omitempty"`
	Suspects      []string `json:"suspects,omitempty"`
	// Unchecked counts the files whose rows no manifest names (none was
	// given, and their footers name none): checked against their own
	// accounting only.
	Unchecked int `json:"files_without_manifest"`
	// Hashed counts the documents whose sha1 was recomputed (Deep).
	Hashed    int64          `json:"documents_hashed"`
	Missing   []Missing      `json:"missing"`
	Extra     []Extra        `json:"extra"`
	Disagrees []Disagreement `json:"disagreements"`
	// BytesRead is what was read of the shard files and manifests, in
	// Reads storage calls (opens, range reads, listings).
	BytesRead int64         `json:"bytes_read"`
	Reads     int64         `json:"reads"`
	Wall      time.Duration `json:"wall_ns"`
}

// Missing is a shard without an output file.
type Missing struct {
	Shard int    `json:"shard"`
	Name  string `json:"name"`
	// Manifest, RowGroups and Rows are the shard's manifest rows (Rows -1
	// when no manifest was given).
	Manifest  string `json:"manifest,omitempty"`
	RowGroups []int  `json:"row_groups,omitempty"`
	Rows      int64  `json:"rows"`
	// Ledger is the ledger's status of the shard ("" when unknown or not
	// recorded).
	Ledger string `json:"ledger,omitempty"`
}

// Extra kinds.
const (
	ExtraTemporary    = "temporary"     // a writer's temporary or partial object
	ExtraSecondOutput = "second_output" // a foldcorpus file of this run's shard, under another name
	ExtraOtherRun     = "other_run"     // a foldcorpus file of another run (or shard count)
	ExtraStray        = "stray"         // anything else
)

// Extra is an object that should not be in the output folder.
type Extra struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Shard is the shard its footer names (-1 when none).
	Shard  int    `json:"shard"`
	Detail string `json:"detail"`
}

// Disagreement is a shard file that does not agree with the manifest, its
// own rows, or the ledger.
type Disagreement struct {
	Name  string `json:"name"`
	Shard int    `json:"shard"`
	// Check names what disagrees: "unreadable", "identity" (run, shard,
	// total, manifest, row groups), "rows_in", "balance", "rows",
	// "entry_ids", "sha1", "ledger".
	Check  string `json:"check"`
	Detail string `json:"detail"`
}

// OK reports whether the corpus is whole: nothing missing, extra or in
// disagreement.
func (r *Report) OK() bool {
	return len(r.Missing) == 0 && len(r.Extra) == 0 && len(r.Disagrees) == 0
}

// OnlyMissing reports whether the missing shards are all that is wrong (a
// partial run that is otherwise sound).
func (r *Report) OnlyMissing() bool {
	return len(r.Extra) == 0 && len(r.Disagrees) == 0
}

// MissingShards returns the missing shards' indices, in order.
func (r *Report) MissingShards() []int {
	out := make([]int, len(r.Missing))
	for i, m := range r.Missing {
		out[i] = m.Shard
	}
	return out
}

// Verify checks the corpus in opts.Out through store (which serves the
// output folder and the manifests). It returns a report of every problem
// found; the error is for a verification that could not be done (a listing
// or a manifest that cannot be read, a transient storage error, ctx).
// Read-only, so safe to retry; files are read opts.Concurrency at a time.
func Verify(ctx context.Context, store blob.Store, opts Options) (_ *Report, err error) {
	defer derrors.Wrap(&err, "verify.Verify(%s)", opts.Out)
	start := time.Now()
	if opts.Out == "" {
		return nil, derrors.Permanent(fmt.Errorf("no output folder"))
	}
	if opts.Prefix == "" {
		opts.Prefix = "part"
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	v := &verifier{store: store, opts: opts, rep: &Report{Out: opts.Out, Manifest: opts.Manifest, Deep: opts.Deep,
		Rows: -1, Filtered: map[string]int64{}, Missing: []Missing{}, Extra: []Extra{}, Disagrees: []Disagreement{}}}
	objs, err := v.list(ctx)
	if err != nil {
		return nil, err
	}
	if err := v.readFooters(ctx, objs); err != nil {
		return nil, err
	}
	if err := v.plan(ctx, objs); err != nil {
		return nil, err
	}
	v.assign(objs)
	if err := v.checkFiles(ctx); err != nil {
		return nil, err
	}
	v.checkLedger()
	if err := v.strayLedgers(ctx, objs); err != nil {
		return nil, err
	}
	v.sortFindings()
	v.rep.Wall = time.Since(start)
	return v.rep, nil
}

// sortFindings orders every finding by shard, then name.
func (v *verifier) sortFindings() {
	r := v.rep
	slices.SortStableFunc(r.Missing, func(a, b Missing) int { return a.Shard - b.Shard })
	slices.SortStableFunc(r.Extra, func(a, b Extra) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	slices.SortStableFunc(r.Disagrees, func(a, b Disagreement) int {
		if a.Shard != b.Shard {
			return a.Shard - b.Shard
		}
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
}
