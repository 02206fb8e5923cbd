// Package hubtest is a local stand-in for the Hugging Face Hub's HTTP API,
// as documented and as huggingface_hub uses it, for tests and benchmarks:
//
//   - GET /api/datasets/OWNER/NAME/revision/REV: {"id", "sha"} (404
//     RevisionNotFound for an unknown revision);
//   - GET /api/datasets/OWNER/NAME/tree/REV[/PATH]?recursive=true: a page of
//     entries {type, oid, size, path, lfs{oid, size, pointerSize}}, the next
//     page linked by a Link: <URL>; rel="next" header;
//   - HEAD or GET /datasets/OWNER/NAME/resolve/REV/PATH: 302 to a signed URL
//     on a second (CDN) server, with X-Repo-Commit, X-Linked-Etag (the
//     sha256) and X-Linked-Size;
//   - the CDN serves single HTTP ranges (206) while the signature is valid,
//     403 after it expires;
//   - RateLimit / RateLimit-Policy headers on every Hub answer, with
//     separate fixed windows for API calls and resolves, and 429 beyond the
//     quota;
//   - an unknown repository, or a missing token when one is required, is 401
//     (the Hub does not tell private from absent); a wrong token is 403.
//
// Faults can be injected: latency on every request, a 503 every Nth
// request, a connection dropped in the middle of every Nth range body.
package hubtest

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// File is one file of the repository.
type File struct {
	Path string
	Data []byte
	// Regular marks a file stored in git itself (committed as a "file"
	// operation), listed with its git blob id and no lfs field; the others
	// are LFS files.
	Regular bool
}

// Options configure a Server. Zero values take the defaults noted.
type Options struct {
	Repo         string        // OWNER/NAME (required)
	Branch       string        // "main"
	Files        []File        // the first commit's files
	PageSize     int           // tree entries per page (1000, as the Hub)
	Token        string        // when set, Hub requests need "Authorization: Bearer Token"
	APIQuota     int           // API calls per window (0: unlimited)
	ResolveQuota int           // resolves per window (0: unlimited)
	Window       time.Duration // quota window (5 minutes, as the Hub)
	URLTTL       time.Duration // validity of signed URLs (1 hour, as the Hub)
	ExpiredURLs  int           // the first N resolves hand out URLs that have already expired
	Latency      time.Duration // added to every Hub and CDN request
	Fail5xxEvery int           // every Nth request (Hub and CDN together) answers 503
	DropEvery    int           // every Nth range request drops the connection mid-body
	// NoLinkedSize leaves X-Linked-Size out of resolve answers, as mirrors
	// and proxies that drop headers do (the size is then only in the tree
	// listing).
	NoLinkedSize bool
	// NoLinkedETag leaves X-Linked-Etag out of resolve answers too: the
	// ETag left is then the git id of the LFS pointer, not the content's
	// sha256.
	NoLinkedETag bool
	Write        WriteOptions // the write API (publish.go)
}

// Range is one range the CDN served.
type Range struct {
	Path     string
	Off, Len int64
}

// Counts are the requests the server saw.
type Counts struct {
	APICalls, Resolves, RangeReads int64 // answered with success
	TooMany, Injected5xx, Dropped  int64
	Expired                        int64 // range requests refused: signature expired
	BytesServed                    int64
}

// Server is a running fake Hub plus its CDN. Close it.
type Server struct {
	Hub, CDN *httptest.Server
	opts     Options
	key      []byte
	start    time.Time

	mu      sync.Mutex
	branch  string            // current commit of the branch
	commits map[string][]File // commit -> files sorted by path
	windows map[string]*window
	ranges  []Range
	counts  Counts
	nreq    atomic.Int64
	nrange  atomic.Int64
	wr      writeState // the write API's state (publish.go), under mu
}

type window struct {
	index int64
	used  int
}

// New starts a Server.
func New(opts Options) *Server {
	if opts.Branch == "" {
		opts.Branch = "main"
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 1000
	}
	if opts.Window <= 0 {
		opts.Window = 5 * time.Minute
	}
	if opts.URLTTL <= 0 {
		opts.URLTTL = time.Hour
	}
	s := &Server{opts: opts, key: []byte("hubtest-signing-key"), start: time.Now(),
		commits: map[string][]File{}, windows: map[string]*window{}}
	s.branch = s.commit(opts.Files)
	s.initWrite()
	s.Hub = httptest.NewServer(http.HandlerFunc(s.serveHub))
	s.CDN = httptest.NewServer(http.HandlerFunc(s.serveCDN))
	return s
}

