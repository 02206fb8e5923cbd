package hf_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

const pubRepo = "foldcorpus/published"

// runFiles writes n files of distinct random content (sizes from min to
// max bytes) under dir/data and returns them as files to publish.
func runFiles(t *testing.T, dir string, n, minSize, maxSize int) []hf.PublishFile {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(maxSize)))
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := make([]hf.PublishFile, n)
	for i := range files {
		data := make([]byte, minSize+rng.IntN(maxSize-minSize+1))
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		name := fmt.Sprintf("train-%05d-of-%05d.parquet", i, n)
		p := filepath.Join(dir, "data", name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files[i] = hf.PublishFile{Path: "data/" + name, URI: p}
	}
	return files
}

func card() *hf.PublishFile {
	return &hf.PublishFile{Path: "README.md", Data: []byte("---\nlicense: cc-by-4.0\n---\n# a corpus\n")}
}

func publishOpts(files []hf.PublishFile) hf.PublishOptions {
	return hf.PublishOptions{Repo: pubRepo, Files: files, Card: card(), Exclusive: "data", Store: localblob.Store{}, Concurrency: 4}
}

func writeClient(srv *hubtest.Server) *hf.Client {
	return hf.New(hf.Options{Endpoint: srv.URL(), Token: "hf_write", BaseBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond})
}

// readBack checks that the branch holds every file byte for byte, the card
// included, and nothing else but .gitattributes.
func readBack(t *testing.T, srv *hubtest.Server, files []hf.PublishFile, cardFile *hf.PublishFile) {
	t.Helper()
	got := map[string][]byte{}
	for _, f := range srv.Files("") {
		got[f.Path] = f.Data
	}
	for _, f := range append(files, *cardFile) {
		want := f.Data
		if f.URI != "" {
			var err error
			if want, err = os.ReadFile(f.URI); err != nil {
				t.Fatal(err)
			}
		}
		if g, ok := got[f.Path]; !ok {
			t.Errorf("%s: not in the repository", f.Path)
		} else if hubtest.SHA256(g) != hubtest.SHA256(want) {
			t.Errorf("%s: sha256 %s in the repository, %s in the run", f.Path, hubtest.SHA256(g), hubtest.SHA256(want))
		}
		delete(got, f.Path)
	}
	delete(got, ".gitattributes")
	for p := range got {
		t.Errorf("%s: in the repository, not in the run", p)
	}
}

// checkOnce checks that every LFS object was uploaded once and every path
// committed once.
func checkOnce(t *testing.T, srv *hubtest.Server, files []hf.PublishFile) {
	t.Helper()
	wc := srv.WriteCounts()
	for _, f := range files {
		if n := wc.ObjectUploads[f.SHA256]; n != 1 {
			t.Errorf("%s: content uploaded %d times, want once", f.Path, n)
		}
		if n := wc.PathCommits[f.Path]; n != 1 {
			t.Errorf("%s: committed %d times, want once", f.Path, n)
		}
	}
}

// TestPublishManyShards publishes 1,000 files (each under 3 KB: the count
// is what matters) and reads every file back by sha256; the commits stay
// within the 100-file bound and their number within what the adaptive
// sizing (50, 75, then 100) gives: 11 data commits and the card's. A rerun
// uploads and commits nothing.
func TestPublishManyShards(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	files := runFiles(t, t.TempDir(), n, 500, 3000)
	srv := hubtest.New(hubtest.Options{Repo: pubRepo})
	defer srv.Close()
	o := publishOpts(files)
	var progress int
	o.OnProgress = func(hf.PublishProgress) { progress++ }
	res, err := hf.Publish(context.Background(), writeClient(srv), o)
	if err != nil {
		t.Fatal(err)
	}
	readBack(t, srv, o.Files, o.Card)
	checkOnce(t, srv, o.Files)
	wc := srv.WriteCounts()
	for i, s := range wc.CommitSizes {
		if s > 100 {
			t.Errorf("commit %d has %d files, want at most 100", i, s)
		}
	}
	// 50 + 75 + 100*k + rest, plus the card alone.
	want, left := 1, n
	for _, s := range []int{50, 75} {
		want, left = want+1, left-s
	}
	want += (left + 99) / 100
	if wc.Commits != want || res.Commits != want || wc.CommitSizes[len(wc.CommitSizes)-1] != 1 {
		t.Errorf("%d commits (sizes %v), want %d with the card alone last", wc.Commits, wc.CommitSizes, want)
	}
	t.Logf("%d files: %d commits, sizes %v; %d uploads, %d progress calls", n, wc.Commits, wc.CommitSizes, res.Uploaded, progress)
	if res.Uploaded != n || res.Commit != srv.Commit() || !strings.Contains(res.URL, res.Commit) || progress == 0 {
		t.Errorf("result %+v; branch at %s", res, srv.Commit())
	}

	again, err := hf.Publish(context.Background(), writeClient(srv), publishOpts(files))
	if err != nil {
		t.Fatal(err)
	}
	if again.Uploaded != 0 || again.Commits != 0 || again.AlreadyThere != n+1 || srv.WriteCounts().Commits != want {
		t.Errorf("rerun: %d uploaded, %d commits, %d already there; want 0, 0, %d", again.Uploaded, again.Commits, again.AlreadyThere, n+1)
	}
}

