package bench

import (
	"bytes"
	"context"
	"crypto/sha1"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/distancesv2"
)

// cadv2Reference is a Python + gemmi re-implementation of the reference
// contacts-and-distances-v2 generator, run side by side by `bench docs`.
//
//go:embed cadv2_reference.py
var cadv2Reference []byte

// cadv2Docs: the quoted reference is the reference generator's speed on
// this machine, as the issue measured it: 65 AFDB files in 3.0 s CPU (gemmi
// parse with Python atom extraction 1.7 s, Python generation 1.35 s).
var cadv2Docs = docsFormat{
	load:   loadStructureInputs,
	quoted: struct{ total, read, gen float64 }{total: 65 / 3.0, read: 65 / 1.7, gen: 65 / 1.35},
	note: "quoted: the reference generator (Python + gemmi 0.5.7) as measured on this machine by the issue: 65 AFDB\n" +
		"files in 3.0 s CPU (parse + atom extraction 1.7 s, generation 1.35 s) = 21.7 docs/s/core; goal >= 100x",
	side: pythonCadv2Baseline,
}

// sideBySide is a baseline measured in this run.
type sideBySide struct {
	what                string
	read, gen, total    float64 // docs/s/core
	perDoc              float64 // 1 / the per-document statistic (docs/s/core); 0: not measured
	identical, compared int     // documents with the same sha1 as ours
}

// sideArgs is what a side-by-side baseline is run with: its passes, the
// inputs' DIR and --marinfold's checkout.
type sideArgs struct {
	reps           int
	dir, marinfold string
}

// pythonCadv2Baseline runs cadv2_reference.py under /usr/bin/python3 over
// the same files (process CPU time, measured inside the script, excluding
// interpreter start-up) and checks that its documents equal ours.
func pythonCadv2Baseline(ctx context.Context, f format.Format, ins []docsBenchInput, sa sideArgs) (sideBySide, error) {
	dir, err := pythonBaselineDir("gemmi (apt install python3-gemmi)")
	if err != nil {
		return sideBySide{}, err
	}
	defer os.RemoveAll(dir)
	pmin := distancesv2.Defaults().ResiduePLDDTMin
	if cf, ok := f.(*distancesv2.Format); ok {
		pmin = cf.Options().ResiduePLDDTMin
	}
	args := []string{strconv.FormatFloat(pmin, 'g', -1, 64), strconv.Itoa(sa.reps)}
	ours := make([]string, len(ins))
	for i, in := range ins {
		args = append(args, in.name)
		p, err := in.read()
		if err != nil {
			return sideBySide{}, err
		}
		ours[i] = docSHA1(f, p)
	}
	return runPythonBaseline(ctx, dir, "cadv2_reference.py", cadv2Reference, args, ours, "Python 3.11 + gemmi 0.5.7 re-implementation")
}

// python3 is the interpreter the side-by-side baselines run under.
const python3 = "/usr/bin/python3"

// pythonBaselineDir checks that python3 is there (needs: what the
// baseline needs of it, for the error) and makes the temporary folder a
// baseline's script and inputs are written to (the caller removes it).
func pythonBaselineDir(needs string) (string, error) {
	if _, err := exec.LookPath(python3); err != nil {
		return "", fmt.Errorf("the side-by-side baseline needs %s with %s: %w", python3, needs, err)
	}
	return os.MkdirTemp("", "foldcorpus-bench-docs-")
}

// docSHA1 is the hex sha1 of the document f generates for p, or "" when f
// filters p or fails on it (the baselines' null).
func docSHA1(f format.Format, p format.Input) string {
	res, err := f.Generate(p)
	if err != nil || res.Filtered != "" {
		return ""
	}
	sum := sha1.Sum([]byte(res.Document))
	return hex.EncodeToString(sum[:])
}

// runPythonBaseline writes script into dir as name and runs it under
// python3 with args. The script prints one JSON object: files, reps, the
// CPU seconds of its read and generate stages, and one sha1 (or null) per
// input, which are compared with ours (same order). what names the
// baseline in the report. An error is returned when python fails, prints
// something else, or answers for a different number of inputs.
func runPythonBaseline(ctx context.Context, dir, name string, script []byte, args, ours []string, what string) (sideBySide, error) {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, script, 0o644); err != nil {
		return sideBySide{}, err
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, python3, append([]string{path}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return sideBySide{}, fmt.Errorf("python baseline (%s %s): %w\n%s", python3, name, err, stderr.Bytes())
	}
	var r struct {
		Files     int       `json:"files"`
		Reps      int       `json:"reps"`
		ReadS     float64   `json:"read_s"`
		GenerateS float64   `json:"generate_s"`
		PerDocS   *float64  `json:"per_doc_s"`
		SHA1      []*string `json:"sha1"`
		Runtime   string    `json:"runtime"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return sideBySide{}, fmt.Errorf("python baseline output: %w", err)
	}
	if len(r.SHA1) != len(ours) {
		return sideBySide{}, fmt.Errorf("python baseline returned %d results for %d inputs", len(r.SHA1), len(ours))
	}
	if r.Runtime != "" {
		what += ", " + r.Runtime
	}
	s := sideBySide{what: fmt.Sprintf("%s (%s), %d reps", what, name, r.Reps)}
	n := float64(r.Files * r.Reps)
	s.read, s.gen, s.total = n/r.ReadS, n/r.GenerateS, n/(r.ReadS+r.GenerateS)
	if r.PerDocS != nil && *r.PerDocS > 0 {
		s.perDoc = 1 / *r.PerDocS
	}
	for i, h := range r.SHA1 {
		if ours[i] != "" || h != nil {
			s.compared++
			if h != nil && *h == ours[i] {
				s.identical++
			}
		}
	}
	return s, nil
}
