package hf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Store is a read-only blob.Store over hf://datasets/OWNER/NAME[@REV]/PATH
// URIs, for runs that read a small manifest straight from the Hub (within
// its quota: one resolve per file, kept for later Opens). List pins the revision: it
// returns URIs at the commit the revision resolved to, so the shards of a
// run read the files the planner saw. Safe for concurrent use.
type Store struct {
	c    *Client
	mu   sync.Mutex
	pins map[string]string   // repo@rev -> commit
	res  map[string]Resolved // pinned URI -> its resolve (signed URLs are re-resolved when refused)
}

var _ blob.Store = (*Store)(nil)

// NewStore returns a Store reading through c.
func NewStore(c *Client) *Store {
	return &Store{c: c, pins: map[string]string{}, res: map[string]Resolved{}}
}

var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// commit resolves a revision once per Store.
func (s *Store) commit(ctx context.Context, repo, rev string) (string, error) {
	if commitRE.MatchString(rev) {
		return rev, nil
	}
	key := repo + "@" + rev
	s.mu.Lock()
	c, ok := s.pins[key]
	s.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := s.c.Revision(ctx, repo, rev)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.pins[key] = c
	s.mu.Unlock()
	return c, nil
}

// List returns the files matching pattern (glob in the last element only),
// as URIs pinned to the commit, sorted; none (no error) when the commit has
// no such folder. One revision call (once per revision) and one paginated
// tree listing.
func (s *Store) List(ctx context.Context, pattern string) (_ []string, err error) {
	defer derrors.Wrap(&err, "hf.Store.List(%s)", pattern)
	src, err := ParseSource(pattern)
	if err != nil {
		return nil, err
	}
	dir := path.Dir(src.Path)
	if dir == "." {
		dir = ""
	}
	if strings.ContainsAny(dir, "*?[") {
		return nil, derrors.Permanent(errors.New("glob metacharacters only allowed in the last element"))
	}
	commit, err := s.commit(ctx, src.Repo, src.Revision)
	if err != nil {
		return nil, err
	}
	entries, err := s.c.Tree(ctx, src.Repo, commit, dir)
	if errors.Is(err, derrors.ErrNotFound) && dir != "" {
		return nil, nil // a folder the commit does not have holds no match (as in every blob.Store)
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if ok, _ := path.Match(src.Path, e.Path); ok && e.Type == "file" {
			out = append(out, Source{Repo: src.Repo, Revision: commit, Path: e.Path}.String())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Open resolves the file and returns a range-reading view of it.
func (s *Store) Open(ctx context.Context, uri string) (_ blob.Object, err error) {
	defer derrors.Wrap(&err, "hf.Store.Open(%s)", uri)
	src, err := ParseSource(uri)
	if err != nil {
		return nil, err
	}
	if src.Path == "" {
		return nil, derrors.Permanent(errors.New("no file path"))
	}
	commit, err := s.commit(ctx, src.Repo, src.Revision)
	if err != nil {
		return nil, err
	}
	key := Source{Repo: src.Repo, Revision: commit, Path: src.Path}.String()
	s.mu.Lock()
	res, ok := s.res[key]
	s.mu.Unlock()
	if !ok {
		if res, err = s.c.Resolve(ctx, src.Repo, commit, src.Path); err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.res[key] = res
		s.mu.Unlock()
	}
	return s.c.openResolved(ctx, src.Repo, commit, src.Path, "", res)
}

// ReadAll reads the whole file (one resolve, one range read).
func (s *Store) ReadAll(ctx context.Context, uri string) ([]byte, error) {
	o, err := s.Open(ctx, uri)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	data := make([]byte, o.Size())
	if n, err := o.ReadAt(data, 0); err != nil && !(errors.Is(err, io.EOF) && n == len(data)) {
		return nil, err
	}
	return data, nil
}

// Create is refused: the Hub is read-only here.
func (s *Store) Create(_ context.Context, uri string, _ []byte) error {
	return derrors.Permanent(fmt.Errorf("hf.Store.Create(%s): hf:// is read-only", uri))
}

// Close releases nothing (a File holds no connection between reads).
func (f *File) Close() error { return nil }

// BytesRead reports the bytes the range reads returned.
func (f *File) BytesRead() int64 {
	_, b := f.Requests()
	return b
}
