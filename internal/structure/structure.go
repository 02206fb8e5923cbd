// Package structure is the in-memory model of a macromolecular structure as
// gemmi 0.5.7 builds it from an mmCIF file: models, chains (by auth_asym_id),
// residues in file order with their entity classification, and atoms.
//
// The model is deliberately flat: every Residue's Atoms is a sub-slice of one
// backing array per Structure, so reading a file costs a handful of
// allocations, not one per atom.
package structure

// Structure is one mmCIF data block read as a structure.
type Structure struct {
	// Name is the data block name (the text after "data_").
	Name   string
	Models []Model
}

// Model is one model (pdbx_PDB_model_num) in file order.
type Model struct {
	Num    int
	Chains []Chain
}

// Chain is a run of residues sharing auth_asym_id, as gemmi groups them.
type Chain struct {
	Name     string // auth_asym_id
	Residues []Residue
}

// EntityType classifies a residue as gemmi's setup_entities does.
type EntityType uint8

const (
	EntityUnknown EntityType = iota
	EntityPolymer
	EntityNonPolymer
	EntityBranched
	EntityWater
)

// Residue is one residue (one label_comp_id / seq id / insertion code run).
type Residue struct {
	Name     string // auth_comp_id (label_comp_id without that column), e.g. "MSE"
	LabelSeq int    // label_seq_id; 0 when absent ('.', '?', no column, PDB format), where gemmi has none
	AuthSeq  int    // auth_seq_id (PDB: columns 23-26); 0 when '?' or blank, where gemmi has none
	ICode    byte   // pdbx_PDB_ins_code, 0 when absent
	Subchain string // label_asym_id
	EntityID string // label_entity_id
	Entity   EntityType
	Atoms    []Atom
}

// Atom is one _atom_site record.
type Atom struct {
	Name    string  // auth_atom_id (label_atom_id without that column), as gemmi
	Element string  // type_symbol, upper-case as written, e.g. "C", "SE"
	AltLoc  byte    // label_alt_id, 0 when absent
	Occ     float32 // occupancy
	B       float32 // B_iso_or_equiv, stored as float32 like gemmi
	X, Y, Z float64 // Cartn_x/y/z, correctly rounded from the decimal text
}

// IsHydrogen reports whether the atom is hydrogen or deuterium.
func (a *Atom) IsHydrogen() bool { return a.Element == "H" || a.Element == "D" }

// Polymer returns the polymer part of the chain as gemmi's Chain::get_polymer
// returns it (the first contiguous run of polymer residues of one subchain),
// or nil when the chain has none.
func (c *Chain) Polymer() []Residue {
	i := 0
	for i < len(c.Residues) && c.Residues[i].Entity != EntityPolymer {
		i++
	}
	if i == len(c.Residues) {
		return nil
	}
	j := i + 1
	for j < len(c.Residues) && c.Residues[j].Entity == EntityPolymer && c.Residues[j].Subchain == c.Residues[i].Subchain {
		j++
	}
	return c.Residues[i:j]
}
