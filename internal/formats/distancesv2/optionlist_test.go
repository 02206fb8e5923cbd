package distancesv2

import (
	"reflect"
	"testing"
)

// TestOptionList: the listed knobs are exactly the keys ParseOptions
// accepts, and their listed defaults parse back to Defaults().
func TestOptionList(t *testing.T) {
	list := OptionList()
	var keys []string
	kv := map[string]string{}
	for _, o := range list {
		keys = append(keys, o.Key)
		kv[o.Key] = o.Default
		if o.Required || o.Doc == "" {
			t.Errorf("option %s: required %v, doc %q; want a default and a doc", o.Key, o.Required, o.Doc)
		}
	}
	if !reflect.DeepEqual(keys, OptionKeys()) {
		t.Errorf("OptionList keys = %v, want OptionKeys() = %v", keys, OptionKeys())
	}
	got, err := ParseOptions(kv)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, Defaults()) {
		t.Errorf("ParseOptions(OptionList defaults) = %+v, want Defaults() = %+v", got, Defaults())
	}
}
