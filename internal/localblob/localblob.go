// Package localblob implements blob.Store over the local file system: plain
// paths and file:// URIs. Create is create-only and atomic: the data goes to a
// hidden temporary file in the destination folder, is synced, and is then
// hard-linked to its final name (link fails if the name exists), so a reader
// never sees a partial object, even after kill -9.
package localblob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// TempPrefix starts the name of every temporary file Create writes; a crashed
// writer can leave one behind (never under the final name). RemoveTemps
// deletes them.
const TempPrefix = ".foldcorpus-tmp-"

// Store is the local file-system blob store. The zero value is ready to use
// and safe for concurrent use.
type Store struct{}

var _ blob.Store = Store{}

// Path converts a plain path or a file:// URI to a file path. A "?" in a
// file:// URI is part of the path (the glob character of List patterns),
// never a query. Other schemes are a permanent error.
func Path(uri string) (string, error) {
	if blob.Scheme(uri) == "" {
		return uri, nil
	}
	u, err := url.Parse(strings.ReplaceAll(uri, "?", "%3F"))
	if err != nil {
		return "", derrors.Permanent(fmt.Errorf("localblob: bad URI %q: %w", uri, err))
	}
	if u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return "", derrors.Permanent(fmt.Errorf("localblob: unsupported URI %q (want a path or file:///path)", uri))
	}
	return u.Path, nil
}

func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %w", derrors.ErrNotFound, err)
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%w: %w", derrors.ErrExists, err)
	default:
		return derrors.Permanent(err)
	}
}

// ctxPath returns ctx's error if it is done, else uri's file path (Path).
func ctxPath(ctx context.Context, uri string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return Path(uri)
}

// open opens uri's file for reading (after ctxPath), with the open error
// classified; it returns the file and its path.
func open(ctx context.Context, uri string) (*os.File, string, error) {
	p, err := ctxPath(ctx, uri)
	if err != nil {
		return nil, "", err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, "", classify(err)
	}
	return f, p, nil
}

// ReadAll reads the whole file to EOF. Idempotent.
func (Store) ReadAll(ctx context.Context, uri string) (_ []byte, err error) {
	defer derrors.Wrap(&err, "localblob.ReadAll(%s)", uri)
	f, _, err := open(ctx, uri)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readFull(f, nil)
	return data, classify(err)
}

// ReadFileInto reads the file at path into buf's memory, grown when it is
// too small; the result aliases buf, so that a reader of many files in turn
// reuses one buffer instead of allocating, zeroing and collecting one per
// file. Errors are os.ReadFile's.
func ReadFileInto(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	return readFull(f, buf)
}

// readFull reads f to EOF into buf[:0], sized from f's size (a file that
// grows meanwhile is still read to EOF).
func readFull(f *os.File, buf []byte) ([]byte, error) {
	size := 0
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = int(st.Size())
	}
	buf = slices.Grow(buf[:0], size+1) // +1: EOF is seen without growing
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 512)
		}
	}
}

// Open opens the file for range reads; the caller closes it.
func (Store) Open(ctx context.Context, uri string) (_ blob.Object, err error) {
	defer derrors.Wrap(&err, "localblob.Open(%s)", uri)
	f, p, err := open(ctx, uri)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, classify(err)
	}
	if st.IsDir() {
		f.Close()
		return nil, derrors.Permanent(fmt.Errorf("%s is a directory", p))
	}
	return &object{f: f, size: st.Size(), mod: st.ModTime()}, nil
}

type object struct {
	f    *os.File
	size int64
	mod  time.Time
	read atomic.Int64
}

func (o *object) ReadAt(p []byte, off int64) (int, error) {
	n, err := o.f.ReadAt(p, off)
	o.read.Add(int64(n))
	return n, err
}
func (o *object) Close() error     { return o.f.Close() }
func (o *object) Size() int64      { return o.size }
func (o *object) BytesRead() int64 { return o.read.Load() }

// ModTime is the file's modification time when it was opened (with its
// size, what says a file was rewritten: manifest.Open keys its footer
// cache by both).
func (o *object) ModTime() time.Time { return o.mod }

// Create writes data under uri, create-only and atomic. It creates missing
// parent folders. If uri exists it returns an error wrapping
// derrors.ErrExists and leaves the file untouched; concurrent creators of the
// same name race safely (exactly one wins).
func (Store) Create(ctx context.Context, uri string, data []byte) (err error) {
	defer derrors.Wrap(&err, "localblob.Create(%s)", uri)
	p, err := ctxPath(ctx, uri)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return classify(err)
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, TempPrefix+filepath.Base(p)+"-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return classify(err)
	}
	defer os.Remove(tmp) // after the link, or on any failure
	if _, err := f.Write(data); err != nil {
		f.Close()
		return classify(err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return classify(err)
	}
	if err := f.Close(); err != nil {
		return classify(err)
	}
	if err := os.Link(tmp, p); err != nil {
		return classify(err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// List returns the paths (or file:// URIs, matching the pattern's form)
// matching a glob pattern, sorted. A pattern without glob characters lists
// that one file if it exists.
func (Store) List(ctx context.Context, pattern string) (_ []string, err error) {
	defer derrors.Wrap(&err, "localblob.List(%s)", pattern)
	p, err := ctxPath(ctx, pattern)
	if err != nil {
		return nil, err
	}
	matches, err := filepath.Glob(p)
	if err != nil {
		return nil, derrors.Permanent(err)
	}
	out := matches[:0]
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && !st.IsDir() && !strings.HasPrefix(filepath.Base(m), TempPrefix) {
			if strings.HasPrefix(pattern, "file://") {
				m = "file://" + m
			}
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out, nil
}

// RemoveTemps deletes temporary files that a killed writer left in dir. Call
// it only while no other process writes into dir.
func RemoveTemps(dir string) (n int, err error) {
	defer derrors.Wrap(&err, "localblob.RemoveTemps(%s)", dir)
	matches, err := filepath.Glob(filepath.Join(dir, TempPrefix+"*"))
	if err != nil {
		return 0, err
	}
	for _, m := range matches {
		if err := os.Remove(m); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		n++
	}
	return n, nil
}
