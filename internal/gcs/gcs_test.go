package gcs

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/emulators"
)

// proxy sits between the client and fake-gcs-server so tests can inject
// faults and see requests. hook runs first; returning true means it answered.
type proxy struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
	hook func(w http.ResponseWriter, r *http.Request, forward http.Handler) bool
}

func newProxy(t *testing.T, target string) *proxy {
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	p := &proxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.reqs = append(p.reqs, r.Clone(context.Background()))
		hook := p.hook
		p.mu.Unlock()
		if hook != nil && hook(w, r, rp) {
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *proxy) requests() []*http.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*http.Request(nil), p.reqs...)
}

func setup(t *testing.T) (*fakestorage.Server, *proxy, *storage.Client) {
	t.Helper()
	f, _ := emulators.RequireFakeGCS(t, "in", "out", "other")
	p := newProxy(t, f.URL)
	c, err := emulators.StorageClient(context.Background(), p.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return f.Server, p, c
}

func gz(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The contract of blob.Store (reads to EOF, ErrNotFound, ranges, create-only
// writes, listing, generations) is tested by the conformance suite
// (conformance_test.go); these are the GCS store's own behaviours.

// TestReadAllRefusals: buckets not allowed, malformed URIs and objects over
// the cap are permanent errors.
func TestReadAllRefusals(t *testing.T) {
	srv, _, c := setup(t)
	srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "other", Name: "y.cif"}, Content: []byte("data_y\n")})
	srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "in", Name: "big"}, Content: bytes.Repeat([]byte("x"), 100)})
	s := New(c, Options{AllowedBuckets: []string{"in"}, MaxObjectBytes: 99})
	for _, tc := range []struct {
		uri     string
		want    string
		wantErr error
	}{
		{"gs://other/y.cif", "", derrors.ErrPermanent},
		{"file:///etc/passwd", "", derrors.ErrPermanent},
		{"gs://in", "", derrors.ErrPermanent},
		{"gs://in/big", "", derrors.ErrPermanent},
	} {
		got, err := s.ReadAll(context.Background(), tc.uri)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("ReadAll(%s) = %v, want error wrapping %v", tc.uri, err, tc.wantErr)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("ReadAll(%s) = %q, %v; want %q", tc.uri, got, err, tc.want)
		}
	}
}

// TestGzipTranscodingTrap shows the trap and that ReadAll avoids it: an
// object stored with Content-Encoding: gzip reports its compressed size, so
// a read of that many bytes returns a fraction of the object with no error.
func TestGzipTranscodingTrap(t *testing.T) {
	srv, _, c := setup(t)
	plain := []byte(strings.Repeat("ATOM   1    N  N   . MET A 1 1 ? -7.0 15.2 -2.6 1.00 77.0 ? 1 MET A N 1\n", 2000))
	srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "in", Name: "t.cif", ContentEncoding: "gzip"}, Content: gz(t, plain)})
	ctx := context.Background()

	attrs, err := c.Bucket("in").Object("t.cif").Attrs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if attrs.Size >= int64(len(plain)) {
		t.Fatalf("Attrs.Size = %d, want the compressed size (< %d)", attrs.Size, len(plain))
	}
	// The size-based read: what fsspec.open().read() did.
	r, err := c.Bucket("in").Object("t.cif").NewReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, attrs.Size)
	n, err := io.ReadFull(r, buf)
	r.Close()
	if err != nil || int64(n) != attrs.Size || n >= len(plain) || !bytes.Equal(buf, plain[:n]) {
		t.Fatalf("size-based read: n=%d err=%v; want %d bytes, a truncated prefix of %d", n, err, attrs.Size, len(plain))
	}
	t.Logf("size-based read: %d of %d bytes, no error (truncated)", n, len(plain))

	got, err := New(c, Options{}).ReadAll(ctx, "gs://in/t.cif")
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("ReadAll = %d bytes, %v; want all %d bytes", len(got), err, len(plain))
	}

	// Range reads of an encoded object are refused.
	if _, err := New(c, Options{}).Open(ctx, "gs://in/t.cif"); !errors.Is(err, derrors.ErrPermanent) {
		t.Errorf("Open(gzip-encoded) = %v, want permanent error", err)
	}
}

