package mmcif

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// dumpRead renders everything Read returns (every field of every atom, the
// error text) so that two readings can be compared exactly.
func dumpRead(st *structure.Structure, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%q %d\n", st.Name, len(st.Models))
	for _, m := range st.Models {
		fmt.Fprintf(&b, "M %d %d\n", m.Num, len(m.Chains))
		for _, c := range m.Chains {
			fmt.Fprintf(&b, "C %q %d\n", c.Name, len(c.Residues))
			for _, r := range c.Residues {
				fmt.Fprintf(&b, "R %q %d %d %d %q %q %d %d\n", r.Name, r.LabelSeq, r.AuthSeq, r.ICode, r.Subchain, r.EntityID, r.Entity, len(r.Atoms))
				for _, a := range r.Atoms {
					fmt.Fprintf(&b, "A %q %q %d %x %x %x %x %x\n", a.Name, a.Element, a.AltLoc, math.Float32bits(a.Occ),
						math.Float32bits(a.B), math.Float64bits(a.X), math.Float64bits(a.Y), math.Float64bits(a.Z))
				}
			}
		}
	}
	return b.String()
}

// checkFastMatchesGeneral fails when the line fast paths read data
// differently from the general tokenizer.
func checkFastMatchesGeneral(t *testing.T, name string, data []byte) {
	t.Helper()
	fst, _, ferr := readWith(data, false)
	sst, _, serr := readWith(data, true)
	if f, s := dumpRead(fst, ferr), dumpRead(sst, serr); f != s {
		i := 0
		for i < len(f) && i < len(s) && f[i] == s[i] {
			i++
		}
		lo := max(i-200, 0)
		t.Fatalf("%s: fast path differs from the general tokenizer at byte %d of the dump:\nfast:    %.400q\ngeneral: %.400q", name, i, f[lo:], s[lo:])
	}
}

// mutate applies one random edit that the fast path must either handle or
// hand to the general tokenizer: whitespace and line-structure changes,
// quotes, comments, keywords, odd bytes, long tokens.
func mutate(r *rand.Rand, data []byte) []byte {
	pos := r.IntN(len(data))
	edits := []string{"\t", "\r", "'", "\"", "#", "_", ";", "\n", " ", "loop_", "data_x", "stop_", "save_",
		"global_", "\x00", "\xc3", "?", ".", "'a b'", " ;x", "0123456789abcdef", "1e3", "-0.0", "(5)", "\n;\ntext\n;\n"}
	e := edits[r.IntN(len(edits))]
	switch r.IntN(3) {
	case 0: // insert
		return append(data[:pos:pos], append([]byte(e), data[pos:]...)...)
	case 1: // replace one byte
		return append(data[:pos:pos], append([]byte(e), data[pos+1:]...)...)
	default: // join or split lines
		out := bytes.Clone(data)
		if out[pos] == '\n' {
			out[pos] = ' '
		} else if out[pos] == ' ' {
			out[pos] = '\n'
		} else {
			out[pos] = e[0]
		}
		return out
	}
}

// TestFastPathMatchesGeneral reads every corpus file, truncations of each at
// line ends, and randomly edited copies both with the fast paths and with
// the general tokenizer only, and requires the same structures and errors.
func TestFastPathMatchesGeneral(t *testing.T) {
	inline := map[string]string{
		"tiny":          tiny,
		"crlf":          strings.ReplaceAll(tiny, "\n", "\r\n"),
		"tabs":          strings.ReplaceAll(tiny, " ", "\t"),
		"two per line":  strings.Replace(tiny, "1\nATOM 2", "1 ATOM 2", 1),
		"split row":     strings.Replace(tiny, "60.25 1 A 1", "60.25\n1 A 1", 1),
		"trailing ws":   strings.ReplaceAll(tiny, "\n", "   \n"),
		"no final nl":   strings.TrimSuffix(tiny, "\n"),
		"quoted":        strings.Replace(tiny, "ALA A 1 1 2.0", "'ALA' A 1 1 2.0", 1),
		"keyword value": strings.Replace(tiny, "ALA A 1 1 2.0", "loop_ A 1 1 2.0", 1),
		"comment":       strings.Replace(tiny, "60.25 1 A 1", "60.25 1 A 1 # c", 1),
		"short row":     strings.Replace(tiny, "60.25 1 A 1", "60.25 1 A", 1),
	}
	for name, s := range inline {
		checkFastMatchesGeneral(t, name, []byte(s))
	}
	r := rand.New(rand.NewPCG(1, 2))
	eachCorpusFile(t, func(name string, data []byte) {
		checkFastMatchesGeneral(t, name, data)
		for k := 1; k < 8; k++ {
			cut := len(data) * k / 8
			for cut < len(data) && data[cut] != '\n' {
				cut++
			}
			checkFastMatchesGeneral(t, fmt.Sprintf("%s[:%d]", name, cut), data[:cut])
		}
		if len(data) > 0 {
			for k := 0; k < 4; k++ {
				m := mutate(r, data)
				checkFastMatchesGeneral(t, fmt.Sprintf("%s (edit %d)", name, k), m)
			}
		}
	})
}

// eachCorpusFile calls fn with every afdb, pdb and edge corpus file (named
// by its path below the corpus) and its bytes.
func eachCorpusFile(t *testing.T, fn func(name string, data []byte)) {
	t.Helper()
	dir := testcorpus.Dir(t)
	for _, cat := range []string{"afdb", "pdb", "edge"} {
		for _, p := range testcorpus.Files(t, cat) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			fn(strings.TrimPrefix(p, dir), data)
		}
	}
}
