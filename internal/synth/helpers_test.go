package synth

import (
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

func formatInput(id string, st *structure.Structure) format.Input {
	return format.Input{EntryID: id, Structure: st}
}