// TestRangeReadsAreRanged: ReadAt sends ranged media GETs only.
func TestRangeReadsAreRanged(t *testing.T) {
	srv, p, c := setup(t)
	srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "in", Name: "m.parquet"}, Content: make([]byte, 100000)})
	o, err := New(c, Options{}).Open(context.Background(), "gs://in/m.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for _, off := range []int64{99992, 0, 99990} {
		if _, err := o.ReadAt(make([]byte, 8), off); err != nil && err != io.EOF {
			t.Fatal(err)
		}
	}
	ranged := 0
	for _, r := range p.requests() {
		if r.Method == "GET" && !strings.Contains(r.URL.Path, "/storage/v1/") {
			if r.Header.Get("Range") == "" {
				t.Errorf("unranged media GET %s during range reads", r.URL)
			}
			ranged++
		}
	}
	if ranged != 3 {
		t.Errorf("%d media GETs for 3 ReadAt calls, want 3", ranged)
	}
}

// TestCreateSameBytes: a Create that meets the object holding exactly its
// bytes (a retry whose first attempt landed) verifies it and returns nil,
// where the suite also allows ErrExists.
func TestCreateSameBytes(t *testing.T) {
	_, _, c := setup(t)
	s := New(c, Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		data    string
		wantErr error
		want    string
	}{
		{"first write", "v1", nil, "v1"},
		{"same bytes again (a retry)", "v1", nil, "v1"},
	} {
		err := s.Create(ctx, "gs://out/p-00000-of-00001.parquet", []byte(tc.data))
		if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
			t.Errorf("%s: Create = %v, want %v", tc.name, err, tc.wantErr)
		}
		got, err := s.ReadAll(ctx, "gs://out/p-00000-of-00001.parquet")
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: object = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestCreateLostResponse: the first upload lands but its response is lost
// (the proxy answers 503 after forwarding); the client retries, meets 412,
// and Create verifies the object instead of failing.
func TestCreateLostResponse(t *testing.T) {
	_, p, c := setup(t)
	var uploads atomic.Int32
	p.hook = func(w http.ResponseWriter, r *http.Request, fwd http.Handler) bool {
		if r.Method != http.MethodPost || !strings.Contains(r.URL.Path, "/upload/") {
			return false
		}
		if uploads.Add(1) == 1 {
			fwd.ServeHTTP(httptest.NewRecorder(), r)
			http.Error(w, "backend error", http.StatusServiceUnavailable)
			return true
		}
		return false
	}
	s := New(c, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Create(ctx, "gs://out/x.parquet", []byte("payload")); err != nil {
		t.Fatalf("Create after a lost response = %v, want nil (verified)", err)
	}
	if n := uploads.Load(); n != 2 {
		t.Errorf("uploads = %d, want 2 (one lost response, one retry answered 412)", n)
	}
	// A lost response while a different object was there is still ErrExists.
	uploads.Store(0)
	if err := s.Create(ctx, "gs://out/x.parquet", []byte("other")); !errors.Is(err, derrors.ErrExists) {
		t.Errorf("Create(different bytes) = %v, want ErrExists", err)
	}
}

func TestTransientErrors(t *testing.T) {
	srv, p, _ := setup(t)
	srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "in", Name: "x"}, Content: []byte("x")})
	for _, code := range []int{429, 500, 503} {
		p.hook = func(w http.ResponseWriter, r *http.Request, _ http.Handler) bool {
			http.Error(w, "injected", code)
			return true
		}
		c, err := emulators.StorageClient(context.Background(), p.srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		c.SetRetry(storage.WithMaxAttempts(2), storage.WithBackoff(gaxBackoff()))
		_, err = New(c, Options{}).ReadAll(context.Background(), "gs://in/x")
		if !errors.Is(err, derrors.ErrTransient) {
			t.Errorf("ReadAll with HTTP %d = %v, want ErrTransient", code, err)
		}
		err = New(c, Options{}).Create(context.Background(), "gs://out/y", []byte("y"))
		if !errors.Is(err, derrors.ErrTransient) {
			t.Errorf("Create with HTTP %d = %v, want ErrTransient", code, err)
		}
		c.Close()
	}
	// One 503, then success: the client's retry makes it invisible.
	var n atomic.Int32
	p.hook = func(w http.ResponseWriter, r *http.Request, _ http.Handler) bool {
		if n.Add(1) == 1 {
			http.Error(w, "injected", http.StatusServiceUnavailable)
			return true
		}
		return false
	}
	c, _ := emulators.StorageClient(context.Background(), p.srv.URL)
	defer c.Close()
	if got, err := New(c, Options{}).ReadAll(context.Background(), "gs://in/x"); err != nil || string(got) != "x" {
		t.Errorf("ReadAll after one 503 = %q, %v; want retried success", got, err)
	}
}

