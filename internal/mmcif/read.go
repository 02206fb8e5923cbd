package mmcif

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// MaxDecompressed caps how many bytes Read will inflate from gzip input, so
// that a hostile "zip bomb" fails cleanly instead of exhausting memory.
const MaxDecompressed = 4 << 30

// ErrNoBlock is returned (wrapped, with ErrPermanent) for input that holds
// no data_ block at all, such as an empty file.
var ErrNoBlock = errors.New("no data_ block")

// Read parses one mmCIF file, plain or gzip-compressed (detected by the
// magic bytes 1f 8b, not by name), and builds the structure from its first
// data block as gemmi 0.5.7's read_structure does. Syntax errors anywhere
// in the file fail the whole read, as in gemmi. Every error is wrapped with
// derrors.ErrPermanent (retrying cannot fix the bytes) and names the line
// where it can. Read does not retain data after it returns except through
// the strings of the result; it is safe for concurrent use.
func Read(data []byte) (*structure.Structure, error) {
	st := new(structure.Structure)
	if _, err := readInto(st, data, false); err != nil {
		return nil, err
	}
	return st, nil
}

// ReadInto is Read into st, reusing the memory of st's earlier contents:
// the arrays of models, chains, residues and atoms that an earlier
// ReadInto (or Read) laid out for st are overwritten in place, and grow
// only when data needs more, so that reading file after file into one
// structure allocates almost nothing once it has seen the largest file.
//
// Lifetime: ReadInto overwrites st and every slice reachable from it (its
// models, chains, residues and atoms, including those of earlier reads);
// a caller must not keep any of them, or a pointer into them, past the
// next ReadInto into the same st. Strings (names) are immutable and stay
// valid. st may start as a zero Structure or hold the result of Read or
// ReadInto; ReadInto may reuse any memory reachable from st, so st must
// not share slices with data the caller keeps. On error st is left empty
// (no models, reusable). Errors are Read's. One st must not be read into
// from two goroutines at once; distinct structures may be.
func ReadInto(st *structure.Structure, data []byte) error {
	_, err := readInto(st, data, false)
	return err
}

// Info is what ReadInfo reports besides the structure.
type Info struct {
	Blocks int  // number of data blocks in the file (0 for PDB format)
	PDB    bool // the file is PDB format
}

// ReadInfo is Read that also reports document facts (the block count).
func ReadInfo(data []byte) (*structure.Structure, Info, error) {
	st := new(structure.Structure)
	info, err := readInto(st, data, false)
	if err != nil {
		return nil, info, err
	}
	return st, info, nil
}

// readWith is Read; noFast turns the line fast paths off, so that tests
// can check that they read exactly what the general tokenizer reads.
func readWith(data []byte, noFast bool) (*structure.Structure, Info, error) {
	st := new(structure.Structure)
	info, err := readInto(st, data, noFast)
	if err != nil {
		return nil, info, err
	}
	return st, info, nil
}

// readInto reads data into st (see ReadInto).
func readInto(st *structure.Structure, data []byte, noFast bool) (info Info, err error) {
	return readIntoExt(st, data, noFast, nil, nil)
}

// readIntoExt is readInto that also collects the categories of ext
// (ReadEntry) and hands the parsed document to conv before the builder is
// released; both are nil for every other read.
func readIntoExt(st *structure.Structure, data []byte, noFast bool, ext *entryTables, conv func(*builder, *document)) (info Info, err error) {
	arr := recycle(st)
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		data, err = gunzip(data)
		if err != nil {
			return info, derrors.Permanent(fmt.Errorf("gzip: %w", err))
		}
	}
	switch detectFormat(data) {
	case formatPDB:
		info.PDB = true
		return info, derrors.Permanent(readPDB(st, data, arr, noFast))
	case formatJSON:
		return info, derrors.Permanent(fmt.Errorf("%w: mmJSON is not read", ErrUnknownFormat))
	case formatUnknown:
		return info, derrors.Permanent(fmt.Errorf("%w: no data_ block first and no PDB record (ATOM, HETATM, HEADER, ...) at a line start", ErrUnknownFormat))
	}
	b := getBuilder(data)
	defer b.release()
	b.noFast = noFast
	b.ext = ext
	b.atoms = arr.atoms
	doc, err := parse(data, b)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			err = fmt.Errorf("line %d: %s", lineOf(data, se.off), se.msg)
		}
		return info, derrors.Permanent(err)
	}
	info.Blocks = doc.nBlocks
	if doc.nBlocks == 0 {
		return info, derrors.Permanent(ErrNoBlock)
	}
	if len(doc.atomPairs.tags) > 0 {
		b.startAtoms(doc.atomPairs.tags)
		b.setRow(doc.atomPairs.vals)
		b.atomRow()
		b.endAtoms()
	}
	b.assignEntities(doc)
	b.assemble(st, doc.name, arr)
	if conv != nil {
		conv(b, doc)
	}
	return info, nil
}

func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var buf bytes.Buffer
	buf.Grow(len(data) * 4)
	n, err := io.Copy(&buf, io.LimitReader(zr, MaxDecompressed+1))
	if err != nil {
		return nil, err
	}
	if n > MaxDecompressed {
		return nil, fmt.Errorf("decompressed size exceeds %d bytes", int64(MaxDecompressed))
	}
	return buf.Bytes(), nil
}

// ReadFile reads and parses the file at path (mmCIF or PDB format, plain
// or gzip, detected by content, whatever its name); errors name the path.
// A PDB-format file is named as gemmi names it (PDBName). It reads the
// file once, holds nothing open on return, and is safe for concurrent use.
func ReadFile(path string) (st *structure.Structure, err error) {
	defer derrors.Wrap(&err, "%s", path)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readNamed(data, path)
}

// ReadFrom reads all of r and parses it as ReadFile does; name is used in
// errors and as the path of a PDB-format file's name.
func ReadFrom(r io.Reader, name string) (st *structure.Structure, err error) {
	defer derrors.Wrap(&err, "%s", name)
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return readNamed(data, name)
}

func readNamed(data []byte, path string) (*structure.Structure, error) {
	st := new(structure.Structure)
	info, err := readInto(st, data, false)
	if err != nil {
		return nil, err
	}
	if info.PDB {
		st.Name = PDBName(path)
	}
	return st, nil
}
