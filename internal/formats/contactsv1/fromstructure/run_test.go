package fromstructure_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1/fromstructure"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/planner"
)

type miniLine struct {
	File     string  `json:"file"`
	EntryID  *string `json:"entry_id"`
	Outcome  string  `json:"outcome"`
	Reason   string  `json:"reason"`
	Document *string `json:"document"`
	SHA1     *string `json:"sha1"`
}

func readMini(t *testing.T, dir string) []miniLine {
	f, err := os.Open(filepath.Join(dir, "golden", "confind-mini.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []miniLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		var g miniLine
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

// filterOf is the filter a golden line must be counted under in a run,
// or "" when the reference's outcome is a document or a hard error.
func filterOf(g miniLine) string {
	switch {
	case g.Outcome == "filtered":
		return g.Reason
	case strings.Contains(g.Reason, " protein chains (["):
		return fromstructure.FilterMultiChain
	case strings.HasSuffix(g.Reason, ": no protein residues"):
		return fromstructure.FilterNoProtein
	case g.File == "edge/pymmcif_specialTestFile.cif":
		// gemmi raises IndexError from its metadata reading; internal/mmcif
		// reads the valid CIF as 0 models (documented there), so: no protein.
		return fromstructure.FilterNoProtein
	}
	return ""
}

var cols = []format.Column{
	{Name: "entry_id", Type: format.String},
	{Name: "gcs_uri", Type: format.String},
	{Name: "cif_content", Type: format.String},
}

// TestRunFromStructures runs contacts-v1 with rotlib= over manifests of
// every file of confind-mini.jsonl (URI and inline rows): the documents
// are byte-identical to MarinFold's, MarinFold's designed-in errors are
// counted as filters by reason, and each file the reference's reader
// fails on fails its own shard, naming the entry.
func TestRunFromStructures(t *testing.T) {
	dir := testcorpus.Dir(t)
	lib := filepath.Join(dir, "golden", "confind-mini-rotlib")
	gold := readMini(t, dir)
	ctx := context.Background()
	for _, mode := range []string{"uri", "inline"} {
		t.Run(mode, func(t *testing.T) {
			tmp := t.TempDir()
			var rows [][]any
			var want []miniLine
			wantFiltered := map[string]int64{}
			errIDs := map[string]bool{}
			for _, g := range gold {
				path := filepath.Join(dir, g.File)
				text, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				id := strings.TrimSuffix(filepath.Base(g.File), ".cif")
				row := []any{id, "file://" + path, string(text)}
				if reason := filterOf(g); g.Outcome == "document" || reason != "" {
					rows = append(rows, row)
					if reason != "" {
						wantFiltered[reason]++
					} else {
						want = append(want, g)
					}
					continue
				}
				errIDs[id] = true
				data, err := manifest.Encode(cols, [][]any{row}, 0)
				if err != nil {
					t.Fatal(err)
				}
				if err := (localblob.Store{}).Create(ctx, filepath.Join(tmp, "m", "err-"+id+".parquet"), data); err != nil {
					t.Fatal(err)
				}
			}
			data, err := manifest.Encode(cols, rows, 7)
			if err != nil {
				t.Fatal(err)
			}
			if err := (localblob.Store{}).Create(ctx, filepath.Join(tmp, "m", "docs.parquet"), data); err != nil {
				t.Fatal(err)
			}
			spec := planner.Spec{Manifest: filepath.Join(tmp, "m", "*.parquet"), Format: "contacts-v1",
				Options: map[string]string{"rotlib": lib}, Output: filepath.Join(tmp, "out"), RowGroupsPerShard: 3}
			if mode == "inline" {
				spec.TextColumn = "cif_content"
			}
			sum, err := localrun.Run(ctx, localrun.Config{Spec: spec, Workers: 2, Parse: mmcif.ReadInto})
			if len(errIDs) == 0 || !errors.Is(err, localrun.ErrIncomplete) {
				t.Fatalf("Run = %v, want ErrIncomplete for %d files the reference's reader fails on", err, len(errIDs))
			}
			_, shards, err := localledger.Snapshot(filepath.Join(spec.Output, localledger.FileName))
			if err != nil {
				t.Fatal(err)
			}
			filtered := map[string]int64{}
			var docsOut int64
			for _, s := range shards[sum.Plan.Run.ID] {
				switch s.Status {
				case ledger.Done:
					docsOut += s.Counts.DocsOut
					for k, n := range s.Counts.Filtered {
						filtered[k] += n
					}
				case ledger.Failed:
					if !errIDs[s.EntryID] {
						t.Errorf("shard %d failed at %q (%s); the reference does not fail there", s.Index, s.EntryID, s.Error)
					}
					delete(errIDs, s.EntryID)
				default:
					t.Errorf("shard %d is %s", s.Index, s.Status)
				}
			}
			if len(errIDs) > 0 {
				t.Errorf("no failed shard for %v", errIDs)
			}
			if docsOut != int64(len(want)) || fmt.Sprint(filtered) != fmt.Sprint(wantFiltered) {
				t.Errorf("docs %d, filtered %v; want %d, %v", docsOut, filtered, len(want), wantFiltered)
			}
			outs, err := (localblob.Store{}).List(ctx, filepath.Join(spec.Output, "part-*.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			var got [][]any
			for _, o := range outs {
				err := corpus.Read(ctx, localblob.Store{}, o, []string{"entry_id", "document", "sha1"}, func(r *manifest.Rows) error {
					got = append(got, r.Values...)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("read %d documents, want %d", len(got), len(want))
			}
			for i, g := range want {
				if got[i][0] != *g.EntryID || got[i][1] != *g.Document || got[i][2] != *g.SHA1 {
					t.Errorf("%s: entry %v sha1 %v, want %s %s", g.File, got[i][0], got[i][2], *g.EntryID, *g.SHA1)
				}
			}
		})
	}
}

// TestRunRefusesBadLibrary: a malformed library fails the run at planning,
// naming the file and the line, before any shard is processed.
func TestRunRefusesBadLibrary(t *testing.T) {
	dir := testcorpus.Dir(t)
	tmp := t.TempDir()
	lib := filepath.Join(tmp, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	ebl, err := os.ReadFile(filepath.Join(dir, "golden", "confind-mini-rotlib", "EBL.out"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(ebl), "\n")
	bad := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "CONF ") && strings.Count(l, " ") > 3 {
			lines[i] = l[:strings.LastIndex(l, " ")] // one value short
			bad = i + 1
			break
		}
	}
	if err := os.WriteFile(filepath.Join(lib, "EBL.out"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	bebl, _ := os.ReadFile(filepath.Join(dir, "golden", "confind-mini-rotlib", "BEBL.out"))
	if err := os.WriteFile(filepath.Join(lib, "BEBL.out"), bebl, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "pdb", "1crn.cif")
	data, err := manifest.Encode(cols, [][]any{{"1crn", "file://" + path, ""}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := (localblob.Store{}).Create(ctx, filepath.Join(tmp, "m.parquet"), data); err != nil {
		t.Fatal(err)
	}
	var shards int
	spec := planner.Spec{Manifest: filepath.Join(tmp, "m.parquet"), Format: "contacts-v1",
		Options: map[string]string{"rotlib": lib}, Output: filepath.Join(tmp, "out")}
	_, err = localrun.Run(ctx, localrun.Config{Spec: spec, Workers: 1, Parse: mmcif.ReadInto,
		OnPlan: func(*planner.Result) { shards++ }})
	want := fmt.Sprintf("EBL.out:%d: CONF has", bad)
	if err == nil || !strings.Contains(err.Error(), want) || shards != 0 {
		t.Fatalf("Run = %v (planned %d times), want a planning error containing %q", err, shards, want)
	}
}

// TestOptions: bad option values are refused when the format is built.
func TestOptions(t *testing.T) {
	lib := filepath.Join(testcorpus.Dir(t), "golden", "confind-mini-rotlib")
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"rotlib": "gs://bucket/lib"}, "gs://bucket/lib is a URI, and no store was given to read it"},
		{map[string]string{"record": "true"}, "record=true needs rotlib=DIR"},
		{map[string]string{"rotlib": lib, "record": "yes"}, "want true or false"},
		{map[string]string{"rotlib": lib, "think": "maybe"}, "think"},
		{map[string]string{"rotlib": filepath.Join(lib, "none")}, "EBL.out"},
	} {
		if _, err := fromstructure.New(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%v) = %v, want an error containing %q", c.opts, err, c.want)
		}
	}
	f, err := fromstructure.New(map[string]string{"rotlib": "", "record": "false", "think": "true"})
	if err != nil || f.Kind() != format.FromRecord {
		t.Errorf("New(rotlib empty) = %v, %v: want contacts-v1 over records", f, err)
	}
}

// TestRecordOption: record=true writes MarinFold's analysis records (the
// golden records of confind-mini.jsonl), for documents and filtered
// structures alike.
func TestRecordOption(t *testing.T) {
	dir := testcorpus.Dir(t)
	f, err := fromstructure.New(map[string]string{"rotlib": filepath.Join(dir, "golden", "confind-mini-rotlib"), "record": "true"})
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(filepath.Join(dir, "golden", "confind-mini.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	n := 0
	for sc.Scan() {
		var g struct {
			File   string          `json:"file"`
			Record json.RawMessage `json:"record"`
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		if len(g.Record) == 0 || string(g.Record) == "null" {
			continue
		}
		st, err := mmcif.ReadFile(filepath.Join(dir, g.File))
		if err != nil {
			t.Fatal(err)
		}
		res, err := f.Generate(format.Input{EntryID: "x", Structure: st})
		if err != nil {
			t.Fatalf("%s: %v", g.File, err)
		}
		var got, want any
		if err := json.Unmarshal([]byte(res.Document), &got); err != nil {
			t.Fatalf("%s: record %q: %v", g.File, res.Document, err)
		}
		_ = json.Unmarshal(g.Record, &want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: record differs:\n got  %.200s\n want %.200s", g.File, res.Document, g.Record)
		}
		if len(res.Values) != len(f.Columns()) {
			t.Errorf("%s: %d values for %d columns", g.File, len(res.Values), len(f.Columns()))
		}
		n++
	}
	if n != 58 {
		t.Errorf("%d records checked, want 58 (57 documents and 1 filtered)", n)
	}
}

// TestRecordRunIsReusable: a record=true run over structures writes a
// records manifest; contacts-v1 over it (no rotlib) gives MarinFold's
// documents, without recomputing.
func TestRecordRunIsReusable(t *testing.T) {
	dir := testcorpus.Dir(t)
	ctx := context.Background()
	tmp := t.TempDir()
	var rows [][]any
	var want []miniLine
	for _, g := range readMini(t, dir) {
		if g.Outcome != "document" {
			continue
		}
		path := filepath.Join(dir, g.File)
		rows = append(rows, []any{strings.TrimSuffix(filepath.Base(g.File), ".cif"), "file://" + path, ""})
		want = append(want, g)
	}
	data, err := manifest.Encode(cols, rows, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := (localblob.Store{}).Create(ctx, filepath.Join(tmp, "m.parquet"), data); err != nil {
		t.Fatal(err)
	}
	spec := planner.Spec{Manifest: filepath.Join(tmp, "m.parquet"), Format: "contacts-v1",
		Options: map[string]string{"rotlib": filepath.Join(dir, "golden", "confind-mini-rotlib"), "record": "true"},
		Output:  filepath.Join(tmp, "records"), Passthrough: []string{},
		// The corpus has AFDB model versions of one accession under one
		// entry_id; the reference writes both, so the comparison does too.
		AllowDuplicateIDs: true}
	if _, err := localrun.Run(ctx, localrun.Config{Spec: spec, Workers: 1, Parse: mmcif.ReadInto}); err != nil {
		t.Fatalf("record run: %v", err)
	}
	// The records' entry_id is the model's (two versions of an accession
	// share it), as in MarinFold's records.
	spec = planner.Spec{Manifest: filepath.Join(tmp, "records", "part-*.parquet"), Format: "contacts-v1",
		Output: filepath.Join(tmp, "docs"), Passthrough: []string{}, AllowDuplicateIDs: true}
	if _, err := localrun.Run(ctx, localrun.Config{Spec: spec, Workers: 1}); err != nil {
		t.Fatalf("documents from the records: %v", err)
	}
	outs, err := (localblob.Store{}).List(ctx, filepath.Join(tmp, "docs", "part-*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for _, o := range outs {
		err := corpus.Read(ctx, localblob.Store{}, o, []string{"entry_id", "sha1"}, func(r *manifest.Rows) error {
			got = append(got, r.Values...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d documents from the records, want %d", len(got), len(want))
	}
	for i, g := range want {
		if got[i][0] != *g.EntryID || got[i][1] != *g.SHA1 {
			t.Errorf("%s: %v %v, want %s %s", g.File, got[i][0], got[i][1], *g.EntryID, *g.SHA1)
		}
	}
}
