package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/planner"
)

// verifier holds one Verify call's state.
type verifier struct {
	store  blob.Store // counts what is read
	mstore blob.Store // the manifests (pinned to a generation when asked)
	opts   Options
	rep    *Report
	read   atomic.Int64
	reqs   atomic.Int64

	total int
	runID string
	parts []part    // by shard; nil entries when no manifest was given
	files []*object // by shard: the file under the shard's own name

	mu      sync.Mutex
	schemas map[string]*schemaOnce // manifest footers by URI (no manifest given)
}

// part is a shard's manifest rows.
type part struct {
	uri  string
	rgs  []int
	rows int64
}

// object is a top-level object of the output folder.
type object struct {
	name, uri string
	parquet   bool
	meta      *corpus.Meta
	err       error // its footer could not be read
}

// list returns the output folder's top-level objects, reporting temporary
// and stray non-parquet objects as extra. The local store's listing hides
// its own temporary files (localblob.TempPrefix): they are read from the
// folder itself.
func (v *verifier) list(ctx context.Context) ([]*object, error) {
	v.store = &countingStore{Store: v.store, n: &v.read, reqs: &v.reqs}
	uris, err := v.store.List(ctx, planner.JoinURI(v.opts.Out, "*"))
	if err != nil {
		return nil, err
	}
	if blob.IsLocal(v.opts.Out) {
		dir, err := localblob.Path(v.opts.Out)
		if err != nil {
			return nil, err
		}
		ents, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, derrors.Permanent(err)
		}
		for _, e := range ents {
			if !e.IsDir() && strings.HasPrefix(e.Name(), localblob.TempPrefix) {
				uris = append(uris, planner.JoinURI(v.opts.Out, e.Name()))
			}
		}
	}
	var objs []*object
	for _, u := range uris {
		name := path.Base(u)
		switch {
		case name == localledger.FileName:
			continue // the local run's ledger file
		case isTemp(name):
			v.rep.Extra = append(v.rep.Extra, Extra{Name: name, Kind: ExtraTemporary, Shard: -1,
				Detail: "a writer's temporary or partial object, left by a writer that died (no shard file is ever written under it)"})
			continue
		}
		o := &object{name: name, uri: u, parquet: strings.HasSuffix(name, ".parquet")}
		if !o.parquet {
			v.rep.Extra = append(v.rep.Extra, Extra{Name: name, Kind: ExtraStray, Shard: -1, Detail: "not a shard file"})
			continue
		}
		objs = append(objs, o)
	}
	return objs, nil
}

// isTemp reports whether name is a temporary or partial object: the local
// store's temporary files, and the usual temporary suffixes.
func isTemp(name string) bool {
	return strings.HasPrefix(name, localblob.TempPrefix) || strings.HasSuffix(name, ".tmp") ||
		strings.Contains(name, ".tmp.") || strings.HasSuffix(name, ".part") || strings.HasSuffix(name, ".partial")
}

// readFooters reads every parquet object's footer. An unreadable footer is
// recorded in the object (a finding); a transient error stops Verify.
func (v *verifier) readFooters(ctx context.Context, objs []*object) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(v.opts.Concurrency)
	for _, o := range objs {
		g.Go(func() error {
			m, err := corpus.ReadMeta(gctx, v.store, o.uri)
			if err := fatal(gctx, err); err != nil {
				return err
			}
			if err != nil {
				o.err = err
				return nil
			}
			o.meta = &m
			return nil
		})
	}
	return g.Wait()
}

// fatal returns err when it stops verification (transient, or ctx done):
// the corpus may be fine, the check could not be made.
func fatal(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil || errors.Is(err, derrors.ErrTransient) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("cannot verify now: %w", err)
	}
	return nil
}

// shardName matches PREFIX-SSSSS-of-TTTTT.parquet (planner.OutputName).
var shardName = regexp.MustCompile(`^(.*)-(\d{5,})-of-(\d{5,})\.parquet$`)

