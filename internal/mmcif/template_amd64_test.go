package mmcif

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFastPathWithoutAVX2 reads the corpus as a machine without AVX2 does
// (no row template, no block counting: every line byte by byte) and
// requires the same structures and errors as the general tokenizer.
func TestFastPathWithoutAVX2(t *testing.T) {
	defer func(v bool) { haveLineMasks = v }(haveLineMasks)
	haveLineMasks = false
	r := rand.New(rand.NewPCG(11, 12))
	eachCorpusFile(t, func(name string, data []byte) {
		checkFastMatchesGeneral(t, name, data)
		b := getBuilder(data)
		b.fast.tpl.hits, b.blockValues = 0, 0
		_, _ = parse(data, b) // errors are compared above
		if b.fast.tpl.hits != 0 || b.blockValues != 0 {
			t.Fatalf("%s: %d rows through the template, %d values counted in blocks without AVX2", name, b.fast.tpl.hits, b.blockValues)
		}
		b.release()
		if len(data) > 0 {
			checkFastMatchesGeneral(t, fmt.Sprintf("%s (edit)", name), mutate(r, data))
		}
	})
}