// Close stops both servers.
func (s *Server) Close() {
	s.Hub.Close()
	s.CDN.Close()
	s.wr.storage.Close()
}

// URL is the Hub's endpoint (for HF_ENDPOINT).
func (s *Server) URL() string { return s.Hub.URL }

// Commit returns the branch's current commit.
func (s *Server) Commit() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.branch
}

// Push makes a new commit with files and moves the branch to it; the old
// commit stays readable by its hash. It returns the new commit.
func (s *Server) Push(files []File) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.branch = s.commitLocked(files)
	return s.branch
}

func (s *Server) commit(files []File) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commitLocked(files)
}

func (s *Server) commitLocked(files []File) string {
	fs := append([]File(nil), files...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
	h := sha1.New()
	fmt.Fprintf(h, "%d", len(s.commits))
	for _, f := range fs {
		sum := sha256.Sum256(f.Data)
		fmt.Fprintf(h, "%s %x\n", f.Path, sum)
	}
	c := hex.EncodeToString(h.Sum(nil))
	s.commits[c] = fs
	return c
}

// Counts returns the request counts so far.
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts
}

// Ranges returns every range served so far.
func (s *Server) Ranges() []Range {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Range(nil), s.ranges...)
}

// SHA256 returns the hex sha256 of data (the LFS oid).
func SHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func (s *Server) delay() {
	if s.opts.Latency > 0 {
		time.Sleep(s.opts.Latency)
	}
}

func (s *Server) inject5xx(w http.ResponseWriter) bool {
	n := s.nreq.Add(1)
	if s.opts.Fail5xxEvery > 0 && n%int64(s.opts.Fail5xxEvery) == 0 {
		s.mu.Lock()
		s.counts.Injected5xx++
		s.mu.Unlock()
		http.Error(w, "injected failure", http.StatusServiceUnavailable)
		return true
	}
	return false
}

// quota counts one request of class against its window and writes the
// RateLimit headers; it returns false (after writing a 429) when the window
// is used up.
func (s *Server) quota(w http.ResponseWriter, class string, limit int) bool {
	if limit <= 0 {
		return true
	}
	now := time.Since(s.start)
	idx := int64(now / s.opts.Window)
	reset := s.opts.Window*time.Duration(idx+1) - now
	s.mu.Lock()
	win := s.windows[class]
	if win == nil || win.index != idx {
		win = &window{index: idx}
		s.windows[class] = win
	}
	ok := win.used < limit
	if ok {
		win.used++
	} else {
		s.counts.TooMany++
	}
	left := limit - win.used
	s.mu.Unlock()
	w.Header().Set("RateLimit", fmt.Sprintf("%q;r=%d;t=%s", class, left, seconds(reset, s.opts.Window)))
	w.Header().Set("RateLimit-Policy", fmt.Sprintf("%q;%q;q=%d;w=%s", "fixed window", class, limit, seconds(s.opts.Window, s.opts.Window)))
	if !ok && class == "commits" && s.opts.Window >= time.Second {
		// The commit quota's 429 also says Retry-After, in whole seconds
		// (windows of a second or more).
		w.Header().Set("Retry-After", strconv.FormatInt(int64((reset+time.Second-1)/time.Second), 10))
	}
	if !ok {
		http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
	}
	return ok
}

// seconds formats d in whole seconds (rounded up) when the window is at
// least a second, as the Hub does; in milliseconds precision for the short
// windows of tests.
func seconds(d, window time.Duration) string {
	if window >= time.Second {
		return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
	}
	return strconv.FormatFloat(float64(d.Milliseconds()+1)/1000, 'f', -1, 64)
}

func hubError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("X-Error-Code", code)
	w.Header().Set("X-Error-Message", msg)
	http.Error(w, msg, status)
}

