package coordfront

import (
	"context"
	"errors"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/needcgo"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// ConFind returns the analyzer that computes each structure's contact
// degrees with ConFind (MarinFold's analyze_structure: native-only, its
// contacts-v1 settings) and the rotamer library rotlib (a folder, or a
// URI such as gs://BUCKET/PREFIX read through store), loaded once per
// process and shared by every format and shard (confind.SharedAt). A bad
// or missing library is an error here, before any structure is analyzed.
func ConFind(ctx context.Context, store blob.Store, rotlib string) (Analyzer, error) {
	if !confind.ExactAtan2 { // the angles need glibc's atan2: refuse before loading
		return nil, needcgo.Refuse("confind")
	}
	lib, err := confind.SharedAt(ctx, store, rotlib)
	if err != nil {
		return nil, err
	}
	return func(st *structure.Structure, name string) (*contactsv1.Analysis, error) {
		return confind.AnalyzeNative(st, name, lib)
	}, nil
}

// analysisFilter maps the analysis errors that the reference's drivers
// catch and skip (its ValueErrors: no protein residues, more than one
// chain) to their filter reasons; "" for any other error.
func analysisFilter(err error) string {
	switch {
	case errors.Is(err, confind.ErrNoProtein):
		return FilterNoProtein
	case errors.Is(err, confind.ErrMultiChain):
		return FilterMultiChain
	}
	return ""
}
