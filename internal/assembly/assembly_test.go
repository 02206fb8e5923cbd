package assembly

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

func TestParseOperExpr(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{"1", []string{"1"}},
		{"1,2", []string{"1", "2"}},
		{"1-3", []string{"1", "2", "3"}},
		{"1-3,5", []string{"1", "2", "3", "5"}},
		{"(1-3)", []string{"1", "2", "3"}},
		{"(2,3-5,XY)", []string{"2", "3", "4", "5", "XY"}},
		{"(1-2)(3-4)", []string{"1", "2"}}, // gemmi reads the first group of a product
		{"P", []string{"P"}},
		{"", []string{""}},
	} {
		got, err := ParseOperExpr(tc.expr)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseOperExpr(%q) = %q, %v; want %q", tc.expr, got, err, tc.want)
		}
	}
	if _, err := ParseOperExpr("1-100000000"); err == nil {
		t.Error("ParseOperExpr(1-100000000): no error")
	}
}

// entry writes an mmCIF with one GLY per chain (chain name, asym) and the
// given generator rows (oper_expression, asym_id_list), operators 1..n
// translating by (100*i, 0, 0) except operator 2, a rotation about z by 90
// degrees plus (1, 2, 3).
func entry(t *testing.T, chains [][2]string, gens [][2]string, n int) *mmcif.Entry {
	t.Helper()
	var b strings.Builder
	b.WriteString("data_T\n_pdbx_struct_assembly.id 1\n_pdbx_struct_assembly.details author_defined_assembly\n")
	b.WriteString("_pdbx_struct_assembly.method_details ?\n_pdbx_struct_assembly.oligomeric_details ?\n_pdbx_struct_assembly.oligomeric_count ?\n")
	b.WriteString("loop_\n_pdbx_struct_assembly_gen.assembly_id\n_pdbx_struct_assembly_gen.oper_expression\n_pdbx_struct_assembly_gen.asym_id_list\n")
	for _, g := range gens {
		fmt.Fprintf(&b, "1 '%s' %s\n", g[0], g[1])
	}
	b.WriteString("loop_\n_pdbx_struct_oper_list.id\n_pdbx_struct_oper_list.type\n")
	for _, tag := range []string{"matrix[1][1]", "matrix[1][2]", "matrix[1][3]", "vector[1]", "matrix[2][1]", "matrix[2][2]", "matrix[2][3]", "vector[2]", "matrix[3][1]", "matrix[3][2]", "matrix[3][3]", "vector[3]"} {
		fmt.Fprintf(&b, "_pdbx_struct_oper_list.%s\n", tag)
	}
	for i := 1; i <= n; i++ {
		if i == 2 {
			b.WriteString("2 op 0 -1 0 1 1 0 0 2 0 0 1 3\n")
			continue
		}
		fmt.Fprintf(&b, "%d op 1 0 0 %d 0 1 0 0 0 0 1 0\n", i, 100*(i-1))
	}
	b.WriteString("loop_\n")
	for _, tag := range []string{"id", "type_symbol", "label_atom_id", "label_alt_id", "label_comp_id", "label_asym_id", "label_entity_id", "label_seq_id", "Cartn_x", "Cartn_y", "Cartn_z", "occupancy", "B_iso_or_equiv", "auth_seq_id", "auth_asym_id"} {
		fmt.Fprintf(&b, "_atom_site.%s\n", tag)
	}
	for i, c := range chains {
		fmt.Fprintf(&b, "%d C CA . GLY %s 1 1 1.5 -2.25 %d.125 1 10 1 %s\n", i+1, c[1], i, c[0])
	}
	e, err := mmcif.ReadEntry([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func expandNames(t *testing.T, e *mmcif.Entry) ([]string, []string) {
	t.Helper()
	as, err := Parse(e)
	if err != nil {
		t.Fatal(err)
	}
	a := Find(as, "1")
	if a == nil {
		t.Fatal("no assembly 1")
	}
	m, err := Expand(a, &e.Structure.Models[0])
	if err != nil {
		t.Fatal(err)
	}
	var names, subs []string
	for _, c := range m.Chains {
		names = append(names, c.Name)
		for _, r := range c.Residues {
			subs = append(subs, r.Subchain)
		}
	}
	return names, subs
}

// TestExpandNamesAsGemmi075 pins gemmi 0.7.5's AddNumber naming and order:
// generator by generator, operator by operator, the model's chains in
// order, each copy numbered by the running index of the operator
// application (not the copy number per chain, as gemmi 0.5.7 did), a
// taken name bumped to the next free number; subchains take the same
// suffix.
func TestExpandNamesAsGemmi075(t *testing.T) {
	// Two generator rows: ops 1,2 on A; op 3 on B then A (asym-list order
	// does not matter: chains go in model order).
	e := entry(t, [][2]string{{"A", "A"}, {"B", "B"}}, [][2]string{{"1,2", "A"}, {"3", "B,A"}}, 3)
	names, subs := expandNames(t, e)
	if want := []string{"A1", "A2", "A3", "B3"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names %v, want %v (gemmi 0.5.7 would give A1 A2 A3 B1)", names, want)
	}
	if want := []string{"A1", "A2", "A3", "B3"}; !reflect.DeepEqual(subs, want) {
		t.Errorf("subchains %v, want %v", subs, want)
	}
	// Chains A and A1 (asyms A, B) under 11 operators: A's copy at the
	// 11th finds A11..A19 taken (A1's copies) and becomes A20.
	e = entry(t, [][2]string{{"A", "A"}, {"A1", "B"}}, [][2]string{{"1-11", "A,B"}}, 11)
	names, subs = expandNames(t, e)
	want := []string{"A1", "A11", "A2", "A12", "A3", "A13", "A4", "A14", "A5", "A15", "A6", "A16", "A7", "A17", "A8", "A18", "A9", "A19", "A10", "A110", "A20", "A111"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("names %v\nwant %v", names, want)
	}
	if subs[20] != "A20" || subs[21] != "B11" {
		t.Errorf("subchains of the 11th copies %s %s, want A20 B11", subs[20], subs[21])
	}
}

// TestExpandCoordinates: x' = m x + v, and a subchain the model lacks is
// gemmi 0.7.5's error.
func TestExpandCoordinates(t *testing.T) {
	e := entry(t, [][2]string{{"A", "A"}}, [][2]string{{"1,2", "A"}}, 2)
	as, _ := Parse(e)
	m, err := Expand(Find(as, "1"), &e.Structure.Models[0])
	if err != nil {
		t.Fatal(err)
	}
	at := m.Chains[1].Residues[0].Atoms[0]
	if at.X != 2.25+1 || at.Y != 1.5+2 || at.Z != 0.125+3 {
		t.Errorf("rotated copy at %v %v %v, want 3.25 3.5 3.125", at.X, at.Y, at.Z)
	}
	if src := e.Structure.Models[0].Chains[0].Residues[0].Atoms[0]; src.X != 1.5 {
		t.Errorf("the model was changed: x %v", src.X)
	}
	e = entry(t, [][2]string{{"A", "A"}}, [][2]string{{"1", "A,Z"}}, 1)
	as, _ = Parse(e)
	if _, err := Expand(Find(as, "1"), &e.Structure.Models[0]); err == nil || !strings.Contains(err.Error(), "no subchain Z") {
		t.Errorf("missing subchain: %v, want no subchain Z", err)
	}
}

// TestGoldenAssemblyNames: every golden multimer's chains, as gemmi built
// and exp222 kept them, are a subsequence of Expand's chains in order
// (curation only removes chains).
func TestGoldenAssemblyNames(t *testing.T) {
	dir := testcorpus.Dir(t)
	n := 0
	for _, c := range []struct{ file, want string }{
		{"pdb/1stp.cif", "A1 A2 A3 A4"},
		{"pdb/2w83.cif", "A1 B1 C1 D1 E1"},
		{"golden/pdb-curation/edge/edge_chain_id_2char.cif", "AB1 AC1 AB2 AC2"},
		{"golden/pdb-curation/edge/edge_ring_2000.cif", "A1 B1 D1 E1 A2 B2 D2 E2 A3 B3 D3 A4 B4 D4 D5 D6"},
	} {
		e, err := mmcif.ReadEntryFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		names, _ := expandNames(t, e)
		if !subsequence(strings.Fields(c.want), names) {
			t.Errorf("%s: expanded chains %v do not hold exp222's %s in order", c.file, names, c.want)
		}
		n++
	}
	t.Logf("%d golden assemblies", n)
}

func subsequence(want, got []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}
