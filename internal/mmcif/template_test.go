package mmcif

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestLineMasksMatchGo checks the assembly line classifier against the
// plain Go one on random lines of every kind of byte.
func TestLineMasksMatchGo(t *testing.T) {
	if !haveLineMasks {
		t.Skip("no AVX2 line classifier on this machine; every line is read byte by byte")
	}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte(" .-0123456789ACGNOS_'\"#;\t\r\n\x00\x1f\x7f\x80\xff~!")
	buf := make([]byte, 4*32+200)
	for i := range 20000 {
		for j := range buf {
			switch r.IntN(4) {
			case 0:
				buf[j] = byte(r.IntN(256))
			default:
				buf[j] = alphabet[r.IntN(len(alphabet))]
			}
		}
		chunks := 1 + r.IntN(4)
		pp := r.IntN(60)
		p := pp + 1 + r.IntN(60)
		var asm, ref lineMasks
		lineMasksAt(buf, p, pp, chunks, &asm)
		lineMasksGo(buf, p, pp, chunks, &ref)
		if asm != ref {
			t.Fatalf("case %d (chunks %d): assembly %+v, Go %+v", i, chunks, asm, ref)
		}
	}
}

// templateHits reads data with the fast paths on and returns the rows the
// template read.
func templateHits(t *testing.T, data []byte) int {
	t.Helper()
	b := getBuilder(data)
	defer b.release()
	b.fast.tpl.hits = 0
	if _, err := parse(data, b); err != nil {
		t.Fatal(err)
	}
	return b.fast.tpl.hits
}

// atomRows counts the ATOM and HETATM lines of data.
func atomRows(data []byte) int {
	return bytes.Count(data, []byte("\nATOM ")) + bytes.Count(data, []byte("\nHETATM "))
}

// TestTemplateReadsAlignedFiles requires the template to read nearly every
// row of the column-aligned AFDB files, so that a template that silently
// stopped matching (and the speed it brings) cannot go unnoticed.
func TestTemplateReadsAlignedFiles(t *testing.T) {
	if !haveLineMasks {
		t.Skip("no AVX2 line classifier on this machine")
	}
	for _, p := range testcorpus.Files(t, "afdb") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rows, hits := atomRows(data), templateHits(t, data)
		if hits < rows-3 { // the first row is the lexer's, the second makes the template, the last may lie too close to the end
			t.Errorf("%s: template read %d of %d rows", filepath.Base(p), hits, rows)
		}
	}
}

// TestTemplateEditsMatchGeneral edits _atom_site rows of aligned files in
// place (same length: the edits the template must notice by itself) and
// requires the fast paths to read every edited file exactly as the general
// tokenizer does.
func TestTemplateEditsMatchGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	single := []byte(" _'\"#;\t\r\x00\x80\xffle.-+?09AZ$[]")
	words := []string{"loop_", "data_", "save_", "stop_", "global_", "LOOP_", "dat_x", "_x", "'a'", "1e5", "1.5e3", "#c"}
	var files []string
	files = append(files, testcorpus.Files(t, "afdb")[:6]...)
	files = append(files, testcorpus.Files(t, "pdb")...)
	edits := 0
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		first := bytes.Index(data, []byte("\nATOM "))
		last := bytes.LastIndex(data, []byte("\nATOM "))
		if first < 0 || last <= first {
			continue
		}
		for k := range 40 {
			m := bytes.Clone(data)
			for range 1 + r.IntN(3) {
				pos := first + 1 + r.IntN(last-first)
				if r.IntN(3) == 0 {
					w := words[r.IntN(len(words))]
					if pos+len(w) < len(m) {
						copy(m[pos:], w)
					}
				} else {
					m[pos] = single[r.IntN(len(single))]
				}
				edits++
			}
			checkFastMatchesGeneral(t, fmt.Sprintf("%s (in-place edit %d)", filepath.Base(p), k), m)
		}
	}
	t.Logf("%d in-place edits in %d files", edits, len(files))
}
