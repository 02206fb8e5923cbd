package verify_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/blobmux"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/verify"
	"github.com/foldcorpus/foldcorpus/planner"
)

// benchShards is the shard count of the benchmarks
// (FOLDCORPUS_VERIFY_BENCH_SHARDS, default 2000); each shard is one
// manifest file of 4 rows and its output file of 4 documents.
func benchShards(b *testing.B) int {
	n := 2000
	if s := os.Getenv("FOLDCORPUS_VERIFY_BENCH_SHARDS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	return n
}

// writeBenchRun writes a run of n shards of 4 rows (the users' shape at
// 12,005 shards x 4 rows) through store: manifests under mdir, shard files
// under out, as the pipeline lays them out (names, accounting).
func writeBenchRun(b *testing.B, store blob.Store, mdir, out string, n int) verify.Options {
	ctx := context.Background()
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}
	schema := corpus.NewSchema(nil, nil)
	for i := 0; i < n; i++ {
		var rows [][]any
		w, err := corpus.NewWriter(schema)
		if err != nil {
			b.Fatal(err)
		}
		for r := 0; r < 4; r++ {
			id := fmt.Sprintf("AF-B%06d-%d-F1", i, r)
			rows = append(rows, []any{id, "gs://afdb/" + id + ".cif"})
			doc := fmt.Sprintf("<contacts-and-distances-v2> %s <end>", id)
			h := sha1.Sum([]byte(doc))
			if err := w.Append([]any{id, "gs://afdb/" + id + ".cif", doc, hex.EncodeToString(h[:])}); err != nil {
				b.Fatal(err)
			}
		}
		data, err := manifest.Encode(cols, rows, 4)
		if err != nil {
			b.Fatal(err)
		}
		m := planner.JoinURI(mdir, fmt.Sprintf("m-%06d.parquet", i))
		if err := store.Create(ctx, m, data); err != nil {
			b.Fatal(err)
		}
		data, err = w.Finish(corpus.Accounting{RunID: "run-bench", Shard: i, Total: n, Manifest: m, Format: "bench",
			RowsIn: 4, DocsOut: 4})
		if err != nil {
			b.Fatal(err)
		}
		if err := store.Create(ctx, planner.JoinURI(out, planner.OutputName("part", i, n)), data); err != nil {
			b.Fatal(err)
		}
	}
	return verify.Options{Out: out, Manifest: planner.JoinURI(mdir, "m-*.parquet"), RunID: "run-bench"}
}

func benchVerify(b *testing.B, store blob.Store, opts verify.Options, n int) {
	for _, deep := range []bool{false, true} {
		b.Run(fmt.Sprintf("shards=%d/deep=%v", n, deep), func(b *testing.B) {
			opts.Deep = deep
			for b.Loop() {
				rep, err := verify.Verify(context.Background(), store, opts)
				if err != nil {
					b.Fatal(err)
				}
				if !rep.OK() || rep.Files != n || rep.Accounted != int64(4*n) {
					b.Fatalf("verify of the bench run: %s", text(b, rep))
				}
				b.ReportMetric(float64(rep.BytesRead)/float64(n), "bytes-read/shard")
				b.ReportMetric(float64(rep.Reads)/float64(n), "reads/shard")
			}
		})
	}
}

// BenchmarkVerifyLocal verifies a run of benchShards shards in a folder.
func BenchmarkVerifyLocal(b *testing.B) {
	n := benchShards(b)
	dir := b.TempDir()
	opts := writeBenchRun(b, localblob.Store{}, filepath.Join(dir, "m"), filepath.Join(dir, "out"), n)
	benchVerify(b, localblob.Store{}, opts, n)
}

// BenchmarkVerifyGCS verifies the same run in a bucket of fake-gcs-server
// (TCP, one process on this machine: its latency is not a region's).
func BenchmarkVerifyGCS(b *testing.B) {
	n := benchShards(b)
	_, client := emulators.RequireFakeGCS(b, "corpus")
	mux := blobmux.New()
	mux.Register("gs", gcs.New(client, gcs.Options{}))
	opts := writeBenchRun(b, mux, "gs://corpus/m", "gs://corpus/out", n)
	benchVerify(b, mux, opts, n)
}
