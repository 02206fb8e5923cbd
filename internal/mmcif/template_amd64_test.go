package mmcif

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestFastPathWithoutAVX2 reads the corpus as a machine without AVX2 does
// (no row template, no block counting: every line byte by byte) and
// requires the same structures and errors as the general tokenizer.
func TestFastPathWithoutAVX2(t *testing.T) {
	defer func(v bool) { haveLineMasks = v }(haveLineMasks)
	haveLineMasks = false
	dir := testcorpus.Dir(t)
	r := rand.New(rand.NewPCG(11, 12))
	for _, cat := range []string{"afdb", "pdb", "edge"} {
		for _, p := range testcorpus.Files(t, cat) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimPrefix(p, dir)
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
		}
	}
}
