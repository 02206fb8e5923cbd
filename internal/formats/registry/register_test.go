package registry

import (
	"reflect"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/distancesv2"
)

// TestRegisterSpec: a format registered with one Spec is listed, described,
// defaulted and built by the registry; a taken name or a malformed Spec is
// refused and changes nothing.
func TestRegisterSpec(t *testing.T) {
	r := Builtin()
	spec := distancesv2.Spec()
	spec.Name = "registry-test-v0"
	spec.Input = format.FromRecord // not distancesv2's: Describe must read the Spec
	spec.Options = func() []format.Option {
		return []format.Option{{Key: "knob", Default: "7", Doc: "a test knob"}}
	}
	if err := r.Register(spec); err != nil {
		t.Fatalf("Register(%s): %v", spec.Name, err)
	}
	t.Cleanup(func() { r.Unregister(spec.Name) })

	if names := r.Names(); !contains(names, spec.Name) {
		t.Errorf("Names() = %v, want %s in it", names, spec.Name)
	}
	info, err := r.Describe(spec.Name)
	if err != nil || info.Input != format.FromRecord || len(info.Options) != 1 || info.Options[0].Key != "knob" {
		t.Errorf("Describe(%s) = %+v, %v; want its Spec's input and one option", spec.Name, info, err)
	}
	if got := r.NamesReading(format.FromRecord); !contains(got, spec.Name) {
		t.Errorf("NamesReading(FromRecord) = %v, want %s in it", got, spec.Name)
	}
	if got := r.WithDefaults(spec.Name, nil); !reflect.DeepEqual(got, map[string]string{"knob": "7"}) {
		t.Errorf("WithDefaults(%s) = %v", spec.Name, got)
	}
	f, err := r.New(spec.Name, nil)
	if err != nil || f == nil {
		t.Fatalf("New(%s) = %v, %v", spec.Name, f, err)
	}

	if err := r.Register(spec); err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("Register(%s) twice: %v, want already registered", spec.Name, err)
	}
	bad := []format.Spec{
		{Name: "", New: spec.New, Options: spec.Options},
		{Name: "no-new-v0", Options: spec.Options},
		{Name: "dup-key-v0", New: spec.New, Options: func() []format.Option {
			return []format.Option{{Key: "a"}, {Key: "a"}}
		}},
	}
	for _, b := range bad {
		if err := r.Register(b); err == nil {
			r.Unregister(b.Name)
			t.Errorf("Register(%q) = nil, want an error", b.Name)
		}
	}
	if got := len(r.Names()); got != len(builtin())+1 {
		t.Errorf("%d formats after the refused registrations, want %d", got, len(builtin())+1)
	}
	r.Unregister(spec.Name)
	if _, err := r.New(spec.Name, nil); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("New(%s) after Unregister: %v, want unknown format", spec.Name, err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
