package coordfront

import (
	"errors"
	"fmt"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Analyzer computes a structure's analysis record: its residues and
// ConFind's contact degrees (confind.AnalyzeNative with a loaded rotamer
// library, or a record replayed in tests). name identifies the structure in
// errors. It must be safe for concurrent use.
type Analyzer func(st *structure.Structure, name string) (*contactsv1.Analysis, error)

// EntryID is the reference's seed id of a structure read without a
// manifest id: the data block name with one .cif/.mmcif/.pdb/.ent suffix
// stripped, or "structure" when the block name is empty.
func EntryID(blockName string) string {
	if blockName == "" {
		blockName = "structure"
	}
	for _, ext := range []string{".cif", ".mmcif", ".pdb", ".ent"} {
		if strings.HasSuffix(blockName, ext) {
			return strings.TrimSuffix(blockName, ext)
		}
	}
	return blockName
}

// AnalyzeInput is Analyze for a format's input: the entry id is
// in.EntryID, or, when empty, the entry id of the structure's block name.
func AnalyzeInput(an Analyzer, formatName string, in format.Input) (a *contactsv1.Analysis, entryID, filtered string, err error) {
	entryID = in.EntryID
	if entryID == "" && in.Structure != nil {
		entryID = EntryID(in.Structure.Name)
	}
	a, filtered, err = Analyze(an, formatName, in.Structure, entryID)
	return a, entryID, filtered, err
}

// Analyze runs an on st and validates what it returns. The analysis
// errors the reference's drivers catch and skip (no protein residues, more
// than one protein chain) are returned as a filter reason; any other error
// wraps derrors.ErrPermanent unless an's error is transient, and names the
// format and the entry.
func Analyze(an Analyzer, format string, st *structure.Structure, entryID string) (*contactsv1.Analysis, string, error) {
	if st == nil {
		return nil, "", derrors.Permanent(fmt.Errorf("%s(%s): no structure", format, entryID))
	}
	if an == nil {
		return nil, "", derrors.Permanent(fmt.Errorf("%s(%s): no analyzer (the format needs ConFind's analysis: option %s)", format, entryID, KeyRotlib))
	}
	a, err := an(st, entryID)
	if err != nil {
		if r := analysisFilter(err); r != "" {
			return nil, r, nil
		}
		err = fmt.Errorf("%s(%s): analysis: %w", format, entryID, err)
		if !errors.Is(err, derrors.ErrTransient) {
			err = derrors.Permanent(err)
		}
		return nil, "", err
	}
	if a == nil {
		return nil, "", derrors.Permanent(fmt.Errorf("%s(%s): the analysis returned no record", format, entryID))
	}
	if err := contactsv1.Validate(a); err != nil {
		return nil, "", fmt.Errorf("%s(%s): %w", format, entryID, err)
	}
	return a, "", nil
}
