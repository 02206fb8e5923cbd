package hf_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// A proxy that drops both X-Linked-Size and X-Linked-Etag leaves only the
// ETag (the git id of the LFS pointer, not the content's sha256): the fetch
// takes the size from the lock and checks the bytes it downloads against
// the lock's sha256 (the tree listing's LFS oid). Its outputs are those of
// a fetch with the headers; a file whose bytes differ from the lock's hash
// fails, named, with both hashes.
func TestFetchWithoutLinkedETag(t *testing.T) {
	ctx := context.Background()
	files := afdbFiles(t, 2, 20, 8, false, 0)
	src, err := hf.ParseSource("hf://datasets/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	fetch := func(srv *hubtest.Server, out string) (*hf.FetchResult, error) {
		return hf.Fetch(ctx, testClient(srv, ""), hf.FetchOptions{Source: src, Out: out, Store: localblob.Store{}, Columns: hf.DefaultColumns, Concurrency: 2})
	}
	plain := hubtest.New(hubtest.Options{Repo: repo, Files: files})
	defer plain.Close()
	with := t.TempDir()
	if _, err := fetch(plain, with); err != nil {
		t.Fatal(err)
	}
	bare := hubtest.New(hubtest.Options{Repo: repo, Files: files, NoLinkedSize: true, NoLinkedETag: true})
	defer bare.Close()
	without := t.TempDir()
	res, err := fetch(bare, without)
	if err != nil || res.Fetched != 2 {
		t.Fatalf("Fetch without X-Linked-Size and X-Linked-Etag = %+v, %v; want 2 files fetched", res, err)
	}
	for _, f := range files {
		a, errA := os.ReadFile(filepath.Join(with, f.Path))
		b, errB := os.ReadFile(filepath.Join(without, f.Path))
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Errorf("%s differs without the X-Linked headers (%v, %v)", f.Path, errA, errB)
		}
	}

	// The same lock, then the served bytes change (same length): caught.
	tampered := t.TempDir()
	lock, err := os.ReadFile(filepath.Join(with, hf.LockName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tampered, hf.LockName), lock, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), files[1].Data...)
	bad[len(bad)/2] ^= 0xff
	bare.Tamper(bare.Commit(), files[1].Path, bad)
	_, err = fetch(bare, tampered)
	if err == nil || !errors.Is(err, derrors.ErrPermanent) || !strings.Contains(err.Error(), files[1].Path) || !strings.Contains(err.Error(), hubtest.SHA256(files[1].Data)) {
		t.Fatalf("Fetch of a file whose bytes differ from the lock's sha256 = %v; want a permanent error naming %s and the lock's sha256", err, files[1].Path)
	}
	if _, err := os.Stat(filepath.Join(tampered, files[1].Path)); err == nil {
		t.Errorf("%s was written although its bytes do not match the lock", files[1].Path)
	}
}