// TestUserProject: userProject goes with requests to the buckets configured
// requester-pays, and with no other request.
func TestUserProject(t *testing.T) {
	srv, p, c := setup(t)
	srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "in", Name: "x"}, Content: []byte("x")})
	srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "other", Name: "x"}, Content: []byte("x")})
	ctx := context.Background()
	for i, tc := range []struct {
		opts Options
		want map[string]string // bucket -> userProject
	}{
		{Options{}, map[string]string{"in": "", "other": "", "out": ""}},
		{Options{UserProject: "billing-proj"}, map[string]string{"in": "", "other": "", "out": ""}},
		{Options{UserProject: "billing-proj", RequesterPays: []string{"in"}}, map[string]string{"in": "billing-proj", "other": "", "out": ""}},
	} {
		before := len(p.requests())
		s := New(c, tc.opts)
		for _, b := range []string{"in", "other"} {
			if _, err := s.ReadAll(ctx, "gs://"+b+"/x"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.List(ctx, "gs://"+b+"/*"); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Create(ctx, fmt.Sprintf("gs://out/u-%d", i), []byte("u")); err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, r := range p.requests()[before:] {
			g := emulators.ParseGCSRequest(r)
			want, ok := tc.want[g.Bucket]
			if !ok {
				t.Errorf("%+v: request %s %s to an unexpected bucket %q", tc.opts, g.Method, g.Path, g.Bucket)
				continue
			}
			seen[g.Bucket]++
			if g.UserProject != want {
				t.Errorf("%+v: request %s %s has userProject=%q, want %q", tc.opts, g.Method, g.Path, g.UserProject, want)
			}
		}
		for b := range tc.want {
			if seen[b] == 0 {
				t.Errorf("%+v: no request to bucket %s seen", tc.opts, b)
			}
		}
	}
}

// TestListRefusesDirectoryGlobs: glob characters outside the last element
// are a permanent error (the listing is by literal prefix).
func TestListRefusesDirectoryGlobs(t *testing.T) {
	_, _, c := setup(t)
	if got, err := New(c, Options{}).List(context.Background(), "gs://in/*/part-1.parquet"); !errors.Is(err, derrors.ErrPermanent) {
		t.Errorf("List(gs://in/*/part-1.parquet) = %q, %v; want a permanent error", got, err)
	}
}

// TestOpenGenerationAsksForIt: a range read of an opened generation asks
// GCS for that generation.
func TestOpenGenerationAsksForIt(t *testing.T) {
	srv, proxy, c := setup(t)
	ctx := context.Background()
	srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "in", Name: "m.parquet"}, Content: []byte("first")})
	s := New(c, Options{})
	o, err := s.Open(ctx, "gs://in/m.parquet")
	if err != nil {
		t.Fatal(err)
	}
	o1, err := s.OpenGeneration(ctx, "gs://in/m.parquet", blob.ObjectGeneration(o))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o1.ReadAt(make([]byte, 5), 0); err != nil {
		t.Fatal(err)
	}
	if r := proxy.requests(); !strings.Contains(r[len(r)-1].URL.RawQuery, "generation=") {
		t.Errorf("the range read did not ask for a generation: %s", r[len(r)-1].URL)
	}
}
