// Package b2tgolden holds tests to the reference bio2token-v2 generator's
// outputs in ../shared/corpus/golden/bio2token/ (MarinFold exp40's
// pure-PyTorch encoder run on corpus files with the seeded random
// checkpoint there): the adapted atoms, one code per atom with its FSQ
// margin, and the document. It is a test helper: every check reports
// through testing.TB.
package b2tgolden

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// MinMargin is the FSQ margin (distance of an atom's nearest pre-rounding
// value to a rounding boundary) from which codes must agree: float32
// arithmetic in another order may flip only atoms closer than this.
const MinMargin = 1e-4

// AllEnv, set to 1, selects every golden file; by default the tests take
// the ones with at most DefaultMaxAtoms atoms, which keeps the full-size
// encoder on the pure-Go CPU backend within CI's time.
const AllEnv = "FOLDCORPUS_B2T_GOLDEN_ALL"

// DefaultMaxAtoms bounds the default selection (6 of the 31 files).
const DefaultMaxAtoms = 1000

// File is one line of bio2token-v2.jsonl.
type File struct {
	File          string    `json:"file"` // relative to the corpus folder
	EntryID       string    `json:"entry_id"`
	Outcome       string    `json:"outcome"`
	SeqLength     int       `json:"seq_length"`
	NumAtoms      int       `json:"num_atoms"`
	NumAtomsTotal int       `json:"num_atoms_total"`
	Truncated     bool      `json:"truncated"`
	NumTokens     int       `json:"num_tokens"`
	SHA1          string    `json:"sha1"`
	Document      string    `json:"document"`
	AtomNames     []string  `json:"atom_names"`
	ResidueIndex  []int32   `json:"residue_index"`
	Codes         []int32   `json:"codes"`
	FSQMargin     []float64 `json:"fsq_margin"`
	// Path is the absolute path of File.
	Path string `json:"-"`
}

// Checkpoint is the path of the golden checkpoint (official layout, seeded
// random weights, written by torch.save).
func Checkpoint(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(testcorpus.Dir(tb), "golden", "bio2token", "bio2token-random-seed7.ckpt")
}

// Load reads the golden lines selected for this run (all with AllEnv=1,
// else those of at most DefaultMaxAtoms atoms). It skips or fails like
// testcorpus.Dir when the corpus is absent.
func Load(tb testing.TB) []File {
	tb.Helper()
	dir := testcorpus.Dir(tb)
	f, err := os.Open(filepath.Join(dir, "golden", "bio2token", "bio2token-v2.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	all := os.Getenv(AllEnv) == "1"
	var out []File
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var g File
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			tb.Fatalf("golden bio2token line %d: %v", len(out)+1, err)
		}
		if g.Outcome != "document" || len(g.Codes) != g.NumAtomsTotal || len(g.FSQMargin) != g.NumAtomsTotal || len(g.AtomNames) != g.NumAtomsTotal {
			tb.Fatalf("golden bio2token %s: outcome %q, %d codes, %d margins, %d names for %d atoms: not the documented layout",
				g.File, g.Outcome, len(g.Codes), len(g.FSQMargin), len(g.AtomNames), g.NumAtomsTotal)
		}
		if !all && g.NumAtomsTotal > DefaultMaxAtoms {
			continue
		}
		g.Path = filepath.Join(dir, g.File)
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatal("no golden bio2token file selected")
	}
	tb.Logf("golden bio2token: %d files selected (%s=1 selects all)", len(out), AllEnv)
	return out
}

// CheckInput compares the adapted structure with the reference's: atom
// names in canonical order, residue of each atom, residue count.
func CheckInput(tb testing.TB, g File, in *b2t.Input) {
	tb.Helper()
	if in.NumAtoms() != g.NumAtomsTotal || len(in.ResNames) != g.SeqLength {
		tb.Errorf("%s: adapted %d atoms over %d residues, reference %d over %d", g.File, in.NumAtoms(), len(in.ResNames), g.NumAtomsTotal, g.SeqLength)
		return
	}
	for i := range in.AtomNames {
		if in.AtomNames[i] != g.AtomNames[i] || (g.ResidueIndex != nil && in.AtomRes[i] != g.ResidueIndex[i]) {
			tb.Errorf("%s: atom %d is %s of residue %d, reference %s of residue %d", g.File, i, in.AtomNames[i], in.AtomRes[i], g.AtomNames[i], g.ResidueIndex[i])
			return
		}
	}
}

// Tally counts atoms over files: Compared have margin >= MinMargin, Equal
// of those have the reference's code; Below have a smaller margin, and
// BelowDiffer of those got another code (allowed).
type Tally struct {
	Files, Compared, Equal, Below, BelowDiffer int
}

