package contactsv1

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
)

// BenchmarkGenerate generates every golden case's document once per
// iteration through the format.Format seam (record decoding, validation,
// generation, rendering, sha1). Report: ns/op / cases = time per document.
func BenchmarkGenerate(b *testing.B) {
	cases := loadGolden(b)
	inputs := make([]format.Input, len(cases))
	formats := make([]format.Format, len(cases))
	for i, c := range cases {
		inputs[i] = format.Input{EntryID: c.EntryID, Record: c.Record}
		f, err := New(optionsFor(b, c.Variant))
		if err != nil {
			b.Fatal(err)
		}
		formats[i] = f
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i, in := range inputs {
			if _, err := formats[i].Generate(in); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(inputs))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkGenerateDecoded is generation alone: the records are decoded and
// validated before the clock starts.
func BenchmarkGenerateDecoded(b *testing.B) {
	cases := loadGolden(b)
	as := make([]*Analysis, len(cases))
	for i, c := range cases {
		a, err := AnalysisFromRecord(c.EntryID, c.Record)
		if err != nil {
			b.Fatal(err)
		}
		as[i] = a
	}
	cfg := DefaultConfig()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, a := range as {
			generate(a, cfg)
		}
	}
	b.ReportMetric(float64(len(as))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}
