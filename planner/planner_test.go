package planner_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localqueue"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/planner"
)

type fakeFormat struct{}

func (fakeFormat) Name() string                   { return "fake" }
func (fakeFormat) Kind() format.InputKind         { return format.FromStructure }
func (fakeFormat) RecordColumns() []format.Column { return nil }
func (fakeFormat) Columns() []format.Column {
	return []format.Column{{Name: "seq_len", Type: format.Int64}}
}
func (fakeFormat) Generate(format.Input) (format.Result, error) { return format.Result{}, nil }

func newFake(string, map[string]string) (format.Format, error) { return fakeFormat{}, nil }

func write(t *testing.T, path string, cols []format.Column, n, rg int) {
	t.Helper()
	var rows [][]any
	for i := 0; i < n; i++ {
		row := make([]any, len(cols))
		for j, c := range cols {
			switch c.Type {
			case format.Int64:
				row[j] = int64(i)
			case format.Float64:
				row[j] = float64(i)
			default:
				row[j] = fmt.Sprintf("%s-%d", c.Name, i)
				if c.Name == manifest.EntryIDColumn { // unique across files: the planner refuses duplicates
					row[j] = fmt.Sprintf("%s-%s-%d", c.Name, filepath.Base(path), i)
				}
			}
		}
		rows = append(rows, row)
	}
	data, err := manifest.Encode(cols, rows, rg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

var (
	id    = format.Column{Name: "entry_id", Type: format.String}
	uri   = format.Column{Name: "gcs_uri", Type: format.String}
	text  = format.Column{Name: "cif_content", Type: format.String}
	split = format.Column{Name: "split", Type: format.String}
	slen  = format.Column{Name: "seq_len", Type: format.Int64}
	tax   = format.Column{Name: "tax_id", Type: format.Int64}
	taxF  = format.Column{Name: "tax_id", Type: format.Float64}
	other = format.Column{Name: "notes", Type: format.String}
)

func TestPrepare(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   [][]format.Column // one manifest file each
		rg      int               // rows per row group (of 10 rows)
		spec    planner.Spec
		wantErr string
		cols    string // projected columns
		shards  int
	}{
		{name: "uri mode, passthrough in every file", files: [][]format.Column{{id, uri, split, slen, tax, other}, {id, uri, tax, split}},
			cols: "[entry_id gcs_uri split tax_id]", shards: 2},
		{name: "inline mode", files: [][]format.Column{{id, text, uri, split}}, spec: planner.Spec{TextColumn: "cif_content"},
			cols: "[entry_id cif_content split]", shards: 1},
		{name: "row-group shards", files: [][]format.Column{{id, uri}}, rg: 3, spec: planner.Spec{RowGroupsPerShard: 2},
			cols: "[entry_id gcs_uri]", shards: 2},
		{name: "custom uri column", files: [][]format.Column{{id, format.Column{Name: "path", Type: format.String}}}, spec: planner.Spec{URIColumn: "path"},
			cols: "[entry_id path]", shards: 1},
		{name: "missing uri column", files: [][]format.Column{{id, uri}, {id, split}}, wantErr: `missing required column "gcs_uri"`},
		{name: "missing entry_id", files: [][]format.Column{{uri}}, wantErr: `missing required column "entry_id"`},
		{name: "missing text column", files: [][]format.Column{{id, uri}}, spec: planner.Spec{TextColumn: "cif_content"}, wantErr: `"cif_content"`},
		{name: "passthrough type differs", files: [][]format.Column{{id, uri, tax}, {id, uri, taxF}}, wantErr: `"tax_id" has type`},
		{name: "no files", files: nil, wantErr: "no manifest files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, cols := range tc.files {
				write(t, filepath.Join(dir, "m", fmt.Sprintf("m%d.parquet", i)), cols, 10, tc.rg)
			}
			spec := tc.spec
			spec.Manifest = filepath.Join(dir, "m", "*.parquet")
			spec.Format = "fake"
			spec.Output = filepath.Join(dir, "out")
			p, err := planner.Prepare(context.Background(), planner.Deps{Store: localblob.Store{}, NewFormat: newFake}, spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, derrors.ErrPermanent) {
					t.Fatalf("Prepare = %v, want a permanent error containing %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(p.Projection.Columns()); got != tc.cols {
				t.Errorf("projection = %s, want %s", got, tc.cols)
			}
			if len(p.Messages) != tc.shards {
				t.Fatalf("%d shards, want %d", len(p.Messages), tc.shards)
			}
			var rows int64
			for i, m := range p.Messages {
				if want := fmt.Sprintf("part-%05d-of-%05d.parquet", i, tc.shards); filepath.Base(m.Output) != want {
					t.Errorf("output %s, want %s", m.Output, want)
				}
				rows += p.ShardRows[i]
			}
			if rows != int64(10*len(tc.files)) {
				t.Errorf("shards hold %d rows, want %d", rows, 10*len(tc.files))
			}
			if read, size := p.FooterBytes(); read <= 0 || read >= size {
				t.Errorf("read %d of %d bytes: want the footer only", read, size)
			}
			// The format's seq_len wins over the manifest's passthrough.
			if p.Output.Index("seq_len") != 4 || strings.Count(fmt.Sprint(p.Output.Names()), "seq_len") != 1 {
				t.Errorf("output schema %v", p.Output.Names())
			}
		})
	}
}

