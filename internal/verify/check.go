package verify

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// maxNamed bounds the entry ids or rows one finding names.
const maxNamed = 5

// checkFiles checks every shard file under its own name, opts.Concurrency
// at a time.
func (v *verifier) checkFiles(ctx context.Context) error {
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(v.opts.Concurrency)
	for i, o := range v.files {
		if o == nil {
			continue
		}
		g.Go(func() error {
			c, err := v.checkFile(gctx, i, o)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			v.rep.Disagrees = append(v.rep.Disagrees, c.found...)
			v.rep.Hashed += c.hashed
			if c.unchecked {
				v.rep.Unchecked++
			}
			if c.counted {
				a := o.meta.Accounting
				v.rep.Accounted += a.RowsIn
				v.rep.Documents += a.DocsOut
				v.rep.Skipped += a.Skipped
				v.rep.SkippedParse += a.SkippedParse
				v.rep.SuspectSeqLen += a.SuspectSeqLen
				for _, r := range a.Suspects {
					v.rep.Suspects = append(v.rep.Suspects, r.EntryID)
				}
				for k, n := range a.Filtered {
					v.rep.Filtered[k] += n
				}
			}
			return nil
		})
	}
	err := g.Wait()
	v.rep.BytesRead, v.rep.Reads = v.read.Load(), v.reqs.Load()
	return err
}

// fileCheck is what checkFile found in one file.
type fileCheck struct {
	found   []Disagreement
	hashed  int64
	counted bool // its accounting counts toward the report's totals
	// unchecked: no manifest names its rows (none given, none in its footer)
	unchecked bool
}

func (c *fileCheck) add(o *object, shard int, check, format string, args ...any) {
	c.found = append(c.found, Disagreement{Name: o.name, Shard: shard, Check: check, Detail: fmt.Sprintf(format, args...)})
}

// checkFile checks shard i's file o against the shard's manifest rows, its
// own rows and (Deep) its documents' bytes.
func (v *verifier) checkFile(ctx context.Context, i int, o *object) (*fileCheck, error) {
	c := &fileCheck{}
	if o.err != nil {
		c.add(o, i, "unreadable", "not a readable foldcorpus file (partial, truncated or foreign): %s", derrors.Describe(o.err))
		return c, nil
	}
	a, m := o.meta.Accounting, o.meta
	p := v.parts[i]
	switch {
	case p.uri == "" && a.Manifest == "":
		// no manifest given, and the footer names none (a synthetic
		// file): its rows are checked against its own accounting only
		c.unchecked = true
		p.rows = -1
	case p.uri == "": // no manifest given: the footer names the shard's rows
		rows, err := v.footerRows(ctx, a.Manifest, a.RowGroups)
		if err := fatal(ctx, err); err != nil {
			return nil, err
		}
		if err != nil {
			c.add(o, i, "identity", "its footer names manifest %s, which cannot be read: %s", a.Manifest, derrors.Describe(err))
			return c, nil
		}
		p = part{uri: a.Manifest, rgs: a.RowGroups, rows: rows}
	}
	identity := len(c.found)
	if a.RunID != v.runID {
		c.add(o, i, "identity", "its footer says run %s; the run is %s", a.RunID, v.runID)
	}
	if a.Shard != i || a.Total != v.total {
		c.add(o, i, "identity", "its footer says shard %d of %d; its name says %d of %d", a.Shard, a.Total, i, v.total)
	}
	if !c.unchecked && (!sameURI(a.Manifest, p.uri) || !slices.Equal(a.RowGroups, p.rgs)) {
		c.add(o, i, "identity", "its footer says manifest %s row groups %v; the shard is manifest %s row groups %v", a.Manifest, a.RowGroups, p.uri, p.rgs)
	}
	c.counted = len(c.found) == identity
	if p.rows >= 0 && a.RowsIn != p.rows {
		c.add(o, i, "rows_in", "its accounting says %d rows in; the shard's manifest rows are %d", a.RowsIn, p.rows)
	}
	if !a.Balanced() {
		c.add(o, i, "balance", "rows_in %d != %d documents + %d filtered %v + %d skipped (a multi-document format: %d entries, documents by kind %v)", a.RowsIn, a.DocsOut, sum(a.Filtered), a.Filtered, a.Skipped, a.Entries, a.UnitDocs)
	}
	if int64(len(a.SkippedIDs)) != a.Skipped {
		c.add(o, i, "balance", "%d rows skipped, but %d skipped entry ids named", a.Skipped, len(a.SkippedIDs))
	}
	if m.NumRows != a.DocsOut {
		c.add(o, i, "rows", "%d rows in the file; its accounting says %d documents", m.NumRows, a.DocsOut)
	}
	ids, ok, err := v.readFile(ctx, o, c, i)
	if err != nil {
		return nil, err
	}
	if !ok {
		return c, nil
	}
	if int64(len(ids)) != m.NumRows {
		c.add(o, i, "rows", "%d entry ids read; the footer says %d rows", len(ids), m.NumRows)
	}
	if a.Multi {
		// documents of a Multi format carry their units' ids; the shard's
		// ledger file has one row per entry, under the manifest's id
		if ids, ok, err = v.ledgerIDs(ctx, o, c, i); err != nil || !ok {
			return c, err
		}
	}
	if c.unchecked {
		return c, nil
	}
	want, err := v.manifestIDs(ctx, p)
	if err := fatal(ctx, err); err != nil {
		return nil, err
	}
	if err != nil {
		c.add(o, i, "entry_ids", "the shard's manifest rows cannot be read: %s", derrors.Describe(err))
		return c, nil
	}
	var foreign []string
	for _, id := range append(ids, a.SkippedIDs...) {
		if want[id] == 0 {
			foreign = append(foreign, id)
			continue
		}
		want[id]--
	}
	if len(foreign) > 0 {
		c.add(o, i, "entry_ids", "%d entry ids are not rows of this shard (manifest %s row groups %v), or appear more often than there: %s",
			len(foreign), p.uri, p.rgs, named(foreign))
	}
	return c, nil
}

