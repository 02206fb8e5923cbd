package hf

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// PublishFile is one file to publish: its path in the repository and its
// content, either in memory (Data) or an object of the store (URI).
type PublishFile struct {
	Path string
	URI  string
	Data []byte
	// Size and SHA256 (hex) of the content: filled in by HashFiles (a
	// SHA256 set by the caller, e.g. from the run's ledger, is kept).
	Size   int64
	SHA256 string
	sample []byte
	gitOID string // git blob id, for files the Hub keeps as regular files
}

// open returns a random-access reader over the content.
func (f *PublishFile) open(ctx context.Context, store blob.Store) (io.ReaderAt, func(), error) {
	if f.URI == "" {
		return strings.NewReader(string(f.Data)), func() {}, nil
	}
	o, err := store.Open(ctx, f.URI)
	if err != nil {
		return nil, nil, err
	}
	if o.Size() != f.Size {
		o.Close()
		return nil, nil, derrors.Permanent(fmt.Errorf("%s: %d bytes now, %d when hashed (changed while publishing?)", f.URI, o.Size(), f.Size))
	}
	return o, func() { o.Close() }, nil
}

// content reads the whole content (regular files: small).
func (f *PublishFile) content(ctx context.Context, store blob.Store) ([]byte, error) {
	if f.URI == "" {
		return f.Data, nil
	}
	return store.ReadAll(ctx, f.URI)
}

// HashFiles fills in the size, sha256 and first bytes of every file,
// reading up to concurrency files at once. A file whose SHA256 is already
// set (a ledger's record of a remote object) is not read whole: only its
// size and first bytes are; the Hub checks the sha256 of what is uploaded
// against it. It reads only; an unreadable file fails with an error naming
// it.
func HashFiles(ctx context.Context, store blob.Store, files []PublishFile, concurrency int) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(concurrency, 1))
	for i := range files {
		f := &files[i]
		g.Go(func() error {
			if f.URI == "" {
				sum := sha256.Sum256(f.Data)
				f.Size, f.SHA256, f.sample = int64(len(f.Data)), hex.EncodeToString(sum[:]), f.Data[:min(len(f.Data), 512)]
				return nil
			}
			o, err := store.Open(ctx, f.URI)
			if err != nil {
				return fmt.Errorf("reading %s: %w", f.URI, err)
			}
			defer o.Close()
			f.sample = make([]byte, min(o.Size(), 512))
			if _, err := o.ReadAt(f.sample, 0); err != nil && err != io.EOF {
				return fmt.Errorf("reading %s: %w", f.URI, err)
			}
			if f.SHA256 != "" {
				f.Size = o.Size()
				return nil
			}
			h := sha256.New()
			if _, err := io.Copy(h, io.NewSectionReader(o, 0, o.Size())); err != nil {
				return fmt.Errorf("reading %s: %w", f.URI, err)
			}
			f.Size, f.SHA256 = o.Size(), hex.EncodeToString(h.Sum(nil))
			return nil
		})
	}
	return g.Wait()
}

// gitBlobID is git's id of a blob: sha1("blob N\x00" + content).
func gitBlobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// matches reports whether the repository entry holds f's content: the LFS
// sha256 and size for an LFS file, else the git blob id (computed from the
// content, once) and size.
func (f *PublishFile) matches(ctx context.Context, store blob.Store, e Entry) (bool, error) {
	if e.Type != "file" {
		return false, nil
	}
	if e.LFS != nil {
		return e.LFS.OID == f.SHA256 && e.LFS.Size == f.Size, nil
	}
	if e.Size != f.Size {
		return false, nil
	}
	if f.gitOID == "" {
		data, err := f.content(ctx, store)
		if err != nil {
			return false, err
		}
		f.gitOID = gitBlobID(data)
	}
	return e.OID == f.gitOID, nil
}

// Difference is a file whose repository copy differs from the run's.
type Difference struct {
	Path string
	Why  string
}

func (d Difference) String() string { return d.Path + ": " + d.Why }

// compare returns the files the tree does not hold as they are, and the
// differences (absent, other size or hash) for each.
func compare(ctx context.Context, store blob.Store, files []*PublishFile, tree []Entry) ([]*PublishFile, []Difference, error) {
	byPath := make(map[string]Entry, len(tree))
	for _, e := range tree {
		byPath[e.Path] = e
	}
	var todo []*PublishFile
	var diffs []Difference
	for _, f := range files {
		e, ok := byPath[f.Path]
		if !ok {
			todo, diffs = append(todo, f), append(diffs, Difference{f.Path, "not in the repository"})
			continue
		}
		same, err := f.matches(ctx, store, e)
		if err != nil {
			return nil, nil, err
		}
		if !same {
			why := fmt.Sprintf("the repository has %d bytes (git %s", e.Size, e.OID)
			if e.LFS != nil {
				why += ", sha256 " + e.LFS.OID
			}
			todo, diffs = append(todo, f), append(diffs, Difference{f.Path, fmt.Sprintf("%s), the run %d bytes (sha256 %s)", why, f.Size, f.SHA256)})
		}
	}
	return todo, diffs, nil
}

// foreign returns the files of the tree under dir that are not among files.
func foreign(tree []Entry, dir string, files []PublishFile) []string {
	if dir == "" {
		return nil
	}
	mine := map[string]bool{}
	for _, f := range files {
		mine[f.Path] = true
	}
	var out []string
	for _, e := range tree {
		if e.Type == "file" && strings.HasPrefix(e.Path, dir+"/") && !mine[e.Path] {
			out = append(out, e.Path)
		}
	}
	sort.Strings(out)
	return out
}
