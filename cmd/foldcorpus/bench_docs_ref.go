package main

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
	"github.com/foldcorpus/foldcorpus/internal/formats/cadv2"
)

// cadv2Reference is a Python + gemmi re-implementation of the reference
// contacts-and-distances-v2 generator, run side by side by `bench docs`.
//
//go:embed cadv2_reference.py
var cadv2Reference []byte

// docsSideBySide maps a format to a baseline that `bench docs` runs in the
// same run as the Go stages (absent: only the quoted figures in
// docsBaseline are shown).
var docsSideBySide = map[string]func(ctx context.Context, f format.Format, ins []docsBenchInput, reps int) (sideBySide, error){
	cadv2.Name: pythonCadv2Baseline,
}

// docsBaselineNote says where each format's quoted baseline comes from.
var docsBaselineNote = map[string]string{
	cadv2.Name: "quoted: the reference generator (Python + gemmi 0.5.7) as measured on this machine by the issue: 65 AFDB\n" +
		"files in 3.0 s CPU (parse + atom extraction 1.7 s, generation 1.35 s) = 21.7 docs/s/core; goal >= 100x",
}

// sideBySide is a baseline measured in this run.
type sideBySide struct {
	what                string
	read, gen, total    float64 // docs/s/core
	identical, compared int     // documents with the same sha1 as ours
}

// pythonCadv2Baseline runs cadv2_reference.py under /usr/bin/python3 over
// the same files (process CPU time, measured inside the script, excluding
// interpreter start-up) and checks that its documents equal ours.
func pythonCadv2Baseline(ctx context.Context, f format.Format, ins []docsBenchInput, reps int) (sideBySide, error) {
	const python = "/usr/bin/python3"
	if _, err := exec.LookPath(python); err != nil {
		return sideBySide{}, fmt.Errorf("side-by-side baseline needs %s with gemmi (apt install python3-gemmi): %w", python, err)
	}
	dir, err := os.MkdirTemp("", "foldcorpus-bench-docs-")
	if err != nil {
		return sideBySide{}, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "cadv2_reference.py")
	if err := os.WriteFile(script, cadv2Reference, 0o644); err != nil {
		return sideBySide{}, err
	}
	pmin := cadv2.Defaults().ResiduePLDDTMin
	if cf, ok := f.(*cadv2.Format); ok {
		pmin = cf.Options().ResiduePLDDTMin
	}
	args := []string{script, strconv.FormatFloat(pmin, 'g', -1, 64), strconv.Itoa(reps)}
	ours := make([]string, len(ins))
	for i, in := range ins {
		args = append(args, in.name)
		p, err := in.read()
		if err != nil {
			return sideBySide{}, err
		}
		res, err := f.Generate(p)
		if err == nil && res.Filtered == "" {
			sum := sha1.Sum([]byte(res.Document))
			ours[i] = hex.EncodeToString(sum[:])
		}
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return sideBySide{}, fmt.Errorf("python baseline: %w\n%s", err, stderr.Bytes())
	}
	var r struct {
		Files     int       `json:"files"`
		Reps      int       `json:"reps"`
		ReadS     float64   `json:"read_s"`
		GenerateS float64   `json:"generate_s"`
		SHA1      []*string `json:"sha1"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return sideBySide{}, fmt.Errorf("python baseline output: %w", err)
	}
	if len(r.SHA1) != len(ins) {
		return sideBySide{}, fmt.Errorf("python baseline returned %d results for %d inputs", len(r.SHA1), len(ins))
	}
	s := sideBySide{what: fmt.Sprintf("Python 3.11 + gemmi 0.5.7 re-implementation (%s), %d reps", "cadv2_reference.py", r.Reps)}
	n := float64(r.Files * r.Reps)
	s.read, s.gen, s.total = n/r.ReadS, n/r.GenerateS, n/(r.ReadS+r.GenerateS)
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
