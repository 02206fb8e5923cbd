package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats"
	"github.com/foldcorpus/foldcorpus/internal/formats/cadv2"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

func init() {
	register("doc", "write one structure format's document for each mmCIF FILE (JSON lines)", runDoc)
}

// docLine is one output line of `foldcorpus doc`.
type docLine struct {
	File      string `json:"file"`
	EntryID   string `json:"entry_id,omitempty"`
	Outcome   string `json:"outcome"` // document | filtered | error
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
	readers := formats.NamesReading(format.FromStructure)
	name := fset.String("format", cadv2.Name, "structure format: "+strings.Join(readers, ", ")+" (options: `foldcorpus formats`)")
	plddtMin := fset.String("residue-plddt-min", "", "contact pool's residue pLDDT minimum (contacts-and-distances-v2; default 70)")
	entryID := fset.String("entry-id", "", "the document's entry_id (its seed), as the manifest's entry_id column gives it to `run`;\n"+
		"default: derived from the file's block name (AF-X-F1 for AlphaFold files). Needs exactly one FILE")
	opts := optFlag{}
	fset.Var(opts, "opt", "format knob key=value (repeatable), e.g. --opt context_length=4096")
	fset.Usage = func() {
		fmt.Fprintln(fset.Output(), "usage: foldcorpus doc [--format F] [--residue-plddt-min X] [--opt k=v]... [--entry-id ID] FILE...\n\n"+
			"Prints one JSON line per FILE (plain or gzip mmCIF): file, entry_id, outcome (document, filtered\n"+
			"with reason, or error), num_tokens, sha1, document. Every FILE gets its line; the exit status is 1\n"+
			"when any FILE's outcome is error (a filtered FILE is not an error).\n\nflags:")
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
	if !slices.Contains(readers, *name) {
		return &exitError{2, fmt.Errorf("--format %q: doc reads mmCIF files, so the format must be one of %s", *name, strings.Join(readers, ", "))}
	}
	f, err := formats.New(*name, opts)
	if err != nil {
		return &exitError{2, err}
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	r := docReader{f: f}
	var b []byte
	failed := 0
	for _, file := range fset.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		line := r.file(file, *entryID)
		if line.Outcome == "error" {
			failed++
		}
		if b, err = appendDocLine(b[:0], line); err != nil {
			return err
		}
		if _, err := out.Write(b); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return &exitError{1, fmt.Errorf("%d of %d files failed (outcome error)", failed, fset.NArg())}
	}
	return nil
}

// docFile reads and generates one file; every failure becomes the line's
// error outcome. entryID seeds the document; when empty it is derived from
// the file's block name.
func docFile(f format.Format, file, entryID string) docLine {
	r := docReader{f: f}
	return r.file(file, entryID)
}

// docReader reads file after file into one reused structure and file
// buffer, so that a long `doc` run allocates almost nothing per file.
type docReader struct {
	f   format.Format
	st  structure.Structure
	buf []byte
}

// file is docFile into r's reused memory: the line is valid until the next
// call.
func (r *docReader) file(file, entryID string) docLine {
	f := r.f
	line := docLine{File: file}
	var err error
	r.buf, err = localblob.ReadFileInto(file, r.buf)
	if err == nil {
		err = mmcif.ReadInto(&r.st, r.buf)
	}
	if err != nil {
		line.Outcome, line.Error = "error", fmt.Sprintf("%s: %v", file, err)
		return line
	}
	s := &r.st
	line.EntryID = entryID
	if line.EntryID == "" {
		line.EntryID = cadv2.EntryID(s.Name, file)
	}
	res, err := f.Generate(format.Input{EntryID: line.EntryID, Structure: s})
	switch {
	case err != nil:
		line.Outcome, line.Error = "error", fmt.Sprintf("%s: %v", file, err)
	case res.Filtered != "":
		line.Outcome, line.Reason = "filtered", res.Filtered
	default:
		sum := sha1.Sum([]byte(res.Document))
		line.Outcome, line.SHA1, line.Document = "document", hex.EncodeToString(sum[:]), res.Document
		line.NumTokens = numTokens(f, res)
	}
	return line
}

// numTokens is the format's num_tokens column, or the document's
// space-separated token count when the format has none.
func numTokens(f format.Format, res format.Result) int64 {
	for i, c := range f.Columns() {
		if c.Name == "num_tokens" && i < len(res.Values) {
			if v, ok := res.Values[i].(int64); ok {
				return v
			}
		}
	}
	if res.Document == "" {
		return 0
	}
	return int64(strings.Count(res.Document, " ") + 1)
}

// appendDocLine appends l as one JSON line, as json.Encoder with HTML
// escaping off writes it. The document, its last field and nearly all of
// its bytes, is escaped by a plain-ASCII fast path (documents are ASCII
// with newlines); encoding/json does the rest.
func appendDocLine(dst []byte, l docLine) ([]byte, error) {
	doc := l.Document
	l.Document = ""
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // documents are full of < and >
	if err := enc.Encode(l); err != nil {
		return dst, err
	}
	head := b.Bytes()
	if doc == "" {
		return append(dst, head...), nil
	}
	head = bytes.TrimSuffix(head, []byte("}\n"))
	dst = append(append(dst, head...), `,"document":`...)
	dst = appendJSONString(dst, doc)
	return append(dst, "}\n"...), nil
}

// appendJSONString appends s as a JSON string, byte-identical to
// encoding/json with HTML escaping off.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x80 && c != '"' && c != '\\' {
			continue
		}
		var esc string
		switch c {
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
		start = i + 1
	}
	return append(append(dst, s[start:]...), '"')
}
