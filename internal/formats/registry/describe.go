package registry

import (
	"sort"

	"github.com/foldcorpus/foldcorpus/internal/format"
)

// Info describes a registered format without building it (building
// bio2token-v2 loads its weights).
type Info struct {
	Name    string
	Input   format.InputKind
	Options []format.Option
}

// Describe returns the named format's input kind and options.
func (r *Registry) Describe(name string) (Info, error) {
	s, err := r.lookup(name)
	if err != nil {
		return Info{}, err
	}
	return Info{Name: s.Name, Input: s.Input, Options: s.Options()}, nil
}

// NamesReading lists the formats whose input is kind, sorted.
func (r *Registry) NamesReading(kind format.InputKind) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var names []string
	for n, s := range r.specs {
		if s.Input == kind {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// WithDefaults returns opts with every absent option of the named format
// set to its default, so that two option sets that configure the format
// alike compare equal. Options with no default, and the options of a
// format the registry does not know, are left as they are.
func (r *Registry) WithDefaults(name string, opts map[string]string) map[string]string {
	out := make(map[string]string, len(opts))
	for k, v := range opts {
		out[k] = v
	}
	s, err := r.lookup(name)
	if err != nil {
		return out
	}
	for _, o := range s.Options() {
		if _, set := out[o.Key]; !set && !o.Required {
			out[o.Key] = o.Default
		}
	}
	return out
}
