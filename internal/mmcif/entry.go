package mmcif

import (
	"os"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Entry is a structure read together with the small categories of its
// first data block that entity curation and biological assemblies need
// (ReadEntry). A category absent from the file has no tags.
type Entry struct {
	Structure *structure.Structure

	Entity      Category // _entity
	EntityPoly  Category // _entity_poly
	StructAsym  Category // _struct_asym
	Assembly    Category // _pdbx_struct_assembly
	AssemblyGen Category // _pdbx_struct_assembly_gen
	OperList    Category // _pdbx_struct_oper_list
}

// Category is one mmCIF category of a block, given as a loop or as
// tag-value pairs (then one row): its item names without the category
// prefix and its values, row-major. ReadEntry gives the names lower case;
// ReadCategories gives them as written (exp222 looks items up as a Python
// dict does, Column). The one category type of both reads.
type Category struct {
	Tags   []string
	Values []Value
	isLoop bool // read from a loop (ReadCategories' precedence, header.go)
}

// Value is one CIF value as written: its text (without quotes or text-field
// delimiters) and whether it was quoted or a text field.
type Value struct {
	Text   string
	Quoted bool
}

// IsNull reports whether v is an unquoted '?' or '.'.
func (v Value) IsNull() bool {
	return !v.Quoted && (v.Text == "?" || v.Text == ".")
}

// Null is the null kind of v as gemmi's Block.get_mmcif_category
// (raw=False) tells them apart: '?' (None) or '.' (False) for an unquoted
// null, 0 otherwise.
func (v Value) Null() byte {
	if v.IsNull() {
		return v.Text[0]
	}
	return 0
}

// Str is the value as gemmi's cif::as_string gives it: "" for a null.
func (v Value) Str() string {
	if v.IsNull() {
		return ""
	}
	return v.Text
}

// Col returns the index of item name (lower case), compared without case
// as CIF compares tags, or -1.
func (c *Category) Col(name string) int {
	for i, t := range c.Tags {
		if t == name || strings.EqualFold(t, name) {
			return i
		}
	}
	return -1
}

// Column returns the values of the item named name, compared as written
// (like a Python dict key), one per row, or nil when the category (or c)
// has no such item.
func (c *Category) Column(name string) []Value {
	if c == nil {
		return nil
	}
	for i, t := range c.Tags {
		if t == name {
			col := make([]Value, c.Rows())
			for r := range col {
				col[r] = c.At(r, i)
			}
			return col
		}
	}
	return nil
}

// Rows is the number of rows.
func (c *Category) Rows() int {
	if len(c.Tags) == 0 {
		return 0
	}
	return len(c.Values) / len(c.Tags)
}

// At returns the value of row r, column col.
func (c *Category) At(r, col int) Value { return c.Values[r*len(c.Tags)+col] }

// entryTables are the extra categories parse collects for ReadEntry; a
// builder without them (b.ext nil, every other read) collects none.
type entryTables struct {
	entityPoly, assembly, assemblyGen, operList table
}

const (
	catEntityPoly  = "_entity_poly."
	catAssembly    = "_pdbx_struct_assembly."
	catAssemblyGen = "_pdbx_struct_assembly_gen."
	catOperList    = "_pdbx_struct_oper_list."
)

// entryTable is parse's hook: the table that collects the category of tag
// (a tag-value pair or a loop's first tag) for ReadEntry, or nil when the
// read did not ask for it.
func (b *builder) entryTable(tag []byte) (*table, string) {
	x := b.ext
	if x == nil {
		return nil, ""
	}
	switch {
	case hasPrefixFold(tag, catEntityPoly):
		return &x.entityPoly, catEntityPoly
	case hasPrefixFold(tag, catAssembly):
		return &x.assembly, catAssembly
	case hasPrefixFold(tag, catAssemblyGen):
		return &x.assemblyGen, catAssemblyGen
	case hasPrefixFold(tag, catOperList):
		return &x.operList, catOperList
	}
	return nil, ""
}

// ReadEntry is Read that also returns the entity and assembly categories
// of the first data block (Entry). The structure is exactly Read's; a
// PDB-format file has no categories. Errors are Read's.
func ReadEntry(data []byte) (*Entry, error) {
	st := new(structure.Structure)
	ext := new(entryTables)
	var e Entry
	conv := func(b *builder, doc *document) {
		e.Entity = category(b.data, &doc.entity)
		e.StructAsym = category(b.data, &doc.asym)
		e.EntityPoly = category(b.data, &ext.entityPoly)
		e.Assembly = category(b.data, &ext.assembly)
		e.AssemblyGen = category(b.data, &ext.assemblyGen)
		e.OperList = category(b.data, &ext.operList)
	}
	if _, err := readIntoExt(st, data, false, ext, conv); err != nil {
		return nil, err
	}
	e.Structure = st
	return &e, nil
}

// ReadEntryFile is ReadEntry of the file at path; errors name the path.
func ReadEntryFile(path string) (e *Entry, err error) {
	defer derrors.Wrap(&err, "%s", path)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ReadEntry(data)
}

// category copies a parsed table out of the input as strings.
func category(data []byte, t *table) Category {
	c := Category{Tags: append([]string(nil), t.tags...)}
	if len(t.vals) > 0 {
		c.Values = make([]Value, len(t.vals))
		for i, v := range t.vals {
			c.Values[i] = Value{Text: string(data[v.s:v.e]), Quoted: v.q}
		}
	}
	return c
}

// IsPeptideL reports whether gemmi's check_polymer_type finds the residues
// (one subchain) an L-peptide, as setup_entities' ensure_entities decides
// the polymer type of an entity that _entity_poly does not type.
func IsPeptideL(res []structure.Residue) bool {
	return checkPolymerType(res) == polyPeptideL
}
