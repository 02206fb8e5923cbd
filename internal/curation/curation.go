// Package curation is MarinFold exp222's AF3/Protenix curation of a PDB
// entry (curation=af3), in the domain core: which protein chains of the
// asymmetric unit become monomers, whether biological assembly 1 becomes a
// multimer, and why every other chain or assembly does not, with exp222's
// names for every outcome, and the structures it hands on to the contacts
// analysis, atom for atom what exp222 handed pyconfind (model 0, cleaned;
// one chain alone for a monomer; the assembly's kept chains for a
// multimer).
//
// The rules, as curate.py and curate_and_generate.py apply them on gemmi
// 0.7.5 (the gemmi of exp222's production run; see
// golden/pdb-curation/edge/README.md for where 0.5.7 differs):
//
//   - model 0 only; cleaning (clean.go) removes alternative conformations,
//     hydrogens, ligands and waters, element X atoms and empty chains;
//   - chains (chains.go), in order, the first failing test naming the
//     reason: no protein residue (not_protein; protein = an L-peptide
//     entity's subchain, entities.go), only residues contacts-v1 does not
//     know (all_unknown_residues), no residue with atoms
//     (no_resolved_residues), fewer than 2 or more than 2000 such residues
//     (too_short, too_long), two consecutively numbered CA atoms more than
//     10 A apart (ca_break), at least a third of its atoms within 1.7 A of
//     another chain's (clashing; clash.go);
//   - the multimer: the header's assembly-1 protein chain count decides
//     first (0: no_assembly_1_protein_chains; 1: not_a_complex; more than
//     2 x max_chains: too_many_chains_by_header, never expanded); then
//     assembly 1 is expanded from the raw entry (package assembly; none
//     named "1": no_assembly_1), cleaned and curated as the asymmetric
//     unit; fewer than 2 kept chains is not_a_complex, more than
//     max_chains too_many_chains, sum(L) + k > 2000 does_not_fit_ring;
//     otherwise it goes on to the document step, whose outcome (ok,
//     unserializable, collapsed_to_monomer) the caller records.
//
// The document step (pyconfind and contacts-v1) is not here: a caller
// fills monomer_docs, monomer_failures and the final multimer_status of
// the ledger row (Result.Ledger).
package curation

