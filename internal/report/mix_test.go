package report

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
)

// TestMixOf: the report takes a file's token mix from its footer only when
// it has one count per row for every class it uses; another format's mix
// or none sends it to the documents; a malformed one is an error.
func TestMixOf(t *testing.T) {
	all := append([]string{format.MixSequence}, stmtNames[:]...)
	mixJSON := func(classes []string, rows int) string {
		m := corpus.Mix{Classes: classes}
		for range classes {
			m.Counts = append(m.Counts, make([]int64, rows))
		}
		js, _ := json.Marshal(m)
		return string(js)
	}
	tests := []struct {
		name    string
		meta    map[string]string
		wantMix bool
		wantErr bool
	}{
		{"none", map[string]string{}, false, false},
		{"every class", map[string]string{corpus.MixKey: mixJSON(all, 3)}, true, false},
		{"every class and more", map[string]string{corpus.MixKey: mixJSON(append(all, "other"), 3)}, true, false},
		{"another format's classes", map[string]string{corpus.MixKey: mixJSON([]string{"a"}, 3)}, false, false},
		{"a count per row missing", map[string]string{corpus.MixKey: mixJSON(all, 2)}, false, true},
		{"not JSON", map[string]string{corpus.MixKey: "{"}, false, true},
		{"counts without classes", map[string]string{corpus.MixKey: `{"classes":[],"counts":[[1,2,3]]}`}, false, true},
	}
	for _, tt := range tests {
		m, err := mixOf(tt.meta, 3)
		if (m != nil) != tt.wantMix || (err != nil) != tt.wantErr {
			t.Errorf("%s: mix %v, err %v; want mix %v, err %v", tt.name, m != nil, err, tt.wantMix, tt.wantErr)
		}
		if err != nil && !errors.Is(err, derrors.ErrPermanent) {
			t.Errorf("%s: err %v is not permanent", tt.name, err)
		}
	}
}
