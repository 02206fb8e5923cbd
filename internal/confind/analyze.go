package confind

import (
	"errors"
	"fmt"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/contactrecord"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Sentinels of MarinFold's analyze_structure errors (the reference writes
// no document for them). Errors from AnalyzeNative wrap one of them (or
// ErrNoNativeAtom) and derrors.ErrPermanent.
var (
	ErrNoProtein  = errors.New("no protein residues")
	ErrMultiChain = errors.New("more than one protein chain with max_chains=1")
)

// AnalysisError is an error of MarinFold's analyze_structure: Msg is the
// reference's message (its ValueError or IndexError text), Kind the
// sentinel it wraps.
type AnalysisError struct {
	Kind error
	Msg  string
}

func (e *AnalysisError) Error() string { return e.Msg }

// PyType is the Python exception the reference raises: IndexError for
// ErrNoNativeAtom, ValueError otherwise.
func (e *AnalysisError) PyType() string {
	if e.Kind == ErrNoNativeAtom {
		return "IndexError"
	}
	return "ValueError"
}

// Unwrap reports the kind and that the error is permanent.
func (e *AnalysisError) Unwrap() []error { return []error{e.Kind, derrors.ErrPermanent} }

// AnalyzeNative is MarinFold's analyze_structure: pyconfind in native-only
// mode with 3.0 Å contacts, 2.0 Å clashes, 25 Å CA cutoff and no CB, then
// the analysis record contacts-v1 consumes. name is the structure's file
// name (or path): the entry id when the structure has no name, and the
// prefix of error messages. Errors are *AnalysisError (classify them with
// errors.Is against ErrNoProtein, ErrMultiChain and ErrNoNativeAtom).
// AnalyzeNative does no I/O and is safe for concurrent use.
func AnalyzeNative(st *structure.Structure, name string, lib *Library) (*contactrecord.Analysis, error) {
	a, _, err := AnalyzeNativeResult(st, name, lib)
	return a, err
}

// AnalyzeNativeResult is AnalyzeNative that also returns pyconfind's
// result (nil on error, except for the multi-chain error, which comes
// after pyconfind's computation).
func AnalyzeNativeResult(st *structure.Structure, name string, lib *Library) (*contactrecord.Analysis, *Result, error) {
	r, err := Compute(st, lib, true)
	if err != nil {
		if errors.Is(err, ErrNoNativeAtom) {
			return nil, nil, &AnalysisError{Kind: ErrNoNativeAtom, Msg: ErrNoNativeAtom.Error()}
		}
		return nil, nil, err
	}
	if len(r.Positions) == 0 {
		return nil, nil, &AnalysisError{Kind: ErrNoProtein, Msg: name + ": no protein residues"}
	}
	chains := map[string]bool{}
	for i := range r.Positions {
		chains[r.Positions[i].Chain] = true
	}
	if len(chains) > 1 {
		ids := make([]string, 0, len(chains))
		for c := range chains {
			ids = append(ids, c)
		}
		sort.Strings(ids)
		return nil, r, &AnalysisError{Kind: ErrMultiChain, Msg: fmt.Sprintf(
			"%s: found %d protein chains (%s) but max_chains=1. Raise max_chains to build a multi-chain document (see SPEC.md).",
			name, len(ids), pyList(ids))}
	}
	a := &contactrecord.Analysis{EntryID: EntryID(st, name)}
	plddt := GlobalPLDDT(st)
	a.GlobalPLDDT = &plddt
	np, nc := len(r.Positions), len(r.Contacts)
	a.ResName, a.ResNum, a.ResChain = make([]string, 0, np), make([]int64, 0, np), make([]string, 0, np)
	a.ContactI, a.ContactJ, a.Degree = make([]int64, 0, nc), make([]int64, 0, nc), make([]float64, 0, nc)
	for i := range r.Positions {
		p := &r.Positions[i]
		a.ResName = append(a.ResName, Canonical(p.ResName))
		a.ResNum = append(a.ResNum, int64(p.ResNum))
		a.ResChain = append(a.ResChain, p.Chain)
	}
	for _, c := range r.Contacts {
		a.ContactI = append(a.ContactI, int64(c.I))
		a.ContactJ = append(a.ContactJ, int64(c.J))
		a.Degree = append(a.Degree, c.Degree)
	}
	return a, r, nil
}

// pyList writes strings as a Python list repr of plain ids.
func pyList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
			q[i] = `"` + s + `"`
		} else {
			q[i] = "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
		}
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// EntryID is MarinFold's entry id: the structure's name, else the base
// of the file name, less one trailing .cif, .mmcif, .pdb or .ent.
func EntryID(st *structure.Structure, name string) string {
	id := st.Name
	if id == "" {
		id = path.Base(strings.ReplaceAll(name, "\\", "/"))
	}
	for _, ext := range []string{".cif", ".mmcif", ".pdb", ".ent"} {
		if strings.HasSuffix(id, ext) {
			return strings.TrimSuffix(id, ext)
		}
	}
	return id
}

// GlobalPLDDT is MarinFold's global_plddt: the mean B of the first atom
// named CA of every residue of every chain of model 0 (any residue), summed
// in order; NaN when there is none.
func GlobalPLDDT(st *structure.Structure) float64 {
	sum, n := 0.0, 0
	if len(st.Models) > 0 {
		for ci := range st.Models[0].Chains {
			for _, res := range st.Models[0].Chains[ci].Residues {
				for ai := range res.Atoms {
					if res.Atoms[ai].Name == "CA" {
						sum += float64(res.Atoms[ai].B)
						n++
						break
					}
				}
			}
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

var canonical = map[string]string{
	"HSD": "HIS", "HSE": "HIS", "HSC": "HIS", "HSP": "HIS", "HIP": "HIS", "MSE": "MET",
	"CSO": "CYS", "SEC": "CYS", "SEP": "SER", "TPO": "THR", "PTR": "TYR",
}

// Canonical is MarinFold's residue name: the 20 standard names as they
// are, modified ones mapped to their parent, anything else UNK.
func Canonical(name string) string {
	if c, ok := canonical[name]; ok {
		return c
	}
	if _, ok := aaProp[name]; ok && name != "HSD" {
		return name
	}
	return "UNK"
}
