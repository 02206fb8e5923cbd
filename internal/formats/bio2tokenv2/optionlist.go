package bio2tokenv2

import (
	"strconv"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/format"
)

// OptionList lists the knobs ParseOptions reads, with their defaults.
func OptionList() []format.Option {
	return []format.Option{
		{Key: OptBackend, Default: "go", Doc: "GoMLX backend of the inline encoder"},
		{Key: OptRungs, Default: strconv.Itoa(b2t.DefaultRungs), Doc: "length ladder rungs per octave, 1 to 16"},
		{Key: OptWeights, Required: true, Doc: "bio2token checkpoint path, or generated:SEED (test weights)"},
	}
}

// Spec registers bio2token-v2 (format.Spec): the registry's one line for
// this format.
func Spec() format.Spec {
	return format.Spec{Name: Name, Input: format.FromStructure, Options: OptionList, New: format.OptionsOnly(NewFromOptions)}
}
