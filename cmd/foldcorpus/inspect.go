package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

const inspectUsage = `usage: foldcorpus inspect [--json] FILE...

Reads each FILE (mmCIF or PDB format, plain or gzip) and prints what the
pipeline sees in it: the entry_id (the structure's name, see below), the number of models,
and the chains of model 1, each with its name, polymer residues, atoms and one-letter
sequence; for the principal chain the mean pLDDT (the B-factor column of its
CA atoms) and its contacts (CB-CB, CA for GLY, under 8 Å, |i-j| >= 6). A FILE
that cannot be read prints its error; the exit status is 1 when any FILE failed.
With --json, one JSON object per FILE (JSON lines), contacts listed as [i, j, distance].

The entry_id is the structure's name as gemmi gives it: an mmCIF file's data_
block name, a PDB-format file's name without .gz and .pdb (doc then drops a
.cif/.mmcif/.pdb/.ent ending).

flags:
`

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
// |i-j| >= 6, label_seq_id numbering, or positions without it: see
// structure.SeqNumbers) of the principal chain.
func inspectFile(path string) inspectResult {
	var r inspectReader
	return r.file(path)
}

// inspectReader reads file after file into one reused structure and file
// buffer.
type inspectReader struct {
	st  structure.Structure
	buf []byte
}

// file is inspectFile into r's reused memory.
func (r *inspectReader) file(path string) inspectResult {
	res := inspectResult{File: path}
	var err error
	r.buf, err = localblob.ReadFileInto(path, r.buf)
	switch {
	case err != nil:
	case len(r.buf) == 0:
		err = errEmptyFile
	default:
		err = mmcif.ReadInto(&r.st, r.buf)
	}
	if err != nil {
		res.Error = fileError(path, err)
		return res
	}
	st := &r.st
	res.EntryID = st.Name
	if res.EntryID == "" { // PDB format: named after the file, as gemmi names it
		res.EntryID = mmcif.PDBName(path)
	}
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
	var poly []structure.Residue
	if pc := m.PrincipalChain(); pc != nil { // nil: a model without chains (a PDB file without atoms)
		poly = pc.Polymer()
	}
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
		fmt.Fprint(fs.Output(), inspectUsage)
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
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer out.Flush()
	var ir inspectReader
	var b []byte
	for _, path := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := ir.file(path)
		if r.Error != "" {
			failed++
		}
		if *asJSON {
			var err error
			if b, err = appendInspectJSON(b[:0], r); err != nil {
				return err
			}
			if _, err := out.Write(b); err != nil {
				return err
			}
		} else {
			printInspect(out, r)
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return &exitError{1, fmt.Errorf("%d of %d files failed", failed, fs.NArg())}
	}
	return nil
}

func printInspect(w io.Writer, r inspectResult) {
	if r.Error != "" {
		fmt.Fprintf(w, "ERROR %s\n", r.Error) // the error names the file
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

// appendInspectJSON appends r as one JSON line, as json.Encoder writes it;
// the contacts, its last field and most of its bytes, are formatted here
// (integers and shortest floats, as encoding/json formats float64s).
func appendInspectJSON(dst []byte, r inspectResult) ([]byte, error) {
	contacts := r.Contacts
	r.Contacts = nil
	head, err := json.Marshal(r)
	if err != nil {
		return dst, err
	}
	if contacts == nil {
		return append(append(dst, head...), '\n'), nil
	}
	dst = append(append(dst, head[:len(head)-1]...), `,"contacts":[`...)
	for k, c := range *contacts {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '[')
		for i, v := range c {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendJSONFloat(dst, v); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, "]}\n"...), nil
}

// appendJSONFloat formats v as encoding/json formats a float64.
func appendJSONFloat(dst []byte, v float64) ([]byte, error) {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return dst, fmt.Errorf("json: unsupported value: %v", v)
	}
	if v >= 1 && v < 1<<53 && v == math.Trunc(v) {
		// an integer (the contacts' residue numbers): its digits are
		// the shortest form, as AppendFloat would find
		return strconv.AppendInt(dst, int64(v), 10), nil
	}
	abs := math.Abs(v)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		b, _ := json.Marshal(v) // exponent form: encoding/json's own
		return append(dst, b...), nil
	}
	return strconv.AppendFloat(dst, v, 'f', -1, 64), nil
}
