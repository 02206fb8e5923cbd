package coordgolden

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// CheckOptions is the coordinate formats' TestGoldenOptions: every
// option of every line of the golden file name is listed (list) with the
// value the reference ran with as its default, configure accepts the
// line's options (with rotlib) as the default configuration def, and list
// holds nothing the golden lines lack but rotlib. configure must refuse
// no rotlib, an analysis setting ConFind's native analysis does not run
// (dcut=20) and an unknown option.
func CheckOptions[C any](t *testing.T, name string, list []format.Option, configure func(map[string]string) (C, string, error), def C) {
	t.Helper()
	listed := map[string]string{}
	for _, o := range list {
		listed[o.Key] = o.Default
	}
	for _, l := range Load(t, name) {
		opts := l.OptionStrings(t)
		for k, v := range opts {
			d, ok := listed[k]
			if !ok {
				t.Fatalf("%s: golden option %s is not listed", l.File, k)
			}
			if d != v {
				t.Errorf("option %s: listed default %q, the reference ran with %q", k, d, v)
			}
		}
		if len(listed) != len(opts)+1 {
			t.Errorf("%d options listed, the golden line has %d (+ rotlib)", len(listed), len(opts))
		}
		opts["rotlib"] = "/nowhere"
		cfg, rot, err := configure(opts)
		if err != nil {
			t.Fatalf("%s: Configure(golden options): %v", l.File, err)
		}
		if !reflect.DeepEqual(cfg, def) || rot != "/nowhere" {
			t.Errorf("%s: Configure(golden options) = %+v, %q; want the defaults", l.File, cfg, rot)
		}
	}
	if _, _, err := configure(map[string]string{}); err == nil {
		t.Error("Configure without rotlib succeeded")
	}
	if _, _, err := configure(map[string]string{"rotlib": "x", "dcut": "20"}); err == nil {
		t.Error("Configure accepted dcut=20, which ConFind's native analysis does not run")
	}
	if _, _, err := configure(map[string]string{"rotlib": "x", "no_such_option": "1"}); err == nil {
		t.Error("Configure accepted an unknown option")
	}
}

// BenchmarkAFDB times gen over every AFDB document line of the golden
// file name (the structure already parsed), reporting wall and CPU
// microseconds per document; gen reports whether it wrote a document.
func BenchmarkAFDB(b *testing.B, name string, gen func(st *structure.Structure, a *contactsv1.Analysis, entryID string) (ok bool, filtered string)) {
	dir := testcorpus.Dir(b)
	type in struct {
		st *structure.Structure
		a  *contactsv1.Analysis
		id string
	}
	var ins []in
	for _, l := range Load(b, name) {
		if !strings.HasPrefix(l.File, "afdb/") || l.Outcome != "document" {
			continue
		}
		st, err := mmcif.ReadFile(filepath.Join(dir, l.File))
		if err != nil {
			b.Fatal(err)
		}
		ins = append(ins, in{st, l.Analysis, l.ID()})
	}
	b.ResetTimer()
	c0 := CPU()
	for range b.N {
		for _, x := range ins {
			if ok, f := gen(x.st, x.a, x.id); !ok {
				b.Fatal(f)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(ins)), "us/doc")
	b.ReportMetric(float64((CPU()-c0).Microseconds())/float64(b.N*len(ins)), "cpu-us/doc")
}
