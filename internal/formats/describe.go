package formats

import (
	"fmt"
	"sort"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/formats/cadv2"
	"github.com/foldcorpus/foldcorpus/internal/formats/ccoordv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1/fromstructure"
	"github.com/foldcorpus/foldcorpus/internal/formats/cropsv1"
)

// Info describes a registered format without building it (building
// bio2token-v2 loads its weights).
type Info struct {
	Name    string
	Input   format.InputKind
	Options []format.Option
}

// described holds each format's input kind and option list; one line per
// format, as constructors.
var described = map[string]struct {
	input   format.InputKind
	options func() []format.Option
}{
	contactsv1.Name: {format.FromRecord, fromstructure.OptionList}, // FromStructure with rotlib=
	cadv2.Name:      {format.FromStructure, cadv2.OptionList},
	bio2token.Name:  {format.FromStructure, bio2token.OptionList},
	ccoordv1.Name:   {format.FromStructure, ccoordv1.OptionList},
	cropsv1.Name:    {format.FromStructure, cropsv1.OptionList},
}

// Describe returns the named format's input kind and options.
func Describe(name string) (Info, error) {
	d, ok := described[name]
	if !ok {
		return Info{}, fmt.Errorf("unknown format %q (known: %v)", name, Names())
	}
	return Info{Name: name, Input: d.input, Options: d.options()}, nil
}

// NamesReading lists the formats whose input is kind, sorted.
func NamesReading(kind format.InputKind) []string {
	var names []string
	for n, d := range described {
		if d.input == kind {
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
func WithDefaults(name string, opts map[string]string) map[string]string {
	out := make(map[string]string, len(opts))
	for k, v := range opts {
		out[k] = v
	}
	d, ok := described[name]
	if !ok {
		return out
	}
	for _, o := range d.options() {
		if _, set := out[o.Key]; !set && !o.Required {
			out[o.Key] = o.Default
		}
	}
	return out
}
