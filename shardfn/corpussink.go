package shardfn

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"time"
	"unsafe"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
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
	return s, nil
}

func (s *corpusSink) expectRows(total int64) { s.w.ExpectRows(total) }

func (s *corpusSink) add(r rowOut, failed bool) error {
	if failed {
		// the shard has failed and writes nothing: only counted
		s.acc.DocsOut++
		return nil
	}
	wstart := time.Now()
	vals := make([]any, s.ncols)
	vals[0], vals[1], vals[2] = r.entryID, r.structure, r.result.Document
	if !s.sha1Own {
		// the document's bytes, read in place: a []byte conversion
		// would copy every document once more
		h := sha1.Sum(unsafe.Slice(unsafe.StringData(r.result.Document), len(r.result.Document)))
		vals[3] = hex.EncodeToString(h[:])
	}
	if len(r.result.Values) != len(s.fmtIdx) {
		return &RowError{EntryID: r.entryID, Stage: "generate", Err: derrors.Permanent(fmt.Errorf("format returned %d values for %d columns", len(r.result.Values), len(s.fmtIdx)))}
	}
	for i, v := range r.result.Values {
		vals[s.fmtIdx[i]] = v
	}
	for i, v := range r.pass {
		if j := s.passOut[i]; vals[j] == nil {
			vals[j] = v
		}
	}
	if err := s.w.Append(vals); err != nil {
		return &RowError{EntryID: r.entryID, Stage: "write", Err: derrors.Permanent(err)}
	}
	if s.mixer != nil {
		if err := s.w.AppendMix(r.result.Mix); err != nil {
			return &RowError{EntryID: r.entryID, Stage: "generate", Err: derrors.Permanent(fmt.Errorf("format %s: %w", s.f.Name(), err))}
		}
	}
	s.acc.DocsOut++
	s.tm.Write += time.Since(wstart)
	return nil
}
