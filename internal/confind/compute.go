// Package confind computes ConFind's contact degrees as pyconfind (numba
// backend) does, bit for bit: rotamers from a backbone-dependent library
// placed at every position of a structure, pruned against the backbone,
// and contact degrees between positions from the weights of the rotamer
// pairs whose side chains touch. See formats/contacts-v1-confind.md of the
// shared data for the computation this follows.
//
// The package is pure computation (no I/O but reading a library from
// local files) and safe for concurrent use: a *Library is read-only.
package confind

import (
	"math"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// The cutoffs MarinFold (and pyconfind by default) use, in Å.
const (
	ContactDistance = 3.0
	ClashDistance   = 2.0
	CACutoff        = 25.0
)

// Result is pyconfind's analysis of one structure.
type Result struct {
	Positions []Position
	Contacts  []Contact // degree > 0, sorted by (I, J)
	// Per position: the sum of the degrees of its contacts, the crowdedness
	// (1 - survived/placed) and the freedom; NaN where nothing was placed.
	SumCond     []float64
	Crowdedness []float64
	Freedom     []float64
	// PermContacts[i] are the positions that clash with an ALA rotamer of
	// i, ascending (the .cont percont lines).
	PermContacts [][]int32
}

// Timings is the time Compute spent in each stage (for benchmarks).
type Timings struct {
	// Rotamers is placement and pruning, which are one pass (a rotamer
	// stops at its first clash).
	Positions, Rotamers, Degrees time.Duration
	// Clock reads the time; nil is the wall clock (a benchmark passes the
	// calling thread's CPU time).
	Clock func() time.Duration
}

func (tm *Timings) now() time.Duration {
	if tm == nil {
		return 0
	}
	if tm.Clock != nil {
		return tm.Clock()
	}
	return time.Duration(time.Now().UnixNano())
}

// Compute analyses model 0 of st with lib: in native-only mode (MarinFold's)
// each position tries its own residue type only; otherwise the 18 types of
// pyconfind's default mode. It returns ErrNoNativeAtom for pyconfind's
// IndexError; a structure without positions gives an empty Result.
func Compute(st *structure.Structure, lib *Library, nativeOnly bool) (*Result, error) {
	return ComputeTimed(st, lib, nativeOnly, nil)
}

// ComputeTimed is Compute, adding the time of each stage to tm when it is
// not nil.
func ComputeTimed(st *structure.Structure, lib *Library, nativeOnly bool, tm *Timings) (*Result, error) {
	t0 := tm.now()
	pos, err := positionsOf(st)
	if err != nil {
		return nil, err
	}
	t1 := tm.now()
	ws := workspaces.Get().(*workspace)
	defer workspaces.Put(ws)
	ws.rotamers(pos, lib, nativeOnly, ClashDistance)
	pl, sv := &ws.pl, &ws.sv
	t2 := tm.now()
	contacts, cp := ws.degrees(pos, ContactDistance, CACutoff)
	t3 := tm.now()
	if tm != nil {
		tm.Positions += t1 - t0
		tm.Rotamers += t2 - t1
		tm.Degrees += t3 - t2
	}
	r := &Result{Positions: pos, Contacts: contacts, PermContacts: pl.percont,
		SumCond: make([]float64, len(pos)), Crowdedness: make([]float64, len(pos)), Freedom: make([]float64, len(pos))}
	for _, c := range contacts {
		r.SumCond[c.I] += c.Degree
		r.SumCond[c.J] += c.Degree
	}
	for i := range pos {
		p := &pos[i]
		p.NPlaced, p.NSurvived = pl.nPlaced[i], pl.survived[i]
		if p.NPlaced == 0 {
			r.Crowdedness[i] = math.NaN()
		} else {
			r.Crowdedness[i] = 1 - float64(p.NSurvived)/float64(p.NPlaced)
		}
		r.Freedom[i] = freedom(cp[sv.posRot[i]:sv.posRot[i+1]], p.NPlaced)
	}
	return r, nil
}
