package contactsv1

import (
	"math"

	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// The <think> (pause) token distributions of the reference's think option
// (shared with contacts-and-distances-v2's think tokens).
const (
	thinkInitialProb  = 0.75 // P(a run right after <begin_statements>)
	thinkInitialGeomP = 0.13 // Geometric p of that run's length (support >= 1)
	thinkAddLow       = -4.0 // additional runs: max(int(Uniform(low, high)), 0)
	thinkAddHigh      = 4.0  //
	thinkRunGeomP     = 0.25 // Geometric p of each additional run's length
	thinkToken        = "<think>"
)

// thinkPlan is the think-token overhead of one document: the initial run
// (0 when the gate missed) and the lengths of the additional runs, which are
// given slots between contact statements once the contacts are chosen.
type thinkPlan struct {
	initial    int
	additional []int
}

func (p thinkPlan) total() int {
	t := p.initial
	for _, l := range p.additional {
		t += l
	}
	return t
}

// geometric draws from Geometric(p) on {1, 2, ...} by inverting the CDF on
// one random(): ceil(log(1-U) / log(1-p)). The log is the C library's, as in
// CPython, so the ceil agrees even next to an integer.
func geometric(r *pyrandom.Rand, p float64) int {
	if p >= 1 {
		return 1
	}
	u := 1.0 - r.Random()
	return int(math.Ceil(pyrandom.Log(u) / pyrandom.Log(1.0-p)))
}

// sampleThink draws the think overhead. It is the first draw group of a
// think document, before the layout, so its size is known when the contact
// budget is computed.
func sampleThink(r *pyrandom.Rand) thinkPlan {
	var p thinkPlan
	if r.Random() < thinkInitialProb {
		p.initial = geometric(r, thinkInitialGeomP)
	}
	extra := max(int(r.Uniform(thinkAddLow, thinkAddHigh)), 0)
	for range extra {
		p.additional = append(p.additional, geometric(r, thinkRunGeomP))
	}
	return p
}

// assignSlots is the last draw group: each additional run goes before the
// contact statement at a uniformly drawn index in [0, nContacts); runs that
// land on the same slot are concatenated. With no contacts the additional
// runs have nowhere to go and are dropped (nothing is drawn). The result
// maps a slot to its number of think tokens (nil when there are none).
func assignSlots(r *pyrandom.Rand, p thinkPlan, nContacts int) []int {
	if nContacts == 0 || len(p.additional) == 0 {
		return nil
	}
	slots := make([]int, nContacts)
	for _, l := range p.additional {
		slots[r.RandBelow(nContacts)] += l
	}
	return slots
}
