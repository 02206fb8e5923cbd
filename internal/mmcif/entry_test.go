package mmcif

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestReadEntryCategories: the assembly and entity categories come back as
// written, from loops and from tag-value pairs, quoted values marked; the
// structure is Read's.
func TestReadEntryCategories(t *testing.T) {
	text := []byte(`data_X
_pdbx_struct_assembly.id 1
_pdbx_struct_assembly.details author_defined_assembly
#
loop_
_pdbx_struct_assembly_gen.assembly_id
_pdbx_struct_assembly_gen.oper_expression
_pdbx_struct_assembly_gen.asym_id_list
1 '(1-60)' A,B
2 1 C
#
_entity_poly.entity_id 1
_entity_poly.type 'polypeptide(L)'
_PDBX_STRUCT_OPER_LIST.ID 1
_pdbx_struct_oper_list.vector[1] ?
loop_
_atom_site.id
_atom_site.type_symbol
_atom_site.label_alt_id
_atom_site.label_asym_id
_atom_site.Cartn_x
_atom_site.Cartn_y
_atom_site.Cartn_z
_atom_site.occupancy
_atom_site.B_iso_or_equiv
_atom_site.auth_seq_id
1 C . A 1 2 3 1 10 1
`)
	e, err := ReadEntry(text)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.AssemblyGen.Tags; !reflect.DeepEqual(got, []string{"assembly_id", "oper_expression", "asym_id_list"}) {
		t.Errorf("gen tags %v", got)
	}
	if e.AssemblyGen.Rows() != 2 || e.AssemblyGen.At(0, 1) != (Value{"(1-60)", true}) || e.AssemblyGen.At(1, 2).Str() != "C" {
		t.Errorf("gen values %v", e.AssemblyGen.Values)
	}
	if e.Assembly.Rows() != 1 || e.Assembly.At(0, e.Assembly.Col("details")).Str() != "author_defined_assembly" {
		t.Errorf("assembly %+v", e.Assembly)
	}
	if e.EntityPoly.At(0, 1).Str() != "polypeptide(L)" {
		t.Errorf("entity_poly %+v", e.EntityPoly)
	}
	if c := e.OperList; c.Col("id") != 0 || !c.At(0, c.Col("vector[1]")).IsNull() {
		t.Errorf("oper list %+v", c)
	}
	st, err := Read(text)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st, e.Structure) {
		t.Error("ReadEntry's structure differs from Read's")
	}
}

// TestReadEntryMatchesRead: on the PDB corpus, ReadEntry reads the
// structure Read reads, finds the assembly categories, and a Read after it
// (the pooled builder) collects none.
func TestReadEntryMatchesRead(t *testing.T) {
	files := testcorpus.Files(t, "pdb")
	withGen := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		e, err := ReadEntry(data)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		st, err := Read(data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(st, e.Structure) {
			t.Errorf("%s: ReadEntry's structure differs from Read's", filepath.Base(f))
		}
		if e.AssemblyGen.Rows() > 0 {
			withGen++
			if e.OperList.Rows() == 0 || e.Assembly.Rows() == 0 {
				t.Errorf("%s: assembly_gen without assembly or oper_list", filepath.Base(f))
			}
		}
	}
	if withGen == 0 {
		t.Error("no corpus file with _pdbx_struct_assembly_gen")
	}
	t.Logf("%d files, %d with assembly generators", len(files), withGen)
}
