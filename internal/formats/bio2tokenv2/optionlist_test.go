package bio2tokenv2

import (
	"testing"
)

// TestOptionList: the listed defaults are the ones ParseOptions applies,
// and the required knob is refused when absent.
func TestOptionList(t *testing.T) {
	kv := map[string]string{}
	for _, o := range OptionList() {
		if !o.Required {
			kv[o.Key] = o.Default
		}
	}
	if _, err := ParseOptions(kv); err == nil {
		t.Errorf("ParseOptions(%v) without the required weights succeeded", kv)
	}
	kv[OptWeights] = "generated:1"
	got, err := ParseOptions(kv)
	if err != nil {
		t.Fatal(err)
	}
	def, err := ParseOptions(map[string]string{OptWeights: "generated:1"})
	if err != nil {
		t.Fatal(err)
	}
	if got != def {
		t.Errorf("ParseOptions(OptionList defaults) = %+v, want the absent-key defaults %+v", got, def)
	}
}
