package contactsv1

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

var aaCycle = []string{"MET", "ALA", "GLY", "LYS", "PHE", "SER", "THR", "VAL", "LEU", "ILE"}

// synthetic builds an analysis with chains of the given lengths (named A, B,
// ...) and the given contacts (i, j, degree).
func synthetic(id string, lengths []int, contacts [][3]float64) *Analysis {
	a := &Analysis{EntryID: id}
	for c, l := range lengths {
		for k := 0; k < l; k++ {
			a.ResName = append(a.ResName, aaCycle[len(a.ResName)%len(aaCycle)])
			a.ResNum = append(a.ResNum, int64(k+1))
			a.ResChain = append(a.ResChain, string(rune('A'+c)))
		}
	}
	for _, c := range contacts {
		a.ContactI = append(a.ContactI, int64(c[0]))
		a.ContactJ = append(a.ContactJ, int64(c[1]))
		a.Degree = append(a.Degree, c[2])
	}
	return a
}

// randomContacts draws up to m distinct pairs over n residues, sorted as
// pyconfind lists them.
func randomContacts(r *pyrandom.Rand, n, m int) [][3]float64 {
	seen := map[[2]int]bool{}
	for len(seen) < m {
		i, j := r.RandBelow(n), r.RandBelow(n)
		if i == j {
			continue
		}
		seen[[2]int{min(i, j), max(i, j)}] = true
	}
	pairs := make([][2]int, 0, len(seen))
	for p := range seen {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	out := make([][3]float64, len(pairs))
	for k, p := range pairs {
		out[k] = [3]float64{float64(p[0]), float64(p[1]), r.Random()}
	}
	return out
}

var posRE = regexp.MustCompile(`^<p(\d+)>$`)

func posOf(t *testing.T, tok string) int {
	t.Helper()
	m := posRE.FindStringSubmatch(tok)
	if m == nil {
		t.Fatalf("token %q is not a position", tok)
	}
	v, _ := strconv.Atoi(m[1])
	return v
}

// parsed is a document read back token by token.
type parsed struct {
	assigned     []int // positions of <pX> <AA> statements
	nTerm, cTerm []int
	contacts     [][2]int
	think        int
	tokens       int
}

func parse(t *testing.T, text string) parsed {
	t.Helper()
	toks := strings.Split(text, " ")
	var p parsed
	p.tokens = len(toks)
	if toks[0] != "<contacts-v1>" || toks[1] != "<begin_sequence>" || toks[len(toks)-1] != "<end>" {
		t.Fatalf("bad frame: %.80s ... %s", text, toks[len(toks)-1])
	}
	i := 2
	for ; toks[i] != "<begin_statements>"; i += 2 {
		switch toks[i] {
		case "<n-term>":
			p.nTerm = append(p.nTerm, posOf(t, toks[i+1]))
		case "<c-term>":
			p.cTerm = append(p.cTerm, posOf(t, toks[i+1]))
		case "<think>":
			t.Fatalf("<think> in the sequence section")
		default:
			p.assigned = append(p.assigned, posOf(t, toks[i]))
		}
	}
	for i++; i < len(toks)-1; {
		switch toks[i] {
		case "<think>":
			p.think++
			i++
		case "<contact>":
			p.contacts = append(p.contacts, [2]int{posOf(t, toks[i+1]), posOf(t, toks[i+2])})
			i += 3
		default:
			t.Fatalf("unexpected token %q in the structure section", toks[i])
		}
	}
	return p
}

func TestMultiChainLayout(t *testing.T) {
	r := pyrandom.New(7)
	for trial := 0; trial < 60; trial++ {
		k := 2 + trial%5
		lengths := make([]int, k)
		n := 0
		for c := range lengths {
			lengths[c] = 1 + r.RandBelow(400)
			n += lengths[c]
		}
		a := synthetic(fmt.Sprintf("ring-%d", trial), lengths, randomContacts(r, n, 200))
		doc, filtered, err := Generate(a, DefaultConfig())
		if err != nil || doc == nil {
			t.Fatalf("trial %d %v: filtered %q, err %v", trial, lengths, filtered, err)
		}
		p := parse(t, doc.Text)
		if len(p.nTerm) != k || len(p.cTerm) != k || len(doc.NTermIndices) != k {
			t.Fatalf("trial %d: %d n-term, %d c-term statements, %d chains", trial, len(p.nTerm), len(p.cTerm), k)
		}
		occupied := map[int]int{}
		for c, l := range lengths {
			nt := int(doc.NTermIndices[c])
			if got, want := int(doc.CTermIndices[c]), (nt+l-1)%ringSize; got != want {
				t.Errorf("trial %d chain %d: c-term %d, want %d", trial, c, got, want)
			}
			for x := 0; x < l; x++ {
				if prev, dup := occupied[(nt+x)%ringSize]; dup {
					t.Fatalf("trial %d: chains %d and %d overlap at %d", trial, prev, c, (nt+x)%ringSize)
				}
				occupied[(nt+x)%ringSize] = c
			}
		}
		for c := range lengths {
			if _, ok := occupied[(int(doc.NTermIndices[c])+ringSize-1)%ringSize]; ok {
				t.Errorf("trial %d chain %d: no gap before its n-terminus", trial, c)
			}
		}
		if len(p.assigned) != n || len(occupied) != n {
			t.Fatalf("trial %d: %d residues assigned, %d occupied, want %d", trial, len(p.assigned), len(occupied), n)
		}
		for _, x := range p.assigned {
			if _, ok := occupied[x]; !ok {
				t.Errorf("trial %d: residue at %d outside every chain", trial, x)
			}
		}
		if p.tokens != doc.NumTokens {
			t.Errorf("trial %d: %d tokens, NumTokens %d", trial, p.tokens, doc.NumTokens)
		}
	}
}

func TestRingFit(t *testing.T) {
	tests := []struct {
		lengths []int
		want    string
	}{
		{[]int{2000}, ""},
		{[]int{2001}, FilterTooLong},
		{[]int{999, 999}, ""},
		{[]int{1000, 1000}, FilterTooLong},
		{[]int{1}, FilterTooShort},
		{[]int{1, 1}, ""},
	}
	for _, tt := range tests {
		doc, filtered, err := Generate(synthetic("fit", tt.lengths, nil), DefaultConfig())
		if err != nil {
			t.Fatalf("Generate(%v): %v", tt.lengths, err)
		}
		if filtered != tt.want || (doc == nil) != (tt.want != "") {
			t.Errorf("Generate(%v) = filtered %q, want %q", tt.lengths, filtered, tt.want)
		}
	}
}

func TestSingleChainStart(t *testing.T) {
	// One chain draws only the start index: the first randrange(2000) of the
	// entry's generator.
	for _, id := range []string{"mono", "AF-P00767-F1", "1qys_A"} {
		doc, _, err := Generate(synthetic(id, []int{137}, nil), DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		want := pyrandom.New(seed(id)).RandBelow(ringSize)
		if doc.StartIndex != want || doc.NTermIndex != want || doc.CTermIndex != (want+136)%ringSize {
			t.Errorf("%s: start %d n-term %d c-term %d, want start %d", id, doc.StartIndex, doc.NTermIndex, doc.CTermIndex, want)
		}
	}
}

func TestSeparationIsIntraChainOnly(t *testing.T) {
	a := synthetic("sep", []int{20, 20}, [][3]float64{
		{0, 2, 0.9},   // chain A, separation 2: not a contact
		{0, 15, 0.8},  // chain A
		{19, 20, 0.7}, // interface, adjacent indices: a contact
		{5, 25, 0.6},  // interface
		{21, 39, 0.0005},
	})
	doc, _, err := Generate(a, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if doc.ContactsPreFilter != 4 || doc.ContactsPassingMinDegree != 3 || doc.ContactsEmitted != 3 ||
		doc.ContactsExcluded != 1 || doc.Truncated || doc.PreFilterInterChain != 2 || doc.EmittedInterChain != 2 {
		t.Errorf("counts = %+v", doc)
	}
	if *doc.HighestContactDegree != 0.8 || *doc.LowestNonzeroDegree != 0.0005 || *doc.LowestIncludedDegree != 0.6 {
		t.Errorf("degrees = %v %v %v", *doc.HighestContactDegree, *doc.LowestNonzeroDegree, *doc.LowestIncludedDegree)
	}
}

func TestDegreeStatsNulls(t *testing.T) {
	none, _, _ := Generate(synthetic("none", []int{30}, nil), DefaultConfig())
	if none.HighestContactDegree != nil || none.LowestNonzeroDegree != nil || none.LowestIncludedDegree != nil {
		t.Errorf("no contacts: degree stats should be null: %+v", none)
	}
	weak, _, _ := Generate(synthetic("weak", []int{30}, [][3]float64{{0, 10, 0.0002}}), DefaultConfig())
	if weak.HighestContactDegree == nil || weak.LowestIncludedDegree != nil || weak.ContactsEmitted != 0 {
		t.Errorf("only weak contacts: %+v", weak)
	}
}

func TestTruncationKeepsStrongest(t *testing.T) {
	r := pyrandom.New(11)
	n := 300
	a := synthetic("trunc", []int{n}, randomContacts(r, n, 3000))
	for _, think := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.ContextLength = 2000
		cfg.Think = think
		doc, _, err := Generate(a, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !doc.Truncated || doc.NumTokens > cfg.ContextLength || doc.NumTokens < cfg.ContextLength-2 {
			t.Errorf("think=%v: truncated %v, %d tokens for a budget of %d", think, doc.Truncated, doc.NumTokens, cfg.ContextLength)
		}
		p := parse(t, doc.Text)
		if len(p.contacts) != doc.ContactsEmitted || p.think != doc.ThinkTokens || p.tokens != doc.NumTokens {
			t.Errorf("think=%v: parsed %d contacts %d think %d tokens; row says %d %d %d", think,
				len(p.contacts), p.think, p.tokens, doc.ContactsEmitted, doc.ThinkTokens, doc.NumTokens)
		}
		// Every passing contact left out is no stronger than the weakest in.
		in := map[[2]int]bool{}
		start := doc.StartIndex
		for _, c := range p.contacts {
			i, j := (c[0]-start+ringSize)%ringSize, (c[1]-start+ringSize)%ringSize
			in[[2]int{min(i, j), max(i, j)}] = true
		}
		for x := range a.ContactI {
			i, j, d := int(a.ContactI[x]), int(a.ContactJ[x]), a.Degree[x]
			if j-i >= 6 && d >= cfg.MinContactDegree && !in[[2]int{i, j}] && d > *doc.LowestIncludedDegree {
				t.Errorf("think=%v: contact (%d,%d) degree %v left out but %v is in", think, i, j, d, *doc.LowestIncludedDegree)
			}
		}
	}
}

func TestThinkWithoutContacts(t *testing.T) {
	// Find entries whose think plan has an initial run and additional runs;
	// with no contacts only the initial run is written.
	found := 0
	for x := 0; x < 200 && found < 3; x++ {
		id := fmt.Sprintf("think-%d", x)
		plan := sampleThink(pyrandom.New(seed(id)))
		if plan.initial == 0 || len(plan.additional) == 0 {
			continue
		}
		found++
		doc, _, err := Generate(synthetic(id, []int{50}, nil), Config{6, 0.001, 8192, true})
		if err != nil {
			t.Fatal(err)
		}
		if doc.ThinkTokens != plan.initial || !strings.HasSuffix(doc.Text, "<begin_statements>"+strings.Repeat(" <think>", plan.initial)+" <end>") {
			t.Errorf("%s: think tokens %d, want the initial run %d only: ...%s", id, doc.ThinkTokens, plan.initial,
				doc.Text[len(doc.Text)-80:])
		}
	}
	if found == 0 {
		t.Fatal("no entry id with both kinds of think runs")
	}
}

func TestDeterministic(t *testing.T) {
	r := pyrandom.New(3)
	a := synthetic("det", []int{55, 90, 33}, randomContacts(r, 178, 400))
	d1, _, _ := Generate(a, DefaultConfig())
	d2, _, _ := Generate(a, DefaultConfig())
	b := *a
	b.EntryID = "det-2"
	d3, _, _ := Generate(&b, DefaultConfig())
	if d1.Text != d2.Text || d1.SHA1 != d2.SHA1 {
		t.Error("same entry, different documents")
	}
	if d1.Text == d3.Text {
		t.Error("different entries, same document")
	}
}
