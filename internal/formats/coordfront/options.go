package coordfront

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
)

// Knob is one run option of a coordinate format: its key, default, doc
// and how its value is applied.
type Knob struct {
	format.Option
	Set func(v string) error
}

// KeyRotlib is the option naming ConFind's rotamer library folder.
const KeyRotlib = "rotlib"

// Int, Float and Bool make knobs that parse into p; Fixed makes one whose
// only accepted value is its default (a pyconfind setting that ConFind's
// native analysis fixes).
func Int(key string, p *int, doc string) Knob {
	return Knob{format.Option{Key: key, Default: strconv.Itoa(*p), Doc: doc}, func(v string) (err error) {
		*p, err = strconv.Atoi(v)
		return err
	}}
}

func Float(key string, p *float64, doc string) Knob {
	return Knob{format.Option{Key: key, Default: strconv.FormatFloat(*p, 'g', -1, 64), Doc: doc}, func(v string) error {
		x, err := strconv.ParseFloat(v, 64)
		if err == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
			err = fmt.Errorf("not a finite number")
		}
		*p = x
		return err
	}}
}

func Bool(key string, p *bool, doc string) Knob {
	return Knob{format.Option{Key: key, Default: strconv.FormatBool(*p), Doc: doc}, func(v string) (err error) {
		*p, err = strconv.ParseBool(v)
		return err
	}}
}

func Fixed(key, def, doc string, same func(v string) bool) Knob {
	return Knob{format.Option{Key: key, Default: def, Doc: doc + " (ConFind's native analysis: only " + def + ")"}, func(v string) error {
		if !same(v) {
			return fmt.Errorf("only %s is supported: ConFind runs MarinFold's contacts-v1 settings", def)
		}
		return nil
	}}
}

func sameFloat(def float64) func(string) bool {
	return func(v string) bool { x, err := strconv.ParseFloat(v, 64); return err == nil && x == def }
}

// CommonKnobs are the options both formats share, applied to c; rotlib
// (required) is stored in *rotlib.
func CommonKnobs(c *Config, rotlib *string) []Knob {
	return []Knob{
		{format.Option{Key: KeyRotlib, Required: true, Doc: "ConFind rotamer library folder or gs://BUCKET/PREFIX (EBL.out, BEBL.out)"},
			func(v string) error {
				if v == "" {
					return fmt.Errorf("must name a folder")
				}
				*rotlib = v
				return nil
			}},
		Fixed("native_only", "true", "pyconfind native_only", func(v string) bool { b, err := strconv.ParseBool(v); return err == nil && b }),
		Fixed("contact_distance", "3", "pyconfind contact_distance, Å", sameFloat(3.0)),
		Fixed("dcut", "25", "pyconfind dcut, Å", sameFloat(25.0)),
		Fixed("clash_distance", "2", "pyconfind clash_distance, Å", sameFloat(2.0)),
		Fixed("assembly", "none", "pyconfind assembly", func(v string) bool { return strings.EqualFold(v, "none") || v == "" }),
		Int("min_seq_separation", &c.MinSeqSeparation, "contact pool: j - i >= this"),
		Float("min_contact_degree", &c.MinContactDegree, "contact pool: degree >= this"),
		Int("num_position_indices", &c.NumPositionIndices, "position ring size, and the residue cap"),
		Float("n_contacts_zero_prob", &c.NContactsZeroProb, "probability of no contact statement"),
		Int("n_contacts_max", &c.NContactsMax, "most contact statements"),
		Float("cube_size", &c.CubeSize, "coordinate cube edge, Å"),
		Float("cube_margin", &c.CubeMargin, "placement margin inside the cube, Å"),
		Int("context_length", &c.ContextLength, "document token budget"),
	}
}

// Apply sets the knobs named in opts (an unknown key or a bad value is an
// error wrapping derrors.ErrPermanent that names the format and the key)
// and fails when a required knob is absent.
func Apply(name string, knobs []Knob, opts map[string]string) error {
	byKey := map[string]Knob{}
	for _, k := range knobs {
		byKey[k.Key] = k
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kn, ok := byKey[k]
		if !ok {
			return derrors.Permanent(fmt.Errorf("%s option %s: unknown option (known: %s)", name, k, strings.Join(knownKeys(knobs), ", ")))
		}
		if err := kn.Set(opts[k]); err != nil {
			return derrors.Permanent(fmt.Errorf("%s option %s=%q: %w", name, k, opts[k], err))
		}
	}
	for _, kn := range knobs {
		if _, set := opts[kn.Key]; kn.Required && !set {
			return derrors.Permanent(fmt.Errorf("%s: option %s is required (--opt %s=...): %s", name, kn.Key, kn.Key, kn.Doc))
		}
	}
	return nil
}

func knownKeys(knobs []Knob) []string {
	var out []string
	for _, k := range knobs {
		out = append(out, k.Key)
	}
	sort.Strings(out)
	return out
}

// Options lists the knobs as the registry describes them, sorted by key.
func Options(knobs []Knob) []format.Option {
	out := make([]format.Option, len(knobs))
	for i, k := range knobs {
		out[i] = k.Option
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Key < out[b].Key })
	return out
}
