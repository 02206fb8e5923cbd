package coordinatesv1

import (
	"bytes"
	"os"
	"testing"
)

// TestDrawsHeaderCopies: draws.h (CPython's random() and gauss() draws from
// MT19937's outputs, for the C kernels) has one copy in each package whose
// kernel includes it, coordinatesv1 and cropsv1, because cgo tracks only the
// headers of the package's own folder (an include from another package's
// folder is not part of the build cache's key, so an edit there could leave
// a stale build). The copies must stay byte-identical: edit both.
func TestDrawsHeaderCopies(t *testing.T) {
	here, err := os.ReadFile("draws.h")
	if err != nil {
		t.Fatal(err)
	}
	there, err := os.ReadFile("../cropsv1/draws.h")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(here, there) {
		t.Errorf("internal/formats/coordinatesv1/draws.h and internal/formats/cropsv1/draws.h differ: the two kernels would draw differently; make them identical")
	}
}
