package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/gcs"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/report"
)

// TestWriteReportWithOpenLedger writes a run's output and a real local
// ledger, keeps the ledger open (locked, as `run` does while it finishes),
// and checks that writeReport reads it and reports every shard.
func TestWriteReportWithOpenLedger(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	synth, err := report.WriteSynthetic(ctx, localblob.Store{}, dir, report.SynthConfig{Shards: 4, RowsPerShard: 5, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	l, err := localledger.Open(filepath.Join(dir, localledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	run := ledger.Run{ID: "r1", Manifest: "m.parquet", Format: report.CADv2, Output: dir, Shards: 5, Created: time.Now()}
	if err := l.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	for _, s := range synth { // shards 0-3 done, as the files say
		if _, err := l.Claim(ctx, "r1", s.Index, time.Minute); err != nil {
			t.Fatal(err)
		}
		s.RunID = "r1"
		if err := l.Complete(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Claim(ctx, "r1", 4, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := l.Fail(ctx, ledger.Shard{RunID: "r1", Index: 4, Status: ledger.Failed, EntryID: "AF-X", Error: "parse: bad loop"}); err != nil {
		t.Fatal(err)
	}

	index, err := writeReport(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if index != filepath.Join(dir, "report", "index.html") {
		t.Errorf("writeReport = %s, want %s", index, filepath.Join(dir, "report", "index.html"))
	}
	js, err := os.ReadFile(filepath.Join(dir, "report", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s report.Summary
	if err := json.Unmarshal(js, &s); err != nil {
		t.Fatal(err)
	}
	var docs int64
	for _, sh := range synth {
		docs += sh.Counts.DocsOut
	}
	a := s.Accounting
	if a.Source != "ledger" || a.ShardsDone != 4 || a.ShardsFailed != 1 || a.DocsOut != docs || s.ShardsTotal != 5 {
		t.Errorf("accounting = %+v (shards %d), want from the ledger: 4 done, 1 failed, %d docs, 5 shards", a, s.ShardsTotal, docs)
	}
	if len(a.Failures) != 1 || a.Failures[0].EntryID != "AF-X" || a.Failures[0].Error != "parse: bad loop" {
		t.Errorf("failures = %+v, want shard 4 with its entry id and error", a.Failures)
	}
	// A second report over the same output replaces the first with the same bytes.
	if _, err := writeReport(ctx, dir); err != nil {
		t.Fatal(err)
	}
	js2, _ := os.ReadFile(filepath.Join(dir, "report", "summary.json"))
	if string(js2) != string(js) {
		t.Errorf("second report differs from the first")
	}
}

func TestReadLocalLedgerTornLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, localledger.FileName)
	lines := `{"run":{"id":"a","shards":2}}
{"shard":{"run_id":"a","index":0,"status":"pending"}}
{"shard":{"run_id":"a","index":1,"status":"pending"}}
{"shard":{"run_id":"a","index":0,"status":"done","counts":{"rows_in":3,"docs_out":3}}}
{"shard":{"run_id":"a","index":1,"status":"do`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	run, shards, err := readLocalLedger(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if run == nil || run.ID != "a" || len(shards) != 2 || shards[0].Status != ledger.Done || shards[1].Status != ledger.Pending {
		t.Errorf("readLocalLedger = %+v %+v, want run a with shard 0 done and 1 pending", run, shards)
	}
	if _, _, err := readLocalLedger(path, "nope"); err == nil {
		t.Errorf("readLocalLedger(unknown run) succeeded")
	}
	if err := os.WriteFile(path, []byte("{bad\n"+lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readLocalLedger(path, ""); err == nil {
		t.Errorf("readLocalLedger(corrupt first line) succeeded")
	}
	if run, _, err := readLocalLedger(filepath.Join(dir, "none.jsonl"), ""); err != nil || run != nil {
		t.Errorf("readLocalLedger(absent) = %v, %v; want nothing", run, err)
	}
}

// TestReportGCS reports a run whose output is in a bucket (fake-gcs-server
// over TCP, reached by the real client through STORAGE_EMULATOR_HOST) and
// checks that it equals the report of the same output in a local folder.
func TestReportGCS(t *testing.T) {
	ctx := context.Background()
	fake, client := emulators.RequireFakeGCS(t, "corpus")
	store := gcs.New(client, gcs.Options{})
	cfg := report.SynthConfig{Shards: 6, RowsPerShard: 4, Seed: 2}
	if _, err := report.WriteSynthetic(ctx, store, "gs://corpus/run1", cfg); err != nil {
		t.Fatal(err)
	}
	local := t.TempDir()
	if _, err := report.WriteSynthetic(ctx, localblob.Store{}, local, cfg); err != nil {
		t.Fatal(err)
	}
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(fake.URL, "http://"))
	for range 2 { // the second report finds identical objects: a no-op
		index, err := buildReport(ctx, "gs://corpus/run1", reportConfig{quiet: true})
		if err != nil {
			t.Fatal(err)
		}
		if index != "gs://corpus/run1/report/index.html" {
			t.Errorf("index = %s", index)
		}
	}
	if _, err := writeReport(ctx, local); err != nil {
		t.Fatal(err)
	}
	var got, want report.Summary
	js, err := store.ReadAll(ctx, "gs://corpus/run1/report/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatal(err)
	}
	lj, err := os.ReadFile(filepath.Join(local, "report", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(lj, &want); err != nil {
		t.Fatal(err)
	}
	got.Source, want.Source = "", ""
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if g, w := string(gj), string(wj); g != w {
		t.Errorf("gs:// summary differs from the local one:\n%s\n%s", g, w)
	}
	if got.Documents == 0 || got.IO.BytesRead >= got.IO.BytesTotal {
		t.Errorf("gs:// report: %d documents, read %d of %d bytes", got.Documents, got.IO.BytesRead, got.IO.BytesTotal)
	}
	for _, p := range got.Plots {
		if data, err := store.ReadAll(ctx, "gs://corpus/run1/report/"+p.File); err != nil || len(data) == 0 {
			t.Errorf("%s: %d bytes, %v", p.File, len(data), err)
		}
	}
}
