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
		words := 1 + r.IntN(2)
		pp := r.IntN(60)
		p := pp + 1 + r.IntN(60)
		var asm, ref lineMasks
		lineMasksAt(buf, p, pp, words, &asm)
		lineMasksGo(buf, p, pp, words, &ref)
		if asm != ref {
			t.Fatalf("case %d (words %d): assembly %+v, Go %+v", i, words, asm, ref)
		}
	}
}

// TestCountPlainMatchesGo checks the assembly value counter against the
// plain Go one on random text of every kind of byte.
func TestCountPlainMatchesGo(t *testing.T) {
	if !haveLineMasks {
		t.Skip("no AVX2 value counter on this machine")
	}
	r := rand.New(rand.NewPCG(9, 10))
	common := []byte("  \n\n.-0123456789ACGNOS?")
	rare := []byte("_'\"#;\t\r\x00\x1f\x7f\x80\xff~!")
	blocksSeen := 0
	for i := range 20000 {
		buf := make([]byte, r.IntN(400))
		for j := range buf {
			if r.IntN(500) == 0 {
				buf[j] = rare[r.IntN(len(rare))]
			} else {
				buf[j] = common[r.IntN(len(common))]
			}
		}
		asmT, asmD, asmL := countPlain(buf, 0)
		goT, goD, goL := countPlainGo(buf, 0)
		if asmT != goT || asmD != goD || asmL != goL {
			t.Fatalf("case %d: assembly (%d, %d, %d), Go (%d, %d, %d)", i, asmT, asmD, asmL, goT, goD, goL)
		}
		blocksSeen += goD
	}
	if blocksSeen < 10000 {
		t.Fatalf("only %d clean blocks in the random cases", blocksSeen)
	}
}

// TestBlockCountingUsed requires most values of the loops that are only
// counted in the AFDB files to be counted 32 bytes at a time.
func TestBlockCountingUsed(t *testing.T) {
	if !haveLineMasks {
		t.Skip("no AVX2 value counter on this machine")
	}
	for _, p := range testcorpus.Files(t, "afdb")[:5] {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b := getBuilder(data)
		b.blockValues = 0
		if _, err := parse(data, b); err != nil {
			t.Fatal(err)
		}
		got := b.blockValues
		b.release()
		// the values of the _pdbx_poly_seq_scheme loop alone: 10 per residue
		if min := 10 * bytes.Count(data, []byte("\nA ")) / 2; got < min {
			t.Errorf("%s: %d values counted in blocks, want at least %d", filepath.Base(p), got, min)
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

// TestTemplateEditsMatchGeneral edits _atom_site rows and the loops before
// them in place (same length: the edits the template and the block counter
// must notice by themselves) and requires the fast paths to read every
// edited file exactly as the general tokenizer does.
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
		loops := bytes.Index(data, []byte("\nloop_")) // the loops before _atom_site: counted in blocks
		for k := range 60 {
			m := bytes.Clone(data)
			for range 1 + r.IntN(3) {
				pos := first + 1 + r.IntN(last-first)
				if loops >= 0 && loops < first && r.IntN(2) == 0 {
					pos = loops + 1 + r.IntN(first-loops)
				}
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

// lineMasksGo is lineMasksAt in plain Go (the reference its tests check).
func lineMasksGo(data []byte, p, pp, words int, m *lineMasks) {
	for i := 0; i < 64*words; i++ {
		c, w, bit := data[p+i], i>>6, uint64(1)<<(i&63)
		if c != ' ' {
			m.ns[w] |= bit
		}
		if c != data[pp+i] {
			m.chg[w] |= bit
		}
		if c < 0x20 || c >= 0x7f {
			m.bad[w] |= bit
		}
		switch c {
		case '"', '#', '\'', ';', '_':
			m.spec[w] |= bit
		}
		if c == '_' {
			m.under[w] |= bit
		}
	}
}

// countPlainGo is countPlain in plain Go (the reference its tests check).
func countPlainGo(data []byte, p int) (tokens, done int, last uint32) {
	prevBlank := true
	for ; p+32 <= len(data); p += 32 {
		for _, c := range data[p : p+32] {
			if c != ' ' && c != '\n' && !plain[c] {
				return tokens, done, last
			}
		}
		for _, c := range data[p : p+32] {
			blank := c == ' ' || c == '\n'
			if !blank && prevBlank {
				tokens++
			}
			prevBlank = blank
		}
		done++
		last = 0
		if !prevBlank {
			last = 1
		}
	}
	return tokens, done, last
}
