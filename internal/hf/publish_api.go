package hf

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// The Hub's write API, as huggingface_hub calls it (HfApi.create_repo,
// _commit_api._fetch_upload_modes, lfs.post_lfs_batch_info and lfs_upload,
// HfApi.create_commit). Every call retries 429 (after the quota's reset or
// Retry-After), 5xx and broken connections with jittered backoff, up to
// Options.MaxAttempts tries.

const lfsJSON = "application/vnd.git-lfs+json"

// IsStatus reports whether err carries a final HTTP answer with status code.
func IsStatus(err error, code int) bool {
	var he *HTTPError
	return errors.As(err, &he) && he.Status == code
}

// postJSON POSTs v as JSON to an /api/ URL (through lim) and decodes the
// answer into out (when not nil).
func (c *Client) postJSON(ctx context.Context, u string, lim *limiter, ctype string, v, out any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return derrors.Permanent(err)
	}
	return c.do(ctx, request{method: http.MethodPost, url: u, lim: lim, hub: true, count: &c.Stats.APICalls,
		body: bytesBody(body), ctype: ctype, header: map[string]string{"Accept": "application/json, " + lfsJSON},
		accept: func(resp *http.Response) error {
			if resp.StatusCode/100 != 2 {
				return derrors.Permanent(fmt.Errorf("POST %s: unexpected HTTP %d", redact(u), resp.StatusCode))
			}
			if out == nil {
				return nil
			}
			if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
				return derrors.Transient(fmt.Errorf("POST %s: decoding the answer: %w", redact(u), err))
			}
			return nil
		}})
}

func bytesBody(b []byte) func() (io.Reader, int64, error) {
	return func() (io.Reader, int64, error) { return bytes.NewReader(b), int64(len(b)), nil }
}

// CreateRepo creates the dataset repository repo (OWNER/NAME), private or
// public (POST /api/repos/create). It reports false, and no error, when
// the repository already exists (409). Retrying is safe: a creation that
// landed before its answer was lost reads as "exists" on the next try.
func (c *Client) CreateRepo(ctx context.Context, repo string, private bool) (created bool, err error) {
	defer derrors.Wrap(&err, "hf.CreateRepo(%s)", repo)
	org, name, ok := strings.Cut(repo, "/")
	if !ok {
		return false, derrors.Permanent(fmt.Errorf("want OWNER/NAME, got %q", repo))
	}
	req := map[string]any{"name": name, "organization": org, "private": private, "type": "dataset"}
	err = c.postJSON(ctx, c.endpoint+"/api/repos/create", c.api, "application/json", req, nil)
	if IsStatus(err, http.StatusConflict) {
		return false, nil
	}
	return err == nil, err
}

// UploadCandidate is a file asked about in a preupload.
type UploadCandidate struct {
	Path   string
	Size   int64
	SHA256 string // hex
	Sample []byte // the first 512 bytes (or fewer)
}

// Preupload asks the Hub how each file must be uploaded (POST
// /api/datasets/REPO/preupload/REV, 100 files per request, as the
// official client's large-folder upload does) and returns "lfs" or
// "regular" per path. Empty files are always regular. Idempotent.
func (c *Client) Preupload(ctx context.Context, repo, rev string, files []UploadCandidate) (_ map[string]string, err error) {
	defer derrors.Wrap(&err, "hf.Preupload(%s@%s, %d files)", repo, rev, len(files))
	u := fmt.Sprintf("%s/api/datasets/%s/preupload/%s", c.endpoint, repo, url.PathEscape(rev))
	modes := map[string]string{}
	for start := 0; start < len(files); start += 100 {
		chunk := files[start:min(start+100, len(files))]
		type file struct {
			Path   string `json:"path"`
			Sample string `json:"sample"`
			Size   int64  `json:"size"`
			SHA    string `json:"sha"`
		}
		req := struct {
			Files []file `json:"files"`
		}{}
		for _, f := range chunk {
			req.Files = append(req.Files, file{Path: f.Path, Sample: base64.StdEncoding.EncodeToString(f.Sample[:min(len(f.Sample), 512)]), Size: f.Size, SHA: f.SHA256})
		}
		var ans struct {
			Files []struct {
				Path       string `json:"path"`
				UploadMode string `json:"uploadMode"`
			} `json:"files"`
		}
		if err := c.postJSON(ctx, u, c.api, "application/json", req, &ans); err != nil {
			return nil, err
		}
		for _, f := range ans.Files {
			if f.UploadMode != "lfs" && f.UploadMode != "regular" {
				return nil, derrors.Permanent(fmt.Errorf("%s: unknown upload mode %q", f.Path, f.UploadMode))
			}
			modes[f.Path] = f.UploadMode
		}
	}
	for _, f := range files {
		if _, ok := modes[f.Path]; !ok {
			return nil, derrors.Permanent(fmt.Errorf("the answer has no upload mode for %s", f.Path))
		}
		if f.Size == 0 {
			modes[f.Path] = "regular"
		}
	}
	return modes, nil
}

// LFSAction is an action of an LFS batch answer.
type LFSAction struct {
	Href   string
	Header map[string]string // string or number values, as strings
}

