package planner

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// ErrDuplicateID is wrapped by Prepare when two manifest rows share an
// entry_id (and Spec.AllowDuplicateIDs is false): the same document would be
// written twice, possibly into two splits (a train/validation leak).
var ErrDuplicateID = errors.New("duplicate entry_id")

// IDPlace is where one copy of an entry id sits: a manifest file and the
// row's number within it (0-based, as the shards' errors count rows).
type IDPlace struct {
	File string
	Row  int64
}

func (p IDPlace) String() string { return fmt.Sprintf("%s row %d", p.File, p.Row) }

// Duplicate is an entry id found in more than one manifest row.
type Duplicate struct {
	EntryID      string
	First, Again IDPlace
}

// DuplicateError is the error Prepare returns for duplicate entry ids: the
// first few (in manifest order of their second copy) and how many there are.
type DuplicateError struct {
	Dups  []Duplicate // at most maxDupsShown
	Count int         // every id found more than once
}

const maxDupsShown = 5

// rowBits is the bits of a packed place (findDuplicateIDs) that hold the
// row: files of up to 2^40 rows, up to 2^24 files.
const rowBits = 40

func (e *DuplicateError) Error() string {
	msg := fmt.Sprintf("%d entry_id(s) appear in more than one manifest row; the same document would be written twice, possibly into two splits:", e.Count)
	for _, d := range e.Dups {
		msg += fmt.Sprintf("\n  entry_id %q: %s and %s", d.EntryID, d.First, d.Again)
	}
	if more := e.Count - len(e.Dups); more > 0 {
		msg += fmt.Sprintf("\n  and %d more", more)
	}
	return msg + "\nremove the duplicate rows from the manifest, or pass --allow-duplicate-ids to keep every copy"
}

func (e *DuplicateError) Unwrap() []error { return []error{ErrDuplicateID, derrors.ErrPermanent} }

// findDuplicateIDs reads only the entry_id column of every file (its column
// chunks, through manifest.ReadShard) and returns a *DuplicateError naming
// both places of each duplicate id, or nil; when dups is false it looks
// for null ids only. A null or empty id is a *NullIDError naming its rows
// (before any duplicate). It keeps one map entry of 16 bytes per row (a
// 64-bit hash of the id, and its file index and row packed into 64 bits:
// about 20 bytes a row with the map's overhead, ~0.5 GB for 24M rows); hash
// matches are confirmed by reading the earlier file's ids again, so a hash
// collision is never reported. Read-only: safe to retry; errors are the
// store's or manifest.ReadShard's.
func findDuplicateIDs(ctx context.Context, store blob.Store, files []string, dups bool) error {
	if len(files) >= 1<<(64-rowBits) {
		return derrors.Permanent(fmt.Errorf("%d manifest files: more than the duplicate check can index", len(files)))
	}
	seed := maphash.MakeSeed()
	seen := map[uint64]uint64{} // id hash -> file index << rowBits | row
	type candidate struct {
		id           string
		first, again IDPlace
	}
	var cands []candidate
	nulls := &NullIDError{}
	for fi, uri := range files {
		err := manifest.ReadFile(ctx, store, uri, nil, []string{manifest.EntryIDColumn}, func(r *manifest.Rows) error {
			if r.First+int64(len(r.Values)) >= 1<<rowBits {
				return derrors.Permanent(fmt.Errorf("manifest %s: more rows than the duplicate check can index", uri))
			}
			for i, v := range r.Values {
				id, ok := idString(v[0])
				row := r.First + int64(i)
				if !ok || id == "" {
					nulls.add(IDPlace{uri, row}, !ok)
					continue
				}
				if !dups {
					continue
				}
				h := maphash.String(seed, id)
				if first, dup := seen[h]; dup {
					cands = append(cands, candidate{id, IDPlace{files[first>>rowBits], int64(first & (1<<rowBits - 1))}, IDPlace{uri, row}})
					continue
				}
				seen[h] = uint64(fi)<<rowBits | uint64(row)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if nulls.Count > 0 {
		return nulls
	}
	if len(cands) == 0 {
		return nil
	}
	// Confirm each candidate against the id at its first place.
	byFile := map[string]map[int64]string{}
	for _, c := range cands {
		if byFile[c.first.File] == nil {
			byFile[c.first.File] = map[int64]string{}
		}
		byFile[c.first.File][c.first.Row] = ""
	}
	for uri, rows := range byFile {
		err := manifest.ReadFile(ctx, store, uri, nil, []string{manifest.EntryIDColumn}, func(r *manifest.Rows) error {
			for i, v := range r.Values {
				if _, want := rows[r.First+int64(i)]; want {
					rows[r.First+int64(i)], _ = idString(v[0])
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	de := &DuplicateError{}
	counted := map[string]bool{}
	for _, c := range cands {
		if byFile[c.first.File][c.first.Row] != c.id {
			continue // a hash collision, not a duplicate
		}
		if !counted[c.id] {
			counted[c.id] = true
			de.Count++
		}
		if len(de.Dups) < maxDupsShown {
			de.Dups = append(de.Dups, Duplicate{EntryID: c.id, First: c.first, Again: c.again})
		}
	}
	if de.Count == 0 {
		return nil
	}
	return de
}

// idString is an entry_id value as the shards write it; false for null.
func idString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case nil:
		return "", false
	}
	return fmt.Sprint(v), true
}
