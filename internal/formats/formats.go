// Package formats maps format names to their implementations, so the CLI,
// the planner and the shard workers resolve a run's format in one place.
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

// constructors builds each format from the run's options (string knobs; an
// absent knob takes the reference default). One line per format.
var constructors = map[string]func(opts map[string]string) (format.Format, error){
	contactsv1.Name: fromstructure.New, // contactsv1.New without rotlib=
	cadv2.Name:      cadv2.NewFromOptions,
	bio2token.Name:  bio2token.NewFromOptions,
	ccoordv1.Name:   ccoordv1.NewFromOptions,
	cropsv1.Name:    cropsv1.NewFromOptions,
}

// New returns the named format configured by opts.
func New(name string, opts map[string]string) (format.Format, error) {
	c, ok := constructors[name]
	if !ok {
		return nil, fmt.Errorf("unknown format %q (known: %v)", name, Names())
	}
	return c(opts)
}

// Names lists the known formats, sorted.
func Names() []string {
	names := make([]string, 0, len(constructors))
	for n := range constructors {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