func (a *LFSAction) UnmarshalJSON(b []byte) error {
	var raw struct {
		Href   string         `json:"href"`
		Header map[string]any `json:"header"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	a.Href, a.Header = raw.Href, map[string]string{}
	for k, v := range raw.Header {
		switch x := v.(type) {
		case string:
			a.Header[k] = x
		case float64:
			a.Header[k] = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			return fmt.Errorf("header %q: want a string or a number", k)
		}
	}
	return nil
}

// LFSObject is one object of an LFS batch answer. Upload is nil when the
// store already holds the object.
type LFSObject struct {
	OID    string `json:"oid"`
	Size   int64  `json:"size"`
	Upload *LFSAction
	Verify *LFSAction
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// LFSBatch asks the git-lfs batch API where to upload objects (POST
// /datasets/REPO.git/info/lfs/objects/batch, transfers basic and
// multipart, hash sha256). Idempotent.
func (c *Client) LFSBatch(ctx context.Context, repo, rev string, objects map[string]int64) (_ []LFSObject, err error) {
	defer derrors.Wrap(&err, "hf.LFSBatch(%s, %d objects)", repo, len(objects))
	type obj struct {
		OID  string `json:"oid"`
		Size int64  `json:"size"`
	}
	req := struct {
		Operation string         `json:"operation"`
		Transfers []string       `json:"transfers"`
		Objects   []obj          `json:"objects"`
		HashAlgo  string         `json:"hash_algo"`
		Ref       map[string]any `json:"ref"`
	}{Operation: "upload", Transfers: []string{"basic", "multipart"}, HashAlgo: "sha256", Ref: map[string]any{"name": rev}}
	for oid, size := range objects {
		req.Objects = append(req.Objects, obj{oid, size})
	}
	sort.Slice(req.Objects, func(i, j int) bool { return req.Objects[i].OID < req.Objects[j].OID })
	var ans struct {
		Objects []struct {
			LFSObject
			Actions *struct {
				Upload *LFSAction `json:"upload"`
				Verify *LFSAction `json:"verify"`
			} `json:"actions"`
		} `json:"objects"`
	}
	u := fmt.Sprintf("%s/datasets/%s.git/info/lfs/objects/batch", c.endpoint, repo)
	if err := c.postJSON(ctx, u, c.api, lfsJSON, req, &ans); err != nil {
		return nil, err
	}
	out := make([]LFSObject, 0, len(ans.Objects))
	for _, o := range ans.Objects {
		if _, asked := objects[o.OID]; !asked {
			return nil, derrors.Permanent(fmt.Errorf("the answer names object %s, not asked for", o.OID))
		}
		if o.Actions != nil {
			o.LFSObject.Upload, o.LFSObject.Verify = o.Actions.Upload, o.Actions.Verify
		}
		out = append(out, o.LFSObject)
	}
	if len(out) != len(objects) {
		return nil, derrors.Permanent(fmt.Errorf("the answer has %d objects, %d were asked for", len(out), len(objects)))
	}
	return out, nil
}

// UploadLFS uploads one object as its batch answer says: one PUT to the
// signed URL, or for a multipart transfer (header chunk_size) one PUT per
// part then the completion POST with every part's ETag; then the verify
// action. content is read with ReadAt for each try, so a part whose
// connection drops is sent again whole; onBytes (optional) gets the bytes
// of each part or object stored. Safe to repeat: the store keeps one copy
// of an oid.
func (c *Client) UploadLFS(ctx context.Context, o LFSObject, content io.ReaderAt, onBytes func(int64)) (err error) {
	defer derrors.Wrap(&err, "hf.UploadLFS(%s)", o.OID)
	if o.Upload == nil {
		return nil
	}
	if cs, ok := o.Upload.Header["chunk_size"]; ok {
		chunk, err := strconv.ParseInt(cs, 10, 64)
		if err != nil || chunk <= 0 {
			return derrors.Permanent(fmt.Errorf("malformed chunk_size %q", cs))
		}
		if err := c.multipart(ctx, o, chunk, content, onBytes); err != nil {
			return err
		}
	} else {
		if _, err := c.put(ctx, o.Upload.Href, io.NewSectionReader(content, 0, o.Size)); err != nil {
			return err
		}
		if onBytes != nil {
			onBytes(o.Size)
		}
	}
	if o.Verify != nil {
		return c.postJSON(ctx, o.Verify.Href, nil, lfsJSON, map[string]any{"oid": o.OID, "size": o.Size}, nil)
	}
	return nil
}

func (c *Client) multipart(ctx context.Context, o LFSObject, chunk int64, content io.ReaderAt, onBytes func(int64)) error {
	type part struct {
		n   int
		url string
	}
	var parts []part
	for k, v := range o.Upload.Header {
		if n, err := strconv.Atoi(k); err == nil && k != "" && k[0] >= '0' && k[0] <= '9' {
			parts = append(parts, part{n, v})
		}
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].n < parts[j].n })
	if want := (o.Size + chunk - 1) / chunk; int64(len(parts)) != want {
		return derrors.Permanent(fmt.Errorf("the batch answer has %d part URLs, want %d for %d bytes in chunks of %d", len(parts), want, o.Size, chunk))
	}
	type done struct {
		PartNumber int    `json:"partNumber"`
		ETag       string `json:"etag"`
	}
	completion := struct {
		OID   string `json:"oid"`
		Parts []done `json:"parts"`
	}{OID: o.OID}
	for i, p := range parts {
		off := int64(i) * chunk
		n := min(chunk, o.Size-off)
		etag, err := c.put(ctx, p.url, io.NewSectionReader(content, off, n))
		if err != nil {
			return fmt.Errorf("part %d of %d: %w", i+1, len(parts), err)
		}
		if etag == "" {
			return derrors.Permanent(fmt.Errorf("part %d of %d: the answer has no ETag", i+1, len(parts)))
		}
		completion.Parts = append(completion.Parts, done{i + 1, etag})
		if onBytes != nil {
			onBytes(n)
		}
	}
	body, err := json.Marshal(completion)
	if err != nil {
		return derrors.Permanent(err)
	}
	// The completion URL is signed: sent without the token, as the
	// official client does.
	return c.do(ctx, request{method: http.MethodPost, url: o.Upload.Href, count: &c.Stats.APICalls,
		body: bytesBody(body), ctype: lfsJSON, header: map[string]string{"Accept": lfsJSON},
		accept: func(resp *http.Response) error {
			if resp.StatusCode/100 != 2 {
				return derrors.Permanent(fmt.Errorf("completion: unexpected HTTP %d", resp.StatusCode))
			}
			return nil
		}})
}

// put PUTs one body to a signed storage URL (no token) and returns the
// answer's ETag.
func (c *Client) put(ctx context.Context, u string, body *io.SectionReader) (string, error) {
	var etag string
	err := c.do(ctx, request{method: http.MethodPut, url: u, count: &c.Stats.Uploads,
		body: func() (io.Reader, int64, error) { return io.NewSectionReader(body, 0, body.Size()), body.Size(), nil },
		accept: func(resp *http.Response) error {
			if resp.StatusCode/100 != 2 {
				return derrors.Permanent(fmt.Errorf("PUT %s: unexpected HTTP %d", redact(u), resp.StatusCode))
			}
			etag = resp.Header.Get("ETag")
			c.Stats.BytesUploaded.Add(body.Size())
			return nil
		}})
	return etag, err
}

// CommitOp is one file of a commit: an LFS pointer (LFS true: OID is the
// sha256 of an object already uploaded) or a regular file with Content.
type CommitOp struct {
	Path    string
	LFS     bool
	OID     string
	Size    int64
	Content []byte
}

// CommitInfo is the answer to a commit.
type CommitInfo struct {
	OID string `json:"commitOid"`
	URL string `json:"commitUrl"`
}

// Commit commits ops on branch rev (POST /api/datasets/REPO/commit/REV,
// NDJSON: a header line with the summary and parentCommit, then one line
// per file). With parent set the Hub refuses the commit (412) when the
// branch has moved: a commit that landed but whose answer was lost is
// never applied twice by a retry, which answers 412 instead (the caller
// then reads the branch to learn what landed). Commits are paced by their
// own quota ("commits" RateLimit item, Retry-After).
func (c *Client) Commit(ctx context.Context, repo, rev, parent, summary string, ops []CommitOp) (_ CommitInfo, err error) {
	defer derrors.Wrap(&err, "hf.Commit(%s@%s, %d files)", repo, rev, len(ops))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	header := map[string]any{"summary": summary, "description": ""}
	if parent != "" {
		header["parentCommit"] = parent
	}
	lines := []any{map[string]any{"key": "header", "value": header}}
	for _, op := range ops {
		if op.LFS {
			lines = append(lines, map[string]any{"key": "lfsFile", "value": map[string]any{"path": op.Path, "algo": "sha256", "oid": op.OID, "size": op.Size}})
			continue
		}
		lines = append(lines, map[string]any{"key": "file", "value": map[string]any{"content": base64.StdEncoding.EncodeToString(op.Content), "path": op.Path, "encoding": "base64"}})
	}
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return CommitInfo{}, derrors.Permanent(err)
		}
	}
	u := fmt.Sprintf("%s/api/datasets/%s/commit/%s", c.endpoint, repo, url.PathEscape(rev))
	var info CommitInfo
	err = c.do(ctx, request{method: http.MethodPost, url: u, lim: c.commits, hub: true, count: &c.Stats.APICalls,
		body: bytesBody(buf.Bytes()), ctype: "application/x-ndjson",
		accept: func(resp *http.Response) error {
			if resp.StatusCode/100 != 2 {
				return derrors.Permanent(fmt.Errorf("unexpected HTTP %d", resp.StatusCode))
			}
			if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
				return derrors.Transient(fmt.Errorf("decoding the answer: %w", err))
			}
			if info.OID == "" {
				return derrors.Permanent(errors.New("the answer has no commitOid"))
			}
			return nil
		}})
	return info, err
}
