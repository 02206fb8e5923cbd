package mmcif_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/mmcif/gemmitest"
)

var (
	diffCases = flag.Int("gemmi.cases", 300, "generated structures TestGemmiDifferential reads with both readers")
	diffFor   = flag.Duration("gemmi.for", 0, "keep TestGemmiDifferential generating batches for this long (overrides -gemmi.cases)")
	diffSeed  = flag.Uint64("gemmi.seed", 1, "first seed of TestGemmiDifferential (one seed per file)")
	diffKeep  = flag.String("gemmi.keep", "", "folder to copy the files that disagree into")
)

const diffBatch = 250

// TestGemmiDifferential generates random structures (gemmitest.Generate:
// altlocs, microheterogeneity at the first, middle and last position,
// insertion codes, present, missing or wrong _entity, _entity_poly and
// _struct_asym, ligands and waters in and between chains, several models,
// HETATM amino acids, unknown residue names), reads each with gemmi 0.5.7
// (one Python process per batch) and with Read, and compares them on what
// `foldcorpus inspect --json` reports plus each residue's seq id, subchain,
// entity type and atom count. Each file is also read by the general
// tokenizer alone, which must agree with the fast paths. CI runs -gemmi.cases (300); a long run:
//
//	go test ./internal/mmcif -run TestGemmiDifferential -gemmi.for 10m -gemmi.seed 1000 -gemmi.keep /tmp/diff -v
func TestGemmiDifferential(t *testing.T) {
	g := gemmitest.New(t)
	dir := t.TempDir()
	start := time.Now()
	seed, files, failed := *diffSeed, 0, 0
	for batch := 0; ; batch++ {
		n := diffBatch
		if *diffFor == 0 {
			n = min(diffBatch, *diffCases-files)
		} else if time.Since(start) > *diffFor {
			break
		}
		if n <= 0 {
			break
		}
		paths := make([]string, n)
		for i := range paths {
			paths[i] = filepath.Join(dir, fmt.Sprintf("gen%d.cif", seed))
			data := gemmitest.Generate(rand.New(rand.NewPCG(seed, 16)), fmt.Sprintf("gen%d", seed))
			if err := os.WriteFile(paths[i], data, 0o644); err != nil {
				t.Fatal(err)
			}
			mmcif.CheckFastMatchesGeneral(t, paths[i], data)
			seed++
		}
		readings, err := g.Read(paths)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range paths {
			st, err := mmcif.ReadFile(p)
			var d []string
			if err != nil {
				d = []string{fmt.Sprintf("foldcorpus fails: %v (gemmi: %q)", err, readings[i].Error)}
			} else {
				d = gemmitest.Diff(readings[i], gemmitest.Summarize(p, st))
			}
			if len(d) > 0 {
				failed++
				keep(t, p)
				if failed <= 5 {
					data, _ := os.ReadFile(p)
					t.Errorf("%s disagrees with gemmi:\n%s\nfile:\n%s", filepath.Base(p), strings.Join(d, "\n"), data)
				}
			}
			os.Remove(p)
		}
		files += n
	}
	t.Logf("%d generated files (seeds %d..%d) in %v, %d disagree with gemmi", files, *diffSeed, seed-1, time.Since(start).Round(time.Second), failed)
	if failed > 0 {
		t.Errorf("%d of %d generated files disagree with gemmi", failed, files)
	}
}

func keep(t *testing.T, p string) {
	if *diffKeep == "" {
		return
	}
	data, err := os.ReadFile(p)
	if err == nil {
		err = os.MkdirAll(*diffKeep, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(*diffKeep, filepath.Base(p)), data, 0o644)
	}
	if err != nil {
		t.Log(err)
	}
}
