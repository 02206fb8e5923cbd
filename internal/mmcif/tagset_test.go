package mmcif

import (
	"fmt"
	"strings"
	"testing"
)

// TestTagSet: distinct tags are new, the same tags in another case are
// not, past several table growths; reset empties the set.
func TestTagSet(t *testing.T) {
	var b strings.Builder
	var spans []span
	for i := range 1000 {
		s := b.Len()
		fmt.Fprintf(&b, "_cat%d.item%d ", i%37, i)
		spans = append(spans, span{int32(s), int32(b.Len() - 1)})
	}
	lower := b.String()
	data := []byte(lower + strings.ToUpper(lower))
	var set tagSet
	for round := range 2 {
		for i, sp := range spans {
			if !set.add(data, sp) {
				t.Fatalf("round %d: tag %d %s reported as a duplicate", round, i, data[sp.s:sp.e])
			}
		}
		for i, sp := range spans {
			up := span{sp.s + int32(len(lower)), sp.e + int32(len(lower))}
			if set.add(data, up) {
				t.Fatalf("round %d: tag %d %s in upper case reported as new", round, i, data[up.s:up.e])
			}
		}
		set.reset()
	}
}
