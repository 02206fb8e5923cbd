package confind

import (
	"math"
	"slices"
)

// Contact is one reported contact: positions I < J with Degree > 0.
type Contact struct {
	I, J   int
	Degree float64
}

// pairwiseSum is numpy's pairwise summation of a (float64 add.reduce):
// sequential below 8 values, eight accumulators up to 128, and a split at
// n/2 rounded down to a multiple of 8 above that.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		s := 0.0
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := 0; j < 8; j++ {
				r[j] += a[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
	}
}

// survivors is the contact view of the surviving rotamers.
type survivors struct {
	w       []float64 // weight of each surviving rotamer, position-major
	posRot  []int32   // survivors of position i: w[posRot[i]:posRot[i+1]]
	atoms   []vec     // contact atoms, rotamer-major, placement order
	atomRot []int32   // the surviving rotamer of each contact atom
	atomPos []int32
	posAtom []int32 // contact atoms of position i: atoms[posAtom[i]:posAtom[i+1]]
	sum     []float64
}

func (pl *placement) survivors(npos int) *survivors {
	s := &survivors{posRot: make([]int32, 1, npos+1), posAtom: make([]int32, 1, npos+1), sum: make([]float64, npos)}
	for i := 0; i < npos; i++ {
		for _, r := range pl.rots[pl.posRot[i]:pl.posRot[i+1]] {
			if r.pruned {
				continue
			}
			ri := int32(len(s.w))
			s.w = append(s.w, r.w)
			for k, c := range r.t.contact {
				if c {
					s.atoms = append(s.atoms, pl.atoms[int(r.atom0)+k])
					s.atomRot = append(s.atomRot, ri)
					s.atomPos = append(s.atomPos, int32(i))
				}
			}
		}
		s.posRot = append(s.posRot, int32(len(s.w)))
		s.posAtom = append(s.posAtom, int32(len(s.atoms)))
		s.sum[i] = pairwiseSum(s.w[s.posRot[i]:s.posRot[i+1]])
	}
	return s
}

// hit is one contacting atom pair (a of position i, b of position j > i).
type hit struct{ a, b int32 }

// degrees computes the contact degrees (section 5) and the collision mass
// of each surviving rotamer. Pairs need both CA atoms within dcut; atoms
// are in contact at distance <= cutoff.
func (s *survivors) degrees(pos []Position, cutoff, dcut float64) ([]Contact, []float64) {
	// Positions are visited from the last to the first; the grid holds the
	// atoms of the positions after the current one, so every neighbour
	// found is a partner j > i.
	g := newLinkedGrid(s.atoms, cutoff)
	c2, d2 := cutoff*cutoff, dcut*dcut
	cp := make([]float64, len(s.w))
	var out, rev []Contact
	buckets := make([][]hit, len(pos))
	var touched []int32
	var nb []int32
	var cells []cellRange
	stamp := make([]int, len(pos)) // i+1: pair (i, j) in range; -(i+1): out of range
	var seen []bool
	var set []int
	for i := len(pos) - 1; i >= 0; i-- {
		if pos[i].hasBB[bbCA] && s.posRot[i] != s.posRot[i+1] {
			touched = touched[:0]
			for a := s.posAtom[i]; a < s.posAtom[i+1]; a++ {
				x := s.atoms[a]
				nb = nb[:0]
				cells = g.around(cells[:0], x)
				for _, cr := range cells {
					for c := cr.base + cr.z0; c <= cr.base+cr.z1; c++ {
						for b := g.head[c]; b >= 0; b = g.next[b] {
							if dist2(x, s.atoms[b]) <= c2 {
								nb = append(nb, b)
							}
						}
					}
				}
				if len(nb) > 1 {
					slices.Sort(nb)
				}
				for _, b := range nb {
					j := s.atomPos[b]
					switch stamp[j] {
					case -(i + 1):
						continue
					case i + 1:
					default:
						if !pos[j].hasBB[bbCA] || dist2(pos[i].bb[bbCA], pos[j].bb[bbCA]) > d2 {
							stamp[j] = -(i + 1)
							continue
						}
						stamp[j] = i + 1
						touched = append(touched, j)
					}
					buckets[j] = append(buckets[j], hit{a, b})
				}
			}
			slices.Sort(touched)
			rev = rev[:0]
			for _, j := range touched {
				c := 0.0
				baseI, baseJ := s.posRot[i], s.posRot[j]
				nj := int(s.posRot[j+1] - baseJ)
				if n := int(s.posRot[i+1]-baseI) * nj; len(seen) < n {
					seen = make([]bool, n)
				}
				for _, h := range buckets[j] {
					ra, rb := s.atomRot[h.a], s.atomRot[h.b]
					k := int(ra-baseI)*nj + int(rb-baseJ)
					if seen[k] {
						continue
					}
					seen[k] = true
					set = append(set, k)
					c = c + float64(s.w[ra]*s.w[rb])
					cp[ra] += s.w[rb]
					cp[rb] += s.w[ra]
				}
				for _, k := range set {
					seen[k] = false
				}
				set = set[:0]
				buckets[j] = buckets[j][:0]
				deg := c / float64(s.sum[i]*s.sum[j])
				if deg > 0 {
					rev = append(rev, Contact{I: i, J: int(j), Degree: deg})
				}
			}
			// Contacts of i go before those of i+1.., which are already
			// in out: collect in reverse blocks and flip at the end.
			for k := len(rev) - 1; k >= 0; k-- {
				out = append(out, rev[k])
			}
		}
		for a := s.posAtom[i]; a < s.posAtom[i+1]; a++ {
			g.insert(a, s.atoms[a])
		}
	}
	slices.Reverse(out)
	return out, cp
}

// freedom is pyconfind's freedom of one position from the collision masses
// of its surviving rotamers.
func freedom(cp []float64, nPlaced int) float64 {
	if nPlaced == 0 {
		return math.NaN()
	}
	n1, n2 := 0, 0
	for _, v := range cp {
		if v/100 < 0.5 {
			n1++
		}
		if v/100 < 2.0 {
			n2++
		}
	}
	return math.Sqrt(float64(n1*n1+n2*n2)/2) / float64(nPlaced)
}