// manifestAndLedger writes n manifest files of four rows into a temporary
// folder's m/ and opens a ledger in its out/ (closed when the test ends);
// spec plans those files with the fake format into out/.
func manifestAndLedger(t *testing.T, n int) (*localledger.Ledger, planner.Spec) {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i < n; i++ {
		write(t, filepath.Join(dir, "m", fmt.Sprintf("m%d.parquet", i)), []format.Column{id, uri}, 4, 0)
	}
	led, err := localledger.Open(filepath.Join(dir, "out", localledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	return led, planner.Spec{Manifest: filepath.Join(dir, "m", "*.parquet"), Format: "fake", Output: filepath.Join(dir, "out")}
}

func TestPlanPublishesOnlyShardsNotDone(t *testing.T) {
	ctx := context.Background()
	led, spec := manifestAndLedger(t, 3)
	q := localqueue.New()
	deps := planner.Deps{Store: localblob.Store{}, Ledger: led, Publisher: q, NewFormat: newFake}
	p, err := planner.Plan(ctx, deps, spec)
	if err != nil || len(p.Published) != 3 || q.Len() != 3 {
		t.Fatalf("Plan = %v published, queue %d, %v", p.Published, q.Len(), err)
	}
	s, _ := led.Claim(ctx, p.Run.ID, 1, 0)
	if err := led.Complete(ctx, s); err != nil {
		t.Fatal(err)
	}
	p2, err := planner.Plan(ctx, deps, spec)
	if err != nil || p2.Run.ID != p.Run.ID || fmt.Sprint(p2.Published) != "[0 2]" {
		t.Fatalf("rerun: run %s (first %s), published %v, %v; want [0 2]", p2.Run.ID, p.Run.ID, p2.Published, err)
	}
	spec.MaxRows = 5
	p3, err := planner.Plan(ctx, deps, spec)
	if err != nil || fmt.Sprint(p3.Published) != "[0]" {
		t.Fatalf("MaxRows 5: published %v, %v; want [0] (shard 1 is done)", p3.Published, err)
	}
}

// countingPublisher counts the calls of each form.
type countingPublisher struct {
	single  int
	batches [][]int // shard indices per PublishAll call
}

func (c *countingPublisher) Publish(ctx context.Context, m queue.ShardMessage) error {
	c.single++
	return nil
}

func (c *countingPublisher) PublishAll(ctx context.Context, msgs []queue.ShardMessage) error {
	var shards []int
	for _, m := range msgs {
		shards = append(shards, m.Shard)
	}
	c.batches = append(c.batches, shards)
	return nil
}

// TestPublishOneBatch: the shards not done go out in one PublishAll call
// (not one round trip per message), and nothing is published when all are
// done.
func TestPublishOneBatch(t *testing.T) {
	ctx := context.Background()
	led, spec := manifestAndLedger(t, 4)
	for _, tc := range []struct {
		name        string
		done        []int
		wantBatches string
	}{
		{"all shards", nil, "[[0 1 2 3]]"},
		{"shards 1 and 3 done", []int{1, 3}, "[[0 2]]"},
		{"all done", []int{0, 2}, "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pub := &countingPublisher{}
			p, err := planner.Prepare(ctx, planner.Deps{Store: localblob.Store{}, NewFormat: newFake}, spec)
			if err != nil {
				t.Fatal(err)
			}
			if err := led.CreateRun(ctx, p.Run); err != nil {
				t.Fatal(err)
			}
			for _, i := range tc.done {
				s, _ := led.Claim(ctx, p.Run.ID, i, 0)
				if err := led.Complete(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			if err := planner.Publish(ctx, planner.Deps{Ledger: led, Publisher: pub}, p); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(pub.batches); pub.single != 0 || got != tc.wantBatches {
				t.Errorf("%d single publishes, batches %s; want 0 and %s", pub.single, got, tc.wantBatches)
			}
			var want []int
			for _, b := range pub.batches {
				want = append(want, b...)
			}
			if fmt.Sprint(p.Published) != fmt.Sprint(want) {
				t.Errorf("Published = %v, want %v", p.Published, want)
			}
		})
	}
}

// genStore is a local store whose objects report a generation, as GCS
// objects do, and which can open a given generation (only genStore.gen).
type genStore struct {
	localblob.Store
	gen int64
}

type genObject struct {
	blob.Object
	gen int64
}

func (o genObject) Generation() int64 { return o.gen }

func (s genStore) Open(ctx context.Context, uri string) (blob.Object, error) {
	o, err := s.Store.Open(ctx, uri)
	if err != nil {
		return nil, err
	}
	return genObject{o, s.gen}, nil
}

func (s genStore) OpenGeneration(ctx context.Context, uri string, gen int64) (blob.Object, error) {
	if gen != s.gen {
		return nil, fmt.Errorf("generation %d: %w", gen, derrors.ErrNotFound)
	}
	return s.Open(ctx, uri)
}

// TestManifestGeneration: messages carry the manifest generation the plan
// was read from (none for local files); a pinned generation is read and
// recorded in the run, and is an error for a glob or a store without
// generations.
func TestManifestGeneration(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := filepath.Join(dir, "m", "m0.parquet")
	write(t, m, []format.Column{id, uri}, 4, 0)
	for _, tc := range []struct {
		name     string
		store    blob.Store
		manifest string
		pin      int64
		wantGen  int64
		wantErr  string
	}{
		{"local files: no generation", localblob.Store{}, filepath.Join(dir, "m", "*.parquet"), 0, 0, ""},
		{"generation read", genStore{gen: 17}, filepath.Join(dir, "m", "*.parquet"), 0, 17, ""},
		{"generation pinned", genStore{gen: 17}, m, 17, 17, ""},
		{"pinned generation gone", genStore{gen: 18}, m, 17, 0, "generation 17 of " + m + " no longer exists"},
		{"pinned on a store without generations", localblob.Store{}, m, 17, 0, "no object generations"},
		{"pinned with a glob", genStore{gen: 17}, filepath.Join(dir, "m", "*.parquet"), 17, 0, "given for a glob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := planner.Spec{Manifest: tc.manifest, ManifestGeneration: tc.pin, Format: "fake", Output: filepath.Join(dir, "out")}
			p, err := planner.Prepare(ctx, planner.Deps{Store: tc.store, NewFormat: newFake}, spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, derrors.ErrPermanent) {
					t.Fatalf("Prepare = %v, want a permanent error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g := p.Messages[0].ManifestGeneration; g != tc.wantGen {
				t.Errorf("message manifest generation = %d, want %d", g, tc.wantGen)
			}
			got, ok := p.Run.Options["pipeline.manifest_generation"]
			if want := fmt.Sprint(tc.pin); (tc.pin != 0) != ok || (ok && got != want) {
				t.Errorf("run option pipeline.manifest_generation = %q (%v), want %q only when pinned", got, ok, want)
			}
		})
	}
}
