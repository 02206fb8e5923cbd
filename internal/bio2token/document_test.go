package bio2token

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// pythonDoc is an independent implementation of the document section of
// the spec with CPython's own random and hashlib.
const pythonDoc = `
import hashlib, json, random, sys
d = json.load(sys.stdin)
atoms37 = set(d["atom37"]); res20 = set(d["res20"])
tok = lambda s, ok: "<%s>" % s if s in ok else "<UNK>"
n_res = len(d["res"])
seed = int.from_bytes(hashlib.sha256(d["entry_id"].encode()).digest()[:8], "big")
budget = (8192 - 4 - 2 * n_res) // 3
idx = list(range(len(d["atoms"])))
if n_res > 2701 or budget <= 0:
    print(json.dumps({"filtered": True})); sys.exit()
trunc = len(idx) > budget
if trunc:
    idx = random.Random(seed).sample(idx, budget)
trip = ["<p%d> %s <bt%d>" % (d["atoms"][a][0], tok(d["atoms"][a][1], atoms37), d["codes"][a]) for a in idx]
random.Random(seed).shuffle(trip)
doc = " ".join(["<bio2token-v2>", "<begin_sequence>"] + ["<p%d> %s" % (i, tok(r, res20)) for i, r in enumerate(d["res"])] + ["<begin_statements>"] + trip + ["<end>"])
print(json.dumps({"filtered": False, "doc": doc, "truncated": trunc, "n": len(idx), "seed": seed}))
`

func syntheticInput(nRes, atomsPerRes int) (*Input, []int32) {
	names := []string{"ALA", "CYS", "SEC", "U", "TRP"}
	atoms := []string{"N", "CA", "SE", "C1'", "CB", "OXT"}
	in := &Input{}
	var codes []int32
	for r := 0; r < nRes; r++ {
		in.ResNames = append(in.ResNames, names[r%len(names)])
		for a := 0; a < atomsPerRes; a++ {
			in.AtomRes = append(in.AtomRes, int32(r))
			in.AtomNames = append(in.AtomNames, atoms[(r+a)%len(atoms)])
			codes = append(codes, int32((r*31+a*7)%NumCodes))
			in.Coords = append(in.Coords, 0, 0, 0)
		}
	}
	return in, codes
}

func TestAssembleMatchesCPython(t *testing.T) {
	py := testcorpus.Tool(t, "/usr/bin/python3", "document assembly cannot be compared with CPython's random")
	a37, r20 := []string{}, []string{}
	for k := range atom37 {
		a37 = append(a37, k)
	}
	for k := range residue20 {
		r20 = append(r20, k)
	}
	for _, tc := range []struct {
		entry            string
		nRes, perRes     int
		wantTrunc, wantF bool
	}{
		{"AF-P12345-F1", 7, 5, false, false},
		{"1abc", 1, 1, false, false},
		{"AF-Q9Y5P2-F1", 300, 10, true, false}, // 3000 atoms > budget 2529 (sample path, pool)
		{"big", 2000, 2, true, false},          // budget 1396 of 4000 atoms
		{"too-long", MaxResidues + 1, 1, false, true},
		{"edge", MaxResidues, 1, true, false},
	} {
		in, codes := syntheticInput(tc.nRes, tc.perRes)
		doc, filtered, err := Assemble(tc.entry, in, codes)
		if err != nil {
			t.Fatal(err)
		}
		if (filtered != "") != tc.wantF {
			t.Fatalf("%s: filtered = %q, want filtered %v", tc.entry, filtered, tc.wantF)
		}
		req := map[string]any{"entry_id": tc.entry, "res": in.ResNames, "codes": codes, "atom37": a37, "res20": r20}
		var atoms [][2]any
		for i := range in.AtomNames {
			atoms = append(atoms, [2]any{in.AtomRes[i], in.AtomNames[i]})
		}
		req["atoms"] = atoms
		body, _ := json.Marshal(req)
		cmd := exec.Command(py, "-c", pythonDoc)
		cmd.Stdin = bytes.NewReader(body)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("python: %v", err)
		}
		var want struct {
			Filtered  bool
			Doc       string
			Truncated bool
			N         int
			Seed      uint64
		}
		if err := json.Unmarshal(out, &want); err != nil {
			t.Fatal(err)
		}
		if want.Filtered != tc.wantF {
			t.Fatalf("%s: python filtered %v", tc.entry, want.Filtered)
		}
		if tc.wantF {
			continue
		}
		if Seed(tc.entry) != want.Seed {
			t.Errorf("Seed(%q) = %d, CPython %d", tc.entry, Seed(tc.entry), want.Seed)
		}
		if doc.Text != want.Doc {
			t.Errorf("%s: document differs from CPython's:\n got %.300s\nwant %.300s", tc.entry, doc.Text, want.Doc)
		}
		if doc.Truncated != tc.wantTrunc || want.Truncated != tc.wantTrunc || doc.NumAtoms != want.N {
			t.Errorf("%s: truncated %v (python %v), atoms %d (python %d)", tc.entry, doc.Truncated, want.Truncated, doc.NumAtoms, want.N)
		}
		if got := len(strings.Fields(doc.Text)); got != doc.NumTokens || doc.NumTokens != 4+2*tc.nRes+3*doc.NumAtoms || doc.NumTokens > ContextTokens {
			t.Errorf("%s: %d tokens in text, NumTokens %d", tc.entry, got, doc.NumTokens)
		}
		if doc.NumAtomsTotal != tc.nRes*tc.perRes || doc.SeqLength != tc.nRes || len(doc.Sequence) != tc.nRes {
			t.Errorf("%s: metadata %+v", tc.entry, doc)
		}
	}
}

func TestAssembleRejectsBadCodes(t *testing.T) {
	in, codes := syntheticInput(2, 2)
	if _, _, err := Assemble("x", in, codes[:3]); err == nil {
		t.Error("Assemble accepted fewer codes than atoms")
	}
	codes[1] = NumCodes
	if _, _, err := Assemble("x", in, codes); err == nil || !strings.Contains(err.Error(), strconv.Itoa(NumCodes)) {
		t.Errorf("Assemble with an out-of-range code: err = %v", err)
	}
}
