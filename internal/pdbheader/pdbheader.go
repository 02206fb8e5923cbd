// Package pdbheader is the header scan of a PDB mmCIF mirror: one Entry
// per file with what entry-level selection needs (release date,
// resolution, method, protein entities, assembly-1 protein chains), read
// from the header categories without building a single atom. It is the
// port of MarinFold exp222's scan_metadata.scan_one: the same 15 columns,
// names and rules, value for value (the conversions are Python's and
// gemmi's get_mmcif_category's: an unquoted '?' is None, an unquoted '.'
// is False, and str(False) is "False").
//
// The document is read with internal/mmcif's ReadCategories, the syntax
// checks of the structure reader (gemmi 0.5.7's grammar), so a file that
// gemmi's cif.read refuses is an Entry with Error set, never a panic or a
// silent row. _atom_site is tokenized and counted, not built.
//
// A PDB-format file (plain or gzip) is read with mmcif.ReadPDBHeader:
// its header records (HEADER, EXPDTA, REMARK 2, 3 and 350, SEQRES) give
// the same columns by the rules of docs/pdb.md section 2 (scanPDB), and
// its coordinate records are skipped, not built.
package pdbheader

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// Entry is one row of the entries table (exp222's entries.parquet).
type Entry struct {
	PDBID                   string
	Path                    string
	ReleaseDate             *string
	DepositionDate          *string
	Method                  *string
	Resolution              *float64
	ResolutionSource        *string
	NProteinEntities        int64
	NProteinAsymChains      int64
	ProteinEntityIDs        []string
	ProteinEntityLengths    []int64
	ProteinStrandIDs        []string
	NAssembly1ProteinAsyms  int64
	NAssembly1ProteinChains int64
	Error                   *string
}

// Categories read from each file (lower case, with the trailing dot).
const (
	catRevision = "_pdbx_audit_revision_history."
	catStatus   = "_pdbx_database_status."
	catExptl    = "_exptl."
	catPoly     = "_entity_poly."
	catAsym     = "_struct_asym."
	catGen      = "_pdbx_struct_assembly_gen."
	catRefine   = "_refine."
	catEM       = "_em_3d_reconstruction."
	catReflns   = "_reflns."
)

// categories returns the prefixes ReadCategories collects.
func categories() []string {
	return []string{catRevision, catStatus, catExptl, catPoly, catAsym, catGen, catRefine, catEM, catReflns}
}

// PDBID is exp222's id of a file: its name (the last element of a path or
// URI) up to the first dot, lower-cased ("ab/1ABC.cif.gz" -> "1abc").
func PDBID(p string) string {
	name := path.Base(strings.ReplaceAll(p, "\\", "/"))
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[:i]
	}
	return strings.ToLower(name)
}

// Scan is scan_one of the file's bytes (mmCIF or PDB format, plain or
// gzip): the header row of p, or a row whose Error says why the file could
// not be read. Safe for concurrent use.
func Scan(data []byte, p string) Entry {
	var s scanner
	return s.scan(data, p)
}

// scanner is one worker's reusable state: its gzip reader and inflate
// buffer. Not safe for concurrent use.
type scanner struct {
	gz gzipState
}

// scan is Scan reusing s's buffers.
func (s *scanner) scan(data []byte, p string) Entry {
	e := Entry{PDBID: PDBID(p), Path: p, ProteinEntityIDs: []string{}, ProteinEntityLengths: []int64{}, ProteinStrandIDs: []string{}}
	data, err := s.gz.gunzip(data)
	if err != nil {
		return e.failed(err)
	}
	if mmcif.IsPDB(data) {
		return scanPDB(data, e)
	}
	h, err := mmcif.ReadCategories(data, categories())
	if err == nil && h.Blocks != 1 {
		err = fmt.Errorf("single data block expected, got %d", h.Blocks)
	}
	if err != nil {
		return e.failed(err)
	}
	c := h.Categories
	e.ReleaseDate = releaseDate(c[catRevision])
	e.DepositionDate = first(c[catStatus].Column("recvd_initial_deposition_date"))
	e.Method = method(c[catExptl].Column("method"))
	e.Resolution, e.ResolutionSource = resolution(c)

	poly := c[catPoly]
	ids, types, strands, seqs := poly.Column("entity_id"), poly.Column("type"), poly.Column("pdbx_strand_id"), poly.Column("pdbx_seq_one_letter_code_can")
	for i, id := range ids {
		etype := ""
		if i < len(types) && truthy(types[i]) {
			etype = strings.ToLower(pyStrip(pyStr(types[i])))
		}
		if etype != "polypeptide(l)" {
			continue
		}
		seq := ""
		if i < len(seqs) && truthy(seqs[i]) {
			seq = strings.Join(strings.FieldsFunc(pyStr(seqs[i]), isPySpace), "")
		}
		strand := ""
		if i < len(strands) && truthy(strands[i]) {
			strand = pyStrip(pyStr(strands[i]))
		}
		e.ProteinEntityIDs = append(e.ProteinEntityIDs, pyStrip(pyStr(id)))
		e.ProteinEntityLengths = append(e.ProteinEntityLengths, int64(utf8.RuneCountInString(seq)))
		e.ProteinStrandIDs = append(e.ProteinStrandIDs, strand)
	}
	e.NProteinEntities = int64(len(e.ProteinEntityIDs))

	asym := c[catAsym]
	asymIDs, asymEntities := asym.Column("id"), asym.Column("entity_id")
	protein := map[string]bool{}
	for i := 0; i < min(len(asymIDs), len(asymEntities)); i++ {
		if asymEntities[i].Null() != '?' && slices.Contains(e.ProteinEntityIDs, pyStrip(pyStr(asymEntities[i]))) {
			protein[pyStrip(pyStr(asymIDs[i]))] = true
		}
	}
	e.NProteinAsymChains = int64(len(protein))
	distinct, built, err := assemblyProteinChains(c[catGen], "1", protein)
	if err != nil {
		return e.failed(err)
	}
	e.NAssembly1ProteinAsyms, e.NAssembly1ProteinChains = distinct, built
	return e
}