// Codes compares got (one code per atom, canonical order) with the
// reference's codes: an error for every atom with margin >= MinMargin whose
// code differs. It returns the number of atoms whose code differs (near
// ties included).
func (t *Tally) Codes(tb testing.TB, path string, g File, got []int32) int {
	tb.Helper()
	if len(got) != len(g.Codes) {
		tb.Errorf("%s (%s): %d codes, reference %d", g.File, path, len(got), len(g.Codes))
		return len(g.Codes)
	}
	t.Files++
	differ, reported := 0, 0
	for i, c := range got {
		if g.FSQMargin[i] < MinMargin {
			t.Below++
			if c != g.Codes[i] {
				t.BelowDiffer++
				differ++
			}
			continue
		}
		t.Compared++
		if c == g.Codes[i] {
			t.Equal++
			continue
		}
		differ++
		if reported++; reported <= 5 {
			tb.Errorf("%s (%s): atom %d (%s): code %d, reference %d (margin %.3g)", g.File, path, i, g.AtomNames[i], c, g.Codes[i], g.FSQMargin[i])
		}
	}
	return differ
}

// Log reports the tally.
func (t *Tally) Log(tb testing.TB, path string) {
	tb.Helper()
	tb.Logf("%s: %d files, %d atoms with margin >= %g compared, %d equal; %d atoms below the margin, %d of them with another code",
		path, t.Files, t.Compared, MinMargin, t.Equal, t.Below, t.BelowDiffer)
	if t.Compared != t.Equal {
		tb.Errorf("%s: %d of %d atoms with margin >= %g have another code than the reference", path, t.Compared-t.Equal, t.Compared, MinMargin)
	}
}

// CheckDocument holds a document made from in to the reference: the
// reference's own codes must assemble into the golden document byte for
// byte (the assembly is the reference's), and doc may differ from the
// golden document only in code tokens, each of an atom whose FSQ margin is
// below MinMargin (the triples' order does not depend on the codes, so
// token i names the same atom in both). It returns the number of code
// tokens that differ; with none, doc is byte-identical, sha1 included.
func CheckDocument(tb testing.TB, path string, g File, in *b2t.Input, doc b2t.Document) int {
	tb.Helper()
	ref, filtered, err := b2t.Assemble(g.EntryID, in, g.Codes)
	if err != nil || filtered != "" {
		tb.Errorf("%s: assembling the reference codes: %v %q", g.File, err, filtered)
		return 0
	}
	if ref.Text != g.Document {
		tb.Errorf("%s: the reference's codes assemble into another document than the golden one (first difference at token %d)", g.File, firstDiff(ref.Text, g.Document))
	}
	if doc.SeqLength != g.SeqLength || doc.NumAtoms != g.NumAtoms || doc.NumAtomsTotal != g.NumAtomsTotal || doc.Truncated != g.Truncated || doc.NumTokens != g.NumTokens {
		tb.Errorf("%s (%s): seq_length %d num_atoms %d num_atoms_total %d truncated %v num_tokens %d; reference %d %d %d %v %d", g.File, path,
			doc.SeqLength, doc.NumAtoms, doc.NumAtomsTotal, doc.Truncated, doc.NumTokens, g.SeqLength, g.NumAtoms, g.NumAtomsTotal, g.Truncated, g.NumTokens)
	}
	if doc.Text == g.Document {
		if sum := sha1.Sum([]byte(doc.Text)); hex.EncodeToString(sum[:]) != g.SHA1 {
			tb.Errorf("%s: golden sha1 %s does not match its document", g.File, g.SHA1)
		}
		return 0
	}
	atomAt := map[string]int{}
	for i, name := range in.AtomNames {
		atomAt["<p"+strconv.Itoa(int(in.AtomRes[i]))+"> <"+name+">"] = i
	}
	a, b := strings.Fields(doc.Text), strings.Fields(g.Document)
	if len(a) != len(b) {
		tb.Errorf("%s (%s): %d tokens, reference %d", g.File, path, len(a), len(b))
		return 0
	}
	differ, notTie := 0, 0
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		differ++
		if !strings.HasPrefix(a[i], "<bt") || !strings.HasPrefix(b[i], "<bt") || i < 2 {
			tb.Errorf("%s (%s): token %d is %s, reference %s: not a code token", g.File, path, i, a[i], b[i])
			return differ
		}
		atom, ok := atomAt[a[i-2]+" "+a[i-1]]
		if !ok {
			notTie++
			tb.Errorf("%s (%s): code token %d differs (%s, reference %s) after %s %s, which names no single atom", g.File, path, i, a[i], b[i], a[i-2], a[i-1])
			continue
		}
		if g.FSQMargin[atom] >= MinMargin {
			notTie++
			tb.Errorf("%s (%s): code token %d of atom %d (%s %s) is %s, reference %s, at margin %.3g >= %g", g.File, path, i, atom, a[i-2], a[i-1], a[i], b[i], g.FSQMargin[atom], MinMargin)
		}
	}
	if notTie == 0 {
		tb.Logf("%s (%s): document differs from the reference only in %d code tokens, all of near-tie atoms", g.File, path, differ)
	}
	return differ
}

func firstDiff(a, b string) int {
	x, y := strings.Fields(a), strings.Fields(b)
	for i := range min(len(x), len(y)) {
		if x[i] != y[i] {
			return i
		}
	}
	return min(len(x), len(y))
}
