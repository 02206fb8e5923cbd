package filelist

import (
	"fmt"
	"path"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
)

// IDRule names how an entry id is made from a file's name (the last
// element of its path or URI).
type IDRule string

const (
	// IDStem is the AFDB pipelines' rule (Python's Path(name).stem after
	// a final ".gz" is dropped): the name without its last extension, case
	// kept. AF-P69905-F1-model_v4.cif.gz -> AF-P69905-F1-model_v4.
	IDStem IDRule = "stem"
	// IDPDB is exp222's scan_metadata rule: the name up to its first dot,
	// lower-cased. ab/1ABC.cif.gz -> 1abc.
	IDPDB IDRule = "pdb"
)

// ParseIDRule checks a rule's name.
func ParseIDRule(s string) (IDRule, error) {
	switch r := IDRule(s); r {
	case IDStem, IDPDB:
		return r, nil
	}
	return "", derrors.Permanent(fmt.Errorf("unknown entry id rule %q (want %s or %s)", s, IDStem, IDPDB))
}

// EntryID is the entry id of the file at uri under rule; an empty id is an
// error naming the file.
func EntryID(rule IDRule, uri string) (string, error) {
	name := path.Base(uri)
	var id string
	switch rule {
	case IDPDB:
		id = pdbheader.PDBID(uri)
	case IDStem:
		id = name
		if strings.HasSuffix(strings.ToLower(id), ".gz") {
			id = id[:len(id)-3]
		}
		if i := strings.LastIndexByte(id, '.'); i > 0 {
			id = id[:i]
		}
	default:
		return "", derrors.Permanent(fmt.Errorf("unknown entry id rule %q", rule))
	}
	if id == "" || strings.HasPrefix(id, ".") {
		return "", derrors.Permanent(fmt.Errorf("%s: no entry id in the file name %q (rule %s)", uri, name, rule))
	}
	return id, nil
}