// parseName returns the shard index and total a shard file name carries,
// when it has the prefix.
func parseName(name, prefix string) (shard, total int, ok bool) {
	m := shardName.FindStringSubmatch(name)
	if m == nil || m[1] != prefix {
		return 0, 0, false
	}
	shard, err1 := strconv.Atoi(m[2])
	total, err2 := strconv.Atoi(m[3])
	return shard, total, err1 == nil && err2 == nil
}

// plan sets the run's shards: from the manifest when given (the planner's
// split of its footers), else from the shard files' names.
func (v *verifier) plan(ctx context.Context, objs []*object) error {
	if v.opts.Manifest == "" {
		return v.planFromNames(objs)
	}
	v.mstore = v.store
	var files []string
	if v.opts.ManifestGeneration != 0 {
		files = []string{v.opts.Manifest}
		v.mstore = blob.Pin(v.store, v.opts.Manifest, v.opts.ManifestGeneration)
	} else {
		var err error
		if files, err = v.store.List(ctx, v.opts.Manifest); err != nil {
			return err
		}
	}
	if len(files) == 0 {
		return derrors.Permanent(fmt.Errorf("no manifest files match %q", v.opts.Manifest))
	}
	schemas := make([]manifest.Schema, len(files))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(v.opts.Concurrency)
	for i, f := range files {
		g.Go(func() (err error) {
			schemas[i], err = manifest.ReadSchema(gctx, v.mstore, f)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	v.rep.Rows = 0
	for _, p := range planner.Split(schemas, v.opts.RowGroupsPerShard) {
		v.parts = append(v.parts, part{uri: files[p.File], rgs: p.RowGroups, rows: p.Rows})
		v.rep.Rows += p.Rows
	}
	v.total = len(v.parts)
	v.pickRun(objs)
	return nil
}

// planFromNames takes the shard count the files' names give (the most
// common, when they differ: the others are another run's).
func (v *verifier) planFromNames(objs []*object) error {
	count := map[int]int{}
	for _, o := range objs {
		if _, t, ok := parseName(o.name, v.opts.Prefix); ok {
			count[t]++
		}
	}
	for t, n := range count {
		if n > count[v.total] || n == count[v.total] && t > v.total {
			v.total = t
		}
	}
	if v.total == 0 {
		return derrors.Permanent(fmt.Errorf("%s holds no shard files (%s) and no manifest was given: pass the run's manifest glob",
			v.opts.Out, planner.OutputName(v.opts.Prefix, 0, 1)))
	}
	v.parts = make([]part, v.total)
	v.schemas = map[string]*schemaOnce{}
	v.mstore = v.store
	v.pickRun(objs)
	return nil
}

// pickRun sets the run id: the given one, or the one most of the files
// under shard names name.
func (v *verifier) pickRun(objs []*object) {
	v.runID = v.opts.RunID
	if v.runID == "" {
		count := map[string]int{}
		for _, o := range objs {
			if _, t, ok := parseName(o.name, v.opts.Prefix); ok && t == v.total && o.meta != nil {
				id := o.meta.Accounting.RunID
				count[id]++
				if count[id] > count[v.runID] || count[id] == count[v.runID] && id < v.runID {
					v.runID = id
				}
			}
		}
	}
	v.rep.RunID = v.runID
	v.rep.Shards = v.total
}

// assign matches the objects to the shards: each shard's file under its own
// name; every other parquet object is extra, named by what its footer says.
func (v *verifier) assign(objs []*object) {
	v.files = make([]*object, v.total)
	byName := map[string]*object{}
	for _, o := range objs {
		byName[o.name] = o
	}
	own := map[*object]bool{}
	for i := 0; i < v.total; i++ {
		name := planner.OutputName(v.opts.Prefix, i, v.total)
		if o, ok := byName[name]; ok {
			v.files[i] = o
			own[o] = true
			v.rep.Files++
			continue
		}
		m := Missing{Shard: i, Name: name, Rows: -1}
		if p := v.parts[i]; p.uri != "" {
			m.Manifest, m.RowGroups, m.Rows = p.uri, p.rgs, p.rows
		}
		v.rep.Missing = append(v.rep.Missing, m)
	}
	for _, o := range objs {
		if own[o] {
			continue
		}
		e := Extra{Name: o.name, Kind: ExtraStray, Shard: -1}
		switch {
		case o.err != nil:
			e.Detail = "not a readable foldcorpus file: " + derrors.Describe(o.err)
		case o.meta.Accounting.RunID == v.runID && o.meta.Accounting.Total == v.total && o.meta.Accounting.Shard >= 0 && o.meta.Accounting.Shard < v.total:
			a := o.meta.Accounting
			e.Kind, e.Shard = ExtraSecondOutput, a.Shard
			own := planner.OutputName(v.opts.Prefix, a.Shard, v.total)
			if v.files[a.Shard] == nil {
				e.Detail = fmt.Sprintf("its footer says shard %05d of this run, whose file %s is missing: a shard has exactly one output, under its own name", a.Shard, own)
			} else {
				e.Detail = fmt.Sprintf("a second output of shard %05d (its footer says so; the shard's file is %s)", a.Shard, own)
			}
		default:
			a := o.meta.Accounting
			e.Kind, e.Shard = ExtraOtherRun, a.Shard
			e.Detail = fmt.Sprintf("a shard file of another run: its footer says run %s, shard %d of %d (this run: %s, %d shards)", a.RunID, a.Shard, a.Total, v.runID, v.total)
		}
		v.rep.Extra = append(v.rep.Extra, e)
	}
}

// countingStore counts the bytes read through it, and the calls that are
// storage requests (opens, range reads, listings, whole reads).
type countingStore struct {
	blob.Store
	n, reqs *atomic.Int64
}

func (s *countingStore) Open(ctx context.Context, uri string) (blob.Object, error) {
	s.reqs.Add(1)
	o, err := s.Store.Open(ctx, uri)
	if err != nil {
		return nil, err
	}
	return &countingObject{Object: o, n: s.n, reqs: s.reqs}, nil
}

func (s *countingStore) ReadAll(ctx context.Context, uri string) ([]byte, error) {
	s.reqs.Add(1)
	b, err := s.Store.ReadAll(ctx, uri)
	s.n.Add(int64(len(b)))
	return b, err
}

func (s *countingStore) List(ctx context.Context, pattern string) ([]string, error) {
	s.reqs.Add(1)
	return s.Store.List(ctx, pattern)
}

// OpenGeneration keeps a pinned manifest readable through the count
// (blob.Pin needs a blob.GenerationOpener).
func (s *countingStore) OpenGeneration(ctx context.Context, uri string, gen int64) (blob.Object, error) {
	g, ok := s.Store.(blob.GenerationOpener)
	if !ok {
		return nil, derrors.Permanent(fmt.Errorf("store cannot read generation %d of %s", gen, uri))
	}
	o, err := g.OpenGeneration(ctx, uri, gen)
	if err != nil {
		return nil, err
	}
	s.reqs.Add(1)
	return &countingObject{Object: o, n: s.n, reqs: s.reqs}, nil
}

type countingObject struct {
	blob.Object
	n, reqs *atomic.Int64
}

func (o *countingObject) ReadAt(p []byte, off int64) (int, error) {
	o.reqs.Add(1)
	return o.Object.ReadAt(p, off)
}

func (o *countingObject) Close() error {
	o.n.Add(o.Object.BytesRead())
	return o.Object.Close()
}

// strayLedgers reports the ledger files (corpus.LedgerDir) of a Multi
// format's run whose shard file is absent: a writer that died between the
// two writes (the shard file is written last), or a foreign object.
func (v *verifier) strayLedgers(ctx context.Context, objs []*object) error {
	uris, err := v.store.List(ctx, planner.JoinURI(planner.JoinURI(v.opts.Out, corpus.LedgerDir), "*"))
	if err != nil {
		return err
	}
	shards := make(map[string]bool, len(objs))
	for _, o := range objs {
		shards[o.name] = true
	}
	for _, u := range uris {
		if name := path.Base(u); !shards[name] {
			v.rep.Extra = append(v.rep.Extra, Extra{Name: corpus.LedgerDir + "/" + name, Kind: ExtraTemporary, Shard: -1,
				Detail: "a ledger file without its shard file (the writer died between the two; a rerun of the shard rewrites both)"})
		}
	}
	return nil
}
