package registry

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/needcgo"
	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// TestRefuseWithoutCgo: every configuration whose documents depend on the C
// library's maths (glibc log/sin/cos for the seeds' gauss and the think
// runs, atan2 for ConFind's angles) is refused at construction, with
// needcgo's sentence, in a build without cgo; the others build. With cgo
// none is refused. Every builtin format must have a case here, so a new
// format decides. CI runs it both ways (.ci/run: CGO_ENABLED=0 go test).
func TestRefuseWithoutCgo(t *testing.T) {
	exact := pyrandom.ExactLibm && confind.ExactAtan2
	cases := []struct {
		format string
		opts   map[string]string
		cgo    bool // the bytes need cgo: refused without it
		builds bool // no input to load: New must succeed unless refused
	}{
		{"contacts-and-distances-v2", nil, true, true},
		{"contacts-v1", nil, false, true}, // records, no draw through log
		{"contacts-v1", map[string]string{"think": "true"}, true, true},
		{"contacts-v1", map[string]string{"rotlib": "/nonexistent-rotlib"}, true, false},
		{"contacts-and-coordinates-v1", map[string]string{"rotlib": "/nonexistent-rotlib"}, true, false},
		{"contacts-and-crops-v1", map[string]string{"rotlib": "/nonexistent-rotlib"}, true, false},
		// Go's own maths only (its one log, in pyrandom.Sample's set size,
		// cannot change a ceil for fewer than 1e15 atoms). No encoder here:
		// New fails, but not for want of cgo.
		{"bio2token-v2", map[string]string{"weights": "generated:1"}, false, false},
		// the header scan: text fields and counts, no floating point drawn
		{"pdb-header", nil, false, true},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.format] = true
	}
	specs := map[string]format.Spec{}
	for _, s := range builtin() {
		specs[s.Name] = s
		if !covered[s.Name] {
			t.Errorf("format %s has no case in TestRefuseWithoutCgo: do its bytes depend on cgo?", s.Name)
		}
	}
	for _, c := range cases {
		spec, ok := specs[c.format]
		if !ok {
			t.Errorf("case %s: no such builtin format", c.format)
			continue
		}
		_, err := spec.New(context.Background(), format.Env{}, c.opts)
		refused := errors.Is(err, needcgo.ErrNoCgo)
		switch {
		case c.cgo && !exact:
			if !refused {
				t.Errorf("%s %v without cgo: err = %v, want needcgo.ErrNoCgo", c.format, c.opts, err)
			} else if msg := derrors.Describe(err); !strings.HasSuffix(msg, ": "+needcgo.Sentence) || !errors.Is(err, derrors.ErrPermanent) {
				t.Errorf("%s %v without cgo: %q (permanent: %v), want \"...: %s\", permanent", c.format, c.opts, msg, errors.Is(err, derrors.ErrPermanent), needcgo.Sentence)
			}
		case refused:
			t.Errorf("%s %v (cgo %v): refused: %v", c.format, c.opts, exact, err)
		case c.builds && err != nil:
			t.Errorf("%s %v: %v", c.format, c.opts, err)
		}
	}
}
