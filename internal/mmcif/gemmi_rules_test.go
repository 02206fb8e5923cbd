package mmcif

import (
	"fmt"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// The expectations below were produced by running gemmi 0.5.7
// (python3-gemmi, read_structure) on the same inputs; they pin the rules in
// the package doc for cases the corpus does not exercise.

const ruleHeader = `data_x
loop_
_atom_site.group_PDB
_atom_site.id
_atom_site.type_symbol
_atom_site.label_atom_id
_atom_site.label_alt_id
_atom_site.label_comp_id
_atom_site.label_asym_id
_atom_site.label_entity_id
_atom_site.label_seq_id
_atom_site.pdbx_PDB_ins_code
_atom_site.Cartn_x
_atom_site.Cartn_y
_atom_site.Cartn_z
_atom_site.occupancy
_atom_site.B_iso_or_equiv
_atom_site.auth_seq_id
_atom_site.auth_asym_id
_atom_site.pdbx_PDB_model_num
`

type arow struct {
	comp, sub, ent, lseq, aseq, chain, model, atom, alt, icode string
}

func rows(rs ...arow) string {
	var b strings.Builder
	for i, r := range rs {
		def := func(s, d string) string {
			if s == "" {
				return d
			}
			return s
		}
		fmt.Fprintf(&b, "ATOM %d C %s %s %s %s %s %s %s %d.0 0 0 1 10 %s %s %s\n", i+1,
			def(r.atom, "CA"), def(r.alt, "."), r.comp, def(r.sub, "A"), def(r.ent, "1"), def(r.lseq, "."), def(r.icode, "?"),
			i*4, r.aseq, def(r.chain, "A"), def(r.model, "1"))
	}
	return b.String()
}

// summary renders models as "model:chain[RES/seq/type/natoms ...]".
func summary(st *structure.Structure) string {
	var parts []string
	short := map[structure.EntityType]string{structure.EntityPolymer: "P", structure.EntityNonPolymer: "N", structure.EntityWater: "W", structure.EntityBranched: "B", structure.EntityUnknown: "?"}
	for _, m := range st.Models {
		for _, c := range m.Chains {
			var rs []string
			for _, r := range c.Residues {
				rs = append(rs, fmt.Sprintf("%s%d%s/%s/%d", r.Name, r.AuthSeq, strings.Trim(string(r.ICode), "\x00"), short[r.Entity], len(r.Atoms)))
			}
			parts = append(parts, fmt.Sprintf("%d:%s[%s]poly=%d", m.Num, c.Name, strings.Join(rs, " "), len(c.Polymer())))
		}
	}
	return strings.Join(parts, " ")
}

func TestGemmiRules(t *testing.T) {
	ent := "loop_\n_entity.id\n_entity.type\n1 polymer\n2 water\n"
	tests := []struct {
		name, in, want string
	}{
		{"chain parts merged after typing", ruleHeader + rows(
			arow{comp: "ALA", aseq: "1"}, arow{comp: "ALA", aseq: "2"},
			arow{comp: "GLY", sub: "B", aseq: "1", chain: "B"},
			arow{comp: "HOH", sub: "C", aseq: "100", atom: "O"}),
			"1:A[ALA1/P/1 ALA2/P/1 HOH100/W/1]poly=2 1:B[GLY1/N/1]poly=0"},
		{"revisited residue joins the earlier one", ruleHeader + rows(
			arow{comp: "ALA", aseq: "1"}, arow{comp: "GLY", aseq: "2"}, arow{comp: "ALA", aseq: "1", atom: "CB"}),
			"1:A[ALA1/P/2 GLY2/P/1]poly=2"},
		{"microheterogeneity gives two residues", ruleHeader + rows(
			arow{comp: "ALA", aseq: "1", alt: "A"}, arow{comp: "GLY", aseq: "1", alt: "B"}, arow{comp: "SER", aseq: "2"}),
			"1:A[ALA1/P/1 GLY1/P/1 SER2/P/1]poly=3"},
		{"subchain change within a residue", ruleHeader + rows(
			arow{comp: "ALA", aseq: "1"}, arow{comp: "ALA", sub: "B", aseq: "1", atom: "CB"}),
			"1:A[ALA1/N/2]poly=0"},
		{"models in first-seen order, parts merged", ruleHeader + rows(
			arow{comp: "ALA", aseq: "1", model: "2"}, arow{comp: "ALA", aseq: "1", model: "1"}, arow{comp: "GLY", aseq: "2", model: "2"}),
			"2:A[ALA1/N/1 GLY2/N/1]poly=0 1:A[ALA1/N/1]poly=0"},
		{"insertion code", ruleHeader + rows(arow{comp: "ALA", aseq: "1"}, arow{comp: "ALA", aseq: "1", icode: "A"}),
			"1:A[ALA1/P/1 ALA1A/P/1]poly=2"},
		{"single residue is non-polymer", ruleHeader + rows(arow{comp: "ALA", aseq: "1"}), "1:A[ALA1/N/1]poly=0"},
		{"water first makes the run water", ruleHeader + rows(arow{comp: "HOH", aseq: "1", atom: "O"}, arow{comp: "NAG", aseq: "2", atom: "C1"}),
			"1:A[HOH1/W/1 NAG2/W/1]poly=0"},
		{"two ligands in one subchain are a polymer", ruleHeader + rows(arow{comp: "NAG", aseq: "1", atom: "C1"}, arow{comp: "NAG", aseq: "2", atom: "C1"}),
			"1:A[NAG1/P/1 NAG2/P/1]poly=2"},
		{"get_polymer takes the first polymer run", ruleHeader + rows(
			arow{comp: "ALA", aseq: "1"}, arow{comp: "ALA", sub: "B", aseq: "2"}, arow{comp: "ALA", sub: "B", aseq: "3"}),
			"1:A[ALA1/N/1 ALA2/P/1 ALA3/P/1]poly=2"},
		{"_entity type wins", "data_x\nloop_\n_entity.id\n_entity.type\n1 non-polymer\n" + ruleHeader[len("data_x\n"):] + rows(
			arow{comp: "ALA", aseq: "1"}, arow{comp: "GLY", aseq: "2"}),
			"1:A[ALA1/N/1 GLY2/N/1]poly=0"},
		{"_struct_asym maps subchain to entity", "data_x\n" + ent + "loop_\n_struct_asym.id\n_struct_asym.entity_id\nA 2\n" + ruleHeader[len("data_x\n"):] + rows(
			arow{comp: "ALA", aseq: "50"}, arow{comp: "ALA", aseq: "51"}),
			"1:A[ALA50/W/1 ALA51/W/1]poly=0"},
		{"first residue's entity decides without _struct_asym", "data_x\n" + ent + ruleHeader[len("data_x\n"):] + rows(
			arow{comp: "ALA", aseq: "1", ent: "2"}, arow{comp: "ALA", aseq: "2"}, arow{comp: "ALA", aseq: "3"}),
			"1:A[ALA1/W/1 ALA2/W/1 ALA3/W/1]poly=0"},
		{"polymer entity keeps a lone residue", "data_x\n" + ent + ruleHeader[len("data_x\n"):] + rows(arow{comp: "ALA", aseq: "1"}),
			"1:A[ALA1/P/1]poly=1"},
		{"unknown entity type falls back to the heuristic", "data_x\nloop_\n_entity.id\n_entity.type\n1 weird\n" + ruleHeader[len("data_x\n"):] + rows(
			arow{comp: "ALA", aseq: "1"}, arow{comp: "ALA", aseq: "2"}),
			"1:A[ALA1/P/1 ALA2/P/1]poly=2"},
		{"water names are case-insensitive", ruleHeader + rows(arow{comp: "hoh", aseq: "1", atom: "O"}, arow{comp: "ALA", aseq: "2"}),
			"1:A[hoh1/W/1 ALA2/W/1]poly=0"},
		{"TIP is not water", ruleHeader + rows(arow{comp: "TIP", aseq: "1", atom: "O"}, arow{comp: "ALA", aseq: "2"}),
			"1:A[TIP1/P/1 ALA2/P/1]poly=2"},
		{"insertion code glued to auth_seq_id", ruleHeader + rows(arow{comp: "ALA", aseq: "1"}, arow{comp: "ALA", aseq: "1x"}),
			"1:A[ALA1/P/1 ALA1x/P/1]poly=2"},
		{"_atom_site as tag-value pairs", "data_p\n_atom_site.group_PDB ATOM\n_atom_site.id 1\n_atom_site.type_symbol C\n" +
			"_atom_site.label_atom_id CA\n_atom_site.label_alt_id .\n_atom_site.label_comp_id ALA\n_atom_site.label_asym_id A\n" +
			"_atom_site.label_seq_id 1\n_atom_site.Cartn_x 1.5\n_atom_site.Cartn_y 2\n_atom_site.Cartn_z 3\n_atom_site.occupancy 1\n" +
			"_atom_site.B_iso_or_equiv 20\n_atom_site.auth_seq_id 7\n_atom_site.auth_asym_id B\n",
			"1:B[ALA7/N/1]poly=0"},
		{"no auth_seq_id: no atoms", strings.Replace(ruleHeader, "_atom_site.auth_seq_id\n", "", 1) +
			"ATOM 1 C CA . ALA A 1 1 ? 0 0 0 1 10 A 1\n", ""},
		{"no auth_asym_id: chain by label_asym_id", strings.Replace(ruleHeader, "_atom_site.auth_asym_id\n", "", 1) +
			"ATOM 1 C CA . ALA Q 1 1 ? 0 0 0 1 10 1 1\nATOM 2 C CA . GLY Q 1 2 ? 3 0 0 1 10 2 1\n", "1:Q[ALA1/P/1 GLY2/P/1]poly=2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Read([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(st); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
