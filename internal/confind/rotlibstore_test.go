package confind

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/harness/stores"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// miniRotlib is the shared corpus's golden mini rotamer library; without
// the corpus the test skips (fails under FOLDCORPUS_REQUIRE_CORPUS=1).
func miniRotlib(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(testcorpus.Dir(tb), "golden", "confind-mini-rotlib")
}

// TestLoadLibraryFrom: the mini library read through the local store and
// through GCS (fake-gcs-server) is the library LoadLibrary reads from the
// folder; a missing or malformed object is refused naming the object (and
// the line).
func TestLoadLibraryFrom(t *testing.T) {
	mini := miniRotlib(t)
	want, err := LoadLibrary(mini)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, n := range []string{"EBL.out", "BEBL.out"} {
		b, err := os.ReadFile(mini + "/" + n)
		if err != nil {
			t.Fatal(err)
		}
		files["lib/"+n] = b
	}
	objects := map[string][]byte{
		"lib/EBL.out": files["lib/EBL.out"], "lib/BEBL.out": files["lib/BEBL.out"],
		"nobebl/EBL.out": files["lib/EBL.out"],
		"bad/EBL.out":    files["lib/EBL.out"], "bad/BEBL.out": []byte(okBEBL + "BIN 10 10\n"),
	}
	stores := map[string]func(t *testing.T) blobtest.Harness{
		"local": func(t *testing.T) blobtest.Harness { return stores.Local(t, objects, "file://") },
		"gcs": func(t *testing.T) blobtest.Harness {
			h, _ := stores.FakeGCS(t, objects, gcs.Options{})
			return h
		},
	}
	for name, mk := range stores {
		t.Run(name, func(t *testing.T) {
			h := mk(t)
			ctx := context.Background()
			dir := strings.TrimSuffix(h.URI("lib/EBL.out"), "/EBL.out")
			got, err := LoadLibraryFrom(ctx, h.Store, dir+"/")
			if err != nil {
				t.Fatal(err)
			}
			got.Dir = want.Dir
			if !reflect.DeepEqual(got, want) {
				t.Errorf("LoadLibraryFrom(%s) differs from LoadLibrary(%s)", dir, mini)
			}
			nob := strings.TrimSuffix(h.URI("nobebl/EBL.out"), "/EBL.out")
			if _, err := LoadLibraryFrom(ctx, h.Store, nob); !errors.Is(err, ErrLibrary) || !errors.Is(err, derrors.ErrPermanent) ||
				!strings.Contains(err.Error(), nob+"/BEBL.out") {
				t.Errorf("missing BEBL.out: %v", err)
			}
			bad := strings.TrimSuffix(h.URI("bad/EBL.out"), "/EBL.out")
			if _, err := LoadLibraryFrom(ctx, h.Store, bad); !errors.Is(err, ErrLibrary) ||
				!strings.Contains(err.Error(), bad+"/BEBL.out:") {
				t.Errorf("malformed BEBL.out: %v", err)
			}
		})
	}
}

// flaky fails its first opens and reads transiently and counts them.
type flaky struct {
	blob.Store
	fail  atomic.Int32
	reads atomic.Int32
	// failReadAt: the next objects opened fail their range reads (cutObject).
	failReadAt atomic.Int32
}

func (f *flaky) ReadAll(ctx context.Context, uri string) ([]byte, error) {
	f.reads.Add(1)
	if f.fail.Add(-1) >= 0 {
		return nil, derrors.Transient(errors.New("503"))
	}
	return f.Store.ReadAll(ctx, uri)
}

func (f *flaky) Open(ctx context.Context, uri string) (blob.Object, error) {
	f.reads.Add(1)
	if f.fail.Add(-1) >= 0 {
		return nil, derrors.Transient(errors.New("503"))
	}
	o, err := f.Store.Open(ctx, uri)
	if err != nil || f.failReadAt.Add(-1) < 0 {
		return o, err
	}
	return cutObject{o}, nil
}

// cutObject fails every range read past its first bytes transiently (a
// connection reset in the middle of an object).
type cutObject struct{ blob.Object }

func (c cutObject) ReadAt(p []byte, off int64) (int, error) {
	if off > 0 {
		return 0, derrors.Transient(errors.New("connection reset"))
	}
	return c.Object.ReadAt(p[:min(len(p), 100)], off)
}

// TestLoadLibraryFromCutRead: a transient failure in the middle of an
// object's read is transient, not a malformed library; read again, the
// library loads.
func TestLoadLibraryFromCutRead(t *testing.T) {
	mini := miniRotlib(t)
	f := &flaky{Store: stores.Local(t, nil, "").Store}
	f.failReadAt.Store(1)
	ctx := context.Background()
	if _, err := LoadLibraryFrom(ctx, f, mini); !errors.Is(err, derrors.ErrTransient) || errors.Is(err, ErrLibrary) ||
		!strings.Contains(err.Error(), mini+"/EBL.out") {
		t.Fatalf("LoadLibraryFrom with a cut read = %v, want a transient error naming EBL.out", err)
	}
	if _, err := LoadLibraryFrom(ctx, f, mini); err != nil {
		t.Fatalf("LoadLibraryFrom again = %v", err)
	}
}

// TestSharedFrom: one load per process and uri; a transient failure is
// returned as transient and not kept, a permanent one is kept.
func TestSharedFrom(t *testing.T) {
	mini := miniRotlib(t)
	h := stores.Local(t, nil, "")
	ctx := context.Background()
	f := &flaky{Store: h.Store}
	f.fail.Store(2)     // the open, and the whole read it falls back to
	uri := mini + "/./" // a key no other test uses
	if _, err := SharedFrom(ctx, f, uri); !errors.Is(err, derrors.ErrTransient) || errors.Is(err, ErrLibrary) {
		t.Fatalf("first SharedFrom = %v, want a transient error", err)
	}
	a, err := SharedFrom(ctx, f, uri)
	if err != nil {
		t.Fatalf("second SharedFrom = %v", err)
	}
	n := f.reads.Load()
	b, err := SharedFrom(ctx, f, uri)
	if err != nil || a != b || f.reads.Load() != n {
		t.Errorf("third SharedFrom = %p, %v after %d reads, want %p without reading (%d reads)", b, err, n, a, f.reads.Load())
	}
	missing := t.TempDir()
	_, err1 := SharedFrom(ctx, f, missing)
	n = f.reads.Load()
	_, err2 := SharedFrom(ctx, f, missing)
	if !errors.Is(err1, ErrLibrary) || err1 != err2 || f.reads.Load() != n {
		t.Errorf("missing library: %v then %v (%d reads, then %d)", err1, err2, n, f.reads.Load())
	}
}
