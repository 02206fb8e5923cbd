package main

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/foldcorpus/foldcorpus/internal/filelist"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/distancesv2"
	"github.com/foldcorpus/foldcorpus/internal/formats/inprocess"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// docLine is one output line of `foldcorpus doc`.
type docLine struct {
	File      string `json:"file"`
	EntryID   string `json:"entry_id,omitempty"`
	Subset    string `json:"subset,omitempty"` // a PDB entry's document: monomer or multimer
	Outcome   string `json:"outcome"`          // document | filtered | error
	Reason    string `json:"reason,omitempty"`
	Error     string `json:"error,omitempty"`
	NumTokens int64  `json:"num_tokens"`
	SHA1      string `json:"sha1,omitempty"`
	Document  string `json:"document,omitempty"`
}

// optFlag collects repeated --opt key=value knobs.
type optFlag map[string]string

func (o optFlag) String() string { return fmt.Sprint(map[string]string(o)) }
func (o optFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", v)
	}
	o[k] = val
	return nil
}

func runDoc(ctx context.Context, args []string) error {
	fset := flag.NewFlagSet("doc", flag.ContinueOnError)
	readers := formatRegistry.NamesReading(format.FromStructure)
	name := fset.String("format", distancesv2.Name, "structure format: "+structureFormats()+" (their options: foldcorpus formats)")
	plddtMin := fset.String("residue-plddt-min", "", "contact pool's residue pLDDT minimum (contacts-and-distances-v2; default 70)")
	entryID := fset.String("entry-id", "", "the document's entry_id (its seed), as the manifest's entry_id column gives it to run;\n"+
		"default: "+entryIDRule+". Needs exactly one FILE")
	opts := optFlag{}
	fset.Var(opts, "opt", "format knob key=value (repeatable), e.g. --opt context_length=4096")
	fset.Usage = func() {
		fmt.Fprintln(fset.Output(), "usage: foldcorpus doc [--format F] [--residue-plddt-min X] [--opt k=v]... [--entry-id ID] FILE...\n\n"+
			"Prints one JSON line per FILE (mmCIF or PDB format, plain or gzip): file, entry_id, outcome (document, filtered\n"+
			"with reason, or error), num_tokens, sha1, document. Every FILE gets its line; the exit status is 1\n"+
			"when any FILE's outcome is error (a filtered FILE is not an error).\n\n"+
			"A PDB entry's documents (contacts-v1 with --opt rotlib=DIR --opt units=chains,assembly1 --opt curation=af3\n"+
			"--opt max_chains=60, as exp222): one line per document, with its subset (monomer, multimer) and entry id\n"+
			"(<pdb>_<chain>, <pdb>_assembly1); the header fields come from the file's own header scan, and the\n"+
			"default entry id is the PDB id (the file name up to its first dot, lower-cased).\n\nflags:")
		fset.PrintDefaults()
	}
	if err := parseFlags(fset, args); err != nil {
		return &exitError{2, err}
	}
	if fset.NArg() == 0 {
		fset.Usage()
		return &exitError{2, fmt.Errorf("no FILE given")}
	}
	if *entryID != "" && fset.NArg() != 1 {
		return &exitError{2, fmt.Errorf("--entry-id names one document: give exactly one FILE, got %d", fset.NArg())}
	}
	if *plddtMin != "" {
		if _, err := strconv.ParseFloat(*plddtMin, 64); err != nil {
			return &exitError{2, fmt.Errorf("--residue-plddt-min %q: %w", *plddtMin, err)}
		}
		opts["residue_plddt_min"] = *plddtMin
	}
	if !slices.Contains(readers, *name) && structureOption(*name) == "" {
		return &exitError{2, fmt.Errorf("--format %q: doc reads mmCIF and PDB files, so the format must be one of %s", *name, structureFormats())}
	}
	store := cliStores()
	defer store.Close()
	// The format is built as run builds it (contacts-v1 with rotlib= reads
	// structures, without it records).
	f, err := inprocess.NewIn(ctx, formatRegistry, format.Env{Store: store}, *name, opts)
	if err != nil {
		return &exitError{2, err}
	}
	if f.Kind() != format.FromStructure {
		return &exitError{2, fmt.Errorf("--format %s: %s", *name, recordsHint(*name))}
	}
	if os.Getenv("GOMAXPROCS") == "" {
		// One goroutine does all the work: a second P would only run the
		// GC's idle mark worker, which burns that core (GC CPU over 920
		// AFDB files: 18 to 28 ms with 2 Ps, 10 to 12 ms with 1).
		runtime.GOMAXPROCS(1)
	}
	r := newDocReader(f)
	// Lines go to one reused buffer written out in large pieces: no second
	// copy through a bufio.Writer.
	var b []byte
	failed := 0
	for _, file := range fset.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var outcome string
		b, outcome = r.appendLine(b, file, *entryID)
		if outcome == "error" {
			failed++
		}
		if len(b) >= 1<<20 {
			if _, err := os.Stdout.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	if _, err := os.Stdout.Write(b); err != nil {
		return err
	}
	if failed > 0 {
		return &exitError{1, fmt.Errorf("%d of %d files failed (outcome error)", failed, fset.NArg())}
	}
	return nil
}

// bytesGenerator is a format that hands its document over without a
// string copy (distancesv2.Format): doc is valid only until fn returns.
type bytesGenerator interface {
	GenerateBytes(s *structure.Structure, entryID string, fn func(res format.Result, doc distancesv2.Doc)) error
}

// docReader reads file after file into one reused structure and file
// buffer, so that a long `doc` run allocates almost nothing per file.
type docReader struct {
	f   format.Format
	gb  bytesGenerator // f, when it can give the document without a copy
	st  structure.Structure
	buf []byte
	// read is localblob.ReadMapped (tests put a file changing under it).
	read func(path string, buf []byte, fn func(data []byte) error) ([]byte, error)
}

func newDocReader(f format.Format) *docReader {
	r := &docReader{f: f, read: localblob.ReadMapped}
	r.gb, _ = f.(bytesGenerator)
	return r
}

// appendLine reads and generates file and appends its JSON line to dst;
// every failure becomes the line's error outcome, which it also returns.
// entryID seeds the document; when empty it is derived from the file's
// block name.
func (r *docReader) appendLine(dst []byte, file, entryID string) ([]byte, string) {
	if format.ReadsRaw(r.f) {
		return r.appendEntry(dst, file, entryID)
	}
	line := docLine{File: file}
	var err error
	// A large file is parsed where it lies (mapped), without a copy; the
	// structure keeps no byte of it.
	r.buf, err = r.read(file, r.buf, func(data []byte) error {
		if len(data) == 0 {
			return errEmptyFile
		}
		return mmcif.ReadInto(&r.st, data)
	})
	if errors.Is(err, localblob.ErrFileChanged) {
		r.st = structure.Structure{} // the read stopped halfway
	}
	if err != nil {
		line.Outcome, line.Error = "error", fileError(file, err)
		return appendDocLine(dst, line), line.Outcome
	}
	s := &r.st
	line.EntryID = entryID
	if line.EntryID == "" {
		name := s.Name
		if name == "" { // PDB format: named after the file, as gemmi names it
			name = mmcif.PDBName(file)
		}
		line.EntryID = distancesv2.EntryID(name, file)
	}
	// done fills line from one generation and appends it; doc is the
	// document's bytes (only read before done returns).
	done := func(res format.Result, doc []byte) {
		switch {
		case res.Filtered != "":
			line.Outcome, line.Reason = "filtered", res.Filtered
		default:
			sum := sha1.Sum(doc)
			line.Outcome, line.SHA1 = "document", hex.EncodeToString(sum[:])
			// The line is appended before doc's memory is reused.
			line.Document = unsafe.String(unsafe.SliceData(doc), len(doc))
			line.NumTokens = numTokens(r.f, res, line.Document)
		}
		dst = appendDocLine(dst, line)
	}
	if r.gb != nil {
		err = r.gb.GenerateBytes(s, line.EntryID, func(res format.Result, d distancesv2.Doc) { done(res, d.Document) })
	} else {
		var res format.Result
		if res, err = r.f.Generate(format.Input{EntryID: line.EntryID, Structure: s}); err == nil {
			done(res, unsafe.Slice(unsafe.StringData(res.Document), len(res.Document)))
		}
	}
	if err != nil {
		line.Outcome, line.Error = "error", fileError(file, err)
		return appendDocLine(dst, line), line.Outcome
	}
	return dst, line.Outcome
}

// appendEntry generates the documents of a format that reads whole PDB
// entries (contacts-v1 with units=chains/assembly1: format.Raw and
// format.Multi) for file, one line per document (subset set), or one
// "filtered" line naming why the entry has none. The header fields a
// `select --pdb` manifest carries come from the file's own header scan
// (pdbheader.Scan). entryID defaults to exp222's PDB id: the file name up
// to its first dot, lower-cased.
func (r *docReader) appendEntry(dst []byte, file, entryID string) ([]byte, string) {
	line := docLine{File: file, EntryID: entryID}
	if line.EntryID == "" {
		line.EntryID, _ = filelist.EntryID(filelist.IDPDB, file)
	}
	var res format.Result
	var genErr error
	var err error
	r.buf, err = r.read(file, r.buf, func(data []byte) error {
		if len(data) == 0 {
			return errEmptyFile
		}
		h := pdbheader.Scan(data, file)
		if h.Error != nil {
			return fmt.Errorf("header scan: %s", *h.Error)
		}
		rec := map[string]any{"release_date": "", "method": "", "resolution": nil, "assembly1_protein_chains": h.NAssembly1ProteinChains}
		if h.ReleaseDate != nil {
			rec["release_date"] = *h.ReleaseDate
		}
		if h.Method != nil {
			rec["method"] = *h.Method
		}
		if h.Resolution != nil {
			rec["resolution"] = *h.Resolution
		}
		res, genErr = r.f.Generate(format.Input{EntryID: line.EntryID, Data: data, Record: rec})
		return nil
	})
	if err == nil {
		err = genErr
	}
	if err != nil {
		line.Outcome, line.Error = "error", fileError(file, err)
		return appendDocLine(dst, line), line.Outcome
	}
	if len(res.Units) == 0 {
		line.Outcome, line.Reason = "filtered", "no_documents"
		return appendDocLine(dst, line), line.Outcome
	}
	for _, u := range res.Units {
		l := docLine{File: file, EntryID: u.EntryID, Subset: u.Kind, Outcome: "document", Document: u.Document}
		sum := sha1.Sum([]byte(u.Document))
		l.SHA1 = hex.EncodeToString(sum[:])
		l.NumTokens = numTokens(r.f, format.Result{Values: u.Values}, u.Document)
		dst = appendDocLine(dst, l)
	}
	return dst, "document"
}

// numTokens is the format's num_tokens column, or the document's
// space-separated token count when the format has none.
func numTokens(f format.Format, res format.Result, doc string) int64 {
	for i, c := range f.Columns() {
		if c.Name == "num_tokens" && i < len(res.Values) {
			if v, ok := res.Values[i].(int64); ok {
				return v
			}
		}
	}
	if doc == "" {
		return 0
	}
	return int64(strings.Count(doc, " ") + 1)
}

// appendDocLine appends l as one JSON line, byte-identical to what
// json.Encoder with HTML escaping off writes for it
// (TestAppendDocLineMatchesEncodingJSON).
func appendDocLine(dst []byte, l docLine) []byte {
	dst = appendJSONString(append(dst, `{"file":`...), l.File)
	if l.EntryID != "" {
		dst = appendJSONString(append(dst, `,"entry_id":`...), l.EntryID)
	}
	if l.Subset != "" {
		dst = appendJSONString(append(dst, `,"subset":`...), l.Subset)
	}
	dst = appendJSONString(append(dst, `,"outcome":`...), l.Outcome)
	if l.Reason != "" {
		dst = appendJSONString(append(dst, `,"reason":`...), l.Reason)
	}
	if l.Error != "" {
		dst = appendJSONString(append(dst, `,"error":`...), l.Error)
	}
	dst = strconv.AppendInt(append(dst, `,"num_tokens":`...), l.NumTokens, 10)
	if l.SHA1 != "" {
		dst = appendJSONString(append(dst, `,"sha1":`...), l.SHA1)
	}
	if l.Document != "" {
		dst = appendJSONString(append(dst, `,"document":`...), l.Document)
	}
	return append(dst, "}\n"...)
}

// appendJSONString appends s as a JSON string, byte-identical to
// encoding/json with HTML escaping off. Documents are long runs of plain
// ASCII (< and > included, which this escaping leaves alone): plainPrefix
// skips them eight bytes at a time.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := plainPrefix(s); i < len(s); i += plainPrefix(s[i:]) {
		var esc string
		switch c := s[i]; c {
		case '"':
			esc = `\"`
		case '\\':
			esc = `\\`
		case '\n':
			esc = `\n`
		case '\t':
			esc = `\t`
		case '\r':
			esc = `\r`
		default: // other control bytes and non-ASCII: encoding/json's rules
			var q bytes.Buffer
			enc := json.NewEncoder(&q)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s[i:]) // a string always encodes
			return append(append(dst, s[start:i]...), bytes.TrimSuffix(q.Bytes(), []byte("\n"))[1:]...)
		}
		dst = append(append(dst, s[start:i]...), esc...)
		i++
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// plainPrefix is the length of s's leading run of bytes a JSON string
// carries as they are: 0x20..0x7f except '"' and '\\'. It tests sixteen
// bytes at a time in two words: a byte b < 0x80 sets the high bit of
// b - 0x20 when b < 0x20, and of (b ^ '"') - 1 when b == '"'; a borrow
// into the next byte starts at such a byte, so the test is exact (though
// not as to where). The rest goes byte by byte.
func plainPrefix(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+16 <= len(s); i += 16 {
		b := s[i : i+16]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		v := uint64(b[8]) | uint64(b[9])<<8 | uint64(b[10])<<16 | uint64(b[11])<<24 |
			uint64(b[12])<<32 | uint64(b[13])<<40 | uint64(b[14])<<48 | uint64(b[15])<<56
		if (w|v|(w-ones*0x20)|(v-ones*0x20)|
			(w^(ones*'"')-ones)|(v^(ones*'"')-ones)|
			(w^(ones*'\\')-ones)|(v^(ones*'\\')-ones))&highs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}
