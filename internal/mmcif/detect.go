package mmcif

import (
	"bytes"
	"errors"
	"strings"
)

// ErrUnknownFormat is returned (wrapped, with ErrPermanent) for input that
// is neither mmCIF nor PDB format.
var ErrUnknownFormat = errors.New("neither mmCIF nor PDB format")

type fileFormat uint8

const (
	formatCIF fileFormat = iota
	formatPDB
	formatJSON
	formatUnknown
)

// detectFormat tells mmCIF from PDB format by content, as gemmi's
// coor_format_from_content does (blank and '#' comment lines skipped; a
// first token "data_..." is mmCIF, '{' mmJSON), with two changes so that
// other text is refused instead of read as an empty PDB file: the first
// token of CIF syntax ('_' tag, loop_, global_, save_) also goes to the CIF
// reader (which names the error), empty input too (ErrNoBlock), and PDB
// format needs a line that starts with a PDB record name (ATOM, HETATM,
// HEADER, REMARK, MODEL, ...).
func detectFormat(data []byte) fileFormat {
	i := 0
	for i < len(data) {
		switch c := data[i]; {
		case isSpaceC(c):
			i++
			continue
		case c == '#':
			if k := bytes.IndexByte(data[i:], '\n'); k >= 0 {
				i += k
			} else {
				i = len(data)
			}
			continue
		}
		break
	}
	rest := data[i:]
	switch {
	case len(rest) == 0, rest[0] == '_', hasPrefixFold(rest, "data_"), hasPrefixFold(rest, "loop_"),
		hasPrefixFold(rest, "global_"), hasPrefixFold(rest, "save_"):
		return formatCIF
	case rest[0] == '{':
		return formatJSON
	}
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += pos
		}
		if isPDBRecord(data[pos:end]) {
			return formatPDB
		}
		pos = end + 1
	}
	return formatUnknown
}

// pdbRecords are the record names of the PDB format (version 3.3), padded
// to six columns.
var pdbRecords = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range strings.Fields("HEADER OBSLTE TITLE SPLIT CAVEAT COMPND SOURCE KEYWDS EXPDTA NUMMDL MDLTYP " +
		"AUTHOR REVDAT SPRSDE JRNL REMARK DBREF DBREF1 DBREF2 SEQADV SEQRES MODRES HET HETNAM HETSYN FORMUL " +
		"HELIX SHEET SSBOND LINK CISPEP SITE CRYST1 ORIGX1 ORIGX2 ORIGX3 SCALE1 SCALE2 SCALE3 MTRIX1 MTRIX2 " +
		"MTRIX3 MODEL ATOM ANISOU TER HETATM ENDMDL CONECT MASTER END") {
		m[(r + "      ")[:6]] = true
	}
	return m
}()

// isPDBRecord reports whether line starts with a PDB record name (any
// case, as gemmi compares them): its first six columns, blank-padded, or
// ATOM/HETA followed by anything, as gemmi's is_record_type reads them.
func isPDBRecord(line []byte) bool {
	if id := pdbLine(line).alpha4(); id == recATOM || id == recHETATM {
		return true
	}
	var k [6]byte
	for i := range k {
		c := byte(' ')
		if i < len(line) && line[i] != '\r' && line[i] != '\t' {
			c = line[i]
		}
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		k[i] = c
	}
	return pdbRecords[string(k[:])]
}

// PDBName is the structure name gemmi 0.5.7 gives a PDB-format file read
// from path: its base name without a final ".gz", then without ".pdb"
// (path_basename(path, {".gz", ".pdb"}), case-sensitive). A PDB file read
// from bytes (Read, ReadInto) has no name.
func PDBName(path string) string {
	base := path
	if k := strings.LastIndexAny(path, `\/`); k >= 0 {
		base = path[k+1:]
	}
	for _, ext := range []string{".gz", ".pdb"} {
		if len(base) > len(ext) && strings.HasSuffix(base, ext) {
			base = base[:len(base)-len(ext)]
		}
	}
	return base
}
