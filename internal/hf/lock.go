package hf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// LockName is the lock file's name in the output folder.
const LockName = "_hf.lock.json"

// Lock records what a fetch reads: the repository pinned to a commit, every
// file with its size and content hash (the Hub's LFS sha256), and the
// projection. It is written once, before any file, and a rerun fetches
// exactly what it names. Its bytes are a function of its content.
type Lock struct {
	Repo              string       `json:"repo"`               // OWNER/NAME (a dataset)
	RequestedRevision string       `json:"requested_revision"` // as given (branch, tag or commit)
	Revision          string       `json:"revision"`           // the commit it resolved to
	Path              string       `json:"path,omitempty"`     // folder or file inside the repository
	Columns           Columns      `json:"columns"`
	Files             []LockedFile `json:"files"`
}

// LockedFile is one source file.
type LockedFile struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256,omitempty"` // LFS oid: sha256 of the content
	OID    string `json:"oid"`              // git blob id
}

// Encode returns the lock's canonical bytes.
func (l *Lock) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// DecodeLock parses a lock file; name names it in errors.
func DecodeLock(data []byte, name string) (*Lock, error) {
	var l Lock
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, derrors.Permanent(fmt.Errorf("lock file %s: %w", name, err))
	}
	if l.Repo == "" || l.Revision == "" || len(l.Files) == 0 {
		return nil, derrors.Permanent(fmt.Errorf("lock file %s: no repository, revision or files", name))
	}
	return &l, nil
}

// sameFetch says whether l and o fetch the same thing (repository, path,
// projection), whatever the revisions.
func (l *Lock) sameFetch(o *Lock) bool {
	return l.Repo == o.Repo && l.Path == o.Path && slices.Equal(l.Columns.Keep, o.Columns.Keep) && slices.Equal(l.Columns.Drop, o.Columns.Drop)
}