// failed is the row scan_one writes for a file it cannot read: the id and
// path, every other column empty, and the error.
func (e Entry) failed(err error) Entry {
	msg := strings.TrimPrefix(err.Error(), derrors.ErrPermanent.Error()+": ")
	return Entry{PDBID: e.PDBID, Path: e.Path, ProteinEntityIDs: []string{}, ProteinEntityLengths: []int64{}, ProteinStrandIDs: []string{}, Error: &msg}
}

// releaseDate is exp222's _release_date: the revision_date of the row
// whose ordinal is 1, else the least usable revision date.
func releaseDate(hist *mmcif.Category) *string {
	if hist == nil || len(hist.Tags) == 0 {
		return nil
	}
	dates, ordinals := hist.Column("revision_date"), hist.Column("ordinal")
	var least *string
	for _, d := range dates {
		if !truthy(d) {
			continue
		}
		if s := pyStrip(pyStr(d)); s != "?" && s != "." && (least == nil || s < *least) {
			least = &s
		}
	}
	if least == nil {
		return nil
	}
	for i := 0; i < min(len(ordinals), len(dates)); i++ {
		if ordinals[i].Null() != '?' && pyStrip(pyStr(ordinals[i])) == "1" && truthy(dates[i]) {
			s := pyStrip(pyStr(dates[i]))
			return &s
		}
	}
	return least
}

// method is ";".join(sorted({str(m).strip() for m in methods if m})) or None.
func method(methods []mmcif.Value) *string {
	var set []string
	for _, m := range methods {
		if truthy(m) {
			if s := pyStrip(pyStr(m)); !slices.Contains(set, s) {
				set = append(set, s)
			}
		}
	}
	slices.Sort(set)
	if s := strings.Join(set, ";"); s != "" {
		return &s
	}
	return nil
}

// resolution is exp222's _resolution: the first of refine.ls_d_res_high,
// em_3d_reconstruction.resolution, reflns.d_resolution_high that holds a
// number, and the category it came from.
func resolution(c map[string]*mmcif.Category) (*float64, *string) {
	for _, src := range [...]struct{ cat, tag string }{{catRefine, "ls_d_res_high"}, {catEM, "resolution"}, {catReflns, "d_resolution_high"}} {
		raw := first(c[src.cat].Column(src.tag))
		if raw == nil {
			continue
		}
		v, ok := pyFloat(*raw)
		if !ok {
			continue
		}
		name := strings.Trim(src.cat, "_.")
		return &v, &name
	}
	return nil, nil
}

// first is exp222's _first: the first value that is not None and whose
// stripped str() is neither empty, "?" nor ".".
func first(values []mmcif.Value) *string {
	for _, v := range values {
		if v.Null() == '?' {
			continue
		}
		if s := pyStrip(pyStr(v)); s != "" && s != "?" && s != "." {
			return &s
		}
	}
	return nil
}

// pyStr is str() of the value gemmi gives: "False" for an unquoted '.',
// "None" for an unquoted '?'.
func pyStr(v mmcif.Value) string {
	switch v.Null() {
	case '?':
		return "None"
	case '.':
		return "False"
	}
	return v.Text
}

// truthy is Python's truth of the value: not None, not False, not "".
func truthy(v mmcif.Value) bool { return v.Null() == 0 && v.Text != "" }

// isPySpace is str.isspace for one character.
func isPySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// pyStrip is str.strip().
func pyStrip(s string) string { return strings.TrimFunc(s, isPySpace) }
