package hf

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// File is a random-access view of one file of a repository at a commit,
// read with HTTP range requests on the signed URL one resolve gave. When
// the CDN refuses the URL (403/410: the signature expired, after an hour on
// the Hub) it resolves again and retries. Ranges fetched with Prefetch are
// kept and serve later reads without a request. Safe for concurrent use.
type File struct {
	c    *Client
	ctx  context.Context
	repo string
	rev  string
	path string
	size int64
	etag string
	// linked: etag is the content's sha256 (X-Linked-Etag).
	linked bool

	mu sync.Mutex
	// unchecked is the sha256 the caller wanted when the answer announced
	// none: only CheckSHA256 verifies it (and clears it).
	unchecked string
	url       string
	segs      []segment // sorted by off, not overlapping
	requests  int64
	bytes     int64
}

type segment struct {
	off  int64
	data []byte
}

// Open resolves file p of repo at commit rev and returns a File over it. It
// checks that the Hub serves that commit (X-Repo-Commit) and, when
// wantETag is set, that the content hash it announces matches; an answer
// that announces none (no X-Linked-Etag) leaves wantETag to CheckSHA256
// (Unchecked). Reads use ctx. One resolve request.
func (c *Client) Open(ctx context.Context, repo, rev, p, wantETag string) (_ *File, err error) {
	return c.OpenSized(ctx, repo, rev, p, wantETag, -1)
}

// OpenSized is Open for a file whose size is known from elsewhere (the
// tree listing, kept in the lock): when the resolve answer carries no size
// (mirrors and proxies drop X-Linked-Size), size is used; a negative size
// means unknown. A size the answer does carry is what the File reports (the
// caller compares it with its own).
func (c *Client) OpenSized(ctx context.Context, repo, rev, p, wantETag string, size int64) (_ *File, err error) {
	res, err := c.Resolve(ctx, repo, rev, p)
	if err != nil {
		return nil, err
	}
	if res.Size < 0 {
		res.Size = size
	}
	return c.openResolved(ctx, repo, rev, p, wantETag, res)
}

// openResolved is Open with the resolve's answer at hand.
func (c *Client) openResolved(ctx context.Context, repo, rev, p, wantETag string, res Resolved) (*File, error) {
	if res.Commit != "" && res.Commit != rev {
		return nil, derrors.Permanent(fmt.Errorf("%s: the Hub served commit %s, not the pinned %s", p, res.Commit, rev))
	}
	unchecked := ""
	switch {
	case wantETag == "":
	case !res.Linked:
		// Without X-Linked-Etag the answer's ETag is the git id of the LFS
		// pointer: the content hash is checked on the bytes (CheckSHA256).
		unchecked = wantETag
	case res.ETag != wantETag:
		return nil, derrors.Permanent(fmt.Errorf("%s: content hash %s at commit %s, but the lock has %s", p, res.ETag, rev, wantETag))
	}
	if res.Size < 0 {
		return nil, derrors.Permanent(fmt.Errorf("%s: the Hub's resolve answer gave no size (X-Linked-Size or Content-Length) and none is known from the tree listing", p))
	}
	return &File{c: c, ctx: ctx, repo: repo, rev: rev, path: p, size: res.Size, etag: res.ETag, linked: res.Linked, unchecked: unchecked, url: res.URL}, nil
}

// Unchecked returns the sha256 the caller asked Open for when the Hub's
// answer did not announce the content's (no X-Linked-Etag), so that only
// CheckSHA256 can verify it; "" when the announced hash matched or none
// was asked for.
func (f *File) Unchecked() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.unchecked
}

// CheckSHA256 reads the whole file, in pieces of at most 16 MiB that it
// does not keep, and compares its sha256 with want (hex). A difference is
// a permanent error naming the file and both hashes. Idempotent; it costs
// the file's size in range reads.
func (f *File) CheckSHA256(want string) error {
	const piece = 16 << 20
	h := sha256.New()
	for off := int64(0); off < f.size; off += piece {
		data, err := f.fetch(off, min(piece, f.size-off))
		if err != nil {
			return err
		}
		h.Write(data)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return derrors.Permanent(fmt.Errorf("%s: the bytes served for commit %s have sha256 %s, but the lock has %s", f.path, f.rev, got, want))
	}
	f.mu.Lock()
	if want == f.unchecked {
		f.unchecked = ""
	}
	f.mu.Unlock()
	return nil
}

// Size returns the file's size.
func (f *File) Size() int64 { return f.size }

// ETag returns the content hash the Hub announced (sha256 for LFS files).
func (f *File) ETag() string { return f.etag }

// Requests returns the range requests made and the bytes they returned.
func (f *File) Requests() (requests, bytes int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests, f.bytes
}

// ReadAt serves p from prefetched ranges when they cover it, else with one
// range request. io.ReaderAt semantics.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("hf: ReadAt(%s): negative offset", f.path)
	}
	if off >= f.size {
		return 0, io.EOF
	}
	want := min(int64(len(p)), f.size-off)
	if f.fromCache(p[:want], off) {
		if want < int64(len(p)) {
			return int(want), io.EOF
		}
		return int(want), nil
	}
	data, err := f.fetch(off, want)
	if err != nil {
		return 0, err
	}
	n := copy(p, data)
	if int64(n) < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}

