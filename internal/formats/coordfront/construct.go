package coordfront

import (
	"fmt"
	"math"

	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/needcgo"
	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// Configure is both formats' option parsing: Apply the knobs (which point
// into the format's configuration), then validate the result. Errors wrap
// derrors.ErrPermanent and name the format.
func Configure(name string, knobs []Knob, opts map[string]string, validate func() error) error {
	if err := Apply(name, knobs, opts); err != nil {
		return err
	}
	if err := validate(); err != nil {
		return derrors.Permanent(fmt.Errorf("%s: %w", name, err))
	}
	return nil
}

// CheckNew is what both formats' New refuses: an invalid configuration
// (valid is its Validate result, wrapped with derrors.ErrPermanent), or a
// build without cgo (needcgo.ErrNoCgo), where gauss() cannot match
// CPython's glibc log/sin/cos bit for bit (pyrandom.ExactLibm) nor ConFind
// numba's atan2 (confind.ExactAtan2).
func CheckNew(name string, valid error) error {
	if valid != nil {
		return derrors.Permanent(fmt.Errorf("%s: %w", name, valid))
	}
	if !pyrandom.ExactLibm || !confind.ExactAtan2 {
		return needcgo.Refuse(name)
	}
	return nil
}

// FloatOrNil is a nullable float column's value: nil for a nil or NaN p.
func FloatOrNil(p *float64) any {
	if p == nil || math.IsNaN(*p) {
		return nil
	}
	return *p
}
