package hf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// SourceMetaKey is the key-value metadata key of a fetched file that says
// where it came from (JSON: source URI at the commit, sha256, size).
const SourceMetaKey = "foldcorpus.hf.source"

// FetchOptions configure Fetch.
type FetchOptions struct {
	Source Source
	// Out is the output folder or URI prefix (gs://BUCKET/PREFIX): each file
	// goes to Out/PATH (its path in the repository), the lock to
	// Out/_hf.lock.json.
	Out string
	// Store writes the outputs and the lock (create-only).
	Store   blob.Store
	Columns Columns
	// Concurrency is the number of files fetched at once (16 when 0).
	Concurrency int
	// OnProgress is called after each file (serialized).
	OnProgress func(Progress)
}

// Progress is the state of a fetch.
type Progress struct {
	Files, Done, Skipped, Failed int
	SourceBytes                  int64 // total size of the source files
	BytesRead                    int64 // range bytes read so far
	ResolvesLeft                 int   // in the Hub's current window (-1: not known)
	ResetIn                      time.Duration
	Elapsed, ETA                 time.Duration
}

// FetchResult is the outcome of Fetch.
type FetchResult struct {
	Lock        *Lock
	Outputs     []string // every output URI, in lock order
	Fetched     int      // files fetched now
	AlreadyDone int      // files found done and checked against the lock
	Failed      []FileError
	BytesRead   int64 // range bytes read now
	SourceBytes int64 // size of the files fetched now
	Wall        time.Duration
}

// FileError is a file that could not be fetched.
type FileError struct {
	Path string
	Err  error
}

// ErrIncomplete is wrapped by Fetch when some files failed.
var ErrIncomplete = errors.New("fetch incomplete")

// ErrRevisionMoved is wrapped when the requested revision no longer resolves
// to the commit the lock pins.
var ErrRevisionMoved = errors.New("revision moved under the lock")

// Fetch pins the revision, lists the parquet files (or reads them from the
// lock of an earlier fetch into Out), writes the lock, and fetches every
// file not already done, projected (see Project), create-only and atomic.
// Files found done are checked against the lock (their recorded source and
// content hash). Rerunning after any interruption fetches only what is
// missing; outputs and lock are byte-identical to an uninterrupted fetch.
// One failing file does not stop the others; Fetch then returns an error
// wrapping ErrIncomplete that names them. Not safe to run twice at once on
// the same Out.
func Fetch(ctx context.Context, c *Client, opts FetchOptions) (_ *FetchResult, err error) {
	defer derrors.Wrap(&err, "hf.Fetch(%s)", opts.Source)
	start := time.Now()
	if opts.Concurrency <= 0 {
		opts.Concurrency = 16
	}
	out := strings.TrimRight(opts.Out, "/")
	lockURI := out + "/" + LockName
	lock, err := pin(ctx, c, opts, lockURI)
	if err != nil {
		return nil, err
	}
	res := &FetchResult{Lock: lock}
	var total int64
	for _, f := range lock.Files {
		res.Outputs = append(res.Outputs, out+"/"+f.Path)
		total += f.Size
	}

	var mu sync.Mutex
	prog := Progress{Files: len(lock.Files), SourceBytes: total}
	report := func(done, skipped bool, read int64, ferr error, p string) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case ferr != nil:
			prog.Failed++
			res.Failed = append(res.Failed, FileError{p, ferr})
		case skipped:
			prog.Skipped++
			res.AlreadyDone++
		case done:
			prog.Done++
			res.Fetched++
		}
		prog.BytesRead += read
		prog.ResolvesLeft, prog.ResetIn, _ = c.ResolveQuota()
		prog.Elapsed = time.Since(start)
		if left := prog.Files - prog.Done - prog.Skipped - prog.Failed; prog.Done > 0 {
			prog.ETA = time.Duration(float64(prog.Elapsed) / float64(prog.Done) * float64(left))
		}
		if opts.OnProgress != nil {
			opts.OnProgress(prog)
		}
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < opts.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				f := lock.Files[i]
				done, read, size, ferr := fetchOne(ctx, c, opts, lock, f, res.Outputs[i])
				if ctx.Err() != nil {
					return
				}
				if done && ferr == nil {
					mu.Lock()
					res.SourceBytes += size
					res.BytesRead += read
					mu.Unlock()
				}
				report(done, !done && ferr == nil, read, ferr, f.Path)
			}
		}()
	}
feed:
	for i := range lock.Files {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	res.Wall = time.Since(start)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if len(res.Failed) > 0 {
		sort.Slice(res.Failed, func(i, j int) bool { return res.Failed[i].Path < res.Failed[j].Path })
		return res, fmt.Errorf("%w: %d of %d files failed (first: %w); a rerun fetches only the files not done", ErrIncomplete,
			len(res.Failed), len(lock.Files), res.Failed[0].Err)
	}
	return res, nil
}

