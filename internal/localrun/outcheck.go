package localrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/planner"
)

// ErrOutputNotWritable is wrapped by Run when the output folder (or the
// ledger's) cannot be written: found before any row is read.
var ErrOutputNotWritable = errors.New("output folder not writable")

// ErrOutputIsManifestFolder is wrapped by Run when a manifest file lies
// directly in the output folder: the shard files would mix with the
// manifests (the report would count the manifests as documents).
var ErrOutputIsManifestFolder = errors.New("output folder holds the manifest")

// checkWritable reports whether files can be created in dir, or, when dir
// does not exist yet, in its nearest existing parent (where Run will create
// it). It creates and removes one temporary entry and leaves nothing behind.
func checkWritable(dir string) error {
	at := dir
	for {
		fi, err := os.Stat(at)
		if err == nil {
			if !fi.IsDir() {
				return derrors.Permanent(fmt.Errorf("%w: %s is not a folder", ErrOutputNotWritable, at))
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(at) == at {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return derrors.Permanent(fmt.Errorf("%w: %s: %w; choose another --out", ErrOutputNotWritable, at, err))
		}
		at = filepath.Dir(at)
	}
	probe, err := os.MkdirTemp(at, ".foldcorpus-write-check-")
	if err != nil {
		what := dir
		if at != dir {
			what = fmt.Sprintf("%s (to create %s)", at, dir)
		}
		return derrors.Permanent(fmt.Errorf("%w: cannot create files in %s: %w; choose another --out or fix its permissions", ErrOutputNotWritable, what, errors.Unwrap(err)))
	}
	return os.Remove(probe)
}

// checkNotManifestFolder refuses an output folder that directly holds one
// of the run's manifest files.
func checkNotManifestFolder(out string, p *planner.Result) error {
	for _, s := range p.Schemas {
		path, err := localblob.Path(s.URI)
		if err != nil {
			continue // not a local file
		}
		if abs, err := filepath.Abs(path); err == nil && filepath.Dir(abs) == filepath.Clean(out) {
			return derrors.Permanent(fmt.Errorf("%w: --out %s is the folder of manifest %s; write the corpus to another folder (e.g. %s)",
				ErrOutputIsManifestFolder, out, path, filepath.Join(out, "corpus")))
		}
	}
	return nil
}