// TestPublishMultipartDropped sends files larger than the multipart
// threshold in 64 KiB parts while every third part PUT drops the connection
// mid-body: each dropped part is sent again, the objects assemble, and each
// is stored once.
func TestPublishMultipartDropped(t *testing.T) {
	files := runFiles(t, t.TempDir(), 4, 200<<10, 400<<10)
	srv := hubtest.New(hubtest.Options{Repo: pubRepo, Write: hubtest.WriteOptions{MultipartThreshold: 100 << 10, ChunkSize: 64 << 10, DropPartEvery: 3}})
	defer srv.Close()
	o := publishOpts(files)
	if _, err := hf.Publish(context.Background(), writeClient(srv), o); err != nil {
		t.Fatal(err)
	}
	readBack(t, srv, o.Files, o.Card)
	checkOnce(t, srv, o.Files)
	if wc := srv.WriteCounts(); wc.DroppedParts == 0 || wc.Parts < 4*4 {
		t.Errorf("%d parts stored, %d dropped: want multipart uploads with drops", wc.Parts, wc.DroppedParts)
	}
}

// TestPublishCommitFailsOnce: the first commit answers 500 after its LFS
// uploads; the retry commits, nothing is uploaded or committed twice.
func TestPublishCommitFailsOnce(t *testing.T) {
	files := runFiles(t, t.TempDir(), 30, 100, 2000)
	srv := hubtest.New(hubtest.Options{Repo: pubRepo, Write: hubtest.WriteOptions{FailCommits: 1}})
	defer srv.Close()
	o := publishOpts(files)
	if _, err := hf.Publish(context.Background(), writeClient(srv), o); err != nil {
		t.Fatal(err)
	}
	readBack(t, srv, o.Files, o.Card)
	checkOnce(t, srv, o.Files)
	if wc := srv.WriteCounts(); wc.FailedCommits != 1 {
		t.Errorf("%d failed commits, want 1", wc.FailedCommits)
	}
}

// TestPublishCommitAnswerLost: the first commit lands but its answer is
// lost (the connection drops); the retry is refused (412: the branch moved),
// Publish reads the branch, finds those files there and commits only the
// rest.
func TestPublishCommitAnswerLost(t *testing.T) {
	files := runFiles(t, t.TempDir(), 80, 100, 2000)
	srv := hubtest.New(hubtest.Options{Repo: pubRepo, Write: hubtest.WriteOptions{LoseCommitAnswers: 1}})
	defer srv.Close()
	o := publishOpts(files)
	res, err := hf.Publish(context.Background(), writeClient(srv), o)
	if err != nil {
		t.Fatal(err)
	}
	readBack(t, srv, o.Files, o.Card)
	checkOnce(t, srv, o.Files)
	if wc := srv.WriteCounts(); wc.LostAnswers != 1 || res.Refreshes != 1 {
		t.Errorf("%d lost answers, %d refreshes; want 1 and 1", wc.LostAnswers, res.Refreshes)
	}
}

