package confind

import (
	"fmt"
	"math"
	"strings"
)

// build validates the block and computes the placement coefficients.
func (e *eblResidue) build(file string) (*template, error) {
	if e.rows == 0 {
		return nil, lineError(file, e.line, "RESI %s has no CONF rows", e.name)
	}
	if e.weights == nil {
		return nil, lineError(file, e.line, "RESI %s has no WEIGHTS line", e.name)
	}
	if len(e.weights) != e.rows {
		return nil, lineError(file, e.weightLine, "RESI %s has %d WEIGHTS for %d CONF rows", e.name, len(e.weights), e.rows)
	}
	m := len(e.dih)
	t := &template{name: e.name, rows: e.rows, weights: e.weights,
		constCoef: make([][4]float64, m), varIdx: make([]int, m)}
	for k := range e.dih {
		t.atoms = append(t.atoms, e.dih[k][3])
		t.parents = append(t.parents, [3]string{e.dih[k][0], e.dih[k][1], e.dih[k][2]})
	}
	if err := t.link(); err != nil {
		return nil, lineError(file, e.line, "%v", err)
	}
	first := e.conf.row(0)
	for k := 0; k < m; k++ {
		t.varIdx[k] = -1
		for r := 1; r < e.rows; r++ {
			a := e.conf.row(r)
			if a[k] != first[k] || a[m+k] != first[m+k] || a[2*m+k] != first[2*m+k] || math.Signbit(a[k]) != math.Signbit(first[k]) {
				t.varIdx[k] = t.nVar
				t.nVar++
				break
			}
		}
		if t.varIdx[k] < 0 {
			t.constCoef[k] = coefOf(first[k], first[m+k], first[2*m+k])
		}
	}
	if t.nVar > 0 {
		// Row by row (the memory in order); a column's coefficients are
		// recomputed only where its values change from the row before.
		t.varCoef = make([]float64, e.rows*t.nVar*4)
		lastIn := make([][3]float64, m)
		last := make([][4]float64, m)
		for r := 0; r < e.rows; r++ {
			row := e.conf.row(r)
			for k := 0; k < m; k++ {
				vi := t.varIdx[k]
				if vi < 0 {
					continue
				}
				in := [3]float64{row[k], row[m+k], row[2*m+k]}
				if r == 0 || in != lastIn[k] || math.Signbit(in[0]) != math.Signbit(lastIn[k][0]) {
					last[k], lastIn[k] = coefOf(in[0], in[1], in[2]), in
				}
				copy(t.varCoef[(r*t.nVar+vi)*4:], last[k][:])
			}
		}
	}
	return t, nil
}

// link computes the fields derived from atoms and parents (parentRef,
// needBB, abFrom, tested, contact, nContact). It fails when a parent is
// neither a backbone atom nor an earlier placed atom (checkDefi refuses
// such a text first; the compact form relies on this check).
func (t *template) link() error {
	at := map[string]int{}
	for k := range t.atoms {
		var ref [3]int
		for i, p := range t.parents[k] {
			if j, ok := at[p]; ok {
				ref[i] = j
				continue
			}
			slot := bbSlot(p)
			if slot < 0 {
				return fmt.Errorf("RESI %s atom %d (%s) is placed from %s, which is neither a backbone atom nor placed before it", t.name, k+1, t.atoms[k], p)
			}
			ref[i] = -1 - slot
			t.needBB[slot] = true
		}
		t.parentRef = append(t.parentRef, ref)
		from := -1
		for j := 0; j < k; j++ {
			if t.parentRef[j][1] == ref[0] && t.parentRef[j][2] == ref[1] {
				from = j
				break
			}
		}
		t.abFrom = append(t.abFrom, from)
		at[t.atoms[k]] = k
		tested := !notTested[t.atoms[k]] && (t.atoms[k] != "CB" || t.name == "ALA")
		t.tested = append(t.tested, tested)
		c := tested && !strings.HasPrefix(t.atoms[k], "H")
		t.contact = append(t.contact, c)
		if c {
			t.nContact++
			t.contactAt = append(t.contactAt, k)
		}
	}
	return nil
}

// degToRad is pi/180 as the float64 pyconfind multiplies by.
const degToRad = 0x1.1df46a2529d39p-6

// coefOf returns (bond, -cos t, sin t cos p, sin t sin p) for one placed
// atom (dihedral p and angle t in degrees), the scalars of the NeRF step.
func coefOf(dih, ang, bond float64) [4]float64 {
	t := ang * degToRad
	p := dih * degToRad
	st := math.Sin(t)
	return [4]float64{bond, -math.Cos(t), st * math.Cos(p), st * math.Sin(p)}
}
