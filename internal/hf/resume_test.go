package hf_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// readTree returns every file under dir by relative path.
func readTree(tb testing.TB, dir string) map[string][]byte {
	tb.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = data
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestFetchResume interrupts a fetch after some files, reruns it, and
// compares outputs and lock byte for byte with an uninterrupted fetch; the
// rerun resolves only the missing files and lists nothing. When the branch
// has moved meanwhile, the rerun refuses (naming both commits) until the
// locked commit is asked for.
func TestFetchResume(t *testing.T) {
	files := afdbFiles(t, 12, 6, 3, false, 2000)
	srv := hubtest.New(hubtest.Options{Repo: repo, Files: files})
	defer srv.Close()
	src, _ := hf.ParseSource("hf://datasets/" + repo + "/data")
	fetch := func(ctx context.Context, src hf.Source, out string, onProgress func(hf.Progress)) (*hf.FetchResult, error) {
		return hf.Fetch(ctx, testClient(srv, ""), hf.FetchOptions{Source: src, Out: out, Store: localblob.Store{},
			Columns: hf.DefaultColumns, Concurrency: 2, OnProgress: onProgress})
	}

	whole := t.TempDir()
	if _, err := fetch(context.Background(), src, whole, nil); err != nil {
		t.Fatal(err)
	}

	part := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	_, err := fetch(ctx, src, part, func(p hf.Progress) {
		if p.Done >= 5 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted fetch: err = %v, want context.Canceled", err)
	}
	have := len(readTree(t, filepath.Join(part, "data")))
	if have < 5 || have >= 12 {
		t.Fatalf("after the interruption %d files exist, want 5 to 11", have)
	}

	// The branch moves: a rerun of @main must refuse.
	old := srv.Commit()
	srv.Push(afdbFiles(t, 13, 6, 3, false, 2000))
	_, err = fetch(context.Background(), src, part, nil)
	if !errors.Is(err, hf.ErrRevisionMoved) || !strings.Contains(err.Error(), old) || !strings.Contains(err.Error(), srv.Commit()) {
		t.Fatalf("rerun after the branch moved: err = %v, want ErrRevisionMoved naming %s and %s", err, old, srv.Commit())
	}

	// Rerun at the locked commit: only the missing files are resolved,
	// nothing is listed (one revision call), and the result is
	// byte-identical to the uninterrupted fetch, lock included.
	before := srv.Counts()
	pinned := src
	pinned.Revision = old
	res, err := fetch(context.Background(), pinned, part, nil)
	if err != nil {
		t.Fatal(err)
	}
	after := srv.Counts()
	if res.Fetched != 12-have || res.AlreadyDone != have || after.Resolves-before.Resolves != int64(12-have) || after.APICalls-before.APICalls != 1 {
		t.Errorf("rerun fetched %d, found %d done, resolved %d, API calls %d; want %d, %d, %d, 1",
			res.Fetched, res.AlreadyDone, after.Resolves-before.Resolves, after.APICalls-before.APICalls, 12-have, have, 12-have)
	}
	got, want := readTree(t, part), readTree(t, whole)
	if len(got) != len(want) || len(want) != 13 {
		t.Fatalf("rerun left %d files, the uninterrupted fetch %d (want 12 + lock)", len(got), len(want))
	}
	for name, w := range want {
		if !bytes.Equal(got[name], w) {
			t.Errorf("%s differs from the uninterrupted fetch's", name)
		}
	}

	// A done output that does not match the lock is named, not trusted.
	victim := filepath.Join(part, "data", "train-00003-of-00012.parquet")
	if err := os.WriteFile(victim, want[filepath.Join("data", "train-00004-of-00012.parquet")], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = fetch(context.Background(), pinned, part, nil)
	if !errors.Is(err, hf.ErrIncomplete) || !strings.Contains(err.Error(), "train-00003-of-00012.parquet") {
		t.Errorf("rerun over a swapped output: err = %v, want ErrIncomplete naming train-00003-of-00012.parquet", err)
	}
}