// TestPublishPaced publishes with small API and commit quotas (10 API
// calls and 2 commits per 400 ms window): the RateLimit headers hold the
// requests under the quota with at most one 429 of each kind (before the
// first answer tells the quota), and the commits spread over the windows.
func TestPublishPaced(t *testing.T) {
	files := runFiles(t, t.TempDir(), 120, 100, 1000)
	window := 400 * time.Millisecond
	srv := hubtest.New(hubtest.Options{Repo: pubRepo, APIQuota: 10, Window: window, Write: hubtest.WriteOptions{CommitQuota: 2}})
	defer srv.Close()
	o := publishOpts(files)
	o.MaxCommitFiles = 20
	t0 := time.Now()
	res, err := hf.Publish(context.Background(), writeClient(srv), o)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	readBack(t, srv, o.Files, o.Card)
	c, wc := srv.Counts(), srv.WriteCounts()
	t.Logf("%d commits in %s; %d API 429s, %d commit 429s", wc.Commits, took, c.TooMany-int64(wc.TooManyCommits), wc.TooManyCommits)
	if c.TooMany > 2 || wc.TooManyCommits > 1 {
		t.Errorf("%d 429s (%d on commits): want at most one per quota", c.TooMany, wc.TooManyCommits)
	}
	if minWait := time.Duration((res.Commits-1)/2) * window; took < minWait*9/10 {
		t.Errorf("%d commits in %s: a quota of 2 per %s needs at least %s", res.Commits, took, window, minWait)
	}
}

// TestPublishRefusesForeign refuses a repository whose data folder holds a
// file of another run, naming it, before uploading anything.
func TestPublishRefusesForeign(t *testing.T) {
	files := runFiles(t, t.TempDir(), 3, 100, 200)
	srv := hubtest.New(hubtest.Options{Repo: pubRepo, Files: []hubtest.File{{Path: "data/old-00000-of-00001.parquet", Data: []byte("old")}}})
	defer srv.Close()
	_, err := hf.Publish(context.Background(), writeClient(srv), publishOpts(files))
	if err == nil || !strings.Contains(err.Error(), "data/old-00000-of-00001.parquet") {
		t.Fatalf("err = %v, want a refusal naming data/old-00000-of-00001.parquet", err)
	}
	if wc := srv.WriteCounts(); wc.Commits != 0 || len(wc.ObjectUploads) != 0 {
		t.Errorf("%d commits, %d uploads after the refusal", wc.Commits, len(wc.ObjectUploads))
	}
}

// TestPublishCreates creates the missing repository, private.
func TestPublishCreates(t *testing.T) {
	files := runFiles(t, t.TempDir(), 3, 100, 200)
	srv := hubtest.New(hubtest.Options{Repo: pubRepo, Write: hubtest.WriteOptions{Absent: true}})
	defer srv.Close()
	o := publishOpts(files)
	if _, err := hf.Publish(context.Background(), writeClient(srv), o); err == nil {
		t.Fatal("published to a repository that does not exist")
	}
	o.Create, o.Private = true, true
	res, err := hf.Publish(context.Background(), writeClient(srv), o)
	if err != nil {
		t.Fatal(err)
	}
	readBack(t, srv, o.Files, o.Card)
	if wc := srv.WriteCounts(); !res.Created || !wc.Created || !wc.Private {
		t.Errorf("created %v (server: %v, private %v)", res.Created, wc.Created, wc.Private)
	}
}

// TestPublishVerifies: a commit whose content differs from what was sent
// (the server corrupts one file) fails the verification, naming the file.
func TestPublishVerifies(t *testing.T) {
	files := runFiles(t, t.TempDir(), 5, 100, 200)
	var srv *hubtest.Server
	srv = hubtest.New(hubtest.Options{Repo: pubRepo, Write: hubtest.WriteOptions{OnCommit: func(commit string, n int) {
		if n > 1 {
			srv.Tamper(commit, files[2].Path, []byte("not the shard"))
		}
	}}})
	defer srv.Close()
	res, err := hf.Publish(context.Background(), writeClient(srv), publishOpts(files))
	if !errors.Is(err, hf.ErrDifferent) || len(res.Diffs) != 1 || res.Diffs[0].Path != files[2].Path {
		t.Fatalf("err = %v, diffs %v; want ErrDifferent naming %s", err, res.Diffs, files[2].Path)
	}
	for _, f := range srv.Files("") {
		if f.Path == "README.md" {
			t.Error("the card was committed although a file it describes differs")
		}
	}
	if !bytes.Contains([]byte(err.Error()), []byte(files[2].Path)) {
		t.Errorf("the error does not name the file: %v", err)
	}
}

