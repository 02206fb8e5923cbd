// Package gcs implements blob.Store over Google Cloud Storage with the
// official client (cloud.google.com/go/storage), for gs:// URIs.
//
// Reads fetch whole objects to EOF and never trust a reported size: an object
// stored with Content-Encoding: gzip reports its compressed size while GCS
// serves it decompressed. Writes are create-only (ifGenerationMatch=0); when
// the client's own retry of an upload meets 412 Precondition Failed, the
// existing object is read back and compared with what we meant to write, so a
// lost response to a successful first attempt is not reported as a failure.
//
// SDK errors are translated to the sentinels of internal/derrors: not found,
// already exists, and transient for 429, 5xx, deadlines and broken
// connections. Everything else is returned as is (permanent).
package gcs

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Options configure a Store. The zero value is valid.
type Options struct {
	// UserProject is billed for requests to the buckets in RequesterPays and
	// is sent (as userProject) with those requests only: a userProject on a
	// request needs serviceusage.services.use on that project even when the
	// bucket is not requester-pays, and bills the reads to it.
	UserProject string
	// RequesterPays names the buckets configured as requester-pays. Requests
	// to other buckets never carry UserProject; empty means the bucket owner
	// pays everywhere.
	RequesterPays []string
	// MaxObjectBytes caps the size of an object read by ReadAll (decompressed
	// bytes, counted while reading); 0 means no cap. A larger object is a
	// permanent error.
	MaxObjectBytes int64
	// AllowedBuckets, when non-empty, is the list of buckets the store may
	// touch; any other bucket is a permanent error (cloud mode accepts only
	// configured buckets).
	AllowedBuckets []string
}

// Store is a blob.Store over GCS. It is safe for concurrent use; it does not
// own the client (the caller closes it).
type Store struct {
	client *storage.Client
	opts   Options
}

var (
	_ blob.Store            = (*Store)(nil)
	_ blob.GenerationOpener = (*Store)(nil)
)

// New returns a Store using client.
func New(client *storage.Client, opts Options) *Store {
	return &Store{client: client, opts: opts}
}

