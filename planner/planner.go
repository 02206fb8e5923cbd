// Package planner is the first stage of a run: it reads each manifest's
// schema from its footer (range reads), checks the required columns, fixes
// one projected column list and one output schema for every shard, splits
// the manifests into shards (one per file, or per group of row groups),
// records the run in the ledger and publishes one message per shard that is
// not done.
//
// Plan is safe to call again for the same spec (a redelivered trigger or a
// rerun): the run id is derived from the spec, the ledger keeps existing
// shard records, and only shards not done are published again.
package planner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/queue"
)

// Deps are the planner's dependencies.
type Deps struct {
	Store     blob.Store
	Ledger    ledger.Ledger
	Publisher queue.Publisher
	// NewFormat resolves the format (required): the composition root's
	// registry (registry.Registry.Constructor over Store: an option naming
	// an input by URI, rotlib=gs://..., is read through Store, so a
	// missing or malformed one refuses the run here). The planner links
	// no format itself.
	NewFormat func(name string, opts map[string]string) (format.Format, error)
}

// Spec describes a run.
type Spec struct {
	// RunID identifies the run; when empty it is derived from the manifest
	// glob, the files' names and sizes, the format and the options (not the
	// output folder, so the same build in two folders has the same bytes).
	RunID string
	// Manifest is a glob of manifest parquet files.
	Manifest string
	// ManifestGeneration, when non-zero, pins the manifest: Manifest then
	// names one object (no glob), the planner reads that generation of it
	// (the store must implement blob.GenerationOpener) and every shard
	// message carries it. The cloud planner sets it from the finalize
	// event of a manifest trigger. When zero, each message still carries the
	// generation the planner read, if the store reports one (GCS).
	ManifestGeneration int64
	// Format is the document format's name; Options are its knobs.
	Format  string
	Options map[string]string
	// URIColumn (default gcs_uri) or TextColumn (inline mmCIF) select where
	// structures come from; TextColumn wins when both are set.
	URIColumn  string
	TextColumn string
	// LenientMissing skips missing objects (counted) instead of failing.
	LenientMissing bool
	// LenientParse skips rows whose object fails to parse (counted, each
	// named with its error) instead of failing the shard.
	LenientParse bool
	// Output is the output folder (path or URI); Prefix starts each output
	// file name (default "part").
	Output string
	Prefix string
	// RowGroupsPerShard splits files with many row groups into shards of
	// this many row groups; 0 means one shard per file.
	RowGroupsPerShard int
	// MaxRows, when positive, publishes only the first shards that together
	// hold at least MaxRows rows (a partial run; the others stay missing).
	MaxRows int64
	// Passthrough names the manifest columns copied to the output, in that
	// order; each must be in every manifest file. Nil means the default set
	// (manifest.PassthroughColumns present in every file); empty, none.
	Passthrough []string
	// AllowDuplicateIDs lets two manifest rows share an entry_id. By
	// default Prepare reads every file's entry_id column and refuses the
	// run (ErrDuplicateID, naming both rows): the same document twice,
	// possibly in two splits, leaks training data into validation.
	AllowDuplicateIDs bool
}

