package mmcif_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/mmcif/gemmitest"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// syntaxAtoms is a two-residue _atom_site loop for the syntax cases.
const syntaxAtoms = `loop_
_atom_site.group_PDB
_atom_site.id
_atom_site.type_symbol
_atom_site.label_atom_id
_atom_site.label_alt_id
_atom_site.label_comp_id
_atom_site.label_asym_id
_atom_site.label_entity_id
_atom_site.label_seq_id
_atom_site.Cartn_x
_atom_site.Cartn_y
_atom_site.Cartn_z
_atom_site.occupancy
_atom_site.B_iso_or_equiv
_atom_site.auth_seq_id
_atom_site.auth_asym_id
ATOM 1 C CA . ALA A 1 1 0 0 0 1 10 1 A
ATOM 2 C CA . GLY A 1 2 3.8 0 0 1 20 2 A
`

// syntaxCase is one input and what gemmi 0.5.7 does with it (checked at
// test time: the case fails when gemmi does otherwise).
type syntaxCase struct {
	name, in   string
	gemmiReads bool
}

// agreeWithGemmi reads every case with gemmi (one Python process) and with
// ReadFile, each in a file named with ext (gemmi picks its reader by
// name): gemmi must do what the case says, and foldcorpus what gemmi
// does (the same error outcome, or the same reading, atom by atom).
func agreeWithGemmi(t *testing.T, ext string, cases []syntaxCase) {
	t.Helper()
	g := gemmitest.New(t)
	dir := t.TempDir()
	paths := make([]string, len(cases))
	for i, c := range cases {
		paths[i] = filepath.Join(dir, fmt.Sprintf("case%d%s", i, ext))
		if err := os.WriteFile(paths[i], []byte(c.in), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := g.Read(paths)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		r := rs[i]
		if (r.Error == "") != c.gemmiReads {
			t.Errorf("%s: gemmi error %q, but the case says gemmi reads it: %v", c.name, r.Error, c.gemmiReads)
			continue
		}
		st, err := mmcif.ReadFile(paths[i])
		switch {
		case err != nil && r.Error != "":
			t.Logf("%s: both refuse it (gemmi: %s; foldcorpus: %v)", c.name, r.Error, err)
		case err != nil:
			t.Errorf("%s: foldcorpus fails (%v), gemmi reads it", c.name, err)
		case r.Error != "":
			t.Errorf("%s: gemmi fails (%s), foldcorpus reads it", c.name, r.Error)
		default:
			if d := gemmitest.Diff(r, gemmitest.Summarize(paths[i], st)); len(d) > 0 {
				t.Errorf("%s disagrees with gemmi:\n%s", c.name, strings.Join(d, "\n"))
			}
		}
	}
}

// TestNonASCIIInQuotedValuesAsGemmi: gemmi's quoted_tail takes any byte
// but a newline inside a quoted value (relaxed for PDB 5Q1H), and a quote
// closes before whitespace, '#' or the end; unquoted values, tags and
// block names stay printable ASCII.
func TestNonASCIIInQuotedValuesAsGemmi(t *testing.T) {
	block := func(extra string) string { return "data_x\n" + extra + syntaxAtoms }
	agreeWithGemmi(t, ".cif", []syntaxCase{
		{"UTF-8 in a single-quoted title", block("_struct.title 'caf\xc3\xa9 au lait'\n"), true},
		{"no-break space (5Q1H) in a double-quoted title", block("_struct.title \"PanDDA\xc2\xa0analysis\"\n"), true},
		{"Latin-1 byte in a quoted value", block("_struct.title 'Universit\xe9'\n"), true},
		{"control byte in a quoted value", block("_struct.title 'a\x01b'\n"), true},
		{"carriage return inside a quoted value", block("_struct.title 'a\rb'\n"), true},
		{"tab inside a quoted value", block("_struct.title 'a\tb'\n"), true},
		{"non-ASCII quoted value in a loop row", "data_x\n" + strings.Replace(syntaxAtoms, "ATOM 2 C CA . GLY", "ATOM 2 C 'C\xc3\xa9' . GLY", 1), true},
		{"non-ASCII quoted value in a skipped loop", block("loop_\n_citation_author.name\n'M\xc3\xbcller, A.'\n'\xc3\x98stergaard'\n"), true},
		{"quote closed before a comment", block("_struct.title 'abc'#comment\n_struct.pdbx_descriptor \"x\"#\n"), true},
		{"non-ASCII in a text field", block("_struct.title\n;caf\xc3\xa9\n;\n"), true},
		{"non-ASCII in a comment", block("# caf\xc3\xa9\n"), true},
		{"non-ASCII in an unquoted value", block("_struct.title caf\xc3\xa9\n"), false},
		{"non-ASCII in a tag", block("_struct.titl\xc3\xa9 x\n"), false},
		{"newline inside a quoted value", block("_struct.title 'caf\xc3\xa9\nau lait'\n"), false},
	})
}

// TestDuplicateTagsAsGemmi: gemmi's check_for_duplicates refuses a block
// that repeats a tag (pairs and loop columns, without case), a document
// that repeats a block name (without case; a bare data_ is "#"), and a
// block that repeats a save_ frame name; tags inside frames are not the
// block's. The frame grammar (no frame in a frame, save_ closing an open
// frame, frames closed before the block ends, stop_ only after a loop)
// and frames' items not being read as the block's are checked alongside.
func TestDuplicateTagsAsGemmi(t *testing.T) {
	block := func(extra string) string { return "data_x\n" + extra + syntaxAtoms }
	agreeWithGemmi(t, ".cif", []syntaxCase{
		{"one title", block("_struct.title A\n"), true},
		{"title twice", block("_struct.title A\n_struct.title B\n"), false},
		{"title twice in other case", block("_struct.title A\n_STRUCT.Title B\n"), false},
		{"pair and loop column", block("_entity.id 1\nloop_\n_entity.id\n_entity.type\n1 polymer\n"), false},
		{"column twice in one loop", block("loop_\n_entity.id\n_entity.id\n1 1\n"), false},
		{"atom_site loop twice", block(syntaxAtoms), false},
		{"atom_site column also as a pair", block("_atom_site.id 7\n"), false},
		{"same tag in two blocks", block("_struct.title A\n") + "data_y\n_struct.title B\n", true},
		{"block name twice", block("") + "data_x\n_a.b 1\n", false},
		{"block name twice in other case", block("") + "data_X\n_a.b 1\n", false},
		{"two bare data_ blocks", "data_\n" + syntaxAtoms + "data_\n_a.b 1\n", false},
		{"frame repeating a block tag", block("_struct.title A\nsave_f\n_struct.title B\nsave_\n"), true},
		{"tag twice inside a frame", block("save_f\n_a.b 1\n_a.b 2\nsave_\n"), true},
		{"frame name twice", block("save_f\n_a.b 1\nsave_\nsave_F\n_a.c 1\nsave_\n"), false},
		{"same frame name in two blocks", block("save_f\n_a.b 1\nsave_\n") + "data_y\nsave_f\n_a.b 1\nsave_\n", true},
		{"atom_site inside a frame is not the block's", "data_x\nsave_f\n" + syntaxAtoms + "save_\n", true},
		{"frame in a frame", block("save_f\nsave_g\n_a.b 1\nsave_\nsave_\n"), false},
		{"save_ with no open frame", block("save_\n"), false},
		{"frame not closed", block("save_f\n_a.b 1\n"), false},
		{"stop_ after a loop", "data_x\n" + syntaxAtoms + "stop_\n_a.b 1\n", true},
		{"stop_ outside a loop", block("_a.b 1\nstop_\n"), false},
	})
}

// hairpin returns _atom_site rows of ten glycines folded back on
// themselves (residue k and 11-k about 5 Å apart: contacts at |i-j| >= 6),
// label_seq_id given by lseq(k) ("" leaves the column out).
func hairpin(lseq func(k int) string) string {
	var b strings.Builder
	b.WriteString("data_h\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n" +
		"_atom_site.label_alt_id\n_atom_site.label_comp_id\n_atom_site.label_asym_id\n_atom_site.label_entity_id\n")
	if lseq(1) != "" {
		b.WriteString("_atom_site.label_seq_id\n")
	}
	b.WriteString("_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n_atom_site.occupancy\n" +
		"_atom_site.B_iso_or_equiv\n_atom_site.auth_seq_id\n_atom_site.auth_asym_id\n")
	for k := 1; k <= 10; k++ {
		x, y := float64(k-1)*3.8, 0.0
		if k > 5 {
			x, y = float64(10-k)*3.8, 5
		}
		ls := lseq(k)
		if ls != "" {
			ls += " "
		}
		fmt.Fprintf(&b, "ATOM %d C CA . GLY A 1 %s%.3f %.3f 0 1 %d %d A\n", k, ls, x, y, 50+k, 100+k)
	}
	return b.String()
}

// TestLabelSeqAsGemmi: gemmi 0.5.7 leaves label_seq empty (None) where
// label_seq_id is '.', '?' or absent, and so do we (LabelSeq 0); the
// contacts are then numbered by position in the polymer
// (structure.SeqNumbers), so that files without the column (Rosetta's, PDB
// format) have contacts. Each case's label_seqs and contacts are compared
// with gemmi's reading numbered the same way.
func TestLabelSeqAsGemmi(t *testing.T) {
	cases := []syntaxCase{
		{"label_seq_id given", hairpin(func(k int) string { return fmt.Sprint(k) }), true},
		{"label_seq_id column absent", hairpin(func(int) string { return "" }), true},
		{"label_seq_id '.' throughout (Rosetta)", hairpin(func(int) string { return "." }), true},
		{"label_seq_id '?' throughout", hairpin(func(int) string { return "?" }), true},
		{"one '.' among numbers", hairpin(func(k int) string { return map[bool]string{true: ".", false: fmt.Sprint(k)}[k == 4] }), true},
	}
	agreeWithGemmi(t, ".cif", cases)
	for _, c := range cases[1:4] {
		st, err := mmcif.Read([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		poly := st.Models[0].Chains[0].Polymer()
		cs, _ := structure.Contacts(poly, 8.0, 6)
		if len(cs) == 0 || poly[0].LabelSeq != 0 {
			t.Errorf("%s: %d contacts, label_seq %d; want contacts numbered by position and no label_seq", c.name, len(cs), poly[0].LabelSeq)
		}
	}
}

// TestPDBRecordsAsGemmi: PDB-format records whose reading depends on what
// gemmi's line buffer holds from earlier lines (a bare MODEL takes its
// number, a bare ANISOU its U11, from the columns earlier lines left), and
// TER, END and chain-part rules, against python3-gemmi.
func TestPDBRecordsAsGemmi(t *testing.T) {
	atom := func(serial int, res string, chain string, seq int, x float64) string {
		return fmt.Sprintf("ATOM  %5d  CA  %-3s %1s%4d    %8.3f   6.134  -6.504  1.00 90.00           C\n", serial, res, chain, seq, x)
	}
	a1, a2, b1 := atom(1, "ALA", "A", 1, 11.104), atom(2, "GLY", "A", 2, 14.9), atom(3, "SER", "B", 1, 0.5)
	zeroU := "ANISOU    1  CA  ALA A   1        0    200    300      0      0      0\n"
	cases := []syntaxCase{
		{"bare ANISOU after an atom: U11 from the atom line, then a duplicate", a1 + "ANISOU\n" + zeroU, false},
		{"bare ANISOU after an ANISOU with U11 0: its U11 from that line (0)", a1 + zeroU + "ANISOU\n" + a2, true},
		{"bare MODEL: number 1 from the atom line's columns 11-14, a duplicate", a1 + "ENDMDL\nMODEL\n" + a2, false},
		{"bare MODEL: number 3 from the atom line's columns 11-14", atom(3, "ALA", "A", 1, 11.104) + "ENDMDL\nMODEL\n" + a2, true},
		{"bare MODEL first: number 0", "MODEL\n" + a1 + "ENDMDL\n", true},
		{"TER then HETATM water in the chain", a1 + a2 + "TER\nHETATM    4  O   HOH A   3       1.000   2.000   3.000  1.00 20.00           O\n", true},
		{"chain A again after B, after TER", a1 + "TER\n" + b1 + atom(4, "LEU", "A", 5, 3.3), true},
		{"chain A again after B, no TER", a1 + b1 + atom(4, "LEU", "A", 5, 3.3), true},
		{"text after END", a1 + "END\n" + b1, true},
		{"HETATM standard residue in a chain without TER", a1 + strings.Replace(a2, "ATOM  ", "HETATM", 1), true},
	}
	agreeWithGemmi(t, ".pdb", cases)
}