// ParseURI splits gs://bucket/object. It rejects other schemes, empty bucket
// or object names, and (when allowed is non-empty) buckets not in allowed.
// Errors wrap derrors.ErrPermanent.
func ParseURI(uri string, allowed []string) (bucket, object string, err error) {
	rest, ok := strings.CutPrefix(uri, "gs://")
	if !ok {
		return "", "", derrors.Permanent(fmt.Errorf("not a gs:// URI: %q", uri))
	}
	bucket, object, _ = strings.Cut(rest, "/")
	if bucket == "" || object == "" || strings.ContainsAny(bucket, "?#\\ ") {
		return "", "", derrors.Permanent(fmt.Errorf("malformed gs:// URI (want gs://BUCKET/OBJECT): %q", uri))
	}
	if len(allowed) > 0 && !contains(allowed, bucket) {
		return "", "", derrors.Permanent(fmt.Errorf("bucket %q of %q is not an allowed input bucket", bucket, uri))
	}
	return bucket, object, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (s *Store) handle(uri string) (*storage.ObjectHandle, error) {
	b, o, err := ParseURI(uri, s.opts.AllowedBuckets)
	if err != nil {
		return nil, err
	}
	return s.bucket(b).Object(o), nil
}

// bucket is the handle of bucket b, billed to UserProject when b is
// configured requester-pays.
func (s *Store) bucket(b string) *storage.BucketHandle {
	bh := s.client.Bucket(b)
	if s.opts.UserProject != "" && contains(s.opts.RequesterPays, b) {
		bh = bh.UserProject(s.opts.UserProject)
	}
	return bh
}

// ReadAll returns the whole object, read to EOF. It is idempotent and safe
// for concurrent use; the client retries transient failures itself, and what
// still fails is returned wrapping derrors.ErrTransient.
func (s *Store) ReadAll(ctx context.Context, uri string) (_ []byte, err error) {
	defer derrors.Wrap(&err, "gcs.ReadAll(%s)", uri)
	h, err := s.handle(uri)
	if err != nil {
		return nil, err
	}
	r, err := h.NewReader(ctx)
	if err != nil {
		return nil, translate(err)
	}
	defer r.Close()
	var src io.Reader = r
	if s.opts.MaxObjectBytes > 0 {
		src = io.LimitReader(r, s.opts.MaxObjectBytes+1)
	}
	data, err := io.ReadAll(src)
	if err != nil {
		return nil, translate(err)
	}
	if s.opts.MaxObjectBytes > 0 && int64(len(data)) > s.opts.MaxObjectBytes {
		return nil, derrors.Permanent(fmt.Errorf("object larger than the cap of %d bytes", s.opts.MaxObjectBytes))
	}
	return data, nil
}

// Open returns a random-access view for range reads (parquet footers). It
// refuses objects stored with a Content-Encoding: GCS serves them whole and
// decompressed whatever range is asked, so offsets would be meaningless.
func (s *Store) Open(ctx context.Context, uri string) (_ blob.Object, err error) {
	defer derrors.Wrap(&err, "gcs.Open(%s)", uri)
	return s.open(ctx, uri, 0)
}

// OpenGeneration is Open of one generation of the object
// (blob.GenerationOpener). A generation that no longer exists (the object
// was overwritten or deleted, in a bucket without versioning) gives an error
// wrapping derrors.ErrNotFound.
func (s *Store) OpenGeneration(ctx context.Context, uri string, generation int64) (_ blob.Object, err error) {
	defer derrors.Wrap(&err, "gcs.OpenGeneration(%s, %d)", uri, generation)
	if generation <= 0 {
		return nil, derrors.Permanent(fmt.Errorf("invalid generation %d", generation))
	}
	return s.open(ctx, uri, generation)
}

// open opens the live object (generation 0) or the given generation.
func (s *Store) open(ctx context.Context, uri string, generation int64) (blob.Object, error) {
	h, err := s.handle(uri)
	if err != nil {
		return nil, err
	}
	if generation > 0 {
		h = h.Generation(generation)
	}
	attrs, err := h.Attrs(ctx)
	if err != nil {
		return nil, translate(err)
	}
	if attrs.ContentEncoding != "" && attrs.ContentEncoding != "identity" {
		return nil, derrors.Permanent(fmt.Errorf("object has Content-Encoding %q; range reads need an unencoded object", attrs.ContentEncoding))
	}
	// Pin the generation so every range read sees the same object.
	return &object{ctx: ctx, h: h.Generation(attrs.Generation), size: attrs.Size, uri: uri, gen: attrs.Generation}, nil
}

// Create writes data as a new object, create-only. The upload is a single
// request (atomic: readers see nothing or the whole object) carrying a
// CRC32C the server checks. If the object exists it returns an error
// wrapping derrors.ErrExists and leaves the object untouched, except when
// the existing object holds exactly data (checked by reading it back and
// comparing SHA-256): that is our own earlier attempt whose response was
// lost, and Create returns nil. Transient upload failures are retried here
// (4 attempts with backoff; each attempt is create-only, so a retry can only
// meet our own object). Safe to call again.
func (s *Store) Create(ctx context.Context, uri string, data []byte) (err error) {
	defer derrors.Wrap(&err, "gcs.Create(%s)", uri)
	h, err := s.handle(uri)
	if err != nil {
		return err
	}
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err = s.create(ctx, h, data)
		if err == nil || !errors.Is(err, derrors.ErrTransient) || attempt == createAttempts {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (after attempt %d: %w)", ctx.Err(), attempt, err)
		case <-time.After(backoff):
		}
		backoff *= 2
	}
	if !errors.Is(err, derrors.ErrExists) {
		return err
	}
	same, verr := s.sameContent(ctx, h, data)
	if verr != nil {
		return fmt.Errorf("verifying existing object: %w (after %w)", verr, err)
	}
	if !same {
		return err
	}
	return nil
}

// createAttempts bounds Create's own retries of transient upload failures
// (the client cannot retry a single-request upload by itself).
const createAttempts = 4

