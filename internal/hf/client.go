package hf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// DefaultEndpoint is the Hub's address (HF_ENDPOINT overrides it).
const DefaultEndpoint = "https://huggingface.co"

// Options configure a Client. The zero value talks to DefaultEndpoint
// anonymously.
type Options struct {
	Endpoint string // HF_ENDPOINT; DefaultEndpoint when empty
	Token    string // HF_TOKEN; sent as Authorization: Bearer to the Hub (never to the CDN)
	// HTTPClient is used for every request (http.DefaultTransport when nil);
	// its redirect policy is replaced: resolves are not followed
	// automatically, so the signed URL and the Hub's headers can be read.
	HTTPClient *http.Client
	// MaxAttempts bounds the tries of one request on 429, 5xx and broken
	// connections (8 when 0).
	MaxAttempts int
	// BaseBackoff and MaxBackoff shape the exponential backoff with full
	// jitter between tries on 5xx and broken connections (500 ms and 30 s
	// when 0). A 429 waits for the reset its RateLimit header announces.
	BaseBackoff, MaxBackoff time.Duration
}

// OptionsFromEnv returns Options from HF_ENDPOINT and HF_TOKEN (getenv is
// os.Getenv when nil).
func OptionsFromEnv(getenv func(string) string) Options {
	return Options{Endpoint: strings.TrimSpace(getenv("HF_ENDPOINT")), Token: strings.TrimSpace(getenv("HF_TOKEN"))}
}

// Stats counts a Client's requests. Fields are updated atomically.
type Stats struct {
	APICalls    atomic.Int64 // /api/ requests sent (each try)
	Resolves    atomic.Int64 // /resolve/ requests sent (each try)
	RangeReads  atomic.Int64 // CDN range requests sent (each try)
	BytesRead   atomic.Int64 // body bytes of successful range reads
	TooMany     atomic.Int64 // 429 answers
	ServerError atomic.Int64 // 5xx answers and broken connections
	Reresolves  atomic.Int64 // resolves redone because a signed URL expired
	// Uploads counts PUTs to signed LFS storage URLs (each try);
	// BytesUploaded the bytes of those that succeeded.
	Uploads       atomic.Int64
	BytesUploaded atomic.Int64
}

// Client talks to the Hub. Safe for concurrent use.
type Client struct {
	opts     Options
	hc       *http.Client
	endpoint string
	api      *limiter
	resolver *limiter
	commits  *limiter // the commit endpoint's own quota (publish)
	Stats    Stats
}

