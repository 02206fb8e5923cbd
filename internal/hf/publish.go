package hf

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// PublishOptions configure Publish.
type PublishOptions struct {
	Repo   string // OWNER/NAME of a dataset repository
	Branch string // "main" when empty
	// Files are published first, in bounded commits.
	Files []PublishFile
	// Card (README.md), when set, is committed alone after every file of
	// Files is verified in the repository, so the repository never shows
	// a card describing files that are not there.
	Card *PublishFile
	// Exclusive is a folder of the repository that must hold only files
	// of Files (the data folder the card's globs name): Publish refuses a
	// repository with other files there.
	Exclusive string
	Store     blob.Store // serves the files' URIs
	// Create creates the repository first (Private or public) when it does
	// not exist.
	Create, Private bool
	// Concurrency bounds the LFS uploads in flight (8 when 0).
	Concurrency int
	// MaxCommitFiles bounds the files of one commit (100 when 0: the
	// Hub's recommendation). The size starts at 50 (or the bound) and, as
	// in huggingface_hub's upload_large_folder, moves up the scale 20, 50,
	// 75, 100, 125, 200, ... after a full commit that took under 40 s, and
	// down after a failed one.
	MaxCommitFiles int
	// Message starts every commit's summary ("foldcorpus publish" when empty).
	Message string
	// OnProgress, when set, is called after every upload step and commit,
	// from several goroutines, never at once.
	OnProgress func(PublishProgress)
}

// PublishProgress is where a Publish stands.
type PublishProgress struct {
	Files, Committed int   // files to commit in this call, committed so far
	Bytes, BytesDone int64 // LFS bytes to upload, uploaded (or found stored) so far
	Commits          int
	Rate             float64 // bytes uploaded per second
	ETA              time.Duration
	Stage            string // "upload", "commit", "verify", "card"
}

// PublishResult is what a Publish did.
type PublishResult struct {
	Commit       string // the branch's commit after the last commit (verified)
	URL          string // the tree at Commit
	Created      bool   // the repository was created
	Files        int    // files in the run (card included)
	AlreadyThere int    // files the repository already held, byte for byte
	Stored       int    // LFS objects the store already held (an interrupted run's uploads)
	Uploaded     int    // LFS objects uploaded
	UploadBytes  int64
	Commits      int
	CommitSizes  []int
	Refreshes    int // times the branch was read again after a failed commit
	Diffs        []Difference
	Wall         time.Duration
}

// ErrDifferent is wrapped by Publish's error when the repository, read
// back after the last commit, differs from the run (PublishResult.Diffs).
var ErrDifferent = errors.New("the repository differs from the run")

