package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// gemmiWritePDB writes a PDB-format copy of each file argv[2:] into the
// folder argv[1] (read_structure, write_pdb with its defaults).
const gemmiWritePDB = `
import os, sys
import gemmi
out = sys.argv[1]
for p in sys.argv[2:]:
    base = os.path.basename(p)
    for ext in (".gz", ".cif"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    gemmi.read_structure(p).write_pdb(os.path.join(out, base + ".pdb"))
`

// writePDBCopies writes PDB-format copies of paths into dir with gemmi and
// returns their paths, in the same order. It fails when gemmi fails on any.
func writePDBCopies(ctx context.Context, python string, paths []string, dir string) ([]string, error) {
	cmd := exec.CommandContext(ctx, python, append([]string{"-c", gemmiWritePDB, dir}, paths...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("gemmi write_pdb (%s with python3-gemmi): %w: %s", python, err, strings.TrimSpace(string(out)))
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".gz"), ".cif")
		out[i] = filepath.Join(dir, base+".pdb")
	}
	return out, nil
}

// perAtom measures the reader alone (mmcif.ReadInto into one reused
// structure, in this process, one goroutine) on the mmCIF files and on
// their PDB-format copies, in interleaved trials, and prints the median
// CPU per atom of each and their ratio (goal: PDB at least as fast), and
// gemmi's, from its gemmiMs CPU per PDB file.
func perAtom(cifs, pdbs []string, trials int, gemmiMs float64) error {
	load := func(paths []string) ([][]byte, int, error) {
		var st structure.Structure
		datas, atoms := make([][]byte, len(paths)), 0
		for i, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, 0, err
			}
			if err := mmcif.ReadInto(&st, b); err != nil {
				return nil, 0, fmt.Errorf("%s: %w", p, err)
			}
			for _, m := range st.Models {
				for _, c := range m.Chains {
					for _, r := range c.Residues {
						atoms += len(r.Atoms)
					}
				}
			}
			datas[i] = b
		}
		return datas, atoms, nil
	}
	cifData, cifAtoms, err := load(cifs)
	if err != nil {
		return err
	}
	pdbData, pdbAtoms, err := load(pdbs)
	if err != nil {
		return err
	}
	if cifAtoms != pdbAtoms {
		return fmt.Errorf("the mmCIF files hold %d atoms, their PDB copies %d", cifAtoms, pdbAtoms)
	}
	var st structure.Structure
	pass := func(datas [][]byte) float64 {
		const passes = 5
		c := processCPU()
		for range passes {
			for _, d := range datas {
				_ = mmcif.ReadInto(&st, d) // read once above without error
			}
		}
		return float64(processCPU()-c) / float64(passes*cifAtoms)
	}
	var cif, pdb []float64
	for range max(trials, 3) {
		cif = append(cif, pass(cifData))
		pdb = append(pdb, pass(pdbData))
	}
	c, p := median(cif), median(pdb)
	verdict := "MISS"
	if p <= c {
		verdict = "PASS"
	}
	fmt.Printf("reader alone (ReadInto, one goroutine, %d atoms, %d interleaved trials of 5 passes, medians): mmCIF %.1f ns/atom, PDB copies %.1f ns/atom\n",
		cifAtoms, len(cif), c, p)
	fmt.Printf("ratio PDB/mmCIF per atom: %.2f (goal <= 1): %s\n", p/c, verdict)
	g := gemmiMs * 1e6 * float64(len(pdbs)) / float64(cifAtoms)
	fmt.Printf("gemmi read_structure of the PDB copies: %.1f ns/atom; the reader alone is %.2fx gemmi\n", g, g/p)
	return nil
}