// New returns a Client.
func New(opts Options) *Client {
	if opts.Endpoint == "" {
		opts.Endpoint = DefaultEndpoint
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 8
	}
	if opts.BaseBackoff <= 0 {
		opts.BaseBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	hc := &http.Client{}
	if opts.HTTPClient != nil {
		*hc = *opts.HTTPClient
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Client{opts: opts, hc: hc, endpoint: strings.TrimRight(opts.Endpoint, "/"),
		api: &limiter{name: "api"}, resolver: &limiter{name: "resolvers"}, commits: &limiter{name: "commits"}}
}

// Endpoint returns the Hub address in use.
func (c *Client) Endpoint() string { return c.endpoint }

// ResolveQuota reports the resolves left in the current window (-1 when not
// known yet), the time to the window's reset, and the total time requests
// waited for resets.
func (c *Client) ResolveQuota() (remaining int, reset, waited time.Duration) {
	return c.resolver.state()
}

// HTTPError is a final non-success answer.
type HTTPError struct {
	Status    int
	URL       string // without query (signed URLs carry credentials)
	Code      string // X-Error-Code (RepoNotFound, GatedRepo, RevisionNotFound, EntryNotFound, ...)
	Message   string // X-Error-Message
	TokenSent bool
	CDN       bool
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("HTTP %d from %s", e.Status, e.URL)
	if e.Code != "" || e.Message != "" {
		msg += fmt.Sprintf(" (%s %s)", e.Code, e.Message)
	}
	switch {
	case e.CDN:
	case e.Status == http.StatusUnauthorized && !e.TokenSent:
		msg += ": the repository is private, gated or does not exist; a token is needed: set HF_TOKEN to a token with read access"
	case e.Status == http.StatusUnauthorized:
		msg += ": the token in HF_TOKEN was refused (invalid or expired), or the repository does not exist"
	case e.Status == http.StatusForbidden && !e.TokenSent:
		msg += ": access denied; a token is needed: set HF_TOKEN (for a gated dataset, accept its conditions on the dataset page first)"
	case e.Status == http.StatusForbidden:
		msg += ": the token in HF_TOKEN has no access (for a gated dataset, accept its conditions on the dataset page with that account)"
	}
	return msg
}

// classify wraps an HTTPError in the sentinel that fits its status.
func classify(e *HTTPError) error {
	switch {
	case e.Status == http.StatusNotFound:
		return fmt.Errorf("%w: %w", derrors.ErrNotFound, derrors.Permanent(e))
	case e.Status == http.StatusTooManyRequests || e.Status >= 500:
		return derrors.Transient(e)
	default:
		return derrors.Permanent(e)
	}
}

// request is one HTTP request to send, with retries.
type request struct {
	method string
	url    string
	lim    *limiter // nil for the CDN
	hub    bool     // send the token
	rng    string   // Range header
	count  *atomic.Int64
	// body, when set, returns a fresh request body and its length for each
	// try (uploads and JSON posts); ctype is its Content-Type, header are
	// extra request headers.
	body   func() (io.Reader, int64, error)
	ctype  string
	header map[string]string
	// accept handles an answer with a status below 400 (the body is closed
	// after it returns); an error wrapping derrors.ErrTransient retries.
	accept func(*http.Response) error
}

// do sends r until it gets a final answer: 429 waits for the quota's reset,
// 5xx and broken connections back off with jitter, up to MaxAttempts tries.
func (c *Client) do(ctx context.Context, r request) error {
	var last error
	for attempt := 1; attempt <= c.opts.MaxAttempts; attempt++ {
		if err := c.try(ctx, r, &last); err == nil || !errors.Is(err, derrors.ErrTransient) || ctx.Err() != nil {
			return err
		}
		if attempt == c.opts.MaxAttempts {
			break
		}
		var he *HTTPError
		if errors.As(last, &he) && he.Status == http.StatusTooManyRequests && r.lim != nil {
			continue // the limiter holds the next try until the reset
		}
		d := min(c.opts.BaseBackoff<<(attempt-1), c.opts.MaxBackoff)
		if err := sleep(ctx, time.Duration(rand.Int64N(int64(d))+1)); err != nil {
			return err
		}
	}
	return fmt.Errorf("giving up after %d tries: %w", c.opts.MaxAttempts, last)
}

func (c *Client) try(ctx context.Context, r request, last *error) error {
	var ticket uint64
	if r.lim != nil {
		t, err := r.lim.acquire(ctx)
		if err != nil {
			return err
		}
		ticket = t
	}
	req, err := c.newRequest(ctx, r)
	if err != nil {
		if r.lim != nil {
			r.lim.done(ticket, nil, false, 0)
		}
		return derrors.Permanent(err)
	}
	if r.hub && c.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.Token)
	}
	if r.rng != "" {
		req.Header.Set("Range", r.rng)
	}
	req.Header.Set("User-Agent", "foldcorpus")
	if r.count != nil {
		r.count.Add(1)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if r.lim != nil {
			r.lim.done(ticket, nil, false, 0)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.Stats.ServerError.Add(1)
		*last = derrors.Transient(fmt.Errorf("%s %s: %w", r.method, redact(r.url), err))
		return *last
	}
	defer resp.Body.Close()
	tooMany := resp.StatusCode == http.StatusTooManyRequests
	if r.lim != nil {
		r.lim.done(ticket, resp.Header, tooMany, retryAfter(resp.Header))
	}
	if resp.StatusCode >= 400 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		he := &HTTPError{Status: resp.StatusCode, URL: redact(r.url), Code: resp.Header.Get("X-Error-Code"),
			Message: resp.Header.Get("X-Error-Message"), TokenSent: r.hub && c.opts.Token != "", CDN: !r.hub}
		if tooMany {
			c.Stats.TooMany.Add(1)
		} else if resp.StatusCode >= 500 {
			c.Stats.ServerError.Add(1)
		}
		*last = classify(he)
		return *last
	}
	err = r.accept(resp)
	if err != nil && errors.Is(err, derrors.ErrTransient) {
		c.Stats.ServerError.Add(1)
		*last = err
	}
	return err
}

