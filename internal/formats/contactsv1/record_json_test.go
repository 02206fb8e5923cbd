package contactsv1

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// slowRecordFromJSON is RecordFromJSON's encoding/json path alone.
func slowRecordFromJSON(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var j jsonRecord
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	rec := map[string]any{
		"entry_id": nil, "seq_len": nil, "global_plddt": nil, "num_contacts": nil,
		"residue_resname": nil, "residue_resnum": nil, "residue_chain": nil,
		"contact_seq_i": nil, "contact_seq_j": nil, "contact_degree": nil,
	}
	for k, v := range map[string]any{"entry_id": j.EntryID, "seq_len": j.SeqLen, "global_plddt": j.GlobalPLDDT,
		"num_contacts": j.NumContacts} {
		if rv := reflect.ValueOf(v); !rv.IsNil() {
			rec[k] = rv.Elem().Interface()
		}
	}
	for k, v := range map[string]any{"residue_resname": j.ResidueResname, "residue_resnum": j.ResidueResnum,
		"residue_chain": j.ResidueChain, "contact_seq_i": j.ContactSeqI, "contact_seq_j": j.ContactSeqJ,
		"contact_degree": j.ContactDegree} {
		if rv := reflect.ValueOf(v); !rv.IsNil() {
			rec[k] = v
		}
	}
	return rec
}

func TestFastRecordFromJSONGolden(t *testing.T) {
	for _, c := range loadGolden(t) {
		fast, err := fastRecordFromJSON(c.Input)
		if err != nil {
			t.Fatalf("%s: fast decoder fell back: %v", c.EntryID, err)
		}
		if slow := slowRecordFromJSON(t, c.Input); !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: fast and encoding/json decodings differ", c.EntryID)
		}
	}
}

func TestFastRecordFromJSON(t *testing.T) {
	tests := []struct {
		in       string
		fallback bool // the fast path must hand over to encoding/json
	}{
		{`{}`, false},
		{` { "entry_id" : "a" , "seq_len" : 2 , "global_plddt" : -1.5e-3 , "residue_chain" : [ "A" , "A" ] } `, false},
		{`{"entry_id": null, "contact_degree": [], "residue_resnum": [1, -2]}`, false},
		{`{"entry_id": "a\u00e9"}`, true},       // escape
		{`{"entry_id": "a", "extra": 1}`, true}, // unknown key
		{`{"seq_len": 2.0}`, true},              // float in an int field
		{`{"seq_len": +2}`, true},               // not JSON
		{`{"contact_degree": [0.5,]}`, true},    // trailing comma
		{`{"contact_degree": [1.]}`, true},      // not JSON
		{`{"entry_id": "a"} x`, true},           // trailing data
		{`{"residue_chain": ["A", 1]}`, true},   // mixed list
	}
	for _, tt := range tests {
		fast, err := fastRecordFromJSON([]byte(tt.in))
		if tt.fallback {
			if err == nil {
				t.Errorf("fastRecordFromJSON(%s) = %v, want a fallback to encoding/json", tt.in, fast)
			}
			continue
		}
		if err != nil {
			t.Errorf("fastRecordFromJSON(%s): fell back", tt.in)
			continue
		}
		if slow := slowRecordFromJSON(t, []byte(tt.in)); fmt.Sprintf("%#v", fast) != fmt.Sprintf("%#v", slow) {
			t.Errorf("fastRecordFromJSON(%s) = %#v, encoding/json gives %#v", tt.in, fast, slow)
		}
	}
}