// Publish publishes files to a dataset repository as the Hub's own client
// does: preupload to learn which files go to LFS, the LFS batch API
// (multipart for large files) for their content, then commits of a bounded
// number of files, each naming its parent commit; the card last.
//
// It is resumable: it reads the branch's tree first and publishes only the
// files the repository does not hold with the same sha256 (or git blob id),
// and the LFS batch API skips the content of objects already stored; a
// rerun after any interruption uploads nothing twice. A failed commit is
// retried on 5xx (the parent commit keeps a retry from applying it twice);
// after one that failed for good, or whose answer was lost, Publish reads
// the branch again to learn what landed before committing the rest.
// After the last commit it lists the tree at that commit and compares
// every file's size and sha256; a difference is an error wrapping
// ErrDifferent. Requests are paced by the Hub's RateLimit headers. Not
// safe to run concurrently on the same branch (commits would race: each
// refuses the other's parent and Publish would read and retry).
func Publish(ctx context.Context, c *Client, o PublishOptions) (res *PublishResult, err error) {
	defer derrors.Wrap(&err, "hf.Publish(%s)", o.Repo)
	start := time.Now()
	if o.Branch == "" {
		o.Branch = DefaultRevision
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	if o.MaxCommitFiles <= 0 {
		o.MaxCommitFiles = 100
	}
	if o.Message == "" {
		o.Message = "foldcorpus publish"
	}
	res = &PublishResult{}
	defer func() { res.Wall = time.Since(start) }()
	all := make([]*PublishFile, 0, len(o.Files)+1)
	seen := map[string]bool{}
	for i := range o.Files {
		all = append(all, &o.Files[i])
	}
	if o.Card != nil {
		all = append(all, o.Card)
	}
	for _, f := range all {
		if f.Path == "" || strings.HasPrefix(f.Path, "/") || seen[f.Path] {
			return res, derrors.Permanent(fmt.Errorf("bad or repeated repository path %q", f.Path))
		}
		seen[f.Path] = true
	}
	res.Files = len(all)
	if o.Create {
		if res.Created, err = c.CreateRepo(ctx, o.Repo, o.Private); err != nil {
			return res, err
		}
	}
	if err := HashFiles(ctx, o.Store, o.Files, o.Concurrency); err != nil {
		return res, err
	}
	if o.Card != nil {
		cp := []PublishFile{*o.Card}
		if err := HashFiles(ctx, o.Store, cp, 1); err != nil {
			return res, err
		}
		*o.Card = cp[0]
	}
	p := &publisher{c: c, o: o, res: res, start: start}
	tree, err := p.refresh(ctx)
	if err != nil {
		return res, err
	}
	if names := foreign(tree, o.Exclusive, o.Files); len(names) > 0 {
		return res, derrors.Permanent(fmt.Errorf("%s/ in the repository holds %d files that are not in this run (%s): the card's data_files would name them too; publish to another folder, or remove them first",
			o.Exclusive, len(names), strings.Join(names[:min(len(names), 5)], ", ")))
	}
	data := all[:len(o.Files)]
	todo, _, err := compare(ctx, o.Store, all, tree)
	if err != nil {
		return res, err
	}
	res.AlreadyThere = len(all) - len(todo)
	if err := p.preupload(ctx, todo); err != nil {
		return res, err
	}
	var todoData, todoCard []*PublishFile
	for _, f := range todo {
		if f == o.Card {
			todoCard = append(todoCard, f)
		} else {
			todoData = append(todoData, f)
		}
	}
	if err := p.commitAll(ctx, todoData); err != nil {
		return res, err
	}
	if o.Card != nil {
		// The card goes in only once every file it describes is there.
		p.stage("verify")
		tree, err := c.Tree(ctx, o.Repo, p.head, "")
		if err != nil {
			return res, err
		}
		if _, diffs, err := compare(ctx, o.Store, data, tree); err != nil || len(diffs) > 0 {
			res.Diffs = diffs
			return res, errors.Join(err, fmt.Errorf("%w before the card (%d files): %v", ErrDifferent, len(diffs), firstDiffs(diffs)))
		}
		if err := p.commitAll(ctx, todoCard); err != nil {
			return res, err
		}
	}
	p.stage("verify")
	tree, err = c.Tree(ctx, o.Repo, p.head, "")
	if err != nil {
		return res, err
	}
	res.Commit, res.URL = p.head, fmt.Sprintf("%s/datasets/%s/tree/%s", c.endpoint, o.Repo, p.head)
	_, res.Diffs, err = compare(ctx, o.Store, all, tree)
	if err != nil {
		return res, err
	}
	if len(res.Diffs) > 0 {
		return res, fmt.Errorf("%w at commit %s (%d files): %v", ErrDifferent, p.head, len(res.Diffs), firstDiffs(res.Diffs))
	}
	return res, nil
}

func firstDiffs(d []Difference) []Difference { return d[:min(len(d), 5)] }

// commitScale is huggingface_hub's COMMIT_SIZE_SCALE.
var commitScale = []int{20, 50, 75, 100, 125, 200, 250, 400, 600, 1000}

type commitSizer struct{ idx, max int }

func (s *commitSizer) target() int { return min(commitScale[s.idx], s.max) }

func (s *commitSizer) update(ok bool, n int, took time.Duration) {
	switch {
	case !ok:
		s.idx--
	case n >= commitScale[s.idx] && took < 40*time.Second && commitScale[s.idx] < s.max:
		s.idx++
	}
	s.idx = max(0, min(s.idx, len(commitScale)-1))
}

type publisher struct {
	c     *Client
	o     PublishOptions
	res   *PublishResult
	start time.Time
	head  string
	modes map[string]string
	sizer commitSizer

	mu   sync.Mutex
	prog PublishProgress
}

// refresh reads the branch's head and its tree.
func (p *publisher) refresh(ctx context.Context) ([]Entry, error) {
	head, err := p.c.Revision(ctx, p.o.Repo, p.o.Branch)
	if err != nil {
		return nil, err
	}
	tree, err := p.c.Tree(ctx, p.o.Repo, head, "")
	if err != nil {
		return nil, err
	}
	p.head = head
	return tree, nil
}

func (p *publisher) preupload(ctx context.Context, todo []*PublishFile) error {
	cands := make([]UploadCandidate, 0, len(todo))
	for _, f := range todo {
		cands = append(cands, UploadCandidate{Path: f.Path, Size: f.Size, SHA256: f.SHA256, Sample: f.sample})
	}
	modes, err := p.c.Preupload(ctx, p.o.Repo, p.o.Branch, cands)
	if err != nil {
		return err
	}
	p.modes = modes
	p.prog.Files = len(todo)
	for _, f := range todo {
		if modes[f.Path] == "lfs" {
			p.prog.Bytes += f.Size
		}
	}
	idx := 0
	for idx+1 < len(commitScale) && commitScale[idx+1] <= min(50, p.o.MaxCommitFiles) {
		idx++
	}
	p.sizer = commitSizer{idx: idx, max: p.o.MaxCommitFiles}
	return nil
}

// commitAll uploads and commits todo in bounded commits.
func (p *publisher) commitAll(ctx context.Context, todo []*PublishFile) error {
	failures := 0
	for len(todo) > 0 {
		n := min(p.sizer.target(), len(todo))
		batch := todo[:n]
		if err := p.upload(ctx, batch); err != nil {
			return err
		}
		ops, err := p.ops(ctx, batch)
		if err != nil {
			return err
		}
		p.stage("commit")
		t0 := time.Now()
		info, err := p.c.Commit(ctx, p.o.Repo, p.o.Branch, p.head, fmt.Sprintf("%s: %d files", p.o.Message, n), ops)
		if err == nil {
			p.head = info.OID
			todo = todo[n:]
			p.sizer.update(true, n, time.Since(t0))
			failures = 0
			p.mu.Lock()
			p.res.Commits++
			p.res.CommitSizes = append(p.res.CommitSizes, n)
			p.prog.Commits++
			p.prog.Committed += n
			p.mu.Unlock()
			p.report()
			continue
		}
		if ctx.Err() != nil {
			return err
		}
		failures++
		if failures > 5 {
			return fmt.Errorf("%d commits in a row failed; the last: %w", failures, err)
		}
		if !IsStatus(err, http.StatusPreconditionFailed) {
			p.sizer.update(false, n, time.Since(t0))
		}
		// Learn what landed: a commit whose answer was lost is there; one
		// refused (412) because the branch moved is not.
		p.res.Refreshes++
		tree, rerr := p.refresh(ctx)
		if rerr != nil {
			return errors.Join(err, rerr)
		}
		before := len(todo)
		if todo, _, rerr = compare(ctx, p.o.Store, todo, tree); rerr != nil {
			return errors.Join(err, rerr)
		}
		if landed := before - len(todo); landed > 0 {
			p.mu.Lock()
			p.prog.Committed += landed
			p.mu.Unlock()
		}
	}
	return nil
}

// upload uploads the LFS content of batch that the store does not hold.
func (p *publisher) upload(ctx context.Context, batch []*PublishFile) error {
	byOID := map[string]*PublishFile{}
	for _, f := range batch {
		if p.modes[f.Path] == "lfs" {
			byOID[f.SHA256] = f
		}
	}
	if len(byOID) == 0 {
		return nil
	}
	p.stage("upload")
	oids := make([]string, 0, len(byOID))
	for oid := range byOID {
		oids = append(oids, oid)
	}
	sort.Strings(oids)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.o.Concurrency)
	for start := 0; start < len(oids); start += 100 {
		ask := map[string]int64{}
		for _, oid := range oids[start:min(start+100, len(oids))] {
			ask[oid] = byOID[oid].Size
		}
		objs, err := p.c.LFSBatch(gctx, p.o.Repo, p.o.Branch, ask)
		if err != nil {
			_ = g.Wait()
			return err
		}
		for _, obj := range objs {
			f := byOID[obj.OID]
			if obj.Error != nil {
				_ = g.Wait()
				return derrors.Permanent(fmt.Errorf("%s: the LFS batch API refused it: %d %s", f.Path, obj.Error.Code, obj.Error.Message))
			}
			if obj.Upload == nil {
				p.mu.Lock()
				p.res.Stored++
				p.prog.BytesDone += f.Size
				p.mu.Unlock()
				continue
			}
			g.Go(func() error { return p.uploadOne(gctx, f, obj) })
		}
	}
	return g.Wait()
}

