package hubtest

// The write API, as huggingface_hub's HfApi uses it (create_repo,
// preupload_lfs_files, the LFS batch API with basic and multipart
// transfers, create_commit):
//
//   - POST /api/repos/create {"name", "organization", "private", "type"}:
//     200 {"url"}, 409 when the repository exists;
//   - POST /api/datasets/OWNER/NAME/preupload/REV {"files": [{"path",
//     "sample" (base64 of the first 512 bytes), "size", "sha"}]}: {"files":
//     [{"path", "uploadMode": "lfs"|"regular", "shouldIgnore"}],
//     "commitOid"};
//   - POST /datasets/OWNER/NAME.git/info/lfs/objects/batch (git-lfs batch
//     API, application/vnd.git-lfs+json): per object no "actions" when the
//     store already holds it, else an upload action (a signed PUT URL, or
//     for multipart a completion URL with "chunk_size" and one signed part
//     URL per part under "00001", "00002", ...) and a verify action;
//   - the storage server takes the PUTs (each part answers its ETag), the
//     completion POST {"oid", "parts": [{"partNumber", "etag"}]} assembles
//     the object and checks its sha256;
//   - POST /api/datasets/OWNER/NAME/commit/REV, NDJSON lines {"key":
//     "header"|"file"|"lfsFile"|"deletedFile", "value"}: 412 when the
//     header's parentCommit is not the branch head, else 200 {"commitOid",
//     "commitUrl"}; commits have their own quota ("commits") with RateLimit
//     headers and a Retry-After on 429.
//
// Writes need a token (any, or Options.Token when set).

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// WriteOptions configure the write API. Zero values take the defaults noted.
type WriteOptions struct {
	// Absent: the repository does not exist until POST /api/repos/create.
	Absent bool
	// CommitQuota is commits per Window (0: unlimited; the Hub allows 128
	// per hour per repository).
	CommitQuota int
	// BareCommit429: the commit quota sends no RateLimit headers; a commit
	// beyond it answers 429 with a Retry-After only, as the Hub's "rate
	// limit for repository commits" error does.
	BareCommit429 bool
	// MultipartThreshold: LFS objects of at least this size go multipart
	// when the client accepts it (8 MiB); ChunkSize is the part size (the
	// threshold's).
	MultipartThreshold, ChunkSize int64
	// DropPartEvery: every Nth part PUT reads half its body, then drops
	// the connection.
	DropPartEvery int
	// FailCommits: the first N commit requests answer 500 without
	// committing.
	FailCommits int
	// LoseCommitAnswers: the first N commits are applied, then the
	// connection is dropped before the answer.
	LoseCommitAnswers int
	// ExpiredUploads: the first N LFS batch answers hand out signed upload
	// URLs that have already expired (the storage answers 403).
	ExpiredUploads int
	// OnCommit is called after each commit is applied (outside the lock).
	OnCommit func(commit string, files int)
}

// WriteCounts are what the write API saw.
type WriteCounts struct {
	Commits        int            // commits applied
	CommitSizes    []int          // operations of each applied commit
	FailedCommits  int            // injected 500s and 412s
	LostAnswers    int            // commits applied whose answer was dropped
	ObjectUploads  map[string]int // completed uploads per LFS oid (basic PUT or multipart completion)
	PathCommits    map[string]int // commits that added each path
	Parts          int            // part PUTs stored
	DroppedParts   int            // part PUTs dropped mid-body
	BytesUploaded  int64          // bytes of stored PUTs and parts
	Preuploads     int            // preupload requests answered
	Batches        int            // LFS batch requests answered
	TooManyCommits int            // commits refused by the commit quota
	ExpiredPuts    int            // PUTs refused: their signed URL had expired
	Created        bool           // the repository was created through the API
	Private        bool           // ... as a private one
}

type multipart struct {
	oid   string
	size  int64
	chunk int64
	parts map[int][]byte
	etags map[int]string
}

type writeState struct {
	storage  *httptest.Server
	exists   bool
	objects  map[string][]byte // LFS store by oid
	uploads  map[string]*multipart
	nextID   int
	partReqs int
	commitN  int
	counts   WriteCounts
}