func (s *Server) serveHub(w http.ResponseWriter, r *http.Request) {
	s.delay()
	if s.inject5xx(w) {
		return
	}
	if s.serveWrite(w, r) {
		return
	}
	p := r.URL.EscapedPath()
	class, limit := "api", s.opts.APIQuota
	if strings.Contains(p, "/resolve/") {
		class, limit = "resolvers", s.opts.ResolveQuota
	}
	if !s.quota(w, class, limit) {
		return
	}
	if s.opts.Token != "" {
		auth := r.Header.Get("Authorization")
		switch {
		case auth == "":
			hubError(w, http.StatusUnauthorized, "RepoNotFound", "Repository not found")
			return
		case auth != "Bearer "+s.opts.Token:
			hubError(w, http.StatusForbidden, "GatedRepo", "Access to this dataset is restricted")
			return
		}
	}
	repoPrefix := "/datasets/" + s.opts.Repo + "/"
	switch {
	case strings.HasPrefix(p, "/api"+repoPrefix+"revision/"):
		s.revision(w, strings.TrimPrefix(p, "/api"+repoPrefix+"revision/"))
	case strings.HasPrefix(p, "/api"+repoPrefix+"tree/"):
		s.tree(w, r, strings.TrimPrefix(p, "/api"+repoPrefix+"tree/"))
	case strings.HasPrefix(p, repoPrefix+"resolve/"):
		s.resolve(w, strings.TrimPrefix(p, repoPrefix+"resolve/"))
	default:
		hubError(w, http.StatusUnauthorized, "RepoNotFound", "Repository not found")
	}
}

// lookup returns the commit of an escaped revision and its files.
func (s *Server) lookup(escRev string) (string, []File, bool) {
	rev, err := url.PathUnescape(escRev)
	if err != nil {
		return "", nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if rev == s.opts.Branch {
		rev = s.branch
	}
	files, ok := s.commits[rev]
	return rev, files, ok
}

func (s *Server) count(f *int64) {
	s.mu.Lock()
	*f++
	s.mu.Unlock()
}

func (s *Server) revision(w http.ResponseWriter, escRev string) {
	commit, _, ok := s.lookup(escRev)
	if !ok {
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+escRev)
		return
	}
	s.count(&s.counts.APICalls)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": s.opts.Repo, "sha": commit, "private": s.opts.Token != ""})
}

type lfs struct {
	OID         string `json:"oid"`
	Size        int64  `json:"size"`
	PointerSize int    `json:"pointerSize"`
}

type entry struct {
	Type string `json:"type"`
	OID  string `json:"oid"`
	Size int64  `json:"size"`
	Path string `json:"path"`
	LFS  *lfs   `json:"lfs,omitempty"`
}

func (s *Server) tree(w http.ResponseWriter, r *http.Request, rest string) {
	escRev, dir, _ := strings.Cut(rest, "/")
	_, files, ok := s.lookup(escRev)
	if !ok {
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+escRev)
		return
	}
	dir, _ = url.PathUnescape(dir)
	var entries []entry
	dirs := map[string]bool{}
	for _, f := range files {
		if dir != "" && !strings.HasPrefix(f.Path, dir+"/") {
			continue
		}
		for d := pathDir(f.Path); d != "" && d != dir && !dirs[d]; d = pathDir(d) {
			dirs[d] = true
			entries = append(entries, entry{Type: "directory", OID: SHA256([]byte(d))[:40], Path: d})
		}
		if f.Regular {
			entries = append(entries, entry{Type: "file", OID: GitBlobID(f.Data), Size: int64(len(f.Data)), Path: f.Path})
			continue
		}
		sum := SHA256(f.Data)
		blob := sha1.Sum([]byte(fmt.Sprintf("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n", sum, len(f.Data))))
		entries = append(entries, entry{Type: "file", OID: hex.EncodeToString(blob[:]), Size: int64(len(f.Data)), Path: f.Path,
			LFS: &lfs{OID: sum, Size: int64(len(f.Data)), PointerSize: 134}})
	}
	if dir != "" && len(entries) == 0 {
		hubError(w, http.StatusNotFound, "EntryNotFound", dir+" does not exist on "+escRev)
		return
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	cursor, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
	end := min(cursor+s.opts.PageSize, len(entries))
	if cursor > len(entries) {
		cursor = len(entries)
	}
	if end < len(entries) {
		next := *r.URL
		q := next.Query()
		q.Set("cursor", strconv.Itoa(end))
		next.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf("<%s%s>; rel=\"next\"", s.Hub.URL, next.RequestURI()))
	}
	s.count(&s.counts.APICalls)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(entries[cursor:end])
}

func pathDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func (s *Server) resolve(w http.ResponseWriter, rest string) {
	escRev, escPath, _ := strings.Cut(rest, "/")
	commit, files, ok := s.lookup(escRev)
	if !ok {
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+escRev)
		return
	}
	p, _ := url.PathUnescape(escPath)
	i := sort.Search(len(files), func(i int) bool { return files[i].Path >= p })
	if i == len(files) || files[i].Path != p {
		hubError(w, http.StatusNotFound, "EntryNotFound", p+" does not exist on "+escRev)
		return
	}
	s.mu.Lock()
	s.counts.Resolves++
	stale := s.counts.Resolves <= int64(s.opts.ExpiredURLs)
	s.mu.Unlock()
	sum := SHA256(files[i].Data)
	expires := time.Now().Add(s.opts.URLTTL).UnixNano()
	if stale {
		expires = time.Now().Add(-time.Second).UnixNano()
	}
	w.Header().Set("Location", fmt.Sprintf("%s/%s/%s?Expires=%d&Signature=%s", s.CDN.URL, commit, escPath, expires, s.sign(commit, p, expires)))
	w.Header().Set("X-Repo-Commit", commit)
	if !s.opts.NoLinkedETag {
		w.Header().Set("X-Linked-Etag", `"`+sum+`"`)
	}
	if !s.opts.NoLinkedSize {
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(files[i].Data)))
	}
	w.Header().Set("ETag", `"`+SHA256([]byte(p))[:40]+`"`)
	w.WriteHeader(http.StatusFound)
}

func (s *Server) sign(commit, p string, expires int64) string {
	m := hmac.New(sha256.New, s.key)
	fmt.Fprintf(m, "%s\x00%s\x00%d", commit, p, expires)
	return hex.EncodeToString(m.Sum(nil))
}

func (s *Server) serveCDN(w http.ResponseWriter, r *http.Request) {
	s.delay()
	if s.inject5xx(w) {
		return
	}
	commit, escPath, _ := strings.Cut(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	p, _ := url.PathUnescape(escPath)
	expires, _ := strconv.ParseInt(r.URL.Query().Get("Expires"), 10, 64)
	if !hmac.Equal([]byte(r.URL.Query().Get("Signature")), []byte(s.sign(commit, p, expires))) {
		http.Error(w, "AccessDenied: bad signature", http.StatusForbidden)
		return
	}
	if time.Now().UnixNano() > expires {
		s.count(&s.counts.Expired)
		http.Error(w, "AccessDenied: Request has expired", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	files := s.commits[commit]
	s.mu.Unlock()
	i := sort.Search(len(files), func(i int) bool { return files[i].Path >= p })
	if i == len(files) || files[i].Path != p {
		http.Error(w, "NoSuchKey", http.StatusNotFound)
		return
	}
	data := files[i].Data
	off, end, ok := parseRange(r.Header.Get("Range"), int64(len(data)))
	if !ok {
		w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", len(data)))
		http.Error(w, "bad range", http.StatusRequestedRangeNotSatisfiable)
		return
	}
	n := s.nrange.Add(1)
	s.mu.Lock()
	s.counts.RangeReads++
	s.counts.BytesServed += end - off
	s.ranges = append(s.ranges, Range{Path: p, Off: off, Len: end - off})
	s.mu.Unlock()
	w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", off, end-1, len(data)))
	w.Header().Set("Content-Length", strconv.FormatInt(end-off, 10))
	w.Header().Set("Accept-Ranges", "bytes")
	w.WriteHeader(http.StatusPartialContent)
	if s.opts.DropEvery > 0 && n%int64(s.opts.DropEvery) == 0 && end-off > 1 {
		s.count(&s.counts.Dropped)
		_, _ = w.Write(data[off : off+(end-off)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the server closes the connection mid-body
	}
	_, _ = w.Write(data[off:end])
}

// parseRange parses a single "bytes=A-B" (or "bytes=A-", "bytes=-N") range.
func parseRange(h string, size int64) (off, end int64, ok bool) {
	spec, found := strings.CutPrefix(h, "bytes=")
	if !found || strings.Contains(spec, ",") {
		return 0, 0, false
	}
	a, b, _ := strings.Cut(spec, "-")
	switch {
	case a == "":
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n <= 0 {
			return 0, 0, false
		}
		return max(size-n, 0), size, true
	default:
		x, err := strconv.ParseInt(a, 10, 64)
		if err != nil || x >= size {
			return 0, 0, false
		}
		y := size - 1
		if b != "" {
			if y, err = strconv.ParseInt(b, 10, 64); err != nil || y < x {
				return 0, 0, false
			}
		}
		return x, min(y, size-1) + 1, true
	}
}
