package mmcif

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

type corpusFile struct {
	name string
	data []byte
}

func loadFiles(t testing.TB, cats ...string) []corpusFile {
	t.Helper()
	var files []corpusFile
	for _, cat := range cats {
		for _, p := range testcorpus.Files(t, cat) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, corpusFile{filepath.Join(cat, filepath.Base(p)), data})
		}
	}
	return files
}

// sameStructure reports whether a and b hold the same structure; a result
// without models may keep an empty (non-nil) Models for reuse.
func sameStructure(a, b *structure.Structure) bool {
	if a.Name != b.Name || len(a.Models) != len(b.Models) {
		return false
	}
	return len(a.Models) == 0 || reflect.DeepEqual(a.Models, b.Models)
}

// checkCapped fails when a visible slice of st reaches past its own end:
// appending to one must never write into a neighbour.
func checkCapped(t *testing.T, name string, st *structure.Structure) {
	t.Helper()
	if cap(st.Models) == len(st.Models) && len(st.Models) > 0 {
		t.Errorf("%s: Models has no room for the reuse link (cap %d = len)", name, cap(st.Models))
	}
	for _, m := range st.Models {
		if cap(m.Chains) != len(m.Chains) {
			t.Fatalf("%s: model %d Chains cap %d, len %d", name, m.Num, cap(m.Chains), len(m.Chains))
		}
		for _, c := range m.Chains {
			if cap(c.Residues) != len(c.Residues) {
				t.Fatalf("%s: chain %s Residues cap %d, len %d", name, c.Name, cap(c.Residues), len(c.Residues))
			}
			for _, r := range c.Residues {
				if cap(r.Atoms) != len(r.Atoms) {
					t.Fatalf("%s: residue %s %d Atoms cap %d, len %d", name, r.Name, r.AuthSeq, cap(r.Atoms), len(r.Atoms))
				}
			}
		}
	}
}

// TestReadIntoMatchesRead reads every corpus file into one reused
// structure, in several orders (big then small, an error file between
// every two reads, shuffled), and checks each result against a fresh Read
// of the same file: same structure, same error.
func TestReadIntoMatchesRead(t *testing.T) {
	files := loadFiles(t, "afdb", "pdb", "edge")
	type want struct {
		st  *structure.Structure
		err error
	}
	fresh := make([]want, len(files))
	bad := -1
	for i, f := range files {
		fresh[i].st, fresh[i].err = Read(f.data)
		if fresh[i].err != nil && bad < 0 {
			bad = i
		}
	}
	if bad < 0 {
		t.Fatal("no corpus file fails to read: the error-in-between orders test nothing")
	}
	idx := make([]int, len(files))
	for i := range idx {
		idx[i] = i
	}
	bySize := slices.Clone(idx)
	slices.SortStableFunc(bySize, func(a, b int) int { return len(files[b].data) - len(files[a].data) })
	withErrors := func(order []int) []int {
		var out []int
		for _, i := range order {
			out = append(out, i, bad)
		}
		return out
	}
	smallToBig := slices.Clone(bySize)
	slices.Reverse(smallToBig)
	rng := rand.New(rand.NewPCG(1, 2))
	shuffled := slices.Clone(idx)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	orders := []struct {
		name  string
		order []int
	}{
		{"corpus order", idx},
		{"big to small", bySize},
		{"small to big", smallToBig},
		{"error between reads", withErrors(bySize)},
		{"shuffled", shuffled},
		{"each twice", withErrors(slices.Repeat(shuffled, 2))},
	}
	var st structure.Structure // one structure for every read of every order
	for _, o := range orders {
		for _, i := range o.order {
			f, w := files[i], fresh[i]
			err := ReadInto(&st, f.data)
			if w.err != nil {
				if err == nil || err.Error() != w.err.Error() {
					t.Fatalf("%s: ReadInto(%s) error = %v, want %v", o.name, f.name, err, w.err)
				}
				if st.Name != "" || len(st.Models) != 0 {
					t.Fatalf("%s: ReadInto(%s) failed but left %q with %d models", o.name, f.name, st.Name, len(st.Models))
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: ReadInto(%s) error = %v, Read read it", o.name, f.name, err)
			}
			if !sameStructure(&st, w.st) {
				got, want := dumpRead(&st, nil), dumpRead(w.st, nil)
				k := 0
				for k < len(got) && k < len(want) && got[k] == want[k] {
					k++
				}
				t.Fatalf("%s: ReadInto(%s) differs from Read at byte %d of the dump:\ngot  %.200q\nwant %.200q",
					o.name, f.name, k, got[k:], want[k:])
			}
			checkCapped(t, o.name+" "+f.name, &st)
		}
	}
}

// TestReadIntoReusesArrays checks that reading the same file again into
// a structure (from Read or ReadInto) lays it out in the same memory, and
// that a caller appending to Models only costs the reuse.
func TestReadIntoReusesArrays(t *testing.T) {
	data := loadFiles(t, "afdb")[0].data
	st, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	type firsts struct {
		m *structure.Model
		c *structure.Chain
		r *structure.Residue
		a *structure.Atom
	}
	addrs := func(st *structure.Structure) firsts {
		m := &st.Models[0]
		c := &m.Chains[0]
		r := &c.Residues[0]
		return firsts{m, c, r, &r.Atoms[0]}
	}
	before := addrs(st)
	for range 2 {
		if err := ReadInto(st, data); err != nil {
			t.Fatal(err)
		}
		if got := addrs(st); got != before {
			t.Errorf("ReadInto of the same file moved the arrays: %v, want %v", got, before)
		}
	}
	// an empty read keeps the arrays for the next one
	if err := ReadInto(st, []byte("")); !errors.Is(err, ErrNoBlock) {
		t.Fatalf("ReadInto(empty) = %v, want ErrNoBlock", err)
	}
	if err := ReadInto(st, data); err != nil {
		t.Fatal(err)
	}
	if got := addrs(st); got != before {
		t.Errorf("ReadInto after a failed read moved the arrays: %v, want %v", got, before)
	}
	// a caller's append overwrites only the link
	st.Models = append(st.Models, structure.Model{Num: 99})
	want, _ := Read(data)
	if err := ReadInto(st, data); err != nil || !sameStructure(st, want) {
		t.Fatalf("ReadInto after an append to Models: err %v, same structure %v", err, sameStructure(st, want))
	}
}

// BenchmarkReadIntoAFDB is BenchmarkReadAFDB reading into one reused
// structure.
func BenchmarkReadIntoAFDB(b *testing.B) {
	files, total := loadCat(b, "afdb")
	b.SetBytes(total)
	b.ReportAllocs()
	var st structure.Structure
	for b.Loop() {
		for _, d := range files {
			if err := ReadInto(&st, d); err != nil {
				b.Fatal(err)
			}
		}
	}
}
