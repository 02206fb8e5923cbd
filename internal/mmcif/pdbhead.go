package mmcif

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// PDBHeader is what ReadPDBHeader reads of a PDB-format file: the header
// records from which gemmi 0.5.7's PDB reader (read_pdb_from_stream) and
// setup_entities derive a structure's metadata, entities and assemblies.
type PDBHeader struct {
	// DepositionDate is HEADER's date (columns 51-59) as gemmi's
	// pdb_date_format_to_iso converts it ("02-JAN-87" -> "1987-01-02");
	// "" when no HEADER line reaches column 59 or the date is not one.
	DepositionDate string
	// Method is the EXPDTA text from column 11, each line trimmed and
	// appended to the ones before as gemmi appends them (its
	// _exptl.method; several methods are separated by ';').
	Method string
	// Resolution is gemmi's st.resolution: the first value other than 0
	// of a REMARK 2 line that holds "ANGSTROM" (columns 24-30) or of a
	// REMARK 3 "RESOLUTION RANGE HIGH (ANGSTROMS) :" line; 0 for none.
	// ResolutionRemark is the REMARK it came from (2 or 3; 0: none).
	Resolution       float64
	ResolutionRemark int
	// Entities are the polymer entities of the SEQRES records (PDBEntity).
	Entities []PDBEntity
	// Assemblies are the biomolecules of REMARK 350, in file order.
	Assemblies []PDBAssembly
}

// PDBEntity is a polymer entity as setup_entities leaves it: one per
// SEQRES sequence, chains whose sequences are equal (and equally typed)
// merged into the first (deduplicate_entities), named after that chain.
type PDBEntity struct {
	Name     string   // the first chain of the sequence
	Chains   []string // its chains that have coordinates, in SEQRES order (gemmi's subchains)
	Length   int      // residues in SEQRES (gemmi's full_sequence)
	PeptideL bool     // gemmi's check_polymer_type of the sequence is PeptideL
}

// PDBAssembly is one REMARK 350 biomolecule as gemmi reads it.
type PDBAssembly struct {
	Name       string // after "BIOMOLECULE:", trimmed
	Generators []PDBGenerator
}

// PDBGenerator is one "APPLY THE FOLLOWING TO CHAINS:" group.
type PDBGenerator struct {
	Chains    []string // chain names as listed (with "AND CHAINS:" lines)
	Operators int      // BIOMT operators: gemmi counts one per BIOMT3 line of 59 columns or more
}

// IsPDB reports whether data (not compressed) is PDB format by the
// detection Read uses.
func IsPDB(data []byte) bool { return detectFormat(data) == formatPDB }

// ReadPDBHeader reads the header records of a PDB-format file (plain or
// gzip) without building a single atom: ATOM and HETATM lines are skipped,
// only their chain columns (21-22) noted, since gemmi types and merges the
// entities of chains that have coordinates only. Polymer types come from
// the SEQRES residue names (check_polymer_type over the tabulated names)
// rather than from the atoms, and a chain with coordinates but no SEQRES
// has no entity here (gemmi would make one from its residues). Reading
// stops at END, as gemmi's reader does. Errors are permanent: input that
// is not PDB format, a NUL byte. Safe for concurrent use.
func ReadPDBHeader(data []byte) (_ *PDBHeader, err error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		if data, err = gunzip(data); err != nil {
			return nil, derrors.Permanent(fmt.Errorf("gzip: %w", err))
		}
	}
	if !IsPDB(data) {
		return nil, derrors.Permanent(fmt.Errorf("%w: not PDB format", ErrUnknownFormat))
	}
	if k := bytes.IndexByte(data, 0); k >= 0 {
		return nil, derrors.Permanent(fmt.Errorf("line %d: NUL byte in a PDB-format line", lineOf(data, k)))
	}
	var r pdbHeadReader
	r.read(data)
	return r.result(), nil
}

// pdbHeadReader is ReadPDBHeader's state.
type pdbHeadReader struct {
	h         PDBHeader
	seqChains []string            // chains in SEQRES order
	seqs      map[string][]string // SEQRES residue names by chain
	withAtoms map[string]bool     // chains that have ATOM/HETATM lines
	lastChain [2]byte             // chain columns of the last atom line
}

