package mmcif_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/mmcif/gemmitest"
)

// site is one _atom_site row of a table case: "comp seq[icode] [k=v ...]"
// with keys alt, sub (label_asym_id, default A), ent (label_entity_id,
// default 1), lseq (label_seq_id, default the seq number), chain (default
// A), model (default 1), atom (default CA), acomp (auth_comp_id, default
// comp), b (B-factor, default 90), occ (occupancy, default 1).
func site(spec string, id int) string {
	f := strings.Fields(spec)
	comp, seq := f[0], f[1]
	num, icode := seq, "?"
	if c := seq[len(seq)-1]; c >= 'A' {
		num, icode = seq[:len(seq)-1], string(c)
	}
	v := map[string]string{"alt": ".", "sub": "A", "ent": "1", "lseq": num, "chain": "A", "model": "1",
		"atom": "CA", "acomp": comp, "b": "90", "occ": "1"}
	for _, kv := range f[2:] {
		k, val, _ := strings.Cut(kv, "=")
		v[k] = val
	}
	el := v["atom"][:1]
	return fmt.Sprintf("ATOM %d %s %s %s %s %s %s %s %s %d.5 %d.25 0 %s %s %s %s %s %s\n", id, el, v["atom"], v["alt"],
		comp, v["sub"], v["ent"], v["lseq"], icode, 4*id, id%3, v["occ"], v["b"], num, v["acomp"], v["chain"], v["model"])
}

const tableAtomSite = `loop_
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
_atom_site.auth_comp_id
_atom_site.auth_asym_id
_atom_site.pdbx_PDB_model_num
`

func tableFile(pre string, sites ...string) string {
	var b strings.Builder
	b.WriteString("data_t\n" + pre + tableAtomSite)
	for i, s := range sites {
		b.WriteString(site(s, i+1))
	}
	return b.String()
}

const entity12 = "loop_\n_entity.id\n_entity.type\n1 polymer\n2 non-polymer\n"