// newRequest builds one try of r, with a fresh body when r has one.
func (c *Client) newRequest(ctx context.Context, r request) (*http.Request, error) {
	var body io.Reader
	n := int64(-1)
	if r.body != nil {
		var err error
		if body, n, err = r.body(); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, body)
	if err != nil {
		return nil, err
	}
	if n >= 0 {
		req.ContentLength = n
		if n == 0 {
			req.Body = http.NoBody
		}
	}
	if r.ctype != "" {
		req.Header.Set("Content-Type", r.ctype)
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	return req, nil
}

func retryAfter(h http.Header) time.Duration {
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}

// redact drops the query of a URL (signed URLs carry credentials there).
func redact(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[:i]
	}
	return u
}

// getJSON GETs an /api/ URL and decodes its body into v; it returns the
// answer's headers.
func (c *Client) getJSON(ctx context.Context, u string, v any) (http.Header, error) {
	var h http.Header
	err := c.do(ctx, request{method: http.MethodGet, url: u, lim: c.api, hub: true, count: &c.Stats.APICalls,
		accept: func(resp *http.Response) error {
			if resp.StatusCode != http.StatusOK {
				return derrors.Permanent(fmt.Errorf("GET %s: unexpected HTTP %d", u, resp.StatusCode))
			}
			h = resp.Header
			if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
				return derrors.Transient(fmt.Errorf("GET %s: decoding the answer: %w", u, err))
			}
			return nil
		}})
	return h, err
}

// Revision resolves a branch, tag or commit of a dataset repository to its
// commit hash (GET /api/datasets/REPO/revision/REV). Idempotent.
func (c *Client) Revision(ctx context.Context, repo, rev string) (_ string, err error) {
	defer derrors.Wrap(&err, "hf.Revision(%s@%s)", repo, rev)
	var info struct {
		SHA string `json:"sha"`
	}
	u := fmt.Sprintf("%s/api/datasets/%s/revision/%s", c.endpoint, repo, url.PathEscape(rev))
	if _, err := c.getJSON(ctx, u, &info); err != nil {
		return "", err
	}
	if info.SHA == "" {
		return "", derrors.Permanent(errors.New("the answer has no sha"))
	}
	return info.SHA, nil
}

// Entry is one file of a tree listing.
type Entry struct {
	Type string `json:"type"` // "file" or "directory"
	Path string `json:"path"`
	Size int64  `json:"size"`
	OID  string `json:"oid"` // git blob id
	LFS  *struct {
		OID  string `json:"oid"` // sha256 of the content
		Size int64  `json:"size"`
	} `json:"lfs,omitempty"`
}

