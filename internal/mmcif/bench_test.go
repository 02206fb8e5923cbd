package mmcif

import (
	"os"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

func loadCat(b *testing.B, cat string) ([][]byte, int64) {
	var files [][]byte
	var total int64
	for _, p := range testcorpus.Files(b, cat) {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
		total += int64(len(data))
	}
	return files, total
}

// BenchmarkReadAFDB reads every afdb/ file once per iteration; MB/s is over
// the whole set.
func BenchmarkReadAFDB(b *testing.B) {
	files, total := loadCat(b, "afdb")
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range files {
			if _, err := Read(d); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkTokenizeAFDB is the lexer alone, the floor under Read.
func BenchmarkTokenizeAFDB(b *testing.B) {
	files, total := loadCat(b, "afdb")
	b.SetBytes(total)
	for b.Loop() {
		for _, d := range files {
			l := lexer{data: d}
			for {
				k, _, err := l.next()
				if err != nil {
					b.Fatal(err)
				}
				if k == tEOF {
					break
				}
			}
		}
	}
}

// BenchmarkContactsLargest times the contact map of the largest afdb chain.
func BenchmarkContactsLargest(b *testing.B) {
	files, _ := loadCat(b, "afdb")
	var big []byte
	for _, d := range files {
		if len(d) > len(big) {
			big = d
		}
	}
	st, err := Read(big)
	if err != nil {
		b.Fatal(err)
	}
	poly := st.Models[0].PrincipalChain().Polymer()
	b.ReportMetric(float64(len(poly)), "residues")
	for b.Loop() {
		structure.Contacts(poly, 8, 6)
	}
}
