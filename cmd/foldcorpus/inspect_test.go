package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
