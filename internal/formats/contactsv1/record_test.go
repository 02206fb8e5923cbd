package contactsv1

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
)

// validRecord is a small well-formed two-chain record: chain A has 8
// residues, chain B 4.
func validRecord() map[string]any {
	return map[string]any{
		"entry_id":        "rec-1",
		"seq_len":         int64(12),
		"global_plddt":    71.5,
		"num_contacts":    int64(3),
		"residue_resname": []string{"MET", "ALA", "GLY", "LYS", "PHE", "SER", "THR", "VAL", "LEU", "ILE", "MSE", "XYZ"},
		"residue_resnum":  []int64{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4},
		"residue_chain":   []string{"A", "A", "A", "A", "A", "A", "A", "A", "B", "B", "B", "B"},
		"contact_seq_i":   []int64{0, 1, 7},
		"contact_seq_j":   []int64{7, 3, 8},
		"contact_degree":  []float64{0.4, 0.2, 0.3},
	}
}

func TestAnalysisFromRecordErrors(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(map[string]any)
		errHas string
	}{
		{"residue length mismatch", func(r map[string]any) { r["residue_resnum"] = []int64{1, 2} }, "residue arrays differ"},
		{"contact length mismatch", func(r map[string]any) { r["contact_degree"] = []float64{0.4} }, "contact arrays differ"},
		{"seq_i >= seq_j", func(r map[string]any) { r["contact_seq_i"] = []int64{0, 3, 7} }, "contact 1 (3, 3)"},
		{"seq_j out of range", func(r map[string]any) { r["contact_seq_j"] = []int64{7, 3, 12} }, "contact 2 (7, 12)"},
		{"negative seq_i", func(r map[string]any) { r["contact_seq_i"] = []int64{-1, 1, 7} }, "contact 0 (-1, 7)"},
		{"zero degree", func(r map[string]any) { r["contact_degree"] = []float64{0.4, 0, 0.3} }, "degree 0"},
		{"duplicate contact", func(r map[string]any) {
			r["contact_seq_i"], r["contact_seq_j"] = []int64{0, 1, 0}, []int64{7, 3, 7}
		}, "listed twice"},
		{"interleaved chains", func(r map[string]any) {
			r["residue_chain"] = []string{"A", "A", "A", "A", "B", "B", "A", "A", "B", "B", "B", "B"}
		}, `chain "A" appears in more than one run`},
		{"seq_len disagrees", func(r map[string]any) { r["seq_len"] = int64(13) }, "seq_len is 13"},
		{"num_contacts disagrees", func(r map[string]any) { r["num_contacts"] = int64(2) }, "num_contacts is 2"},
		{"missing column", func(r map[string]any) { delete(r, "contact_seq_j") }, "contact_seq_j is missing"},
		{"wrong type", func(r map[string]any) { r["residue_chain"] = "A" }, "residue_chain is string"},
		{"no entry id", func(r map[string]any) { r["entry_id"] = "" }, "entry_id is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := validRecord()
			tt.edit(rec)
			f, _ := New(nil)
			_, err := f.Generate(format.Input{Record: rec})
			if err == nil {
				t.Fatalf("Generate(%s) = nil error, want one containing %q", tt.name, tt.errHas)
			}
			if !errors.Is(err, derrors.ErrPermanent) {
				t.Errorf("Generate(%s) error %v is not permanent", tt.name, err)
			}
			if !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("Generate(%s) error = %q, want it to contain %q", tt.name, err, tt.errHas)
			}
			if id, _ := rec["entry_id"].(string); id != "" && !strings.Contains(err.Error(), id) {
				t.Errorf("Generate(%s) error = %q does not name the entry %q", tt.name, err, id)
			}
		})
	}
}

