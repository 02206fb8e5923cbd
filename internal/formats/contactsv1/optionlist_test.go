package contactsv1

import (
	"strings"
	"testing"
)

// TestOptionList: the listed defaults build DefaultConfig, and the listed
// keys are the ones New names as known when it refuses an unknown key.
func TestOptionList(t *testing.T) {
	kv := map[string]string{}
	var keys []string
	for _, o := range OptionList() {
		kv[o.Key] = o.Default
		keys = append(keys, o.Key)
	}
	f, err := New(kv)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.(*Format).Config(); got != DefaultConfig() {
		t.Errorf("New(OptionList defaults).Config() = %+v, want DefaultConfig() = %+v", got, DefaultConfig())
	}
	_, err = New(map[string]string{"no_such_knob": "1"})
	if err == nil {
		t.Fatal("New accepted an unknown knob")
	}
	for _, k := range keys {
		if !strings.Contains(err.Error(), k) {
			t.Errorf("New's unknown-knob error %q does not name listed key %s", err, k)
		}
	}
	if n := strings.Count(err.Error(), ",") + 1; n != len(keys) {
		t.Errorf("New's unknown-knob error names %d keys, OptionList %d: %v", n, len(keys), err)
	}
}
