package registry

import (
	"reflect"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
)

// TestDescribe: every registered format is described, and a format built
// from its listed defaults reads the input kind the registry says.
func TestDescribe(t *testing.T) {
	r := Builtin()
	for _, name := range r.Names() {
		info, err := r.Describe(name)
		if err != nil {
			t.Errorf("Describe(%s): %v", name, err)
			continue
		}
		if len(info.Options) == 0 && name != "pdb-header" { // the scan has nothing to set
			t.Errorf("Describe(%s) lists no options", name)
		}
		required := false
		for _, o := range info.Options {
			required = required || o.Required
		}
		if required { // building needs e.g. weights
			continue
		}
		f, err := r.New(name, r.WithDefaults(name, nil))
		if err != nil {
			t.Errorf("New(%s, defaults): %v", name, err)
			continue
		}
		if f.Kind() != info.Input {
			t.Errorf("%s: Kind() = %v, registry says %v", name, f.Kind(), info.Input)
		}
	}
	if got := len(r.Names()); got != len(builtin()) {
		t.Errorf("%d formats registered, %d builtin", got, len(builtin()))
	}
	if got := r.NamesReading(format.FromRecord); !reflect.DeepEqual(got, []string{"contacts-v1"}) {
		t.Errorf("NamesReading(FromRecord) = %v", got)
	}
}

func TestWithDefaults(t *testing.T) {
	r := Builtin()
	got := r.WithDefaults("contacts-v1", map[string]string{"think": "true"})
	want := map[string]string{"think": "true", "context_length": "8192", "min_contact_degree": "0.001", "min_seq_separation": "6", "rotlib": "", "record": "false",
		"units": "structure", "curation": "none", "max_chains": "1", "clusters": "", "fix_chain_ids": "false"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WithDefaults = %v, want %v", got, want)
	}
	if got := r.WithDefaults("no-such-format", map[string]string{"a": "b"}); !reflect.DeepEqual(got, map[string]string{"a": "b"}) {
		t.Errorf("WithDefaults(unknown) = %v", got)
	}
}