// readFile reads o's entry_id column (and, Deep, its documents and sha1s,
// checking each). A file whose columns cannot be read is a finding (not
// ok); a transient error is returned.
func (v *verifier) readFile(ctx context.Context, o *object, c *fileCheck, i int) (_ []string, ok bool, _ error) {
	cols := []string{corpus.EntryID}
	if v.opts.Deep {
		cols = append(cols, corpus.Document, corpus.SHA1)
	}
	for _, col := range cols {
		if !slices.Contains(o.meta.Columns, col) {
			c.add(o, i, "rows", "no %s column", col)
			return nil, false, nil
		}
	}
	var ids, bad []string
	err := corpus.Read(ctx, v.store, o.uri, cols, func(r *manifest.Rows) error {
		for k, row := range r.Values {
			id := idString(row[0])
			ids = append(ids, id)
			if !v.opts.Deep {
				continue
			}
			doc, _ := row[1].(string)
			want, _ := row[2].(string)
			h := sha1.Sum([]byte(doc))
			if got := hex.EncodeToString(h[:]); got != want {
				bad = append(bad, fmt.Sprintf("row %d (entry %s): sha1 column %s, document hashes to %s", r.First+int64(k), id, want, got))
			}
			c.hashed++
		}
		return nil
	})
	if err := fatal(ctx, err); err != nil {
		return nil, false, err
	}
	if err != nil {
		c.add(o, i, "unreadable", "its columns cannot be read (partial or corrupt file): %s", derrors.Describe(err))
		return nil, false, nil
	}
	if len(bad) > 0 {
		c.add(o, i, "sha1", "%d documents differ from their sha1: %s", len(bad), named(bad))
	}
	return ids, true, nil
}

// ledgerIDs reads the entry ids of the ledger file of o, a Multi format's
// shard (corpus.LedgerURI): one per entry, as many as its accounting's
// Entries. A missing or unreadable ledger file, or another count, is a
// finding (not ok).
func (v *verifier) ledgerIDs(ctx context.Context, o *object, c *fileCheck, i int) (_ []string, ok bool, _ error) {
	uri := corpus.LedgerURI(o.uri)
	var ids []string
	err := manifest.ReadFile(ctx, v.store, uri, nil, []string{corpus.EntryID}, func(r *manifest.Rows) error {
		for _, row := range r.Values {
			ids = append(ids, idString(row[0]))
		}
		return nil
	})
	if err := fatal(ctx, err); err != nil {
		return nil, false, err
	}
	if err != nil {
		c.add(o, i, "ledger", "its ledger file %s cannot be read: %s", uri, derrors.Describe(err))
		return nil, false, nil
	}
	if n := o.meta.Accounting.Entries; int64(len(ids)) != n {
		c.add(o, i, "ledger", "its ledger file %s has %d rows; its accounting says %d entries", uri, len(ids), n)
		return nil, false, nil
	}
	return ids, true, nil
}