func TestAnalysisFromRecordAccepts(t *testing.T) {
	tests := []struct {
		name string
		edit func(map[string]any)
	}{
		{"as is", func(map[string]any) {}},
		{"null optional scalars", func(r map[string]any) { r["seq_len"], r["num_contacts"], r["global_plddt"] = nil, nil, nil }},
		{"int32 lists", func(r map[string]any) {
			r["residue_resnum"] = []int32{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4}
			r["contact_seq_i"], r["contact_seq_j"] = []int32{0, 1, 7}, []int32{7, 3, 8}
		}},
		{"contacts out of order", func(r map[string]any) {
			r["contact_seq_i"], r["contact_seq_j"] = []int64{7, 0, 1}, []int64{8, 7, 3}
		}},
		{"no contacts", func(r map[string]any) {
			r["contact_seq_i"], r["contact_seq_j"], r["contact_degree"] = []int64{}, []int64{}, []float64{}
			r["num_contacts"] = int64(0)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := validRecord()
			tt.edit(rec)
			f, _ := New(nil)
			res, err := f.Generate(format.Input{EntryID: "rec-1", Record: rec})
			if err != nil {
				t.Fatalf("Generate(%s): %v", tt.name, err)
			}
			if res.Document == "" || res.Filtered != "" {
				t.Fatalf("Generate(%s) = filtered %q, want a document", tt.name, res.Filtered)
			}
		})
	}
}

func TestResidueTokens(t *testing.T) {
	a, err := AnalysisFromRecord("", validRecord())
	if err != nil {
		t.Fatal(err)
	}
	doc, _, err := Generate(a, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	// MSE becomes MET, an unknown name becomes UNK; the record's own names
	// are kept otherwise.
	for _, tok := range []string{"<MET>", "<UNK>", "<ILE>"} {
		if got := strings.Count(doc.Text, tok); got == 0 {
			t.Errorf("document has no %s: %s", tok, doc.Text)
		}
	}
	if strings.Contains(doc.Text, "<MSE>") || strings.Contains(doc.Text, "<XYZ>") {
		t.Errorf("document keeps a non-canonical residue token: %s", doc.Text)
	}
	if got, want := strings.Count(doc.Text, "<MET>"), 2; got != want {
		t.Errorf("<MET> appears %d times, want %d (MET and MSE)", got, want)
	}
}

func TestNewOptions(t *testing.T) {
	tests := []struct {
		opts    map[string]string
		wantErr bool
		want    Config
	}{
		{nil, false, DefaultConfig()},
		{map[string]string{"think": "true"}, false, Config{6, 0.001, 8192, true}},
		{map[string]string{"min_seq_separation": "3", "min_contact_degree": "0.01", "context_length": "4096"}, false, Config{3, 0.01, 4096, false}},
		{map[string]string{"think": "maybe"}, true, Config{}},
		{map[string]string{"min_seq_separation": "0"}, true, Config{}},
		{map[string]string{"min_contact_degree": "-1"}, true, Config{}},
		{map[string]string{"residue_plddt_min": "70"}, true, Config{}},
	}
	for _, tt := range tests {
		f, err := New(tt.opts)
		if tt.wantErr {
			if err == nil || !errors.Is(err, derrors.ErrPermanent) {
				t.Errorf("New(%v) error = %v, want a permanent error", tt.opts, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("New(%v): %v", tt.opts, err)
			continue
		}
		if got := f.(*Format).cfg; got != tt.want {
			t.Errorf("New(%v) config = %+v, want %+v", tt.opts, got, tt.want)
		}
	}
}

func TestRecordFromJSON(t *testing.T) {
	rec, err := RecordFromJSON([]byte(`{"entry_id": "x", "seq_len": 3, "global_plddt": null,
		"residue_resname": ["ALA", "GLY", "SER"], "contact_degree": [0.5]}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		col  string
		want any
	}{
		{"entry_id", "x"}, {"seq_len", int64(3)}, {"global_plddt", nil}, {"num_contacts", nil},
		{"residue_resname", []string{"ALA", "GLY", "SER"}}, {"residue_chain", nil}, {"contact_degree", []float64{0.5}},
	}
	for _, tt := range tests {
		if got := rec[tt.col]; fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", tt.want) {
			t.Errorf("RecordFromJSON: %s = %#v, want %#v", tt.col, got, tt.want)
		}
	}
	for _, bad := range []string{`{"seq_len": "three"}`, `{"contact_seq_i": [0.5]}`, `[1]`} {
		if _, err := RecordFromJSON([]byte(bad)); !errors.Is(err, derrors.ErrPermanent) {
			t.Errorf("RecordFromJSON(%s) error = %v, want a permanent error", bad, err)
		}
	}
}