// Tree lists every entry under dir ("" for the root) at rev, recursively,
// following the Link rel="next" pages (GET /api/datasets/REPO/tree/REV[/DIR]
// ?recursive=true). Idempotent.
func (c *Client) Tree(ctx context.Context, repo, rev, dir string) (_ []Entry, err error) {
	defer derrors.Wrap(&err, "hf.Tree(%s@%s/%s)", repo, rev, dir)
	u := fmt.Sprintf("%s/api/datasets/%s/tree/%s", c.endpoint, repo, url.PathEscape(rev))
	if dir != "" {
		u += "/" + escapePath(dir)
	}
	u += "?recursive=true"
	var all []Entry
	for pages := 0; u != ""; pages++ {
		if pages > 1_000_000 {
			return nil, derrors.Permanent(errors.New("too many pages"))
		}
		var page []Entry
		h, err := c.getJSON(ctx, u, &page)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		u = nextLink(h.Values("Link"))
	}
	return all, nil
}

// nextLink returns the URL of the rel="next" item of Link headers.
func nextLink(values []string) string {
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			target, params, ok := strings.Cut(item, ";")
			if !ok {
				continue
			}
			for _, p := range strings.Split(params, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if k == "rel" && strings.Trim(val, `"`) == "next" {
					return strings.Trim(strings.TrimSpace(target), "<>")
				}
			}
		}
	}
	return ""
}

// Resolved is the answer to a resolve: where the content is and what it is.
type Resolved struct {
	URL    string // signed CDN URL (or the resolve URL itself for a file served directly)
	Commit string // X-Repo-Commit
	ETag   string // X-Linked-Etag (sha256 of an LFS file), else ETag; unquoted
	// Linked is whether ETag came from X-Linked-Etag: without it (a proxy
	// that drops the header) the ETag is the git id of what git holds (an
	// LFS file's pointer), not the content's sha256.
	Linked bool
	Size   int64 // X-Linked-Size, else Content-Length
}

// Resolve asks where file p of repo at rev is served (HEAD
// /datasets/REPO/resolve/REV/PATH, redirects not followed). One resolve
// request per try; it counts against the Hub's resolver quota. Idempotent.
func (c *Client) Resolve(ctx context.Context, repo, rev, p string) (_ Resolved, err error) {
	defer derrors.Wrap(&err, "hf.Resolve(%s@%s/%s)", repo, rev, p)
	u := fmt.Sprintf("%s/datasets/%s/resolve/%s/%s", c.endpoint, repo, url.PathEscape(rev), escapePath(p))
	var res Resolved
	for hops := 0; hops < 3; hops++ {
		var next string
		err := c.do(ctx, request{method: http.MethodHead, url: u, lim: c.resolver, hub: true, count: &c.Stats.Resolves,
			accept: func(resp *http.Response) error {
				h := resp.Header
				res.Commit = h.Get("X-Repo-Commit")
				res.ETag = unquote(h.Get("X-Linked-Etag"))
				res.Linked = res.ETag != ""
				if res.ETag == "" {
					res.ETag = unquote(h.Get("ETag"))
				}
				res.Size = -1
				if s, err := strconv.ParseInt(h.Get("X-Linked-Size"), 10, 64); err == nil {
					res.Size = s
				} else if resp.ContentLength >= 0 && resp.StatusCode == http.StatusOK {
					res.Size = resp.ContentLength
				}
				switch {
				case resp.StatusCode == http.StatusOK:
					res.URL = u
				case resp.StatusCode >= 300 && resp.StatusCode < 400:
					loc, err := resp.Location()
					if err != nil {
						return derrors.Permanent(fmt.Errorf("redirect without a usable Location: %w", err))
					}
					base, _ := url.Parse(u)
					if loc.Host == base.Host && strings.Contains(loc.Path, "/resolve/") {
						next = loc.String() // a renamed repository: resolve again there
						return nil
					}
					res.URL = loc.String()
				default:
					return derrors.Permanent(fmt.Errorf("unexpected HTTP %d", resp.StatusCode))
				}
				return nil
			}})
		if err != nil {
			return Resolved{}, err
		}
		if next == "" {
			return res, nil
		}
		u = next
	}
	return Resolved{}, derrors.Permanent(errors.New("too many redirects between resolves"))
}

func unquote(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "W/")
	return strings.Trim(s, `"`)
}