import (
	"errors"
	"fmt"
	"sort"

	"github.com/foldcorpus/foldcorpus/internal/assembly"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Chain drop reasons (exp222's names).
const (
	NotProtein         = "not_protein"
	AllUnknownResidues = "all_unknown_residues"
	NoResolvedResidues = "no_resolved_residues"
	TooShort           = "too_short"
	TooLong            = "too_long"
	CABreak            = "ca_break"
	Clashing           = "clashing"
)

// multimer_status values (exp222's names). Curate decides all but the last
// three, which the document step decides (and Error, for its failures).
const (
	StatusNotAttempted             = "not_attempted"
	StatusNoAssembly1ProteinChains = "no_assembly_1_protein_chains"
	StatusNotAComplex              = "not_a_complex"
	StatusTooManyChainsByHeader    = "too_many_chains_by_header"
	StatusNoAssembly1              = "no_assembly_1"
	StatusTooManyChains            = "too_many_chains"
	StatusDoesNotFitRing           = "does_not_fit_ring"
	StatusError                    = "error"
	StatusOK                       = "ok"
	StatusUnserializable           = "unserializable"
	StatusCollapsedToMonomer       = "collapsed_to_monomer"
)

// Sizes exp222 uses.
const (
	MinResidues = 2
	// RingIndices is contacts-v1's NUM_POSITION_INDICES: the most residues
	// of a chain, and the most of sum(L) + k for a multimer.
	RingIndices = 2000
	// DefaultMaxChains is exp222's MAX_MULTIMER_CHAINS.
	DefaultMaxChains = 60
)

// Chain is a kept chain (exp222's CuratedChain).
type Chain struct {
	ChainID    string // the chain's name in the structure analysed (A, or A1 in an assembly)
	ASUChainID string // exp222 sets it to ChainID too
	EntityID   string // _entity.id, for the cluster look-up
	Residues   int    // residues with atoms
}

// Drop is a dropped chain and why.
type Drop struct {
	Chain, Reason string
}

// Chains is what curation made of a structure's chains (exp222's
// ChainLedger): kept in order, dropped in order (one entry per chain name).
type Chains struct {
	Kept    []Chain
	Dropped []Drop
}

func (c *Chains) drop(name, reason string) {
	for i := range c.Dropped {
		if c.Dropped[i].Chain == name {
			c.Dropped[i].Reason = reason // a dict in exp222
			return
		}
	}
	c.Dropped = append(c.Dropped, Drop{name, reason})
}

// Reasons are the drop reasons, sorted (the ledger's *_drop_reasons).
func (c *Chains) Reasons() []string {
	out := make([]string, len(c.Dropped))
	for i, d := range c.Dropped {
		out[i] = d.Reason
	}
	sort.Strings(out)
	return out
}

// Monomer is a kept chain of the asymmetric unit and the structure exp222
// analyses for it: that chain alone. The structures of a Result share the
// arrays of its cleaned models: read them, do not change them.
type Monomer struct {
	Chain     Chain
	Structure *structure.Structure
}

// Options are curation's settings.
type Options struct {
	// MaxChains is the most chains of a multimer (exp222: 60); an
	// assembly whose header counts more than 2 x MaxChains protein chains
	// is declined before expansion. 0 means DefaultMaxChains.
	MaxChains int
	// HeaderChains is assembly 1's protein chain count from the header
	// scan (exp222's n_assembly1_protein_chains: pdbheader.Scan, or the
	// selection manifest's assembly1_protein_chains). Required: it decides
	// whether the assembly is built at all.
	HeaderChains *int
}

// Result is what curation decided for one entry.
type Result struct {
	Name     string // the structure's name (gemmi's Structure.name)
	ASU      Chains
	Monomers []Monomer // in ASU.Kept order

	HeaderChains int    // the assembly-1 protein chain count that decided
	Assembly     Chains // assembly 1's chains, when it was expanded
	// MultimerStatus is the multimer outcome when curation decided it; ""
	// when the assembly goes on to the document step (Multimer set).
	MultimerStatus string
	Multimer       *structure.Structure
	// Error is exp222's ledger error ("multimer: RuntimeError: no subchain
	// X" when the expansion fails), "" for none.
	Error string
}

// ErrNoModel is returned for an entry without a model (no atoms).
var ErrNoModel = errors.New("no model")

// ErrNoHeaderCount is returned when Options.HeaderChains is not set.
var ErrNoHeaderCount = errors.New("no assembly-1 protein chain count from the header scan (Options.HeaderChains)")

// Curate applies exp222's curation to the entry e (read by
// mmcif.ReadEntry). Only an unusable entry is an error; every rejection of
// a chain or an assembly is in the result, by name.
func Curate(e *mmcif.Entry, opt Options) (*Result, error) {
	if e == nil || e.Structure == nil || len(e.Structure.Models) == 0 {
		return nil, fmt.Errorf("curation: %w", ErrNoModel)
	}
	maxChains := opt.MaxChains
	if maxChains <= 0 {
		maxChains = DefaultMaxChains
	}
	raw := &e.Structure.Models[0]
	res := &Result{Name: e.Structure.Name}
	protein := proteinSubchains(e, raw)
	asu := cleanASU(raw)
	res.ASU = curateChains(asu, protein, MinResidues, RingIndices)
	for _, k := range res.ASU.Kept {
		for ci := range asu.Chains {
			if asu.Chains[ci].Name == k.ChainID {
				res.Monomers = append(res.Monomers, Monomer{Chain: k, Structure: single(res.Name, asu.Num, asu.Chains[ci:ci+1:ci+1])})
				break
			}
		}
	}

	if opt.HeaderChains == nil {
		return nil, fmt.Errorf("curation %s: %w", e.Structure.Name, ErrNoHeaderCount)
	}
	header := *opt.HeaderChains
	res.HeaderChains = header
	switch {
	case header == 0:
		res.MultimerStatus = StatusNoAssembly1ProteinChains
		return res, nil
	case header == 1:
		res.MultimerStatus = StatusNotAComplex
		return res, nil
	case header > 2*maxChains:
		res.MultimerStatus = StatusTooManyChainsByHeader
		return res, nil
	}
	assemblies, err := assembly.Parse(e)
	if err != nil {
		res.fail(err)
		return res, nil
	}
	a := assembly.Find(assemblies, "1")
	if a == nil {
		res.MultimerStatus = StatusNoAssembly1
		return res, nil
	}
	copies, err := assembly.Plan(a, raw)
	if err != nil {
		res.fail(err)
		return res, nil
	}
	built := cleanAssembly(raw, copies)
	res.Assembly = curateChains(built, assemblySubchainEntities(protein, built), MinResidues, RingIndices)
	n, total := len(res.Assembly.Kept), 0
	for _, k := range res.Assembly.Kept {
		total += k.Residues
	}
	switch {
	case n < 2:
		res.MultimerStatus = StatusNotAComplex
	case n > maxChains:
		res.MultimerStatus = StatusTooManyChains
	case total+n > RingIndices:
		res.MultimerStatus = StatusDoesNotFitRing
	default:
		keep := make(map[string]bool, n)
		for _, k := range res.Assembly.Kept {
			keep[k.ChainID] = true
		}
		chains := built.Chains[:0:0]
		for _, c := range built.Chains {
			if keep[c.Name] {
				chains = append(chains, c)
			}
		}
		res.Multimer = single(res.Name, built.Num, chains)
	}
	return res, nil
}

// fail records an expansion failure as exp222's ledger does.
func (r *Result) fail(err error) {
	r.MultimerStatus = StatusError
	r.Error = "multimer: RuntimeError: " + err.Error()
}

func single(name string, num int, chains []structure.Chain) *structure.Structure {
	return &structure.Structure{Name: name, Models: []structure.Model{{Num: num, Chains: chains}}}
}

// assemblySubchainEntities is exp222's assembly_subchain_entities: each
// subchain of the built assembly (first seen in residue order) takes the
// entity of the longest ASU protein subchain that is its prefix followed
// by at least one digit (A1 -> A, A11 -> A1 when A1 is an ASU protein
// subchain: exp222's rule, kept); of equal lengths the first in the ASU
// map's order wins, which for a Go map is by name, see below.
func assemblySubchainEntities(asu map[string]string, m *structure.Model) map[string]string {
	cands := make([]string, 0, len(asu))
	for s := range asu {
		cands = append(cands, s)
	}
	// Two candidates of one length cannot both be a prefix of one name,
	// so the order among equal lengths does not matter.
	sort.Slice(cands, func(i, j int) bool {
		if len(cands[i]) != len(cands[j]) {
			return len(cands[i]) > len(cands[j])
		}
		return cands[i] < cands[j]
	})
	out := make(map[string]string)
	seen := make(map[string]bool)
	for ci := range m.Chains {
		for ri := range m.Chains[ci].Residues {
			name := m.Chains[ci].Residues[ri].Subchain
			if seen[name] {
				continue
			}
			seen[name] = true
			for _, orig := range cands {
				if len(name) > len(orig) && name[:len(orig)] == orig && allDigits(name[len(orig):]) {
					out[name] = asu[orig]
					break
				}
			}
		}
	}
	return out
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