// uploadOne uploads one object. Signed storage URLs expire (403 from the
// storage): then it asks the batch API again for fresh ones, twice at most.
func (p *publisher) uploadOne(ctx context.Context, f *PublishFile, obj LFSObject) error {
	r, closeFn, err := f.open(ctx, p.o.Store)
	if err != nil {
		return err
	}
	defer closeFn()
	for renewed := 0; ; renewed++ {
		err = p.c.UploadLFS(ctx, obj, r, func(n int64) {
			p.mu.Lock()
			p.prog.BytesDone += n
			p.res.UploadBytes += n
			p.mu.Unlock()
			p.report()
		})
		var he *HTTPError
		if err == nil || renewed == 2 || !errors.As(err, &he) || !he.CDN || he.Status != http.StatusForbidden {
			break
		}
		objs, berr := p.c.LFSBatch(ctx, p.o.Repo, p.o.Branch, map[string]int64{f.SHA256: f.Size})
		if berr != nil {
			return errors.Join(fmt.Errorf("uploading %s: %w", f.Path, err), berr)
		}
		if obj = objs[0]; obj.Upload == nil {
			break // stored after all (an upload that landed before its URL expired)
		}
	}
	if err != nil {
		return fmt.Errorf("uploading %s: %w", f.Path, err)
	}
	p.mu.Lock()
	p.res.Uploaded++
	p.mu.Unlock()
	return nil
}

// ops are the commit operations of batch (regular files carry their content).
func (p *publisher) ops(ctx context.Context, batch []*PublishFile) ([]CommitOp, error) {
	ops := make([]CommitOp, 0, len(batch))
	for _, f := range batch {
		if p.modes[f.Path] == "lfs" {
			ops = append(ops, CommitOp{Path: f.Path, LFS: true, OID: f.SHA256, Size: f.Size})
			continue
		}
		data, err := f.content(ctx, p.o.Store)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f.Path, err)
		}
		ops = append(ops, CommitOp{Path: f.Path, Content: data})
	}
	return ops, nil
}

func (p *publisher) stage(s string) {
	p.mu.Lock()
	p.prog.Stage = s
	p.mu.Unlock()
	p.report()
}

// report calls OnProgress with the rate and ETA.
func (p *publisher) report() {
	if p.o.OnProgress == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := p.prog
	el := time.Since(p.start).Seconds()
	if el > 0 {
		pr.Rate = float64(p.res.UploadBytes) / el
	}
	if done := pr.BytesDone; done > 0 && pr.Bytes > done {
		pr.ETA = time.Duration(float64(time.Since(p.start)) * float64(pr.Bytes-done) / float64(done))
	}
	p.o.OnProgress(pr)
}
