// Package filelist lists a folder or bucket of structure files by glob and
// names each file's entry: the first step from a mirror (the RCSB mmCIF
// tree, an AFDB download, design models) to a manifest. Nothing here reads
// a file's bytes.
//
// Patterns are paths, file:// URIs or gs:// URIs. Each element is a
// path.Match pattern (*, ?, [...]); an element "**" matches any number of
// folders, none included. A pattern whose only glob is in its last element
// is the blob store's own List; any other is a listing of everything below
// the literal folder prefix (a directory walk, or a GCS prefix listing),
// matched element by element. Local walks take regular files and symlinks
// to regular files; they do not descend into symlinked folders, and skip
// the local store's temporary files.
package filelist

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// ErrNoRecursiveListing is returned for a recursive pattern on a store that
// cannot list by prefix.
var ErrNoRecursiveListing = errors.New("store cannot list recursively")

// prefixLister is a store that lists every object below a prefix (the GCS
// store's ListPrefix).
type prefixLister interface {
	ListPrefix(ctx context.Context, prefix string) ([]string, error)
}

// router is a store that hands out the store of a URI's scheme
// (blobmux.Mux).
type router interface {
	Store(ctx context.Context, uri string) (blob.Store, error)
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// Expand returns the files matching pattern, sorted, in the pattern's form
// (paths, file:// or gs:// URIs); a pattern matching nothing is an error
// naming it. Read-only: safe to retry and to run concurrently.
func Expand(ctx context.Context, store blob.Store, pattern string) (_ []string, err error) {
	defer derrors.Wrap(&err, "filelist.Expand(%s)", pattern)
	elems := strings.Split(pattern, "/")
	firstMeta := len(elems)
	for i, e := range elems {
		if hasMeta(e) {
			firstMeta = i
			break
		}
	}
	for _, e := range elems {
		if strings.Contains(e, "**") && e != "**" {
			return nil, derrors.Permanent(fmt.Errorf(`"**" must be a whole path element`))
		}
		if _, err := path.Match(e, ""); err != nil {
			return nil, derrors.Permanent(fmt.Errorf("bad pattern element %q: %w", e, err))
		}
	}
	var out []string
	if firstMeta >= len(elems)-1 && elems[len(elems)-1] != "**" {
		out, err = store.List(ctx, pattern)
	} else {
		root := strings.Join(elems[:firstMeta], "/")
		if root != "" {
			root += "/"
		}
		out, err = walk(ctx, store, root)
		if err == nil {
			kept := out[:0]
			for _, u := range out {
				if matchElems(elems[firstMeta:], strings.Split(strings.TrimPrefix(u, root), "/")) {
					kept = append(kept, u)
				}
			}
			out = kept
		}
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, derrors.Permanent(fmt.Errorf("%w: no file matches %s", derrors.ErrNotFound, pattern))
	}
	sort.Strings(out)
	return out, nil
}

// walk lists every file below root (a folder path or URI ending in "/").
func walk(ctx context.Context, store blob.Store, root string) ([]string, error) {
	if blob.IsLocal(root) {
		return walkLocal(ctx, root)
	}
	st := store
	if r, ok := store.(router); ok {
		var err error
		if st, err = r.Store(ctx, root); err != nil {
			return nil, err
		}
	}
	pl, ok := st.(prefixLister)
	if !ok {
		return nil, derrors.Permanent(fmt.Errorf("%w: %T; use a pattern with globs in its last element only", ErrNoRecursiveListing, st))
	}
	return pl.ListPrefix(ctx, root)
}

// walkLocal walks a local folder (a path or file:// URI) and returns its
// files in the root's form.
func walkLocal(ctx context.Context, root string) ([]string, error) {
	dir, err := localblob.Path(root)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		dir = "."
	}
	var out []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return derrors.Permanent(fmt.Errorf("%w: folder %s", derrors.ErrNotFound, dir))
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return nil
		case strings.HasPrefix(d.Name(), localblob.TempPrefix):
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() {
				return nil // a dangling link or a link to a folder
			}
		case !d.Type().IsRegular():
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out = append(out, root+filepath.ToSlash(rel))
		return nil
	})
	return out, err
}

// matchElems matches path elements against pattern elements, "**" taking
// any number of elements.
func matchElems(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchElems(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