func (f *File) fromCache(p []byte, off int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := sort.Search(len(f.segs), func(i int) bool { return f.segs[i].off+int64(len(f.segs[i].data)) > off })
	if i == len(f.segs) || f.segs[i].off > off || f.segs[i].off+int64(len(f.segs[i].data)) < off+int64(len(p)) {
		return false
	}
	copy(p, f.segs[i].data[off-f.segs[i].off:])
	return true
}

// Prefetch fetches the given ranges ([off, off+n) pairs), merging ranges
// that touch into one request each, and keeps them for ReadAt. It never
// reads a byte outside the ranges.
func (f *File) Prefetch(ranges [][2]int64) error {
	rs := append([][2]int64(nil), ranges...)
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] })
	var merged [][2]int64
	for _, r := range rs {
		if r[1] <= 0 {
			continue
		}
		if k := len(merged) - 1; k >= 0 && r[0] <= merged[k][0]+merged[k][1] {
			merged[k][1] = max(merged[k][1], r[0]+r[1]-merged[k][0])
			continue
		}
		merged = append(merged, r)
	}
	for _, r := range merged {
		data, err := f.fetch(r[0], r[1])
		if err != nil {
			return err
		}
		f.keep(r[0], data)
	}
	return nil
}

// Drop forgets the prefetched ranges.
func (f *File) Drop() {
	f.mu.Lock()
	f.segs = nil
	f.mu.Unlock()
}

func (f *File) keep(off int64, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.segs = append(f.segs, segment{off, data})
	sort.Slice(f.segs, func(i, j int) bool { return f.segs[i].off < f.segs[j].off })
}

// fetch reads [off, off+n) with one range request (more on retries),
// resolving again when the signed URL was refused.
func (f *File) fetch(off, n int64) ([]byte, error) {
	if off < 0 || n <= 0 || off+n > f.size {
		return nil, derrors.Permanent(fmt.Errorf("hf: %s: range [%d, %d) outside the file of %d bytes", f.path, off, off+n, f.size))
	}
	for reresolves := 0; ; reresolves++ {
		f.mu.Lock()
		u := f.url
		f.mu.Unlock()
		data, err := f.rangeGet(u, off, n)
		var he *HTTPError
		if err == nil || !errors.As(err, &he) || (he.Status != http.StatusForbidden && he.Status != http.StatusGone) || reresolves == 2 {
			return data, err
		}
		// The signed URL expired (or was refused): resolve again.
		res, rerr := f.c.Resolve(f.ctx, f.repo, f.rev, f.path)
		if rerr != nil {
			return nil, fmt.Errorf("re-resolving after %w: %w", err, rerr)
		}
		if res.ETag != "" && f.etag != "" && res.Linked == f.linked && res.ETag != f.etag {
			return nil, derrors.Permanent(fmt.Errorf("hf: %s changed between resolves (%s, then %s)", f.path, f.etag, res.ETag))
		}
		f.c.Stats.Reresolves.Add(1)
		f.mu.Lock()
		f.url = res.URL
		f.mu.Unlock()
	}
}

func (f *File) rangeGet(u string, off, n int64) ([]byte, error) {
	var data []byte
	lim := (*limiter)(nil)
	hub := false
	if sameHost(u, f.c.endpoint) {
		lim, hub = f.c.resolver, true // served by the Hub itself: each read is a resolve
	}
	err := f.c.do(f.ctx, request{method: http.MethodGet, url: u, lim: lim, hub: hub, count: &f.c.Stats.RangeReads,
		rng: fmt.Sprintf("bytes=%d-%d", off, off+n-1),
		accept: func(resp *http.Response) error {
			if resp.StatusCode != http.StatusPartialContent {
				return derrors.Permanent(fmt.Errorf("hf: %s: range request answered HTTP %d, want 206", f.path, resp.StatusCode))
			}
			if cr := resp.Header.Get("Content-Range"); cr != "" && !strings.HasPrefix(cr, fmt.Sprintf("bytes %d-%d/", off, off+n-1)) {
				return derrors.Permanent(fmt.Errorf("hf: %s: asked for bytes %d-%d, got Content-Range %q", f.path, off, off+n-1, cr))
			}
			buf := make([]byte, n)
			if _, err := io.ReadFull(resp.Body, buf); err != nil {
				return derrors.Transient(fmt.Errorf("hf: %s: reading range [%d, %d): %w", f.path, off, off+n, err))
			}
			data = buf
			return nil
		}})
	if err != nil {
		return nil, fmt.Errorf("hf: range read of %s: %w", f.path, err)
	}
	f.c.Stats.BytesRead.Add(n)
	f.mu.Lock()
	f.requests++
	f.bytes += n
	f.mu.Unlock()
	return data, nil
}

// sameHost reports whether URLs a and b have the same scheme and host.
func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host
}