// TestConformerRulesAgreeWithGemmi pins gemmi 0.5.7's conformer-dependent
// rules (and the rules found next to them in its source) as table tests:
// each case is read by gemmi at test time and by Read, and both must give
// the polymer size and sequence in the table (model 1's chains, "|"
// between chains) and agree on everything gemmitest.Diff compares.
//
// From gemmi's source (v0.5.7): fill_residue_entity_type types a subchain
// without a known entity by ResidueSpan::length(), which counts consecutive
// residues with the same SeqId (auth number, insertion code without case;
// label_seq_id plays no part) once: microheterogeneity is one position, so
// a chain whose residues share one position is not a polymer; the water
// test looks at the subchain's first residue only (the first conformer). get_polymer and
// the reference generators then take every residue, alternatives included
// (one_letter_code and extract_sequence iterate first_conformer(), but
// the references do not use them). find_atom(name, '*') takes the first
// atom of a name whatever its altloc (pLDDT and contact atoms).
// check_polymer_type and is_polymer_residue (HETATM standard residues)
// only act in add_entity_types, which changes nothing after an mmCIF read
// because every residue is typed by then.
func TestConformerRulesAgreeWithGemmi(t *testing.T) {
	g := gemmitest.New(t)
	tests := []struct {
		name, in, want string
	}{
		// the table
		{"22 SER/PRO altlocs A,B", tableFile("", "SER 22 alt=A", "PRO 22 alt=B"), "0:"},
		{"22 SER/PRO/GLY", tableFile("", "SER 22 alt=A", "PRO 22 alt=B", "GLY 22 alt=C"), "0:"},
		{"1 ALA 2 GLY 3 SER/PRO 4 LEU 5 VAL", tableFile("", "ALA 1", "GLY 2", "SER 3 alt=A", "PRO 3 alt=B", "LEU 4", "VAL 5"), "6:AGSPLV"},
		{"1 ALA", tableFile("", "ALA 1"), "0:"},
		// positions, not residues, decide
		{"microheterogeneity first, then one more position", tableFile("", "SER 1 alt=A", "PRO 1 alt=B", "GLY 2"), "3:SPG"},
		{"microheterogeneity last", tableFile("", "GLY 1", "SER 2 alt=A", "PRO 2 alt=B"), "3:GSP"},
		{"alternatives interleaved atom by atom", tableFile("", "SER 7 alt=A atom=N", "PRO 7 alt=B atom=N", "SER 7 alt=A", "PRO 7 alt=B"), "0:"},
		{"same number, other insertion code: two positions", tableFile("", "SER 7", "PRO 7A"), "2:SP"},
		{"insertion codes A and a are one position", tableFile("", "SER 7A alt=A", "PRO 7a alt=B"), "0:"},
		{"insertion codes A and a: one residue", tableFile("", "SER 7A", "SER 7a atom=CB", "GLY 8"), "2:SG"},
		{"same number not adjacent counts twice", tableFile("", "SER 5", "GLY 6", "PRO 5"), "3:SGP"},
		{"label_seq_id does not group: one auth position", tableFile("", "SER 22 lseq=1 alt=A", "PRO 22 lseq=2 alt=B"), "0:"},
		{"label_seq_id does not group: two auth positions", tableFile("", "SER 22 lseq=1 alt=A", "PRO 23 lseq=1 alt=B"), "2:SP"},
		{"no altlocs, two names at one number", tableFile("", "SER 5", "PRO 5"), "0:"},
		{"microheterogeneity in a second subchain of the chain", tableFile("",
			"ALA 1", "GLY 2", "SER 9 sub=B alt=A", "PRO 9 sub=B alt=B"), "2:AG"},
		{"water first among alternatives", tableFile("", "HOH 3 alt=A atom=O", "SER 3 alt=B", "GLY 4"), "0:"},
		{"water second among alternatives", tableFile("", "SER 3 alt=A", "HOH 3 alt=B atom=O", "GLY 4"), "3:SXG"},
		{"polymer entity keeps one position", tableFile(entity12, "SER 22 alt=A", "PRO 22 alt=B"), "2:SP"},
		{"non-polymer entity wins over positions", tableFile(entity12, "ALA 1 ent=2", "GLY 2 ent=2", "SER 3 ent=2"), "0:"},
		{"two chains, one of one position", tableFile("", "ALA 1", "GLY 2", "SER 1 alt=A chain=B sub=B", "PRO 1 alt=B chain=B sub=B"), "2:AG|0:"},
		{"second model with microheterogeneity", tableFile("", "ALA 1", "GLY 2", "ALA 1 model=2 alt=A", "GLY 1 model=2 alt=B"), "2:AG"},
		// atoms: every altloc is kept; the first atom of a name is used
		{"altloc B listed first gives the CA", tableFile("", "ALA 1 alt=B b=40", "ALA 1 alt=A b=80", "GLY 2"), "2:AG"},
		// rules found next to them in the source
		{"auth_comp_id wins over label_comp_id", tableFile("", "ALA 1 acomp=TYR", "GLY 2"), "2:YG"},
		{"_entity.type is case-sensitive", tableFile("loop_\n_entity.id\n_entity.type\n1 Non-Polymer\n", "ALA 1", "GLY 2"), "2:AG"},
		{"entity of each subchain run from its first residue", tableFile(entity12, "ALA 1 ent=?", "GLY 2 ent=2", "SER 3 ent=2"), "3:AGS"},
		{"subchain to entity from the first model only", tableFile(entity12,
			"ALA 1 model=1", "GLY 2 model=1", "ALA 1 model=2 sub=Q ent=2", "GLY 2 model=2 sub=Q ent=2"), "2:AG"},
		{"subchain listed under two entities: first _entity row wins", tableFile(
			"loop_\n_entity.id\n_entity.type\n1 polymer\n2 non-polymer\nloop_\n_struct_asym.id\n_struct_asym.entity_id\nA 2\nA 1\n",
			"ALA 1", "GLY 2"), "2:AG"},
		{"label_asym_id '.' renames subchains (setup_entities)", tableFile("",
			"ALA 1 sub=.", "GLY 2 sub=.", "SER 3 sub=B", "THR 4 sub=B"), "4:AGST"},
		{"B-factor '?' is 50, occupancy '?' is 1", tableFile("", "ALA 1 b=?", "GLY 2 b=. occ=?", "SER 3 occ=."), "3:AGS"},
		{"quoted model number: a chain part per row", tableFile("", "ALA 1 model='1'", "ALA 1 atom=CB model='1'", "GLY 2 model='1'"), "0:"},
		{"model number '?': a chain part per row", tableFile("", "ALA 1 model=?", "GLY 2 model=?"), "0:"},
		{"label_asym_id '.' without it", tableFile("", "ALA 1 sub=C", "GLY 2 sub=C", "SER 3 sub=B", "THR 4 sub=B"), "2:AG"},
	}
	dir := t.TempDir()
	paths := make([]string, len(tests))
	for i, tc := range tests {
		paths[i] = filepath.Join(dir, fmt.Sprintf("case%d.cif", i))
		if err := os.WriteFile(paths[i], []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		mmcif.CheckFastMatchesGeneral(t, tc.name, []byte(tc.in))
	}
	readings, err := g.Read(paths)
	if err != nil {
		t.Fatal(err)
	}
	polymers := func(r gemmitest.Reading) string {
		if len(r.Models) == 0 {
			return "no models"
		}
		var s []string
		for _, c := range r.Models[0].Chains {
			s = append(s, fmt.Sprintf("%d:%s", c.NPolymer, c.Sequence))
		}
		return strings.Join(s, "|")
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gr := readings[i]
			if got := polymers(gr); got != tc.want {
				t.Errorf("gemmi reads %s, the table says %s", got, tc.want)
			}
			st, err := mmcif.ReadFile(paths[i])
			if err != nil {
				t.Fatal(err)
			}
			ours := gemmitest.Summarize(paths[i], st)
			if got := polymers(ours); got != tc.want {
				t.Errorf("foldcorpus reads %s, want %s", got, tc.want)
			}
			for _, d := range gemmitest.Diff(gr, ours) {
				t.Errorf("%s", d)
			}
			if t.Failed() {
				t.Logf("input:\n%s", tc.in)
			}
		})
	}
}
