package assembly

import (
	"fmt"
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Copy is one chain of an expanded assembly, before any atom is copied:
// the residues Residues (indices, in order) of the model's chain Chain,
// moved by Op, named Name; their subchain names get Suffix.
type Copy struct {
	Name     string
	Suffix   string
	Chain    int
	Residues []int
	Op       *Operator
}

// Plan lists the chains that gemmi 0.7.5's make_assembly (AddNumber)
// builds from model m, in its order and with its names (see the package
// comment), without copying an atom: a caller can count, filter and
// refuse before Build. A generator subchain that m does not hold is an
// error, as in gemmi 0.7.5. Copies of one generator share their Residues.
func Plan(a *Assembly, m *structure.Model) ([]Copy, error) {
	subs := make(map[string]bool)
	for ci := range m.Chains {
		for ri := range m.Chains[ci].Residues {
			if s := m.Chains[ci].Residues[ri].Subchain; s != "" {
				subs[s] = true
			}
		}
	}
	var copies []Copy
	used := make(map[string]bool)
	counter := 0
	for gi := range a.Generators {
		g := &a.Generators[gi]
		if len(g.Operators) == 0 {
			continue
		}
		set := make(map[string]bool, len(g.Subchains))
		for _, s := range g.Subchains {
			if !subs[s] {
				return nil, fmt.Errorf("no subchain %s", s)
			}
			set[s] = true
		}
		picked := make([][]int, len(m.Chains))
		for ci := range m.Chains {
			for ri := range m.Chains[ci].Residues {
				if set[m.Chains[ci].Residues[ri].Subchain] {
					picked[ci] = append(picked[ci], ri)
				}
			}
		}
		for oi := range g.Operators {
			names := make(map[string]string)
			for ci := range m.Chains {
				if len(picked[ci]) == 0 {
					continue
				}
				base := m.Chains[ci].Name
				name, ok := names[base]
				if !ok {
					name = numberedName(used, base, counter+1)
					names[base] = name
				}
				copies = append(copies, Copy{
					Name: name, Suffix: name[len(base):], Chain: ci,
					Residues: picked[ci], Op: &g.Operators[oi],
				})
			}
			counter++
		}
	}
	return copies, nil
}

// Build materializes the copies of Plan from m into a new model with its
// own residue and atom arrays (m is not changed).
func Build(m *structure.Model, copies []Copy) *structure.Model {
	nRes, nAtoms := 0, 0
	for _, c := range copies {
		nRes += len(c.Residues)
		for _, ri := range c.Residues {
			nAtoms += len(m.Chains[c.Chain].Residues[ri].Atoms)
		}
	}
	out := &structure.Model{Num: m.Num, Chains: make([]structure.Chain, 0, len(copies))}
	residues := make([]structure.Residue, 0, nRes)
	atoms := make([]structure.Atom, 0, nAtoms)
	for _, c := range copies {
		src := m.Chains[c.Chain].Residues
		first := len(residues)
		for _, ri := range c.Residues {
			nr := src[ri]
			a0 := len(atoms)
			for _, at := range src[ri].Atoms {
				at.X, at.Y, at.Z = c.Op.Apply(at.X, at.Y, at.Z)
				atoms = append(atoms, at)
			}
			nr.Atoms = atoms[a0:len(atoms):len(atoms)]
			if nr.Subchain != "" {
				nr.Subchain += c.Suffix
			}
			residues = append(residues, nr)
		}
		out.Chains = append(out.Chains, structure.Chain{Name: c.Name, Residues: residues[first:len(residues):len(residues)]})
	}
	return out
}

// Expand is Plan then Build: assembly a built from model m as gemmi 0.7.5's
// make_assembly builds it with HowToNameCopiedChain::AddNumber.
func Expand(a *Assembly, m *structure.Model) (*structure.Model, error) {
	copies, err := Plan(a, m)
	if err != nil {
		return nil, fmt.Errorf("assembly %s: %w", a.Name, err)
	}
	return Build(m, copies), nil
}

// numberedName is gemmi's make_name_with_numeric_postfix: base+n, or the
// first base+(n+1), base+(n+2), ... not yet used; the name is then used.
func numberedName(used map[string]bool, base string, n int) string {
	name := base + strconv.Itoa(n)
	for used[name] {
		n++
		name = base + strconv.Itoa(n)
	}
	used[name] = true
	return name
}

// Apply moves a point as gemmi's Transform::apply does: each coordinate is
// ((m0*x + m1*y) + m2*z) + v, every product and sum rounded to float64
// (the conversions forbid fused multiply-adds).
func (op *Operator) Apply(x, y, z float64) (float64, float64, float64) {
	m := &op.Mat
	return float64(float64(float64(m[0][0]*x)+float64(m[0][1]*y))+float64(m[0][2]*z)) + op.Vec[0],
		float64(float64(float64(m[1][0]*x)+float64(m[1][1]*y))+float64(m[1][2]*z)) + op.Vec[1],
		float64(float64(float64(m[2][0]*x)+float64(m[2][1]*y))+float64(m[2][2]*z)) + op.Vec[2]
}
