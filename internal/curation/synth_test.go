package curation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
)

// synthAtom is one atom of a synthetic entry.
type synthAtom struct {
	chain, asym, comp, name, elem string
	seq                           int
	x, y, z                       string // written as given: exact decimals
}

// synthEntry writes a small mmCIF: one polypeptide(L) entity (1) over the
// asyms of atoms, assembly 1 applying opers (an oper_expression) to
// asymList, and nOps pure translations (100*i, 0, 0) A for operators
// 1..nOps. nOps 0 writes no assembly categories.
func synthEntry(atoms []synthAtom, asymList, opers string, nOps int) string {
	var b strings.Builder
	b.WriteString("data_SYNTH\n#\n_entity.id 1\n_entity.type polymer\n#\n")
	b.WriteString("_entity_poly.entity_id 1\n_entity_poly.type 'polypeptide(L)'\n#\n")
	b.WriteString("loop_\n_struct_asym.id\n_struct_asym.entity_id\n")
	seen := map[string]bool{}
	for _, a := range atoms {
		if !seen[a.asym] {
			seen[a.asym] = true
			fmt.Fprintf(&b, "%s 1\n", a.asym)
		}
	}
	if nOps > 0 {
		b.WriteString("#\n_pdbx_struct_assembly.id 1\n_pdbx_struct_assembly.details author_defined_assembly\n")
		b.WriteString("_pdbx_struct_assembly.method_details ?\n_pdbx_struct_assembly.oligomeric_details ?\n_pdbx_struct_assembly.oligomeric_count ?\n")
		fmt.Fprintf(&b, "#\n_pdbx_struct_assembly_gen.assembly_id 1\n_pdbx_struct_assembly_gen.oper_expression '%s'\n_pdbx_struct_assembly_gen.asym_id_list %s\n", opers, asymList)
		b.WriteString("#\nloop_\n_pdbx_struct_oper_list.id\n_pdbx_struct_oper_list.type\n")
		for _, t := range []string{"matrix[1][1]", "matrix[1][2]", "matrix[1][3]", "vector[1]", "matrix[2][1]", "matrix[2][2]", "matrix[2][3]", "vector[2]", "matrix[3][1]", "matrix[3][2]", "matrix[3][3]", "vector[3]"} {
			fmt.Fprintf(&b, "_pdbx_struct_oper_list.%s\n", t)
		}
		for i := 1; i <= nOps; i++ {
			fmt.Fprintf(&b, "%d 'point symmetry operation' 1 0 0 %d 0 1 0 0 0 0 1 0\n", i, 100*(i-1))
		}
	}
	b.WriteString("#\nloop_\n")
	for _, t := range []string{"group_PDB", "id", "type_symbol", "label_atom_id", "label_alt_id", "label_comp_id", "label_asym_id", "label_entity_id", "label_seq_id", "pdbx_PDB_ins_code", "Cartn_x", "Cartn_y", "Cartn_z", "occupancy", "B_iso_or_equiv", "auth_seq_id", "auth_asym_id", "pdbx_PDB_model_num"} {
		fmt.Fprintf(&b, "_atom_site.%s\n", t)
	}
	for i, a := range atoms {
		fmt.Fprintf(&b, "ATOM %d %s %s . %s %s 1 %d ? %s %s %s 1.00 10.00 %d %s 1\n", i+1, a.elem, a.name, a.comp, a.asym, a.seq, a.x, a.y, a.z, a.seq, a.chain)
	}
	b.WriteString("#\n")
	return b.String()
}

// backbone returns the N, CA, C, O atoms of residues first..first+n-1 of a
// GLY chain, along y from y0 in steps of dy (x, z fixed).
func backbone(chain string, first, n int, x string, y0, dy int, z string) []synthAtom {
	var out []synthAtom
	names := []string{"N", "CA", "C", "O"}
	for r := 0; r < n; r++ {
		for k, nm := range names {
			out = append(out, synthAtom{chain, chain, "GLY", nm, nm[:1], first + r, x, fmt.Sprint(y0 + dy*(4*r+k)), z})
		}
	}
	return out
}

func mustEntry(t *testing.T, text string) *mmcif.Entry {
	t.Helper()
	e, err := mmcif.ReadEntry([]byte(text))
	if err != nil {
		t.Fatalf("synthetic entry: %v\n%s", err, text)
	}
	return e
}

// withHeader is opt with HeaderChains from the header scan of text
// (pdbheader.Scan, exp222's rule), as the selection manifest carries it.
func withHeader(t *testing.T, text string, opt Options) Options {
	t.Helper()
	h := pdbheader.Scan([]byte(text), "synth.cif")
	if h.Error != nil {
		t.Fatalf("header scan: %s", *h.Error)
	}
	n := int(h.NAssembly1ProteinChains)
	opt.HeaderChains = &n
	return opt
}
