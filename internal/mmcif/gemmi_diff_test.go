package mmcif_test

import (
	"flag"
	"fmt"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/mmcif/gemmitest"
)

var (
	diffCases = flag.Int("gemmi.cases", 300, "generated structures TestGemmiDifferential reads with both readers")
	diffFor   = flag.Duration("gemmi.for", 0, "keep TestGemmiDifferential generating batches for this long (overrides -gemmi.cases)")
	diffSeed  = flag.Uint64("gemmi.seed", 1, "first seed of TestGemmiDifferential (one seed per file)")
	diffKeep  = flag.String("gemmi.keep", "", "folder to copy the files that disagree into")
)

// TestGemmiDifferential generates random structures (gemmitest.Generate:
// altlocs, microheterogeneity at the first, middle and last position,
// insertion codes, present, missing or wrong _entity, _entity_poly and
// _struct_asym, ligands and waters in and between chains, several models,
// HETATM amino acids, unknown residue names), reads each with gemmi 0.5.7
// (one Python process per batch) and with Read, and compares them on what
// `foldcorpus inspect --json` reports plus each residue's seq id, subchain,
// entity type and atom count and each chain's B, occupancy and coordinate
// sums. Each file is also read by the general tokenizer alone, which must
// agree with the fast paths. CI runs -gemmi.cases (300); a long run:
//
//	go test ./internal/mmcif -run TestGemmiDifferential -gemmi.for 10m -gemmi.seed 1000 -gemmi.keep /tmp/diff -v
func TestGemmiDifferential(t *testing.T) {
	g := gemmitest.New(t)
	c := gemmitest.Config{Cases: *diffCases, For: *diffFor, Seed: *diffSeed, Keep: *diffKeep}
	gemmitest.Run(t, g, c, func(p string, data []byte, r gemmitest.Reading) []string {
		mmcif.CheckFastMatchesGeneral(t, p, data)
		st, err := mmcif.Read(data)
		if err != nil {
			return []string{fmt.Sprintf("foldcorpus fails: %v (gemmi: %q)", err, r.Error)}
		}
		return gemmitest.Diff(r, gemmitest.Summarize(p, st))
	})
}

// TestGemmiDifferentialPDB is TestGemmiDifferential in PDB format, twice:
// files written by GeneratePDB (odd but real PDB forms: cut lines,
// missing elements, TER placement, hybrid-36, segments, MD-style models,
// malformed records gemmi refuses), and each generated mmCIF case written
// as PDB by gemmi's write_pdb (random TER and SEQRES options). Each file
// must read as gemmi reads it, or fail where gemmi fails, and read the
// same with the reader's fast path and with its general code alone.
func TestGemmiDifferentialPDB(t *testing.T) {
	g := gemmitest.New(t)
	for _, f := range []struct {
		name   string
		format gemmitest.Format
	}{{"generated PDB", gemmitest.FormatPDB}, {"written by gemmi", gemmitest.FormatGemmiPDB}} {
		t.Run(f.name, func(t *testing.T) {
			c := gemmitest.Config{Cases: *diffCases, For: *diffFor, Seed: *diffSeed, Keep: *diffKeep, Format: f.format}
			refused := 0
			defer func() { t.Logf("%d files refused by both readers", refused) }()
			gemmitest.Run(t, g, c, func(p string, data []byte, r gemmitest.Reading) []string {
				mmcif.CheckFastMatchesGeneral(t, p, data)
				st, err := mmcif.ReadFile(p)
				switch {
				case err != nil && r.Error != "":
					refused++
					return nil // both refuse it
				case err != nil:
					return []string{fmt.Sprintf("foldcorpus fails: %v (gemmi reads it)", err)}
				}
				return gemmitest.Diff(r, gemmitest.Summarize(p, st))
			})
		})
	}
}
