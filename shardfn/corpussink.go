package shardfn

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// corpusSink writes a shard's documents to its corpus file (a rowSink):
// the document columns, the format's own columns and the passthrough
// values, and the mix classes of a format.Mixer.
type corpusSink struct {
	w       *corpus.Writer
	f       format.Format
	mixer   format.Mixer
	pass    []format.Column
	passOut []int // pass[i]'s index in the output schema
	fmtIdx  []int // the format's columns' indices in the output schema
	ncols   int
	sha1Own bool // the format computes the sha1 column itself
	acc     *corpus.Accounting
	tm      *Timing
	// ledgerCols are a Multi format's ledger columns (entry_id first),
	// ledger its rows so far; nil for another format.
	ledgerCols []format.Column
	ledger     [][]any
}

// newCorpusSink returns the sink of f's documents with the passthrough
// columns pass. The caller closes sink.w.
func newCorpusSink(f format.Format, pass []format.Column, acc *corpus.Accounting, tm *Timing) (*corpusSink, error) {
	out := corpus.NewSchema(f.Columns(), pass)
	w, err := corpus.NewWriter(out)
	if err != nil {
		return nil, err
	}
	s := &corpusSink{w: w, f: f, pass: pass, ncols: len(out.Columns), acc: acc, tm: tm}
	s.mixer, _ = f.(format.Mixer)
	if s.mixer != nil {
		if err := w.SetMixClasses(s.mixer.MixClasses()); err != nil {
			w.Close()
			return nil, err
		}
	}
	s.fmtIdx = make([]int, len(f.Columns()))
	for i, c := range f.Columns() {
		s.fmtIdx[i] = out.Index(c.Name)
	}
	for _, c := range pass {
		s.passOut = append(s.passOut, out.Index(c.Name))
	}
	s.sha1Own = out.Index(corpus.SHA1) >= 0 && containsCol(f.Columns(), corpus.SHA1)
	if format.IsMulti(f) {
		s.ledgerCols = append([]format.Column{{Name: corpus.EntryID, Type: format.String}}, f.(format.Multi).LedgerColumns()...)
	}
	return s, nil
}

func (s *corpusSink) expectRows(total int64) { s.w.ExpectRows(total) }

func (s *corpusSink) add(r rowOut, failed bool) error {
	if s.ledgerCols != nil {
		return s.addUnits(r, failed)
	}
	if failed {
		// the shard has failed and writes nothing: only counted
		s.acc.DocsOut++
		return nil
	}
	return s.appendDoc(r, r.entryID, r.result.Document, r.result.Values, r.result.Mix)
}

// addUnits takes a Multi format's row: each of its documents, counted by
// kind, and its ledger row.
func (s *corpusSink) addUnits(r rowOut, failed bool) error {
	if len(r.result.Ledger)+1 != len(s.ledgerCols) {
		return &RowError{EntryID: r.entryID, Stage: "generate", Err: derrors.Permanent(fmt.Errorf("format returned a ledger row of %d values for %d columns", len(r.result.Ledger), len(s.ledgerCols)-1))}
	}
	for _, u := range r.result.Units {
		s.acc.UnitDocs[u.Kind]++
		if failed {
			s.acc.DocsOut++
			continue
		}
		if u.EntryID == "" {
			return &RowError{EntryID: r.entryID, Stage: "generate", Err: derrors.Permanent(errors.New("format returned a document without an entry id"))}
		}
		if err := s.appendDoc(r, u.EntryID, u.Document, u.Values, u.Mix); err != nil {
			return err
		}
	}
	if !failed {
		s.ledger = append(s.ledger, append([]any{r.entryID}, r.result.Ledger...))
	}
	return nil
}

// appendDoc writes one document of row r under entryID.
func (s *corpusSink) appendDoc(r rowOut, entryID, doc string, values []any, mix []int64) error {
	wstart := time.Now()
	vals := make([]any, s.ncols)
	vals[0], vals[1], vals[2] = entryID, r.structure, doc
	if !s.sha1Own {
		// the document's bytes, read in place: a []byte conversion
		// would copy every document once more
		h := sha1.Sum(unsafe.Slice(unsafe.StringData(doc), len(doc)))
		vals[3] = hex.EncodeToString(h[:])
	}
	if len(values) != len(s.fmtIdx) {
		return &RowError{EntryID: entryID, Stage: "generate", Err: derrors.Permanent(fmt.Errorf("format returned %d values for %d columns", len(values), len(s.fmtIdx)))}
	}
	for i, v := range values {
		vals[s.fmtIdx[i]] = v
	}
	for i, v := range r.pass {
		if j := s.passOut[i]; vals[j] == nil {
			vals[j] = v
		}
	}
	if err := s.w.Append(vals); err != nil {
		return &RowError{EntryID: entryID, Stage: "write", Err: derrors.Permanent(err)}
	}
	if s.mixer != nil {
		if err := s.w.AppendMix(mix); err != nil {
			return &RowError{EntryID: entryID, Stage: "generate", Err: derrors.Permanent(fmt.Errorf("format %s: %w", s.f.Name(), err))}
		}
	}
	s.acc.DocsOut++
	s.tm.Write += time.Since(wstart)
	return nil
}

// ledgerFile encodes a Multi format's ledger rows (the manifest's entry id,
// then the format's LedgerColumns), one per entry in input order; nil for
// another format.
func (s *corpusSink) ledgerFile() ([]byte, error) {
	if s.ledgerCols == nil {
		return nil, nil
	}
	return manifest.Encode(s.ledgerCols, s.ledger, 1024)
}
