package tpujob

import (
	"fmt"
	"sort"
	"sync"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/format"
	fb2t "github.com/foldcorpus/foldcorpus/internal/formats/bio2tokenv2"
)

// Model is the job side of one neural format: how its staged rows are
// read and how an encoded row becomes the row's result. The job looks it
// up by the request's format name (Register); the device Runner is shared
// by every model (its inputs are adapted structures, *bio2token.Input).
type Model struct {
	// Columns are the format's own output columns, in output order (as
	// its format.Format.Columns).
	Columns []format.Column
	// Decode parses and checks one staged row's input (StagedRow.Input,
	// as the format's Neural.EncodeAdapted wrote it) into the encoder's
	// input. An error is a malformed staged object (permanent).
	Decode func(input []byte) (*b2t.Input, error)
	// Result makes the row's result from its codes, one per atom; codes
	// is nil for a row that never ran (beyond the encoder's limits:
	// bio2token.MaxResidues, AtomBudget). An error is permanent.
	Result func(entryID string, in *b2t.Input, codes []int32) (format.Result, error)
}

var models = struct {
	sync.RWMutex
	byName map[string]Model
}{byName: map[string]Model{
	fb2t.Name: {Columns: fb2t.Columns(), Decode: fb2t.DecodeAdapted, Result: bio2tokenResult},
}}

// bio2tokenResult is bio2token-v2's Model.Result: the document
// assembled from the codes, as fb2t.Format.Generate writes it.
func bio2tokenResult(entryID string, in *b2t.Input, codes []int32) (format.Result, error) {
	if codes == nil {
		return fb2t.Result(b2t.Document{}, b2t.FilterTooLong), nil
	}
	doc, filtered, err := b2t.Assemble(entryID, in, codes)
	if err != nil {
		return format.Result{}, err
	}
	return fb2t.Result(doc, filtered), nil
}

// Register adds the job side of the neural format name (bio2token-v2 is
// built in), e.g. a test's throwaway format. It panics when the name is
// taken or m lacks a field, as registering twice is a programming error.
func Register(name string, m Model) {
	if name == "" || m.Decode == nil || m.Result == nil {
		panic(fmt.Sprintf("tpujob.Register(%q): name, Decode and Result are required", name))
	}
	models.Lock()
	defer models.Unlock()
	if _, ok := models.byName[name]; ok {
		panic(fmt.Sprintf("tpujob.Register(%q): registered twice", name))
	}
	models.byName[name] = m
}

// lookup returns the model of the neural format name; an unknown name is
// an error listing the known ones.
func lookup(name string) (Model, error) {
	models.RLock()
	defer models.RUnlock()
	if m, ok := models.byName[name]; ok {
		return m, nil
	}
	known := make([]string, 0, len(models.byName))
	for n := range models.byName {
		known = append(known, n)
	}
	sort.Strings(known)
	return Model{}, fmt.Errorf("tokenize request for format %q: the job knows %v", name, known)
}
