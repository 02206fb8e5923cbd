package gemmitest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Config says how many structures Run generates.
type Config struct {
	Cases int           // files to generate (when For is 0)
	For   time.Duration // or: keep generating batches this long
	Seed  uint64        // first seed; file k has seed Seed+k and block name gen<seed>
	Keep  string        // folder that receives the files that disagree ("" for none)
	// Format of the files: FormatCIF (Generate), FormatPDB (GeneratePDB)
	// or FormatGemmiPDB (Generate, then written as PDB by gemmi's
	// write_pdb with random options).
	Format Format
}

// Format is the kind of file Run generates.
type Format int

const (
	FormatCIF Format = iota
	FormatPDB
	FormatGemmiPDB
)

// batch is how many files one Python process reads.
const batch = 250

// Run generates structures (Generate) in batches, reads each batch with
// gemmi in one Python process, and calls check on every file with its
// path, bytes and gemmi's reading; check returns the differences (nil when
// the file agrees). Run fails t when any file disagrees (showing the first
// five in full) and logs how many files it checked.
func Run(t *testing.T, g *Gemmi, c Config, check func(path string, data []byte, r Reading) []string) {
	t.Helper()
	dir := t.TempDir()
	start := time.Now()
	seed, files, failed := c.Seed, 0, 0
	for {
		n := batch
		if c.For == 0 {
			n = min(batch, c.Cases-files)
		} else if time.Since(start) > c.For {
			break
		}
		if n <= 0 {
			break
		}
		paths := make([]string, n)
		datas := make([][]byte, n)
		for i := range paths {
			r := rand.New(rand.NewPCG(seed, 16))
			paths[i] = filepath.Join(dir, fmt.Sprintf("gen%d.cif", seed))
			if c.Format == FormatPDB {
				paths[i] = filepath.Join(dir, fmt.Sprintf("gen%d.pdb", seed))
				datas[i] = GeneratePDB(r)
			} else {
				datas[i] = Generate(r, fmt.Sprintf("gen%d", seed))
			}
			if err := os.WriteFile(paths[i], datas[i], 0o644); err != nil {
				t.Fatal(err)
			}
			seed++
		}
		if c.Format == FormatGemmiPDB {
			var err error
			if paths, datas, err = g.toPDB(paths, seed-uint64(n)); err != nil {
				t.Fatal(err)
			}
			n = len(paths)
		}
		readings, err := g.Read(paths)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range paths {
			if d := check(p, datas[i], readings[i]); len(d) > 0 {
				failed++
				keep(t, c.Keep, p, datas[i])
				if failed <= 5 {
					t.Errorf("%s disagrees with gemmi:\n%s\nfile:\n%s", filepath.Base(p), strings.Join(d, "\n"), datas[i])
				}
			}
			os.Remove(p)
		}
		files += n
	}
	t.Logf("%d generated files (seeds %d..%d) in %v, %d disagree with gemmi", files, c.Seed, seed-1, time.Since(start).Round(time.Second), failed)
	if failed > 0 {
		t.Errorf("%d of %d generated files disagree with gemmi", failed, files)
	}
}

func keep(t *testing.T, dir, p string, data []byte) {
	if dir == "" {
		return
	}
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, filepath.Base(p)), data, 0o644)
	}
	if err != nil {
		t.Log(err)
	}
}
