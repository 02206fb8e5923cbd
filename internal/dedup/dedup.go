// Package dedup cuts a redundancy-controlled corpus out of a PDB run's
// documents as MarinFold exp222's build_deduped.py does: one (or N)
// representative per group, the groups being what makes two documents
// redundant, and the kept rows shuffled with a fixed seed so that a
// sequential read is already in random order.
//
//   - Group key: the chain's 40% cluster for a monomer, the sorted tuple of
//     its chains' clusters for a multimer (composition and stoichiometry);
//     where a chain has no cluster (an empty list or an id below 0), the
//     chain count and the exact resolved-sequence hash.
//   - Representative: lowest resolution first (none reported sorts after
//     every number), then most residues (seq_len), then entry_id, then the
//     input file and row.
//   - Order of groups: first seen over the monomer rows, then the multimer
//     rows (each in input file-name and row order); the chosen rows, listed
//     group by group, are shuffled with CPython's random.Random(seed).
//
// Monomer keys are 1-tuples and multimer keys k>=2-tuples, so a
// monomers-only cut chooses exactly the monomers of the mixed cut.
package dedup

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// Row is what grouping and ranking read of one document row.
type Row struct {
	File       string // input file, for ties and accounting
	Index      int64  // row within File
	EntryID    string
	Subset     string // "monomer" or "multimer"
	ClusterIDs []int64
	SeqSHA1    string // resolved_seq_sha1
	Resolution *float64
	SeqLen     int64
}

// Key is a row's group key, as build_deduped's group_key: ["cluster",
// sorted ids] or ["seq", chain count, resolved_seq_sha1].
func Key(clusterIDs []int64, seqSHA1 string) string {
	unclustered := len(clusterIDs) == 0 || slices.ContainsFunc(clusterIDs, func(c int64) bool { return c < 0 })
	if unclustered {
		return "seq:" + strconv.Itoa(len(clusterIDs)) + ":" + seqSHA1
	}
	ids := slices.Clone(clusterIDs)
	slices.Sort(ids)
	var b strings.Builder
	b.WriteString("cluster:")
	for i, c := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(c, 10))
	}
	return b.String()
}

// Options configure Choose.
type Options struct {
	MaxPerCluster int    // representatives kept per group (>= 1)
	Seed          uint64 // the shuffle's seed (exp222: 222)
}

// Result is what Choose decided.
type Result struct {
	Chosen []int    // indices into the rows, in output (shuffled) order
	Keys   []string // per row: its group key
	Groups int      // distinct groups
}

// Choose groups rows (given in exp222's reading order: monomer rows, then
// multimer rows), keeps the best MaxPerCluster of each group and shuffles
// them. Pure and deterministic.
func Choose(rows []Row, opts Options) (*Result, error) {
	if opts.MaxPerCluster < 1 {
		return nil, fmt.Errorf("dedup: max per cluster %d < 1", opts.MaxPerCluster)
	}
	res := &Result{Keys: make([]string, len(rows))}
	index := map[string]int{}
	var groups [][]int
	for i, r := range rows {
		k := Key(r.ClusterIDs, r.SeqSHA1)
		res.Keys[i] = k
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	res.Groups = len(groups)
	for _, members := range groups {
		slices.SortFunc(members, func(a, b int) int { return compareRank(rows[a], rows[b]) })
		res.Chosen = append(res.Chosen, members[:min(len(members), opts.MaxPerCluster)]...)
	}
	pyrandom.Shuffle(pyrandom.New(opts.Seed), res.Chosen)
	return res, nil
}

// compareRank orders a group's members as build_deduped's rank tuple
// (resolution or inf, -seq_len, entry_id), then file and row.
func compareRank(a, b Row) int {
	ra, rb := math.Inf(1), math.Inf(1)
	if a.Resolution != nil {
		ra = *a.Resolution
	}
	if b.Resolution != nil {
		rb = *b.Resolution
	}
	return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(b.SeqLen, a.SeqLen), strings.Compare(a.EntryID, b.EntryID),
		strings.Compare(a.File, b.File), cmp.Compare(a.Index, b.Index))
}
