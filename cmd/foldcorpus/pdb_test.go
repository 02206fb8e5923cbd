package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/distancesv2"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif/gemmitest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// pdbInputs returns PDB-format files for the CLI tests: pyconfind's
// snapshot inputs, three AFDB models written as PDB by gemmi (pLDDT in the
// B column), and a gzip copy of one of each as .pdb.gz, with gemmi's
// reading of each (structure, and the reference generator's
// contacts-and-distances-v2 outcome, residue_plddt_min 70).
func pdbInputs(t *testing.T) ([]string, []gemmitest.Reading) {
	t.Helper()
	g := gemmitest.New(t)
	dir := testcorpus.Dir(t)
	tmp := t.TempDir()
	var paths []string
	for _, n := range []string{"1CRN.pdb", "1UBQ.pdb", "1EJG.pdb"} {
		paths = append(paths, filepath.Join(dir, "golden", "confind-snapshots", n))
	}
	afdb := []string{"AF-P04637-F1-model_v4.cif", "AF-Q8W3K0-F1-model_v4.cif", "AF-C1P619-F1-model_v6.cif"}
	for i := range afdb {
		afdb[i] = filepath.Join(dir, "afdb", afdb[i])
	}
	written, err := g.WritePDB(afdb, tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range written {
		if p == "" {
			t.Fatal("gemmi could not write an AFDB file as PDB")
		}
	}
	paths = append(paths, written...)
	for _, p := range []string{paths[0], written[0]} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		gz := filepath.Join(tmp, "z-"+filepath.Base(p)+".gz")
		if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, gz)
	}
	rs, err := g.Read(paths)
	if err != nil {
		t.Fatal(err)
	}
	return paths, rs
}

// TestInspectPDB: `inspect` reads PDB-format files as gemmi does: models,
// chains (name, residues, polymer residues, atoms, sequence), the pLDDT
// mean and the contacts (numbered by position: PDB has no label_seq_id),
// and names the entry as gemmi names the structure.
func TestInspectPDB(t *testing.T) {
	paths, rs := pdbInputs(t)
	for i, p := range paths {
		r, g := inspectFile(p), rs[i]
		if r.Error != "" || g.Error != "" {
			t.Errorf("%s: inspect error %q, gemmi error %q", p, r.Error, g.Error)
			continue
		}
		if r.EntryID != g.Name || *r.NModels != len(g.Models) || len(r.Chains) != len(g.Models[0].Chains) {
			t.Errorf("%s: entry %q, %d models, %d chains; gemmi %q, %d, %d", p, r.EntryID, *r.NModels, len(r.Chains), g.Name, len(g.Models), len(g.Models[0].Chains))
			continue
		}
		for ci, gc := range g.Models[0].Chains {
			c := r.Chains[ci]
			if c.Name != gc.Name || c.NResidues != gc.NResidues || c.NPolymer != gc.NPolymer || c.NAtoms != gc.NAtoms || c.Sequence != gc.Sequence {
				t.Errorf("%s chain %d: %+v, gemmi %+v", p, ci, c, gc)
			}
		}
		if r.PLDDTMean == nil || g.PLDDTMean == nil || *r.PLDDTMean != float64(*g.PLDDTMean) {
			t.Errorf("%s: pLDDT mean %v, gemmi %v", p, r.PLDDTMean, g.PLDDTMean)
		}
		if *r.NContacts != len(g.Contacts) || *r.NContacts == 0 {
			t.Errorf("%s: %d contacts, gemmi %d (want some)", p, *r.NContacts, len(g.Contacts))
			continue
		}
		// gemmi_read.py sorts by (i, j, distance); inspect keeps residue
		// order within (i, j) (microheterogeneity gives two pairs)
		cs := slices.Clone(*r.Contacts)
		slices.SortStableFunc(cs, func(a, b [3]float64) int { return slices.Compare(a[:], b[:]) })
		for k, c := range cs {
			if gc := g.Contacts[k]; c[0] != gc[0] || c[1] != gc[1] || math.Abs(c[2]-gc[2]) > 1e-9 {
				t.Errorf("%s: contact %d %v, gemmi %v", p, k, c, g.Contacts[k])
				break
			}
		}
	}
}