// TestPublishGivenSHA256: a sha256 given with a file (a ledger's record)
// is used without reading the file whole; a wrong one is caught by the
// Hub's check of the upload, naming the file.
func TestPublishGivenSHA256(t *testing.T) {
	files := runFiles(t, t.TempDir(), 3, 100, 200)
	for i := range files {
		data, _ := os.ReadFile(files[i].URI)
		files[i].SHA256 = hubtest.SHA256(data)
	}
	srv := hubtest.New(hubtest.Options{Repo: pubRepo})
	defer srv.Close()
	o := publishOpts(files)
	if _, err := hf.Publish(context.Background(), writeClient(srv), o); err != nil {
		t.Fatal(err)
	}
	readBack(t, srv, o.Files, o.Card)

	bad := runFiles(t, t.TempDir(), 2, 300, 400)
	bad[1].SHA256 = hubtest.SHA256([]byte("something else"))
	srv2 := hubtest.New(hubtest.Options{Repo: pubRepo})
	defer srv2.Close()
	_, err := hf.Publish(context.Background(), writeClient(srv2), publishOpts(bad))
	if err == nil || !strings.Contains(err.Error(), bad[1].Path) || !strings.Contains(err.Error(), "HTTP 400") {
		t.Fatalf("err = %v, want the upload of %s refused", err, bad[1].Path)
	}
}

// TestPublishRetryAfter: a commit quota that sends no RateLimit headers,
// only a Retry-After on its 429s (the Hub's "rate limit for repository
// commits"), 2 commits per 2 s window: each 429 holds the commits until
// the Retry-After (up to 2 s, longer than the client's 1 s default), so
// there is at most one 429 per window, not a storm.
func TestPublishRetryAfter(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for 2 s windows")
	}
	files := runFiles(t, t.TempDir(), 50, 100, 500)
	srv := hubtest.New(hubtest.Options{Repo: pubRepo, Window: 2 * time.Second, Write: hubtest.WriteOptions{CommitQuota: 2, BareCommit429: true}})
	defer srv.Close()
	o := publishOpts(files)
	o.MaxCommitFiles = 10
	t0 := time.Now()
	res, err := hf.Publish(context.Background(), writeClient(srv), o)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	readBack(t, srv, o.Files, o.Card)
	wc := srv.WriteCounts()
	windows := int(took/(2*time.Second)) + 1
	t.Logf("%d commits in %s: %d commit 429s", res.Commits, took, wc.TooManyCommits)
	if wc.TooManyCommits > windows || res.Commits != 6 || took < 4*time.Second {
		t.Errorf("%d commits in %s with %d 429s: want 6 commits over at least 4 s and at most one 429 per window (%d)", res.Commits, took, wc.TooManyCommits, windows)
	}
}

// TestPublishExpiredURLs: the first LFS batch answer hands out signed
// upload URLs that have already expired (basic and multipart): the storage
// refuses them (403), Publish asks the batch API again for fresh ones, and
// each object is stored once.
func TestPublishExpiredURLs(t *testing.T) {
	files := append(runFiles(t, t.TempDir(), 3, 100, 200), runFiles(t, t.TempDir(), 2, 150<<10, 200<<10)...)
	for i := range files {
		files[i].Path = fmt.Sprintf("data/f%d.parquet", i)
	}
	srv := hubtest.New(hubtest.Options{Repo: pubRepo, Write: hubtest.WriteOptions{ExpiredUploads: 1, MultipartThreshold: 100 << 10, ChunkSize: 64 << 10}})
	defer srv.Close()
	o := publishOpts(files)
	if _, err := hf.Publish(context.Background(), writeClient(srv), o); err != nil {
		t.Fatal(err)
	}
	readBack(t, srv, o.Files, o.Card)
	checkOnce(t, srv, o.Files)
	if wc := srv.WriteCounts(); wc.ExpiredPuts < len(files) || wc.Batches < 2 {
		t.Errorf("%d PUTs refused as expired, %d batch requests: want every first PUT refused and a second batch", wc.ExpiredPuts, wc.Batches)
	}
}
