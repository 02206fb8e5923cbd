package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

func init() {
	register("inspect", "read mmCIF files and print models, chains, sequences, pLDDT and contacts", runInspect)
}

type inspectChain struct {
	Name       string `json:"name"`
	NPolymer   int    `json:"n_polymer_residues"`
	NAtoms     int    `json:"n_atoms"`
	Sequence   string `json:"sequence"`
	NResidues  int    `json:"n_residues"`
	EntityKind string `json:"-"`
}

type inspectResult struct {
	File      string         `json:"file"`
	Error     string         `json:"error,omitempty"`
	EntryID   string         `json:"entry_id,omitempty"`
	NModels   *int           `json:"n_models,omitempty"`
	Chains    []inspectChain `json:"chains,omitempty"`
	PLDDTMean *float64       `json:"plddt_mean,omitempty"`
	NContacts *int           `json:"n_contacts,omitempty"`
	Contacts  *[][3]float64  `json:"contacts,omitempty"`
}

// inspectFile reads one file into the summary the inspect command prints:
// chains of model 1; pLDDT mean and contacts (CB-CB, CA for GLY, < 8 Å,
// |i-j| >= 6, label_seq_id numbering) of the principal chain.
func inspectFile(path string) inspectResult {
	res := inspectResult{File: path}
	st, err := mmcif.ReadFile(path)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.EntryID = st.Name
	n := len(st.Models)
	res.NModels = &n
	res.Chains = []inspectChain{}
	if n == 0 {
		return res
	}
	m := &st.Models[0]
	for i := range m.Chains {
		c := &m.Chains[i]
		poly := c.Polymer()
		seq := make([]byte, len(poly))
		atoms := 0
		for k := range c.Residues {
			atoms += len(c.Residues[k].Atoms)
		}
		for k := range poly {
			seq[k] = mmcif.OneLetter(poly[k].Name)
		}
		res.Chains = append(res.Chains, inspectChain{Name: c.Name, NPolymer: len(poly), NAtoms: atoms, Sequence: string(seq), NResidues: len(c.Residues)})
	}
	pc := m.PrincipalChain()
	poly := pc.Polymer()
	var sum float64
	cnt := 0
	for k := range poly {
		if a := structure.CAAtom(&poly[k]); a != nil {
			sum += float64(a.B)
			cnt++
		}
	}
	if cnt > 0 {
		mean := sum / float64(cnt)
		res.PLDDTMean = &mean
	}
	cs, _ := structure.Contacts(poly, 8.0, 6)
	nc := len(cs)
	res.NContacts = &nc
	list := make([][3]float64, len(cs))
	for k, c := range cs {
		list[k] = [3]float64{float64(c.I), float64(c.J), c.D}
	}
	res.Contacts = &list
	return res
}

func runInspect(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object per file (JSON lines)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: foldcorpus inspect [--json] FILE...")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return &exitError{2, fmt.Errorf("no files given")}
	}
	failed := 0
	for _, path := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := inspectFile(path)
		if r.Error != "" {
			failed++
		}
		if *asJSON {
			if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
				return err
			}
		} else {
			printInspect(os.Stdout, r)
		}
	}
	if failed > 0 {
		return &exitError{1, fmt.Errorf("%d of %d files failed", failed, fs.NArg())}
	}
	return nil
}

func printInspect(w io.Writer, r inspectResult) {
	if r.Error != "" {
		fmt.Fprintf(w, "%s: ERROR %s\n", r.File, r.Error)
		return
	}
	fmt.Fprintf(w, "%s: entry %s, %d model(s)\n", r.File, r.EntryID, *r.NModels)
	for _, c := range r.Chains {
		fmt.Fprintf(w, "  chain %-4s residues %5d polymer %5d atoms %6d  %s\n", c.Name, c.NResidues, c.NPolymer, c.NAtoms, abbreviate(c.Sequence, 60))
	}
	if r.PLDDTMean != nil && !math.IsNaN(*r.PLDDTMean) {
		fmt.Fprintf(w, "  pLDDT mean (CA B-factor) %.2f\n", *r.PLDDTMean)
	}
	if r.NContacts != nil {
		fmt.Fprintf(w, "  contacts %d (CB-CB, CA for GLY, < 8 Å, |i-j| >= 6)\n", *r.NContacts)
	}
}

func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
