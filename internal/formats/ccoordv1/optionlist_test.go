package ccoordv1

import (
	"reflect"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
)

// TestGoldenOptions: every option of every golden line is listed by
// OptionList with the value the reference ran with as its default, and
// Configure accepts the line's options (with rotlib) as the default
// configuration; OptionList lists nothing the golden lines lack but rotlib.
func TestGoldenOptions(t *testing.T) {
	listed := map[string]string{}
	for _, o := range OptionList() {
		listed[o.Key] = o.Default
	}
	lines := coordgolden.Load(t, golden)
	for _, l := range lines {
		opts := l.OptionStrings(t)
		for k, v := range opts {
			def, ok := listed[k]
			if !ok {
				t.Fatalf("%s: golden option %s is not listed", l.File, k)
			}
			if def != v {
				t.Errorf("option %s: listed default %q, the reference ran with %q", k, def, v)
			}
		}
		if len(listed) != len(opts)+1 {
			t.Errorf("%d options listed, the golden line has %d (+ rotlib)", len(listed), len(opts))
		}
		opts["rotlib"] = "/nowhere"
		cfg, rot, err := Configure(opts)
		if err != nil {
			t.Fatalf("%s: Configure(golden options): %v", l.File, err)
		}
		if !reflect.DeepEqual(cfg, DefaultConfig()) || rot != "/nowhere" {
			t.Errorf("%s: Configure(golden options) = %+v, %q; want the defaults", l.File, cfg, rot)
		}
	}
	if _, _, err := Configure(map[string]string{}); err == nil {
		t.Error("Configure without rotlib succeeded")
	}
	if _, _, err := Configure(map[string]string{"rotlib": "x", "dcut": "20"}); err == nil {
		t.Error("Configure accepted dcut=20, which ConFind's native analysis does not run")
	}
	if _, _, err := Configure(map[string]string{"rotlib": "x", "no_such_option": "1"}); err == nil {
		t.Error("Configure accepted an unknown option")
	}
}
