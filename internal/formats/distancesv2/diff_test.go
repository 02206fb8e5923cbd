package distancesv2

import (
	"strings"
	"testing"
)

// diffDoc reports the first token where two documents differ.
func diffDoc(t *testing.T, got, want string) {
	t.Helper()
	g, w := strings.Fields(got), strings.Fields(want)
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			lo := max(0, i-8)
			t.Logf("first difference at token %d of %d/%d:\n got  ...%s\n want ...%s", i, len(g), len(w),
				strings.Join(g[lo:min(len(g), i+8)], " "), strings.Join(w[lo:min(len(w), i+8)], " "))
			return
		}
	}
	if len(g) != len(w) {
		t.Logf("token counts differ: %d vs %d", len(g), len(w))
	}
}
