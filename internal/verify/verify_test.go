package verify_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/storage"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/blobmux"
	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/synth"
	"github.com/foldcorpus/foldcorpus/internal/verify"
	"github.com/foldcorpus/foldcorpus/planner"
)

// The sample run: 40 structures in 2 manifest files of 2 row groups (16
// and 4 rows), one shard per row group: 4 shards.
const (
	sampleRows   = 40
	sampleShards = 4
)

// backend is where a run's output lives, with the raw operations the
// broken cases need (not the product's store, which is create-only).
type backend struct {
	name  string
	store blob.Store
	out   string // the good run's output
	// copyRun copies the good run's output to a fresh folder and returns it.
	copyRun func(t *testing.T) string
	get     func(t *testing.T, uri string) []byte
	put     func(t *testing.T, uri string, data []byte)
	remove  func(t *testing.T, uri string)
	ledger  []ledger.Shard
	opts    verify.Options
}

// sampleRun runs the sample through localrun (the driver of `foldcorpus
// run`) into out through store, its ledger at ledgerPath, and returns the
// verify options of the run and its ledger's shard records.
func sampleRun(t *testing.T, store blob.Store, out, ledgerPath string) (verify.Options, []ledger.Shard) {
	t.Helper()
	ctx := context.Background()
	glob, err := synth.WriteSample(ctx, localblob.Store{}, filepath.Join(t.TempDir(), "sample"), sampleRows, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	spec := planner.Spec{Manifest: glob, Format: registry.Default, TextColumn: "cif_content", Output: out, RowGroupsPerShard: 1}
	sum, err := localrun.Run(ctx, localrun.Config{Spec: spec, Store: store, LedgerPath: ledgerPath, Parse: mmcif.ReadInto, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Plan.Run.Shards != sampleShards {
		t.Fatalf("the sample run has %d shards, want %d", sum.Plan.Run.Shards, sampleShards)
	}
	_, shards, err := localledger.Snapshot(ledgerPath)
	if err != nil {
		t.Fatal(err)
	}
	return verify.Options{Manifest: glob, RowGroupsPerShard: 1, RunID: sum.Plan.Run.ID, Concurrency: 3}, shards[sum.Plan.Run.ID]
}

func localBackend(t *testing.T) *backend {
	dir := t.TempDir()
	out := filepath.Join(dir, "good")
	b := &backend{name: "local", store: localblob.Store{}, out: out}
	b.opts, b.ledger = sampleRun(t, b.store, out, filepath.Join(out, localledger.FileName))
	n := 0
	b.copyRun = func(t *testing.T) string {
		n++
		dst := filepath.Join(dir, fmt.Sprintf("case%d", n))
		if err := os.CopyFS(dst, os.DirFS(out)); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	b.get = func(t *testing.T, uri string) []byte {
		data, err := os.ReadFile(uri)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	b.put = func(t *testing.T, uri string, data []byte) {
		if err := os.WriteFile(uri, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b.remove = func(t *testing.T, uri string) {
		if err := os.Remove(uri); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// gcsBackend runs the sample into gs://corpus/good on fake-gcs-server
// (TCP), its ledger in a local file as `foldcorpus run --out gs://...`
// keeps it.
func gcsBackend(t *testing.T) *backend {
	_, client := emulators.RequireFakeGCS(t, "corpus")
	mux := blobmux.New()
	mux.Register("file", localblob.Store{})
	mux.Register("gs", gcs.New(client, gcs.Options{}))
	b := &backend{name: "gcs", store: mux, out: "gs://corpus/good"}
	b.opts, b.ledger = sampleRun(t, mux, b.out, filepath.Join(t.TempDir(), localledger.FileName))
	obj := func(t *testing.T, uri string) *storage.ObjectHandle {
		bucket, name, err := gcs.ParseURI(uri, nil)
		if err != nil {
			t.Fatal(err)
		}
		return client.Bucket(bucket).Object(name)
	}
	n := 0
	b.copyRun = func(t *testing.T) string {
		n++
		dst := fmt.Sprintf("gs://corpus/case%d", n)
		uris, err := mux.List(context.Background(), b.out+"/*")
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range uris {
			b.put(t, dst+"/"+path.Base(u), b.get(t, u))
		}
		return dst
	}
	b.get = func(t *testing.T, uri string) []byte {
		r, err := obj(t, uri).NewReader(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	b.put = func(t *testing.T, uri string, data []byte) {
		w := obj(t, uri).NewWriter(context.Background())
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	b.remove = func(t *testing.T, uri string) {
		if err := obj(t, uri).Delete(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func shardURI(out string, i int) string {
	return planner.JoinURI(out, planner.OutputName("part", i, sampleShards))
}

// brokenCase breaks a copy of the good run and says what verify must find.
type brokenCase struct {
	name   string
	deep   bool // found only with Deep
	break_ func(t *testing.T, b *backend, out string)
	// want is a line of the text report that must be there.
	want string
	// missing, extra and disagree are the counts of each finding.
	missing, extra, disagree int
}

var brokenCases = []brokenCase{
	{name: "shard file deleted", break_: func(t *testing.T, b *backend, out string) {
		b.remove(t, shardURI(out, 1))
	}, want: "MISSING   shard 00001: no part-00001-of-00004.parquet (4 rows of ", missing: 1},
	{name: "shard file copied under a second name", break_: func(t *testing.T, b *backend, out string) {
		b.put(t, planner.JoinURI(out, "part-00002-of-00004 (1).parquet"), b.get(t, shardURI(out, 2)))
	}, want: "EXTRA     part-00002-of-00004 (1).parquet (second_output): a second output of shard 00002", extra: 1},
	{name: "document edited", deep: true, break_: func(t *testing.T, b *backend, out string) {
		b.put(t, shardURI(out, 0), editColumn(t, b.get(t, shardURI(out, 0)), "document", 3, func(s string) string { return s + " " }))
	}, want: "DISAGREES part-00000-of-00004.parquet (shard 00000, sha1): 1 documents differ from their sha1: row 3 (entry ", disagree: 1},
	{name: "temporary file left behind", break_: func(t *testing.T, b *backend, out string) {
		b.put(t, planner.JoinURI(out, localblob.TempPrefix+"part-00003-of-00004.parquet-0123456789abcdef"), []byte("PAR1 half a file"))
	}, want: "EXTRA     " + localblob.TempPrefix + "part-00003-of-00004.parquet-0123456789abcdef (temporary)", extra: 1},
	{name: "ledger says done, no file", break_: func(t *testing.T, b *backend, out string) {
		b.remove(t, shardURI(out, 3))
	}, want: "MISSING   shard 00003: no part-00003-of-00004.parquet (4 rows of ", missing: 1},
	{name: "truncated shard file", break_: func(t *testing.T, b *backend, out string) {
		data := b.get(t, shardURI(out, 2))
		b.put(t, shardURI(out, 2), data[:len(data)/2])
	}, want: "DISAGREES part-00002-of-00004.parquet (shard 00002, unreadable)", disagree: 1},
	{name: "stray object", break_: func(t *testing.T, b *backend, out string) {
		b.put(t, planner.JoinURI(out, "notes.txt"), []byte("x"))
	}, want: "EXTRA     notes.txt (stray): not a shard file", extra: 1},
	{name: "entry id of another shard", break_: func(t *testing.T, b *backend, out string) {
		first := firstID(t, b.get(t, shardURI(out, 0)))
		b.put(t, shardURI(out, 1), editColumn(t, b.get(t, shardURI(out, 1)), "entry_id", 0, func(string) string { return first }))
	}, want: "DISAGREES part-00001-of-00004.parquet (shard 00001, entry_ids): 1 entry ids are not rows of this shard", disagree: 1},
}

func TestVerifyLocal(t *testing.T) { testVerify(t, localBackend(t)) }

// TestVerifyGCS is TestVerifyLocal on gs:// through fake-gcs-server.
func TestVerifyGCS(t *testing.T) { testVerify(t, gcsBackend(t)) }

func testVerify(t *testing.T, b *backend) {
	ctx := context.Background()
	for _, deep := range []bool{false, true} {
		opts := b.opts
		opts.Out, opts.Deep, opts.Ledger = b.out, deep, b.ledger
		rep, err := verify.Verify(ctx, b.store, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() || rep.Shards != sampleShards || rep.Files != sampleShards || rep.Rows != sampleRows || rep.Accounted != sampleRows {
			t.Fatalf("good run (deep %v): %s", deep, text(t, rep))
		}
		if deep && rep.Hashed != rep.Documents || rep.Documents == 0 {
			t.Errorf("good run (deep %v): %d documents, %d hashed", deep, rep.Documents, rep.Hashed)
		}
	}
	for _, c := range brokenCases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			out := b.copyRun(t)
			c.break_(t, b, out)
			opts := b.opts
			opts.Out = out
			if c.name == "ledger says done, no file" {
				opts.Ledger = b.ledger
				c.want = "row groups [1]); the ledger says done: it is wrong"
			}
			if c.deep {
				rep, err := verify.Verify(ctx, b.store, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !rep.OK() {
					t.Errorf("without --deep: %s", text(t, rep))
				}
				opts.Deep = true
			}
			rep, err := verify.Verify(ctx, b.store, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := text(t, rep)
			if rep.OK() || !strings.Contains(got, c.want) || !strings.HasSuffix(got, "NOT WHOLE\n") ||
				len(rep.Missing) != c.missing || len(rep.Extra) != c.extra || len(rep.Disagrees) != c.disagree {
				t.Errorf("Verify found %d missing, %d extra, %d disagreeing, want %d, %d, %d and the line %q:\n%s",
					len(rep.Missing), len(rep.Extra), len(rep.Disagrees), c.missing, c.extra, c.disagree, c.want, got)
			}
		})
	}
}

// TestVerifyNoManifest checks a run from its files alone: the shard count
// from their names, each shard's rows from its footer.
func TestVerifyNoManifest(t *testing.T) {
	b := localBackend(t)
	opts := verify.Options{Out: b.out}
	rep, err := verify.Verify(context.Background(), b.store, opts)
	if err != nil || !rep.OK() || rep.Rows != -1 || rep.Accounted != sampleRows || rep.RunID != b.opts.RunID {
		t.Fatalf("good run without a manifest: %v\n%s", err, text(t, rep))
	}
	opts.Out = b.copyRun(t)
	b.remove(t, shardURI(opts.Out, 2))
	rep, err = verify.Verify(context.Background(), b.store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.MissingShards(); !slices.Equal(got, []int{2}) || rep.Missing[0].Rows != -1 {
		t.Errorf("missing shards %v (%+v), want [2] with unknown rows:\n%s", got, rep.Missing, text(t, rep))
	}
}

func text(t testing.TB, rep *verify.Report) string {
	t.Helper()
	if rep == nil {
		return "(no report)"
	}
	var buf bytes.Buffer
	if err := verify.WriteText(&buf, rep, nil); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestVerifyLedgerCounts: a file whose counts the ledger records otherwise
// disagrees (the file is the truth; the ledger is named wrong).
func TestVerifyLedgerCounts(t *testing.T) {
	b := localBackend(t)
	opts := b.opts
	opts.Out = b.out
	opts.Ledger = slices.Clone(b.ledger)
	k := slices.IndexFunc(opts.Ledger, func(s ledger.Shard) bool { return s.Index == 2 })
	opts.Ledger[k].Counts.DocsOut++
	rep, err := verify.Verify(context.Background(), b.store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Disagrees) != 1 || rep.Disagrees[0].Shard != 2 || rep.Disagrees[0].Check != "ledger" || len(rep.Missing)+len(rep.Extra) != 0 {
		t.Errorf("want one ledger disagreement on shard 2:\n%s", text(t, rep))
	}
}
