package localrun

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/planner"
)

// Normalize returns spec in the form that identifies the run, so that two
// commands meaning the same run plan the same run id: the manifest and the
// output as absolute paths (a file:// URI and its path are the same input),
// and the format's options with every default applied (an option passed
// explicitly at its default, e.g. residue_plddt_min=70 or 70.0, is the
// option left out).
func Normalize(reg *registry.Registry, spec planner.Spec) (planner.Spec, error) {
	var err error
	if spec.Manifest, err = absPath(spec.Manifest); err != nil {
		return spec, err
	}
	if spec.Output, err = absPath(spec.Output); err != nil {
		return spec, err
	}
	opts := reg.WithDefaults(spec.Format, spec.Options)
	if info, err := reg.Describe(spec.Format); err == nil {
		for _, o := range info.Options {
			v, set := opts[o.Key]
			if !set || o.Required || v == o.Default {
				continue
			}
			x, err1 := strconv.ParseFloat(strings.TrimSpace(v), 64)
			d, err2 := strconv.ParseFloat(o.Default, 64)
			if err1 == nil && err2 == nil && x == d {
				opts[o.Key] = o.Default
			}
		}
	}
	spec.Options = opts
	return spec, nil
}

// absPath turns a local path or file:// URI into an absolute path; other
// URIs are left as they are (the store refuses them).
func absPath(p string) (string, error) {
	if p == "" {
		return p, nil
	}
	if strings.Contains(p, "://") {
		local, err := localblob.Path(p)
		if err != nil {
			return p, nil
		}
		p = local
	}
	return filepath.Abs(p)
}

// runDiff lists what differs between the run recorded in a folder and the
// run of this command, one line each, for the error that refuses the
// second. Two runs with the same inputs and options differ in their
// manifest files (their list or sizes).
func runDiff(recorded, this ledger.Run) []string {
	var diff []string
	add := func(what, a, b string) {
		if a != b {
			diff = append(diff, fmt.Sprintf("%s: %s (recorded) vs %s (this command)", what, a, b))
		}
	}
	add("manifest", recorded.Manifest, this.Manifest)
	add("format", recorded.Format, this.Format)
	add("output", recorded.Output, this.Output)
	add("shards", strconv.Itoa(recorded.Shards), strconv.Itoa(this.Shards))
	keys := slices.Sorted(maps.Keys(recorded.Options))
	for _, k := range slices.Sorted(maps.Keys(this.Options)) {
		if _, ok := recorded.Options[k]; !ok {
			keys = append(keys, k)
		}
	}
	show := func(m map[string]string, k string) string {
		if v, ok := m[k]; ok {
			return strconv.Quote(v)
		}
		return "unset"
	}
	for _, k := range keys {
		add("option "+k, show(recorded.Options, k), show(this.Options, k))
	}
	if len(diff) == 0 {
		diff = append(diff, "the manifest files: the same glob lists other files or files of other sizes")
	}
	return diff
}