// TestDocPDB: `doc` writes for a PDB-format file the document the
// reference generator (Python + gemmi) writes for it, byte for byte (by
// sha1), the entry id taken from the file name as gemmi takes it.
func TestDocPDB(t *testing.T) {
	paths, rs := pdbInputs(t)
	f, err := formatRegistry.New(distancesv2.Name, map[string]string{"residue_plddt_min": "70"})
	if err != nil {
		t.Fatal(err)
	}
	r := newDocReader(f)
	docs := 0
	for i, p := range paths {
		raw, _ := r.appendLine(nil, p, "")
		var line docLine
		if err := json.Unmarshal(raw, &line); err != nil {
			t.Fatal(err)
		}
		want := rs[i].CADV2
		if line.Outcome != want.Outcome || line.SHA1 != want.SHA1 {
			t.Errorf("%s: doc %s %s (%s), reference %s %s (%s)", p, line.Outcome, line.SHA1, line.Error, want.Outcome, want.SHA1, want.Error)
		}
		if line.Outcome == "document" {
			docs++
		}
	}
	if docs < 4 {
		t.Errorf("only %d documents among %d PDB files: the check is too weak", docs, len(paths))
	}
}

// TestRunPDB: `run` over a manifest whose rows point at PDB-format files
// (plain and gzip), and over one that holds their text inline
// (--cif-text-column), writes the reference generator's documents.
func TestRunPDB(t *testing.T) {
	ctx := context.Background()
	paths, rs := pdbInputs(t)
	var uriRows, textRows [][]any
	want := map[string]string{}
	for i, p := range paths {
		id := distancesv2.EntryID(rs[i].Name, p)
		if _, dup := want[id]; dup {
			continue
		}
		want[id] = rs[i].CADV2.SHA1
		uriRows = append(uriRows, []any{id, "file://" + p})
		if filepath.Ext(p) == ".pdb" {
			text, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			textRows = append(textRows, []any{id, string(text)})
		}
	}
	dir := t.TempDir()
	for _, run := range []struct {
		name, col string
		rows      [][]any
		flags     []string
	}{
		{"uri", "gcs_uri", uriRows, nil},
		{"inline", "cif_content", textRows, []string{"--cif-text-column", "cif_content"}},
	} {
		data, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: run.col, Type: format.String}}, run.rows, 0)
		if err != nil {
			t.Fatal(err)
		}
		m := filepath.Join(dir, run.name+".parquet")
		if err := os.WriteFile(m, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, run.name)
		if err := runRun(ctx, append([]string{"--manifest", m, "--out", out, "--workers", "1"}, run.flags...)); err != nil {
			t.Fatalf("run (%s): %v", run.name, err)
		}
		got := map[string]string{}
		parts, _ := filepath.Glob(filepath.Join(out, "*.parquet"))
		for _, part := range parts {
			err := corpus.Read(ctx, localblob.Store{}, part, []string{"entry_id", "sha1"}, func(r *manifest.Rows) error {
				for _, v := range r.Values {
					got[v[0].(string)] = v[1].(string)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, row := range run.rows {
			id := row[0].(string)
			if sha := want[id]; got[id] != sha {
				t.Errorf("run (%s) %s: sha1 %q, reference %q", run.name, id, got[id], sha)
			}
		}
		if len(got) < 4 {
			t.Errorf("run (%s) wrote %d documents: %v", run.name, len(got), got)
		}
	}
}

// TestInspectPDBWithoutAtoms: a PDB-format file without atom records (a
// header, as gemmi's write_pdb writes a structure without models) reads as
// one empty model, as gemmi reads it; inspect reports it without chains,
// pLDDT or contacts (it used to panic on the missing principal chain).
func TestInspectPDBWithoutAtoms(t *testing.T) {
	p := filepath.Join(t.TempDir(), "empty.pdb")
	text := "HEADER                                                        0RED              \n" +
		"CRYST1    1.000    1.000    1.000  90.00  90.00  90.00 P 1                      \nEND\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := inspectFile(p)
	if r.Error != "" || r.NModels == nil || *r.NModels != 1 || len(r.Chains) != 0 || r.PLDDTMean != nil || r.NContacts == nil || *r.NContacts != 0 {
		t.Fatalf("got %+v, want one model, no chains, no pLDDT, 0 contacts", r)
	}
	b, err := appendInspectJSON(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"file":"` + p + `","entry_id":"empty","n_models":1,"n_contacts":0,"contacts":[]}` + "\n"; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
}