// manifestIDs returns the entry ids of a shard's manifest rows, with their
// multiplicity.
func (v *verifier) manifestIDs(ctx context.Context, p part) (map[string]int, error) {
	ids := map[string]int{}
	err := manifest.ReadFile(ctx, v.mstore, p.uri, p.rgs, []string{manifest.EntryIDColumn}, func(r *manifest.Rows) error {
		for _, row := range r.Values {
			ids[idString(row[0])]++
		}
		return nil
	})
	return ids, err
}

// schemaOnce is one manifest footer, read once.
type schemaOnce struct {
	once sync.Once
	s    manifest.Schema
	err  error
}

// footerRows returns the rows of row groups rgs (all when empty) of the
// manifest at uri, its footer read once per Verify.
func (v *verifier) footerRows(ctx context.Context, uri string, rgs []int) (int64, error) {
	v.mu.Lock()
	so := v.schemas[uri]
	if so == nil {
		so = &schemaOnce{}
		v.schemas[uri] = so
	}
	v.mu.Unlock()
	so.once.Do(func() { so.s, so.err = manifest.ReadSchema(ctx, v.mstore, uri) })
	if so.err != nil {
		return 0, so.err
	}
	var n int64
	for rg, rows := range so.s.RowGroups {
		if len(rgs) == 0 || slices.Contains(rgs, rg) {
			n += rows
		}
	}
	for _, rg := range rgs {
		if rg < 0 || rg >= len(so.s.RowGroups) {
			return 0, derrors.Permanent(fmt.Errorf("row group %d: the manifest has %d", rg, len(so.s.RowGroups)))
		}
	}
	return n, nil
}

// checkLedger compares the ledger's records, when given, with storage:
// each missing shard gets its ledger status, and a file whose counts the
// ledger records otherwise disagrees.
func (v *verifier) checkLedger() {
	if v.opts.Ledger == nil {
		return
	}
	recs := map[int]ledger.Shard{}
	for _, s := range v.opts.Ledger {
		recs[s.Index] = s
	}
	for k := range v.rep.Missing {
		if s, ok := recs[v.rep.Missing[k].Shard]; ok {
			v.rep.Missing[k].Ledger = string(s.Status)
		}
	}
	for i, o := range v.files {
		s, ok := recs[i]
		if o == nil || o.meta == nil || !ok || s.Status != ledger.Done {
			continue
		}
		a := o.meta.Accounting
		got := a.Counts()
		if !sameCounts(got, s.Counts) {
			v.rep.Disagrees = append(v.rep.Disagrees, Disagreement{Name: o.name, Shard: i, Check: "ledger",
				Detail: fmt.Sprintf("the ledger records %s; the file's footer %s", countsString(s.Counts), countsString(got))})
		}
	}
}

func sameCounts(a, b ledger.Counts) bool {
	if a.RowsIn != b.RowsIn || a.DocsOut != b.DocsOut || a.Skipped != b.Skipped || a.Entries != b.Entries {
		return false
	}
	return sameMap(a.Filtered, b.Filtered) && sameMap(a.UnitDocs, b.UnitDocs) && sameMap(a.Funnel, b.Funnel)
}

// sameMap reports whether two count maps agree (a missing key counts 0).
func sameMap(a, b map[string]int64) bool {
	for k, n := range a {
		if b[k] != n {
			return false
		}
	}
	for k, n := range b {
		if a[k] != n {
			return false
		}
	}
	return true
}

func countsString(c ledger.Counts) string {
	return fmt.Sprintf("%d rows in, %d documents, filtered %v, %d skipped", c.RowsIn, c.DocsOut, c.Filtered, c.Skipped)
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, x := range m {
		n += x
	}
	return n
}

// named lists up to maxNamed items, and how many more.
func named(items []string) string {
	s := strings.Join(items[:min(len(items), maxNamed)], "; ")
	if len(items) > maxNamed {
		s += fmt.Sprintf("; and %d more", len(items)-maxNamed)
	}
	return s
}

// idString is an entry_id value as the shard worker writes it.
func idString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// sameURI reports whether two manifest URIs name the same object: equal,
// or local paths (or file:// URIs) of the same file.
func sameURI(a, b string) bool {
	if a == b {
		return true
	}
	if !blob.IsLocal(a) || !blob.IsLocal(b) {
		return false
	}
	pa, err1 := localblob.Path(a)
	pb, err2 := localblob.Path(b)
	if err1 != nil || err2 != nil {
		return false
	}
	aa, err1 := filepath.Abs(pa)
	ab, err2 := filepath.Abs(pb)
	return err1 == nil && err2 == nil && aa == ab
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