// pin resolves the revision and returns the lock: the existing one in Out
// (checked against the request), or a new one from a tree listing, written
// create-only.
func pin(ctx context.Context, c *Client, opts FetchOptions, lockURI string) (*Lock, error) {
	src := opts.Source
	want := &Lock{Repo: src.Repo, RequestedRevision: src.Revision, Path: src.Path, Columns: opts.Columns}
	var old *Lock
	data, err := opts.Store.ReadAll(ctx, lockURI)
	switch {
	case err == nil:
		if old, err = DecodeLock(data, lockURI); err != nil {
			return nil, err
		}
		if !old.sameFetch(want) {
			return nil, derrors.Permanent(fmt.Errorf("%s holds a fetch of hf://datasets/%s/%s with columns %+v; this is %s with columns %+v: use another output",
				lockURI, old.Repo, old.Path, old.Columns, src, opts.Columns))
		}
	case errors.Is(err, derrors.ErrNotFound):
	default:
		return nil, err
	}
	commit, err := c.Revision(ctx, src.Repo, src.Revision)
	if err != nil {
		return nil, err
	}
	if old != nil {
		if old.Revision != commit {
			return nil, derrors.Permanent(fmt.Errorf("%w: %s now resolves to commit %s, but %s pins %s: fetch hf://datasets/%s@%s%s to finish the locked fetch, or use another output for the new commit",
				ErrRevisionMoved, src, commit, lockURI, old.Revision, src.Repo, old.Revision, suffix(src.Path)))
		}
		return old, nil
	}
	want.Revision = commit
	if want.Files, err = listParquet(ctx, c, src.Repo, commit, src.Path); err != nil {
		return nil, err
	}
	enc, err := want.Encode()
	if err != nil {
		return nil, err
	}
	if err := opts.Store.Create(ctx, lockURI, enc); err != nil {
		if !errors.Is(err, derrors.ErrExists) {
			return nil, err
		}
		// Another fetch wrote it meanwhile: use it if it is the same.
		if got, rerr := opts.Store.ReadAll(ctx, lockURI); rerr != nil || string(got) != string(enc) {
			return nil, fmt.Errorf("%s was written by another fetch at the same time: %w", lockURI, err)
		}
	}
	return want, nil
}

func suffix(p string) string {
	if p == "" {
		return ""
	}
	return "/" + p
}

// listParquet lists the parquet files under p (a folder, or one file).
func listParquet(ctx context.Context, c *Client, repo, commit, p string) ([]LockedFile, error) {
	dir, single := p, ""
	if strings.HasSuffix(p, ".parquet") {
		dir, single = path.Dir(p), p
		if dir == "." {
			dir = ""
		}
	}
	entries, err := c.Tree(ctx, repo, commit, dir)
	if err != nil {
		return nil, err
	}
	var files []LockedFile
	for _, e := range entries {
		if e.Type != "file" || !strings.HasSuffix(e.Path, ".parquet") || (single != "" && e.Path != single) {
			continue
		}
		lf := LockedFile{Path: e.Path, Size: e.Size, OID: e.OID}
		if e.LFS != nil {
			lf.SHA256 = e.LFS.OID
		}
		files = append(files, lf)
	}
	if len(files) == 0 {
		return nil, derrors.Permanent(fmt.Errorf("no parquet files under %q at commit %s", p, commit))
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// sourceMeta is the SourceMetaKey value of a file.
func sourceMeta(l *Lock, f LockedFile) string {
	b, _ := json.Marshal(struct {
		Source string `json:"source"`
		SHA256 string `json:"sha256,omitempty"`
		Size   int64  `json:"size"`
	}{fmt.Sprintf("hf://datasets/%s@%s/%s", l.Repo, l.Revision, f.Path), f.SHA256, f.Size})
	return string(b)
}

// fetchOne fetches one file unless its output exists; an existing output is
// checked against the lock. It returns whether it fetched, the bytes read
// and the source size.
func fetchOne(ctx context.Context, c *Client, opts FetchOptions, l *Lock, f LockedFile, outURI string) (fetched bool, read, size int64, err error) {
	meta := sourceMeta(l, f)
	if ok, err := checkDone(ctx, opts.Store, outURI, meta); ok || err != nil {
		return false, 0, 0, err
	}
	rf, err := c.OpenSized(ctx, l.Repo, l.Revision, f.Path, f.SHA256, f.Size)
	if err != nil {
		return false, 0, 0, err
	}
	if rf.Size() != f.Size {
		return false, 0, 0, derrors.Permanent(fmt.Errorf("%s: %d bytes at commit %s, but the lock has %d", f.Path, rf.Size(), l.Revision, f.Size))
	}
	if want := rf.Unchecked(); want != "" {
		// The Hub's answer did not announce the content hash (a proxy
		// dropped X-Linked-Etag): hash the bytes before projecting them.
		if err := rf.CheckSHA256(want); err != nil {
			_, read = rf.Requests()
			return false, read, 0, err
		}
	}
	p, err := Project(ctx, rf, f.Path, opts.Columns, map[string]string{SourceMetaKey: meta})
	_, read = rf.Requests()
	if err != nil {
		return false, read, 0, err
	}
	if err := opts.Store.Create(ctx, outURI, p.Data); err != nil {
		if errors.Is(err, derrors.ErrExists) {
			if ok, cerr := checkDone(ctx, opts.Store, outURI, meta); ok && cerr == nil {
				return false, read, 0, nil
			}
		}
		return false, read, 0, err
	}
	return true, read, f.Size, nil
}

// checkDone reports whether outURI exists; when it does, its footer must
// name the same source (commit, path, sha256), else an error.
func checkDone(ctx context.Context, store blob.Store, outURI, meta string) (bool, error) {
	obj, err := store.Open(ctx, outURI)
	if errors.Is(err, derrors.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer obj.Close()
	pf, err := file.NewParquetReader(io.NewSectionReader(obj, 0, obj.Size()))
	if err != nil {
		return false, derrors.Permanent(fmt.Errorf("%s exists but is not a readable parquet file (delete it to fetch it again): %w", outURI, err))
	}
	got := pf.MetaData().KeyValueMetadata().FindValue(SourceMetaKey)
	if got == nil || *got != meta {
		g := "<none>"
		if got != nil {
			g = *got
		}
		return false, derrors.Permanent(fmt.Errorf("%s exists but holds %s, not %s as the lock says", outURI, g, meta))
	}
	return true, nil
}