var (
	recREMARK = rec("REMA")
	recSEQRES = rec("SEQR")
	recHEADER = rec("HEAD")
	recEXPDTA = rec("EXPD")
)

// read goes through the lines as gemmi's reader does (at most 120 bytes of
// a line, the newline included) up to END.
func (r *pdbHeadReader) read(data []byte) {
	r.seqs, r.withAtoms = map[string][]string{}, map[string]bool{}
	var method strings.Builder
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
		}
		l := pdbLine(data[pos:min(next, pos+120)])
		pos = next
		switch id := l.alpha4(); {
		case id == recATOM || id == recHETATM:
			if c := [2]byte{l.at(20), l.at(21)}; c != r.lastChain || len(r.withAtoms) == 0 {
				r.lastChain = c
				r.withAtoms[string(l.readString(20, 2))] = true
			}
		case id == recREMARK:
			if len(l) > 11 {
				r.remark(l)
			}
		case id == recSEQRES:
			r.seqres(l)
		case id == recHEADER:
			if len(l) > 59 {
				if d := pdbDateToISO(l[50:59]); d != "" {
					r.h.DepositionDate = d
				}
			}
		case id == recEXPDTA:
			method.Write(l.readString(10, len(l)))
		case l.isRecord3(recEND):
			pos = len(data)
		}
	}
	r.h.Method = method.String()
}

// seqres appends a SEQRES line's residue names to its chain's sequence.
func (r *pdbHeadReader) seqres(l pdbLine) {
	chain := string(l.readString(10, 2))
	if _, ok := r.seqs[chain]; !ok {
		r.seqChains = append(r.seqChains, chain)
		r.seqs[chain] = nil
	}
	for i := 19; i < 68; i += 4 {
		if name := l.readString(i, 3); len(name) > 0 {
			r.seqs[chain] = append(r.seqs[chain], string(name))
		}
	}
}

// remark reads the REMARK lines gemmi reads for resolution (2, 3) and
// assemblies (350).
func (r *pdbHeadReader) remark(l pdbLine) {
	switch l.readInt(7, 3) {
	case 2:
		if bytes.Contains(l, []byte("ANGSTROM")) {
			r.setResolution(l.readDouble(23, 7), 2)
		}
	case 3:
		r.remark3(l)
	case 350:
		r.remark350(l)
	}
}

// remark3 is the part of gemmi's read_remark3_line that sets the
// resolution: a line "RESOLUTION RANGE HIGH (ANGSTROMS) : v" (the key
// trimmed, compared as written; a value "NULL" skipped).
func (r *pdbHeadReader) remark3(l pdbLine) {
	rest := bytes.TrimLeft(l[10:], " \t")
	colon := bytes.IndexByte(rest, ':')
	if colon < 0 || string(trimRightC(rest[:colon])) != "RESOLUTION RANGE HIGH (ANGSTROMS)" {
		return
	}
	value := trimRightC(bytes.TrimLeft(rest[colon+1:], " \t"))
	if string(value) != "NULL" {
		r.setResolution(pdbLine(value).readDouble(0, len(value)), 3)
	}
}

// setResolution is gemmi 0.5.7's rule for REMARK 2 and 3: the first value
// that is not 0 is the resolution.
func (r *pdbHeadReader) setResolution(v float64, remark int) {
	if r.h.Resolution == 0 && v != 0 {
		r.h.Resolution, r.h.ResolutionRemark = v, remark
	}
}