func (s *Server) initWrite() {
	s.wr = writeState{exists: !s.opts.Write.Absent, objects: map[string][]byte{}, uploads: map[string]*multipart{},
		counts: WriteCounts{ObjectUploads: map[string]int{}, PathCommits: map[string]int{}}}
	for _, f := range s.opts.Files {
		if !f.Regular {
			s.wr.objects[SHA256(f.Data)] = f.Data
		}
	}
	if s.opts.Write.MultipartThreshold <= 0 {
		s.opts.Write.MultipartThreshold = 8 << 20
	}
	if s.opts.Write.ChunkSize <= 0 {
		s.opts.Write.ChunkSize = s.opts.Write.MultipartThreshold
	}
	s.wr.storage = httptest.NewServer(http.HandlerFunc(s.serveStorage))
}

// WriteCounts returns what the write API saw so far (maps copied).
func (s *Server) WriteCounts() WriteCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.wr.counts
	c.CommitSizes = append([]int(nil), c.CommitSizes...)
	c.ObjectUploads, c.PathCommits = map[string]int{}, map[string]int{}
	for k, v := range s.wr.counts.ObjectUploads {
		c.ObjectUploads[k] = v
	}
	for k, v := range s.wr.counts.PathCommits {
		c.PathCommits[k] = v
	}
	return c
}

// Files returns the files of a commit (the branch head when rev is ""), sorted by path.
func (s *Server) Files(rev string) []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rev == "" || rev == s.opts.Branch {
		rev = s.branch
	}
	return append([]File(nil), s.commits[rev]...)
}

// GitBlobID is git's object id of a blob with data: sha1("blob N\x00" + data).
func GitBlobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// serveWrite serves the write API's paths and refuses every request for a
// repository that does not exist yet; it reports whether it answered.
func (s *Server) serveWrite(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.EscapedPath()
	repo := "/datasets/" + s.opts.Repo
	switch {
	case p == "/api/repos/create" && r.Method == http.MethodPost:
		if s.writeAuth(w, r) && s.quota(w, "api", s.opts.APIQuota) {
			s.createRepo(w, r)
		}
	case p == "/api/complete_multipart" && r.Method == http.MethodPost:
		s.completeMultipart(w, r) // signed: no token, no quota (as the Hub's)
	case !s.repoExists():
		if strings.Contains(p, repo) {
			hubError(w, http.StatusUnauthorized, "RepoNotFound", "Repository not found")
			return true
		}
		return false
	case strings.HasPrefix(p, "/api"+repo+"/preupload/") && r.Method == http.MethodPost:
		if s.writeAuth(w, r) && s.quota(w, "api", s.opts.APIQuota) {
			s.preupload(w, r)
		}
	case strings.HasPrefix(p, "/api"+repo+"/commit/") && r.Method == http.MethodPost:
		if s.writeAuth(w, r) && s.commitQuota(w) {
			s.commitAPI(w, r, strings.TrimPrefix(p, "/api"+repo+"/commit/"))
		}
	case p == repo+".git/info/lfs/objects/batch" && r.Method == http.MethodPost:
		if s.writeAuth(w, r) && s.quota(w, "api", s.opts.APIQuota) {
			s.lfsBatch(w, r)
		}
	case p == repo+".git/info/lfs/objects/verify" && r.Method == http.MethodPost:
		if s.writeAuth(w, r) {
			s.verify(w, r)
		}
	default:
		return false
	}
	return true
}

func (s *Server) repoExists() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wr.exists
}

func (s *Server) commitQuota(w http.ResponseWriter) bool {
	wo := s.opts.Write
	var ok bool
	if !wo.BareCommit429 || wo.CommitQuota <= 0 {
		ok = s.quota(w, "commits", wo.CommitQuota)
	} else {
		now := time.Since(s.start)
		idx := int64(now / s.opts.Window)
		reset := s.opts.Window*time.Duration(idx+1) - now
		s.mu.Lock()
		win := s.windows["commits"]
		if win == nil || win.index != idx {
			win = &window{index: idx}
			s.windows["commits"] = win
		}
		if ok = win.used < wo.CommitQuota; ok {
			win.used++
		}
		s.mu.Unlock()
		if !ok {
			w.Header().Set("Retry-After", strconv.FormatInt(int64((reset+time.Second-1)/time.Second), 10))
			hubError(w, http.StatusTooManyRequests, "", fmt.Sprintf("You have exceeded our rate limit for repository commits (%d per %s)", wo.CommitQuota, s.opts.Window))
		}
	}
	if !ok {
		s.mu.Lock()
		s.wr.counts.TooManyCommits++
		s.mu.Unlock()
	}
	return ok
}

