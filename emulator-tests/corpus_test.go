package emulatortests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

type golden struct {
	File            string  `json:"file"`
	ResiduePLDDTMin float64 `json:"residue_plddt_min"`
	EntryID         string  `json:"entry_id"`
	Outcome         string  `json:"outcome"`
	SHA1            string  `json:"sha1"`
	Document        string  `json:"document"`
}

// afdbGolden returns the golden documents of the AFDB files (every one is a
// document at the default residue_plddt_min of 70), in file order, one per
// entry id: the corpus holds two model versions of some accessions under
// one entry_id, and the planner refuses a manifest with duplicate ids.
func afdbGolden(t *testing.T) (dir string, out []golden) {
	dir = testcorpus.Dir(t)
	f, err := os.Open(filepath.Join(dir, "golden", "contacts-and-distances-v2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	seen := map[string]bool{}
	for sc.Scan() {
		var g golden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(g.File, "afdb/") && g.Outcome == "document" && g.ResiduePLDDTMin == 70 && !seen[g.EntryID] {
			seen[g.EntryID] = true
			out = append(out, g)
		}
	}
	if len(out) < 36 { // 39 distinct entry ids in the corpus of this writing
		t.Fatalf("golden has %d AFDB documents of distinct entry ids, want >= 36", len(out))
	}
	return dir, out
}

var manifestCols = []format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}

// uploadStructures puts each golden file in the data bucket (with the given
// Content-Encoding; "gzip" stores it compressed) and returns manifest rows.
func (s *stack) uploadStructures(dir string, gs []golden, encoding string) [][]any {
	var rows [][]any
	for _, g := range gs {
		data, err := os.ReadFile(filepath.Join(dir, g.File))
		if err != nil {
			s.t.Fatal(err)
		}
		name := "cif/" + filepath.Base(g.File)
		if encoding == "gzip" {
			data = gzipBytes(s.t, data)
		}
		s.put(dataBucket, name, data, encoding)
		rows = append(rows, []any{g.EntryID, "gs://" + dataBucket + "/" + name})
	}
	return rows
}

// uploadManifest writes the manifest (rowGroupRows rows per row group) to
// the manifest bucket, which fires the finalize notification, and returns
// the run id the planner gives it.
func (s *stack) uploadManifest(name string, rows [][]any, rowGroupRows int) string {
	data, err := manifest.Encode(manifestCols, rows, rowGroupRows)
	if err != nil {
		s.t.Fatal(err)
	}
	gen := s.put(manifestBucket, name, data, "")
	return fmt.Sprintf("gs://%s/%s#%d", manifestBucket, name, gen)
}

// outputs reads the documents of a run's done shards in shard and row
// order (entry id, sha1, document) and the output objects.
func (s *stack) outputs(shards []ledger.Shard) (docs [][3]string, objects []string) {
	for _, sh := range shards {
		if sh.Status != ledger.Done {
			continue
		}
		objects = append(objects, sh.Output)
		err := corpus.Read(s.ctx, s.store, sh.Output, []string{"entry_id", "sha1", "document"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				docs = append(docs, [3]string{v[0].(string), v[1].(string), v[2].(string)})
			}
			return nil
		})
		if err != nil {
			s.t.Fatal(err)
		}
	}
	sort.Strings(objects)
	return docs, objects
}

// checkGolden compares the documents, in order, with the golden ones: none
// lost, none duplicated, each equal.
func checkGolden(t *testing.T, docs [][3]string, gs []golden) {
	t.Helper()
	if len(docs) != len(gs) {
		t.Errorf("%d documents, want %d", len(docs), len(gs))
	}
	bad := 0
	for i := range min(len(docs), len(gs)) {
		g, d := gs[i], docs[i]
		if d[0] != g.EntryID || d[1] != g.SHA1 || d[2] != g.Document {
			bad++
			if bad <= 3 {
				t.Errorf("document %d: %s sha1 %s, want %s sha1 %s (%s)", i, d[0], d[1], g.EntryID, g.SHA1, g.File)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d documents differ from the golden ones", bad, len(gs))
	}
}

// listObjects lists the objects in a folder (gs://BUCKET/PATH).
func (s *stack) listObjects(folder string) []string {
	uris, err := s.store.List(s.ctx, folder+"/*")
	if err != nil {
		s.t.Fatal(err)
	}
	return uris
}