// ParsePassthrough reads a passthrough list as written in a run's options
// ("pipeline.passthrough") and by --passthrough: comma-separated column
// names; "" is the empty list (no passthrough columns).
func ParsePassthrough(v string) []string {
	out := []string{}
	for _, c := range strings.Split(v, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// Result is the outcome of planning.
type Result struct {
	Run ledger.Run
	// Messages holds every shard's message, by shard index.
	Messages []queue.ShardMessage
	// Published lists the shard indices published this time (not done).
	Published []int
	// Schemas are the manifests' footers, with the bytes read for each.
	Schemas    []manifest.Schema
	Projection manifest.Projection
	Output     corpus.Schema
	// Dropped lists the manifest columns that no shard reads or writes
	// (manifest.Dropped over every file, in order of first appearance).
	Dropped []string
	// ShardRows is each shard's row count, by shard index.
	ShardRows []int64
	// RecordTime and PublishTime split Publish's wall time: recording the
	// run in the ledger (and reading its shards), then publishing.
	RecordTime, PublishTime time.Duration
	maxRows                 int64
}

// FooterBytes returns the bytes read from all manifests and their total size.
func (p *Result) FooterBytes() (read, size int64) {
	for _, s := range p.Schemas {
		read += s.BytesRead
		size += s.Size
	}
	return read, size
}

// OutputName returns the output file name of a shard.
func OutputName(prefix string, shard, total int) string {
	return fmt.Sprintf("%s-%05d-of-%05d.parquet", prefix, shard, total)
}

// JoinURI joins a folder path or URI and a name.
func JoinURI(dir, name string) string {
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// Prepare plans the run without recording or publishing anything: it reads
// every manifest's footer, checks the required columns, fixes the projection
// and output schema, and builds every shard's message. A missing required
// column, an unreadable file, an empty glob, a null or empty entry_id (a
// *NullIDError) or (unless spec.AllowDuplicateIDs) an entry_id in two rows
// (a *DuplicateError; both read from the entry_id column alone) is a
// permanent error, before any work starts. Read-only, so safe to retry.
func Prepare(ctx context.Context, deps Deps, spec Spec) (_ *Result, err error) {
	defer derrors.Wrap(&err, "planner.Prepare(%s)", spec.Manifest)
	newFormat := deps.NewFormat
	if newFormat == nil {
		return nil, derrors.Permanent(errors.New("no format constructor (Deps.NewFormat: the composition root's registry.Registry.Constructor)"))
	}
	if spec.Prefix == "" {
		spec.Prefix = "part"
	}
	if spec.Output == "" {
		return nil, derrors.Permanent(fmt.Errorf("no output folder"))
	}
	f, err := newFormat(spec.Format, spec.Options)
	if err != nil {
		return nil, derrors.Permanent(err)
	}
	var files []string
	store := &generations{Store: deps.Store, gens: map[string]int64{}}
	if spec.ManifestGeneration != 0 {
		if strings.ContainsAny(spec.Manifest, "*?[") {
			return nil, derrors.Permanent(fmt.Errorf("manifest generation %d given for a glob", spec.ManifestGeneration))
		}
		files = []string{spec.Manifest}
		store.Store = blob.Pin(deps.Store, spec.Manifest, spec.ManifestGeneration)
	} else {
		files, err = deps.Store.List(ctx, spec.Manifest)
		if err != nil {
			return nil, err
		}
	}
	if len(files) == 0 {
		return nil, derrors.Permanent(fmt.Errorf("no manifest files match %q", spec.Manifest))
	}
	var record []format.Column
	uriCol, textCol := spec.URIColumn, spec.TextColumn
	if f.Kind() == format.FromRecord {
		record = f.RecordColumns()
		if record == nil {
			record = []format.Column{}
		}
		uriCol, textCol = "", ""
	}
	var exclude []string
	for _, c := range f.Columns() {
		exclude = append(exclude, c.Name)
	}
	p := &Result{}
	for i, uri := range files {
		s, err := manifest.ReadSchema(ctx, store, uri)
		if err != nil {
			return nil, err
		}
		proj, err := manifest.Resolve(s, uriCol, textCol, record, exclude, spec.Passthrough)
		if err != nil {
			return nil, err
		}
		if cols := f.RecordColumns(); f.Kind() == format.FromStructure && len(cols) > 0 {
			// a structure format that reads header fields too (a PDB
			// entry's release date, resolution, ...)
			if err := proj.Require(s, cols, fmt.Sprintf("read by %s with options %v, with the structure: a manifest from `foldcorpus select --pdb` has it", f.Name(), spec.Options)); err != nil {
				return nil, err
			}
		}
		if i == 0 {
			p.Projection = proj
		} else {
			// One projection for all shards: passthrough columns present in
			// every file, with one type each.
			p.Projection.Passthrough = slices.DeleteFunc(p.Projection.Passthrough, func(c format.Column) bool {
				return !slices.ContainsFunc(proj.Passthrough, func(d format.Column) bool { return d.Name == c.Name })
			})
			for _, c := range p.Projection.Passthrough {
				d, _ := s.Column(c.Name)
				if d.Type != c.Type {
					return nil, derrors.Permanent(fmt.Errorf("manifest %s: column %q has type %s, but %s has %s", uri, c.Name, manifest.TypeName(d.Type), files[0], manifest.TypeName(c.Type)))
				}
			}
		}
		p.Schemas = append(p.Schemas, s)
	}
	if err := findDuplicateIDs(ctx, store, files, !spec.AllowDuplicateIDs); err != nil {
		return nil, err
	}
	p.Output = corpus.NewSchema(f.Columns(), p.Projection.Passthrough)
	for _, s := range p.Schemas {
		for _, name := range manifest.Dropped(s, p.Projection.Columns()) {
			if !slices.Contains(p.Dropped, name) {
				p.Dropped = append(p.Dropped, name)
			}
		}
	}

	parts := Split(p.Schemas, spec.RowGroupsPerShard)
	for _, pt := range parts {
		p.ShardRows = append(p.ShardRows, pt.Rows)
	}
	p.maxRows = spec.MaxRows
	total := len(parts)
	runOpts := maps.Clone(spec.Options)
	if runOpts == nil {
		runOpts = map[string]string{}
	}
	runOpts["pipeline.uri_column"] = p.Projection.URIColumn
	runOpts["pipeline.text_column"] = p.Projection.TextColumn
	runOpts["pipeline.lenient_missing"] = strconv.FormatBool(spec.LenientMissing)
	if spec.LenientParse { // recorded only when set: earlier runs keep their ids
		runOpts["pipeline.lenient_parse"] = "true"
	}
	runOpts["pipeline.prefix"] = spec.Prefix
	runOpts["pipeline.row_groups_per_shard"] = strconv.Itoa(spec.RowGroupsPerShard)
	if spec.Passthrough != nil { // the default set adds nothing: earlier runs keep their ids
		runOpts["pipeline.passthrough"] = strings.Join(spec.Passthrough, ",")
	}
	if spec.ManifestGeneration != 0 {
		runOpts["pipeline.manifest_generation"] = strconv.FormatInt(spec.ManifestGeneration, 10)
	}
	if spec.RunID == "" {
		spec.RunID = deriveRunID(spec, p.Schemas, runOpts)
	}
	p.Run = ledger.Run{ID: spec.RunID, Manifest: spec.Manifest, Format: f.Name(), Output: spec.Output, Shards: total, Options: runOpts}
	cols := p.Projection.Columns()
	for i, pt := range parts {
		p.Messages = append(p.Messages, queue.ShardMessage{
			RunID: spec.RunID, Shard: i, Total: total,
			Manifest: files[pt.File], ManifestGeneration: store.gens[files[pt.File]], RowGroups: pt.RowGroups,
			Format: f.Name(), Options: spec.Options,
			Output:    JoinURI(spec.Output, OutputName(spec.Prefix, i, total)),
			Columns:   cols,
			URIColumn: p.Projection.URIColumn, TextColumn: p.Projection.TextColumn,
			LenientMissing: spec.LenientMissing, LenientParse: spec.LenientParse,
		})
	}
	return p, nil
}

// Part is one shard's slice of the manifest: a file (its index in the
// listing) and its row groups (nil: the whole file), with their rows.
type Part struct {
	File      int
	RowGroups []int
	Rows      int64
}

// Split splits the manifest files (their footers, in listing order) into
// shards, in shard order: one per file, or, when rowGroupsPerShard is
// positive, one per rowGroupsPerShard row groups of a file that has more.
// Prepare plans with it; verify recomputes a run's shards with it.
func Split(schemas []manifest.Schema, rowGroupsPerShard int) []Part {
	var parts []Part
	for i, s := range schemas {
		n := len(s.RowGroups)
		if rowGroupsPerShard <= 0 || n <= rowGroupsPerShard {
			var rows int64
			for _, r := range s.RowGroups {
				rows += r
			}
			parts = append(parts, Part{File: i, Rows: rows})
			continue
		}
		for lo := 0; lo < n; lo += rowGroupsPerShard {
			pt := Part{File: i}
			for rg := lo; rg < min(n, lo+rowGroupsPerShard); rg++ {
				pt.RowGroups = append(pt.RowGroups, rg)
				pt.Rows += s.RowGroups[rg]
			}
			parts = append(parts, pt)
		}
	}
	return parts
}

// Plan prepares the run (see Prepare), records it in the ledger and
// publishes every shard not done (see Publish).
func Plan(ctx context.Context, deps Deps, spec Spec) (*Result, error) {
	p, err := Prepare(ctx, deps, spec)
	if err != nil {
		return nil, err
	}
	return p, Publish(ctx, deps, p)
}

// Publish records p's run in the ledger (idempotent) and publishes the
// messages of every shard that is not done in one batch
// (queue.Publisher.PublishAll), recording them in p.Published. On a publish
// error p.Published is empty, though some messages may be out: calling
// Publish again is safe (duplicates are no-ops for the shard workers).
func Publish(ctx context.Context, deps Deps, p *Result) (err error) {
	defer derrors.Wrap(&err, "planner.Publish(%s)", p.Run.ID)
	start := time.Now()
	if err := deps.Ledger.CreateRun(ctx, p.Run); err != nil {
		return err
	}
	shards, err := deps.Ledger.Shards(ctx, p.Run.ID)
	if err != nil {
		return err
	}
	done := map[int]bool{}
	for _, s := range shards {
		if s.Status == ledger.Done {
			done[s.Index] = true
		}
	}
	var rows int64
	var msgs []queue.ShardMessage
	var published []int
	for i, m := range p.Messages {
		if p.maxRows > 0 && rows >= p.maxRows {
			break
		}
		rows += p.ShardRows[i]
		if done[i] {
			continue
		}
		msgs = append(msgs, m)
		published = append(published, i)
	}
	recorded := time.Now()
	p.RecordTime = recorded.Sub(start)
	if len(msgs) > 0 {
		if err := deps.Publisher.PublishAll(ctx, msgs); err != nil {
			return err
		}
	}
	p.PublishTime = time.Since(recorded)
	p.Published = published
	return nil
}

func deriveRunID(spec Spec, schemas []manifest.Schema, opts map[string]string) string {
	type file struct {
		URI  string
		Size int64
	}
	var files []file
	for _, s := range schemas {
		files = append(files, file{s.URI, s.Size})
	}
	js, _ := json.Marshal(struct {
		Manifest string
		Files    []file
		Format   string
		Options  map[string]string
	}{spec.Manifest, files, spec.Format, opts})
	h := sha256.Sum256(js)
	return "run-" + hex.EncodeToString(h[:8])
}

// generations is the planner's view of the store: it notes the generation
// of every object it opens (when the store reports one), so that shards read
// the manifest generation the plan was made from.
type generations struct {
	blob.Store
	mu   sync.Mutex
	gens map[string]int64
}

func (g *generations) Open(ctx context.Context, uri string) (blob.Object, error) {
	o, err := g.Store.Open(ctx, uri)
	if err != nil {
		return nil, err
	}
	if gen := blob.ObjectGeneration(o); gen != 0 {
		g.mu.Lock()
		g.gens[uri] = gen
		g.mu.Unlock()
	}
	return o, nil
}