func (s *Store) create(ctx context.Context, h *storage.ObjectHandle, data []byte) error {
	w := h.If(storage.Conditions{DoesNotExist: true}).NewWriter(ctx)
	w.ChunkSize = 0 // one request, no resumable session
	w.ContentType = "application/octet-stream"
	w.CRC32C = crc32c(data)
	w.SendCRC32C = true
	if _, err := w.Write(data); err != nil {
		w.Close()
		return translate(err)
	}
	return translate(w.Close())
}

// sameContent reads the object back and compares it with data.
func (s *Store) sameContent(ctx context.Context, h *storage.ObjectHandle, data []byte) (bool, error) {
	r, err := h.ReadCompressed(true).NewReader(ctx)
	if err != nil {
		return false, translate(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		return false, translate(err)
	}
	return sha256.Sum256(got) == sha256.Sum256(data), nil
}

// List returns the gs:// URIs matching pattern, sorted. Glob metacharacters
// (path.Match syntax) may appear only in the last path element; the listing
// uses the literal prefix before the first metacharacter.
func (s *Store) List(ctx context.Context, pattern string) (_ []string, err error) {
	defer derrors.Wrap(&err, "gcs.List(%s)", pattern)
	b, o, err := ParseURI(pattern, s.opts.AllowedBuckets)
	if err != nil {
		return nil, err
	}
	dir := path.Dir(o)
	if strings.ContainsAny(dir, "*?[") {
		return nil, derrors.Permanent(fmt.Errorf("glob metacharacters only allowed in the last element"))
	}
	if _, err := path.Match(o, ""); err != nil {
		return nil, derrors.Permanent(fmt.Errorf("bad pattern: %w", err))
	}
	prefix := o
	if i := strings.IndexAny(o, "*?[\\"); i >= 0 {
		prefix = o[:i]
	}
	it := s.bucket(b).Objects(ctx, &storage.Query{Prefix: prefix, Projection: storage.ProjectionNoACL})
	var out []string
	for {
		attrs, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return nil, translate(err)
		}
		if ok, _ := path.Match(o, attrs.Name); ok {
			out = append(out, "gs://"+b+"/"+attrs.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// BucketLocation returns the bucket's location as GCS reports it (e.g.
// US-CENTRAL1, US, NAM4). It needs storage.buckets.get on the bucket.
// Read-only; errors are translated like every other call.
func (s *Store) BucketLocation(ctx context.Context, bucket string) (_ string, err error) {
	defer derrors.Wrap(&err, "gcs.BucketLocation(%s)", bucket)
	attrs, err := s.bucket(bucket).Attrs(ctx)
	if err != nil {
		return "", translate(err)
	}
	return attrs.Location, nil
}

// URI returns gs://bucket/object with the object name kept verbatim.
func URI(bucket, object string) string { return "gs://" + bucket + "/" + object }

// object is a blob.Object doing one ranged GET per ReadAt.
type object struct {
	ctx  context.Context
	h    *storage.ObjectHandle
	size int64
	uri  string
	gen  int64
	read atomic.Int64
}

var _ blob.Generationed = (*object)(nil)

func (o *object) Size() int64       { return o.size }
func (o *object) Generation() int64 { return o.gen }
func (o *object) BytesRead() int64  { return o.read.Load() }
func (o *object) Close() error      { return nil }

// ReadAt reads len(p) bytes at off with one range request. Safe for
// concurrent use (io.ReaderAt).
func (o *object) ReadAt(p []byte, off int64) (n int, err error) {
	if off < 0 {
		return 0, fmt.Errorf("gcs: ReadAt(%s): negative offset", o.uri)
	}
	if off >= o.size {
		return 0, io.EOF
	}
	want := int64(len(p))
	if off+want > o.size {
		want = o.size - off
	}
	r, err := o.h.NewRangeReader(o.ctx, off, want)
	if err != nil {
		return 0, fmt.Errorf("gcs: ReadAt(%s, %d): %w", o.uri, off, translate(err))
	}
	defer r.Close()
	n, err = io.ReadFull(r, p[:want])
	o.read.Add(int64(n))
	if err != nil {
		return n, fmt.Errorf("gcs: ReadAt(%s, %d): %w", o.uri, off, translate(err))
	}
	if want < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}
