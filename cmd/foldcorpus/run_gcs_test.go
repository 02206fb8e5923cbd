package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"cloud.google.com/go/storage"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

func upload(t *testing.T, c *storage.Client, bucket, name string, data []byte, gz bool) {
	t.Helper()
	w := c.Bucket(bucket).Object(name).NewWriter(context.Background())
	if gz {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(data)
		_ = zw.Close()
		data = b.Bytes()
		w.ContentEncoding = "gzip"
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// corpusRows reads every row (all columns) of the corpus files at uris, in
// order, with "structure" passed through mapURI.
func corpusRows(t *testing.T, store blob.Store, uris []string, mapURI func(string) string) [][]any {
	t.Helper()
	var rows [][]any
	for _, u := range uris {
		err := corpus.Read(context.Background(), store, u, nil, func(r *manifest.Rows) error {
			si := r.Index("structure")
			for _, v := range r.Values {
				v = append([]any(nil), v...)
				v[si] = mapURI(v[si].(string))
				rows = append(rows, v)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

// TestRunGCS runs `foldcorpus run` on one machine against fake-gcs-server
// (TCP, STORAGE_EMULATOR_HOST): a gs:// manifest whose rows point at gs://
// objects, a third of them stored gzip-encoded (GCS serves them
// decompressed and reports the compressed size). The corpus equals, row by
// row and column by column, the run over local copies (the structure column
// names each row's own URI: gs://B/O there, file://DIR/O here), and the
// same run writing to gs:// gives the same rows again.
func TestRunGCS(t *testing.T) {
	ctx := context.Background()
	fake, client := emulators.RequireFakeGCS(t, "afdb-public", "manifests", "corpus")
	t.Setenv("STORAGE_EMULATOR_HOST", fake.URL)
	dir := t.TempDir()
	local := filepath.Join(dir, "local")
	const n, files = 24, 2
	gzipped := 0
	for i := 0; i < n; i++ {
		p := synth.Make(synth.SampleSeed, i, 40, 260)
		if err := (localblob.Store{}).Create(ctx, filepath.Join(local, "v4", p.EntryID+".cif"), p.CIF); err != nil {
			t.Fatal(err)
		}
		upload(t, client, "afdb-public", "v4/"+p.EntryID+".cif", p.CIF, i%3 == 1)
		if i%3 == 1 {
			gzipped++
		}
	}
	for f := 0; f < files; f++ {
		for _, where := range []string{"gs", "local"} {
			uri := func(id string) string { return "gs://afdb-public/v4/" + id + ".cif" }
			if where == "local" {
				uri = func(id string) string { return "file://" + filepath.Join(local, "v4", id+".cif") }
			}
			data, err := hubtest.AFDBFile(hubtest.ManifestOptions{First: f * n / files, Rows: n / files, RowGroup: 4, Structures: true, URI: uri})
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("m/part-%05d.parquet", f)
			if where == "gs" {
				upload(t, client, "manifests", name, data, false)
			} else if err := (localblob.Store{}).Create(ctx, filepath.Join(local, name), data); err != nil {
				t.Fatal(err)
			}
		}
	}
	attrs, err := client.Bucket("afdb-public").Object("v4/" + synth.Make(synth.SampleSeed, 1, 40, 260).EntryID + ".cif").Attrs(ctx)
	if err != nil || attrs.ContentEncoding != "gzip" {
		t.Fatalf("object 1: attrs %+v, %v; want gzip content encoding", attrs, err)
	}

	fromGS, fromLocal := filepath.Join(dir, "from-gs"), filepath.Join(dir, "from-local")
	if err := runRun(ctx, []string{"--manifest", "gs://manifests/m/*.parquet", "--out", fromGS, "--workers", "2"}); err != nil {
		t.Fatal(err)
	}
	if err := runRun(ctx, []string{"--manifest", filepath.Join(local, "m", "*.parquet"), "--out", fromLocal, "--workers", "2"}); err != nil {
		t.Fatal(err)
	}
	ledger := filepath.Join(dir, "gs-ledger", "_ledger.jsonl")
	if err := runRun(ctx, []string{"--manifest", "gs://manifests/m/*.parquet", "--out", "gs://corpus/runs/one", "--ledger", ledger, "--workers", "2"}); err != nil {
		t.Fatal(err)
	}

	same := func(s string) string { return s }
	toGS := func(s string) string {
		return strings.Replace(s, "file://"+filepath.Join(local, "v4")+"/", "gs://afdb-public/v4/", 1)
	}
	names := []string{"part-00000-of-00002.parquet", "part-00001-of-00002.parquet"}
	var gsOut, aOut, bOut []string
	for _, nm := range names {
		gsOut = append(gsOut, "gs://corpus/runs/one/"+nm)
		aOut = append(aOut, filepath.Join(fromGS, nm))
		bOut = append(bOut, filepath.Join(fromLocal, nm))
	}
	a := corpusRows(t, localblob.Store{}, aOut, same)
	b := corpusRows(t, localblob.Store{}, bOut, toGS)
	g := corpusRows(t, gcs.New(client, gcs.Options{}), gsOut, same)
	if len(a) != n || !reflect.DeepEqual(a, b) {
		t.Errorf("run over gs:// gave %d rows, over local copies %d; want %d equal rows", len(a), len(b), n)
	}
	if !reflect.DeepEqual(a, g) {
		t.Errorf("the run writing to gs:// gave %d rows, different from the local output's %d", len(g), len(a))
	}
	// The same run (same manifest, same run id) writes the same bytes to a
	// folder and to gs://.
	for i := range names {
		x, err1 := os.ReadFile(aOut[i])
		y, err2 := gcs.New(client, gcs.Options{}).ReadAll(ctx, gsOut[i])
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s: local output (%d bytes, %v) and gs:// output (%d bytes, %v) differ", names[i], len(x), err1, len(y), err2)
		}
	}
	if _, err := os.Stat(ledger); err != nil {
		t.Errorf("the gs:// run's local ledger: %v", err)
	}
	t.Logf("%d rows, %d objects gzip-encoded", len(a), gzipped)
}