// remark350 reads a REMARK 350 line as gemmi's assembly reader does:
// "BIOMOLECULE:" (column 12) starts an assembly, "APPLY THE FOLLOWING TO
// CHAINS:" (column 12) a generator of it, a line with "AND CHAINS:" at
// column 31 (blanks before it) continues the chain list, and a BIOMT3
// line (column 14) of at least 59 columns completes an operator.
func (r *pdbHeadReader) remark350(l pdbLine) {
	body := l.field(11, len(l))
	asms := r.h.Assemblies
	switch {
	case bytes.HasPrefix(body, []byte("BIOMOLECULE:")):
		name := pdbLine(body).readString(12, len(body))
		r.h.Assemblies = append(asms, PDBAssembly{Name: string(name)})
	case len(asms) == 0:
	case bytes.HasPrefix(body, []byte("APPLY THE FOLLOWING TO CHAINS:")):
		a := &asms[len(asms)-1]
		a.Generators = append(a.Generators, PDBGenerator{Chains: chainList(body[30:])})
	case bytes.HasPrefix(body, []byte("                   AND CHAINS:")):
		if a := &asms[len(asms)-1]; len(a.Generators) > 0 {
			g := &a.Generators[len(a.Generators)-1]
			g.Chains = append(g.Chains, chainList(body[30:])...)
		}
	case bytes.HasPrefix(l.field(13, 6), []byte("BIOMT3")) && lineLen(l) >= 60:
		if a := &asms[len(asms)-1]; len(a.Generators) > 0 {
			a.Generators[len(a.Generators)-1].Operators++
		}
	}
}

// lineLen is the length of l as gemmi counts it, the newline included
// (a last line without one counts one more, as if it had it).
func lineLen(l pdbLine) int {
	if len(l) > 0 && l[len(l)-1] == '\n' {
		return len(l)
	}
	return len(l) + 1
}

// chainList splits a REMARK 350 chain list at commas and blanks.
func chainList(s []byte) []string {
	var out []string
	for _, f := range bytes.FieldsFunc(s, func(c rune) bool { return c == ',' || c < 0x80 && isSpaceC(byte(c)) }) {
		out = append(out, string(f))
	}
	return out
}

// trimRightC trims C-isspace bytes from the end of s.
func trimRightC(s []byte) []byte {
	for len(s) > 0 && isSpaceC(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// pdbDateToISO is gemmi 0.5.7's pdb_date_format_to_iso of a 9-byte date
// ("28-MAR-07" -> "2007-03-28"; years 70-99 are 19xx): "" unless the day
// and year are digits; the month, upper-cased and cut at its first blank,
// is looked up as a substring of gemmi's month table ("xx" when absent,
// "01" when blank).
func pdbDateToISO(d []byte) string {
	const months = "JAN01FEB02MAR03APR04MAY05JUN06JUL07AUG08SEP09OCT10NOV11DEC122222"
	for _, i := range [...]int{0, 1, 7, 8} {
		if d[i]-'0' >= 10 {
			return ""
		}
	}
	// gemmi's alpha_up: each byte without bit 0x20, so that a blank ends
	// the month (NUL) and digits match nothing
	m := []byte{d[3] &^ 0x20, d[4] &^ 0x20, d[5] &^ 0x20}
	if k := bytes.IndexByte(m, 0); k >= 0 {
		m = m[:k]
	}
	month := "xx"
	if k := strings.Index(months, string(m)); k >= 0 {
		month = months[k+3 : k+5]
	}
	century := "20"
	if d[7] > '6' {
		century = "19"
	}
	return century + string(d[7:9]) + "-" + month + "-" + string(d[0:2])
}

// result makes the entities: one per SEQRES chain, typed when the chain
// has coordinates, equal sequences of equal type merged into the first.
func (r *pdbHeadReader) result() *PDBHeader {
	type ent struct {
		e    PDBEntity
		seq  []string
		kind polymerType
	}
	var ents []ent
	for _, c := range r.seqChains {
		seq := r.seqs[c]
		kind := polyUnknown
		if r.withAtoms[c] {
			res := make([]structure.Residue, len(seq))
			for i, n := range seq {
				res[i].Name = n
			}
			kind = checkPolymerType(res)
		}
		i := slices.IndexFunc(ents, func(x ent) bool { return x.kind == kind && slices.Equal(x.seq, seq) })
		if i < 0 {
			ents = append(ents, ent{e: PDBEntity{Name: c, Length: len(seq), PeptideL: kind == polyPeptideL}, seq: seq, kind: kind})
			i = len(ents) - 1
		}
		if r.withAtoms[c] {
			ents[i].e.Chains = append(ents[i].e.Chains, c)
		}
	}
	for _, x := range ents {
		r.h.Entities = append(r.h.Entities, x.e)
	}
	return &r.h
}
