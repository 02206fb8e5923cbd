package main

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats"
	"github.com/foldcorpus/foldcorpus/internal/formats/cadv2"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
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
	name := fset.String("format", cadv2.Name, "structure format: "+strings.Join(formats.Names(), ", "))
	plddtMin := fset.String("residue-plddt-min", "", "contact pool's residue pLDDT minimum (contacts-and-distances-v2; default 70)")
	opts := optFlag{}
	fset.Var(opts, "opt", "format knob key=value (repeatable), e.g. --opt context_length=4096")
	fset.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: foldcorpus doc [--format F] [--residue-plddt-min X] [--opt k=v]... FILE...\n\n"+
			"Prints one JSON line per FILE (plain or gzip mmCIF): file, entry_id, outcome (document, filtered\n"+
			"with reason, or error), num_tokens, sha1, document. The exit status is 0 even when files fail.")
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		return &exitError{2, err}
	}
	if fset.NArg() == 0 {
		fset.Usage()
		return &exitError{2, fmt.Errorf("no FILE given")}
	}
	if *plddtMin != "" {
		if _, err := strconv.ParseFloat(*plddtMin, 64); err != nil {
			return &exitError{2, fmt.Errorf("--residue-plddt-min %q: %w", *plddtMin, err)}
		}
		opts["residue_plddt_min"] = *plddtMin
	}
	f, err := formats.New(*name, opts)
	if err != nil {
		return &exitError{2, err}
	}
	if f.Kind() != format.FromStructure {
		return &exitError{2, fmt.Errorf("format %s does not read structures", *name)}
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false) // documents are full of < and >
	for _, file := range fset.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := enc.Encode(docFile(f, file)); err != nil {
			return err
		}
	}
	return out.Flush()
}

// docFile reads and generates one file; every failure becomes the line's
// error outcome.
func docFile(f format.Format, file string) docLine {
	line := docLine{File: file}
	s, err := mmcif.ReadFile(file)
	if err != nil {
		line.Outcome, line.Error = "error", err.Error()
		return line
	}
	line.EntryID = cadv2.EntryID(s.Name, file)
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
