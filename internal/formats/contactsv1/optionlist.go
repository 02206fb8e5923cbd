package contactsv1

import (
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/format"
)

// OptionList lists every key New accepts with its default (the value in
// DefaultConfig), sorted by key.
func OptionList() []format.Option {
	d := DefaultConfig()
	return []format.Option{
		{Key: "context_length", Default: strconv.Itoa(d.ContextLength), Doc: "token budget of a document"},
		{Key: "min_contact_degree", Default: strconv.FormatFloat(d.MinContactDegree, 'g', -1, 64), Doc: "contacts below this degree are never emitted"},
		{Key: "min_seq_separation", Default: strconv.Itoa(d.MinSeqSeparation), Doc: "an intra-chain pair is a contact only at j - i >= this"},
		{Key: "think", Default: strconv.FormatBool(d.Think), Doc: "insert <think> runs between contact statements"},
	}
}
