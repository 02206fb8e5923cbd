package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// gemmiRead reads every file named in argv[2:] argv[1] times with
// gemmi.read_structure and prints the process CPU seconds it took
// (interpreter start-up excluded).
const gemmiRead = `
import json, sys, time
import gemmi
reps, paths = int(sys.argv[1]), sys.argv[2:]
c = time.process_time()
for _ in range(reps):
    for p in paths:
        gemmi.read_structure(p)
print(json.dumps({"cpu_s": time.process_time() - c, "version": gemmi.__version__}))
`

// Inspect measures `foldcorpus inspect --json` (read, chains, pLDDT, its
// own contacts, JSON out), a whole process, CPU per file, side by side with
// gemmi's read_structure alone on the same files (Python, CPU inside the
// script). Goal: inspect at least 5x faster. DIR's mmCIF and PDB-format
// files are read; with --pdb, gemmi first writes PDB-format copies of DIR's
// mmCIF files into a temporary folder, those are benched, and the reader's
// CPU per atom on the copies is set beside its CPU per atom on the mmCIF
// originals (goal: PDB at least as fast per atom). Each run also measures
// the CLI's start-up alone (`inspect -h`), which inspect's figure counts
// once per process (over --files files) and gemmi's leaves out, and prints
// inspect's figure without it beside the goal's measure.
func Inspect(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench inspect", flag.ContinueOnError)
	files := fs.Int("files", 230, "files given to inspect (DIR's files repeated)")
	reps := fs.Int("reps", 3, "runs of each side (medians are reported)")
	python := fs.String("python", "/usr/bin/python3", "Python with gemmi")
	pdb := fs.Bool("pdb", false, "bench PDB-format copies of DIR's mmCIF files, written by gemmi into a temporary folder")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: foldcorpus-bench inspect [flags] DIR   (e.g. ../shared/corpus/afdb)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	if fs.NArg() != 1 || *files < 1 || *reps < 1 {
		fs.Usage()
		return usageError(fmt.Errorf("need one DIR, --files and --reps >= 1"))
	}
	var paths []string
	pats := []string{"*.cif", "*.cif.gz", "*.pdb", "*.ent", "*.pdb.gz", "*.ent.gz"}
	if *pdb {
		pats = pats[:2]
	}
	for _, pat := range pats {
		m, _ := filepath.Glob(filepath.Join(fs.Arg(0), pat))
		paths = append(paths, m...)
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return fmt.Errorf("no *.cif or PDB files in %s", fs.Arg(0))
	}
	kind := "structure"
	var cifs []string
	if *pdb {
		dir, err := os.MkdirTemp("", "bench-inspect-pdb-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cifs = paths
		if paths, err = writePDBCopies(ctx, *python, cifs, dir); err != nil {
			return err
		}
		kind = "PDB-format (written by gemmi)"
	}
	argv := []string{"inspect", "--json"}
	for i := range *files {
		argv = append(argv, paths[i%len(paths)])
	}
	self, err := CLI(ctx)
	if err != nil {
		return err
	}
	// gemmi reads DIR's files once per pass, as many passes as give
	// about --files reads.
	passes := max(1, *files/len(paths))
	var ours, theirs, start []float64
	version := ""
	for range *reps {
		m, err := child(ctx, self, nil, argv...)
		if err != nil {
			return err
		}
		ours = append(ours, m.cpu*1e3/float64(*files))
		// the process's start-up alone (runtime and package init, flag
		// parsing): part of every inspect process, not of gemmi's figure
		s, err := child(ctx, self, nil, "inspect", "-h")
		if err != nil {
			return err
		}
		start = append(start, s.cpu*1e3)
		cmd := exec.CommandContext(ctx, *python, append([]string{"-c", gemmiRead, fmt.Sprint(passes)}, paths...)...)
		cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1")
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("gemmi baseline (%s with python3-gemmi): %w", *python, err)
		}
		var r struct {
			CPUS    float64 `json:"cpu_s"`
			Version string  `json:"version"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			return fmt.Errorf("gemmi baseline output %q: %w", strings.TrimSpace(string(out)), err)
		}
		theirs, version = append(theirs, r.CPUS*1e3/float64(passes*len(paths))), r.Version
	}
	o, g := median(ours), median(theirs)
	fmt.Printf("bench inspect: %d %s files from %s; inspect --json over %d files (whole process) vs gemmi %s read_structure of the same files; %d reps, medians\n",
		len(paths), kind, fs.Arg(0), *files, version, *reps)
	fmt.Printf("  foldcorpus inspect (read + chains + pLDDT + contacts + JSON): %.3f ms CPU/file\n", o)
	fmt.Printf("  gemmi read_structure alone:                                  %.3f ms CPU/file\n", g)
	verdict := "MISS"
	if g/o >= 5 {
		verdict = "PASS"
	}
	fmt.Printf("ratio gemmi/inspect: %.2fx (goal >= 5x): %s\n", g/o, verdict)
	st := median(start)
	net := o - st/float64(*files)
	fmt.Printf("  of which process start-up (`inspect -h`, %.1f ms CPU once per process): %.3f ms/file; the rest %.3f ms/file, %.2fx gemmi\n",
		st, st/float64(*files), net, g/net)
	fmt.Printf("  (for information, not the goal's measure: gemmi's figure leaves out Python's start-up and import, inspect's counts its own)\n")
	if *pdb {
		return perAtom(cifs, paths, *reps, g)
	}
	return nil
}
