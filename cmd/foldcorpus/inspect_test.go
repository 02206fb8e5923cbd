package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

func TestInspectMatchesReference(t *testing.T) {
	dir := testcorpus.Dir(t)
	for _, f := range []string{"pdb/1crn.cif", "pdb/5ugo.cif", "afdb/AF-C1P619-F1-model_v6.cif", "edge/ciftools_0emp.cif"} {
		t.Run(f, func(t *testing.T) {
			var ref struct {
				StructureOK bool    `json:"structure_ok"`
				NModels     int     `json:"n_models"`
				NContacts   int     `json:"n_contacts"`
				PLDDTMean   float64 `json:"plddt_mean"`
				Chains      []struct {
					Name     string `json:"name"`
					Sequence string `json:"sequence"`
				} `json:"chains"`
			}
			data, err := os.ReadFile(filepath.Join(dir, "reference", filepath.Base(f)+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &ref); err != nil {
				t.Fatal(err)
			}
			r := inspectFile(filepath.Join(dir, f))
			if !ref.StructureOK {
				if r.Error == "" {
					t.Fatalf("want an error, got %+v", r)
				}
				return
			}
			if r.Error != "" || *r.NModels != ref.NModels || *r.NContacts != ref.NContacts || len(*r.Contacts) != ref.NContacts {
				t.Fatalf("got %+v, want models %d contacts %d", r, ref.NModels, ref.NContacts)
			}
			for i, c := range ref.Chains {
				if r.Chains[i].Name != c.Name || r.Chains[i].Sequence != c.Sequence {
					t.Errorf("chain %d: %+v, want %+v", i, r.Chains[i], c)
				}
			}
			if ref.PLDDTMean != 0 && (r.PLDDTMean == nil || *r.PLDDTMean-ref.PLDDTMean > 1e-4 || ref.PLDDTMean-*r.PLDDTMean > 1e-4) {
				t.Errorf("plddt_mean %v, want %v", r.PLDDTMean, ref.PLDDTMean)
			}
		})
	}
}

// TestAppendInspectJSONMatchesEncodingJSON: the hand-formatted contacts give
// the bytes json.Encoder gives, for real files and for floats of every
// magnitude encoding/json formats differently.
func TestAppendInspectJSONMatchesEncodingJSON(t *testing.T) {
	dir := testcorpus.Dir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "afdb", "*.cif"))
	var results []inspectResult
	for _, f := range files[:min(5, len(files))] {
		results = append(results, inspectFile(f))
	}
	odd := [][3]float64{{0, 1, 1e-7}, {2, 3, 1e21}, {4, 5, 123456789.125}, {6, 7, -0.5}, {8, 9, 7.999999999999999}, {10, 11, 1e-6}, {12, 13, 0},
		{1, 1<<53 - 1, 1200}, {1 << 53, 1e15, 0.9999999999999999}, {-3, 2.5, 1e20}, {1e21 - 1<<17, 123456, 1.5}}
	n := len(odd)
	results = append(results, inspectResult{File: "odd.cif", NContacts: &n, Contacts: &odd}, inspectResult{File: "bad.cif", Error: "bad <&>"})
	for _, r := range results {
		var want strings.Builder
		if err := json.NewEncoder(&want).Encode(r); err != nil {
			t.Fatal(err)
		}
		got, err := appendInspectJSON(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want.String() {
			t.Errorf("appendInspectJSON(%s) = %.300s\nwant %.300s", r.File, got, want.String())
		}
	}
}
