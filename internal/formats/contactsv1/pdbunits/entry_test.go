package pdbunits

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessEntry: from each selected golden entry's bytes (gzip, as the
// mirror holds them) and its task as the PDB selection's manifest carries
// it, ProcessEntry writes exp222's documents and ledger rows.
func TestProcessEntry(t *testing.T) {
	corpus, sets := goldenSets(t)
	lib := miniLib(t)
	for _, set := range sets {
		clusters, err := ReadClustersFile(set.Clusters())
		if err != nil {
			t.Fatal(err)
		}
		docs, ledgers := 0, 0
		for _, g := range readGolden(t, set.Path()) {
			if g.EntryFilter != "selected" {
				continue
			}
			raw, err := os.ReadFile(filepath.Join(corpus, g.File))
			if err != nil {
				t.Fatal(err)
			}
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			_, _ = zw.Write(raw)
			_ = zw.Close()
			rec := map[string]any{"release_date": g.Task.ReleaseDate, "method": g.Task.Method, "resolution": nil,
				"assembly1_protein_chains": g.Metadata.NAssembly1ProteinChains}
			if g.Task.Resolution != nil {
				rec["resolution"] = *g.Task.Resolution
			}
			task, err := TaskFromRecord(g.PDBID, rec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ProcessEntry(z.Bytes(), task, Options{Library: lib, Clusters: clusters, MaxChains: 60})
			if err != nil {
				t.Fatalf("%s: %v", g.PDBID, err)
			}
			bad, ledger := compareEntry(t, g, got)
			if ledger != "" {
				t.Errorf("%s: %s", g.PDBID, ledger)
			} else {
				ledgers++
			}
			for i, u := range got.Units {
				if len(bad[i]) > 0 {
					t.Errorf("%s %s: %v", g.PDBID, u.EntryID, bad[i])
				} else if u.Row != nil {
					docs++
				}
			}
		}
		t.Logf("%s: %d documents and %d ledger rows equal exp222's", set.File, docs, ledgers)
		if docs != set.Monomers+set.Multimers {
			t.Errorf("%s: %d documents equal, want %d", set.File, docs, set.Monomers+set.Multimers)
		}
	}
}

func TestProcessEntryErrors(t *testing.T) {
	good := map[string]any{"release_date": "2000-01-01", "method": "X", "resolution": 2.0, "assembly1_protein_chains": int64(2)}
	for col, v := range map[string]any{"release_date": nil, "method": 3, "resolution": "2.0", "assembly1_protein_chains": 2.0} {
		rec := map[string]any{}
		for k, x := range good {
			rec[k] = x
		}
		rec[col] = v
		if _, err := TaskFromRecord("1abc", rec); err == nil || !strings.Contains(err.Error(), col) || !strings.Contains(err.Error(), "1abc") {
			t.Errorf("%s = %v: error %v, want one naming the entry and the column", col, v, err)
		}
	}
	task, err := TaskFromRecord("1abc", good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ProcessEntry([]byte("data_1ABC\n_cell.length_a 'unterminated\n"), task, Options{Library: miniLib(t)}); err == nil || !strings.Contains(err.Error(), "1abc") {
		t.Errorf("unreadable entry: error %v, want one naming it", err)
	}
}