// writeAuth checks the token of a write: 401 without one, 403 with the
// wrong one.
func (s *Server) writeAuth(w http.ResponseWriter, r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	switch {
	case !strings.HasPrefix(auth, "Bearer ") || len(auth) == len("Bearer "):
		hubError(w, http.StatusUnauthorized, "", "Invalid username or password.")
		return false
	case s.opts.Token != "" && auth != "Bearer "+s.opts.Token:
		hubError(w, http.StatusForbidden, "", "You don't have the rights to write to this repository")
		return false
	}
	return true
}

func decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(v); err != nil {
		hubError(w, http.StatusBadRequest, "", "bad JSON body: "+err.Error())
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) createRepo(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name         string `json:"name"`
		Organization string `json:"organization"`
		Private      *bool  `json:"private"`
		Type         string `json:"type"`
	}
	if !decodeJSON(w, r, &req) {
		return
	}
	if req.Type != "dataset" || req.Organization+"/"+req.Name != s.opts.Repo {
		hubError(w, http.StatusForbidden, "", "You don't have the rights to create "+req.Type+" "+req.Organization+"/"+req.Name)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wr.exists {
		hubError(w, http.StatusConflict, "", "You already created this dataset repo")
		return
	}
	s.wr.exists, s.wr.counts.Created = true, true
	s.wr.counts.Private = req.Private != nil && *req.Private
	// The Hub's first commit holds a .gitattributes.
	s.branch = s.commitLocked([]File{{Path: ".gitattributes", Data: []byte("*.parquet filter=lfs diff=lfs merge=lfs -text\n"), Regular: true}})
	writeJSON(w, map[string]any{"url": s.Hub.URL + "/datasets/" + s.opts.Repo, "name": s.opts.Repo})
}

// lfsByName are the patterns of the Hub's default .gitattributes that matter here.
var lfsByName = []string{"*.parquet", "*.png", "*.arrow", "*.bin", "*.gz", "*.zst"}

func uploadMode(p string, size int64, sample []byte) string {
	for _, g := range lfsByName {
		if ok, _ := path.Match(g, path.Base(p)); ok {
			return "lfs"
		}
	}
	if size >= 10<<20 || bytes.IndexByte(sample, 0) >= 0 {
		return "lfs"
	}
	return "regular"
}

func (s *Server) preupload(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Files []struct {
			Path   string `json:"path"`
			Sample string `json:"sample"`
			Size   int64  `json:"size"`
			SHA    string `json:"sha"`
		} `json:"files"`
	}
	if !decodeJSON(w, r, &req) {
		return
	}
	type answer struct {
		Path         string `json:"path"`
		UploadMode   string `json:"uploadMode"`
		ShouldIgnore bool   `json:"shouldIgnore"`
	}
	out := []answer{}
	for _, f := range req.Files {
		sample, err := base64.StdEncoding.DecodeString(f.Sample)
		if err != nil || f.Path == "" || len(sample) > 512 {
			hubError(w, http.StatusBadRequest, "", "bad file entry "+f.Path)
			return
		}
		mode := uploadMode(f.Path, f.Size, sample)
		if f.Size == 0 {
			mode = "regular"
		}
		out = append(out, answer{Path: f.Path, UploadMode: mode})
	}
	s.mu.Lock()
	s.wr.counts.Preuploads++
	head := s.branch
	s.mu.Unlock()
	writeJSON(w, map[string]any{"files": out, "commitOid": head})
}

// sortedPaths returns the keys of m in order.
func sortedPaths(m map[string]File) []File {
	out := make([]File, 0, len(m))
	for _, f := range m {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// readNDJSON splits a body into JSON lines.
func readNDJSON(body io.Reader, each func([]byte) error) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := each(sc.Bytes()); err != nil {
			return err
		}
	}
	return sc.Err()
}

func md5hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}
