package coordfront

import (
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// ConFind returns the analyzer that computes each structure's contact
// degrees with ConFind and the rotamer library in the folder rotlib.
//
// ConFind's port (internal/confind) is not in this build yet, so ConFind
// fails: the formats can be built with another Analyzer (New), not from
// run options.
func ConFind(rotlib string) (Analyzer, error) {
	return nil, derrors.Permanent(fmt.Errorf("ConFind (internal/confind) is not in this build yet: cannot analyze with the rotamer library %s", rotlib))
}
