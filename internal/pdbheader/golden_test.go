package pdbheader

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// goldenLine is the part of a pdb-curation.jsonl line these tests use.
type goldenLine struct {
	File     string                     `json:"file"`
	Metadata map[string]json.RawMessage `json:"metadata"`
	Timing   struct {
		ScanCPU  float64 `json:"scan_cpu_s"`
		GemmiCPU float64 `json:"gemmi_read_cpu_s"`
	} `json:"timing"`
}

// goldenLines reads the real-entry lines and the edge-case lines.
func goldenLines(t testing.TB) (dir string, lines []goldenLine) {
	t.Helper()
	dir = testcorpus.Dir(t)
	for _, f := range []string{"golden/pdb-curation/pdb-curation.jsonl", "golden/pdb-curation/edge/pdb-curation-edge.jsonl"} {
		fh, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var g goldenLine
			if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			lines = append(lines, g)
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return dir, lines
}

// asJSON is the entry as the golden metadata writes it: one JSON value per
// column name.
func asJSON(t *testing.T, e Entry) map[string]json.RawMessage {
	t.Helper()
	row := e.Row()
	out := map[string]json.RawMessage{}
	for i, c := range Columns() {
		b, err := json.Marshal(row[i])
		if err != nil {
			t.Fatal(err)
		}
		out[c.Name] = b
	}
	return out
}

// canon re-encodes a JSON value so that equal values compare equal as
// bytes (2.4 and 2.40 alike).
func canon(t *testing.T, b json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestScanMatchesExp222 scans every golden entry (43 real, 15 edge) plain
// and gzipped and compares all 15 columns with exp222's metadata row.
func TestScanMatchesExp222(t *testing.T) {
	dir, lines := goldenLines(t)
	if len(lines) != 43+15 {
		t.Fatalf("%d golden lines, want 58", len(lines))
	}
	if got := len(Columns()); got != 15 {
		t.Fatalf("%d columns, want exp222's 15", got)
	}
	for _, g := range lines {
		data, err := os.ReadFile(filepath.Join(dir, g.File))
		if err != nil {
			t.Fatal(err)
		}
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
		zw.Write(data)
		zw.Close()
		for _, in := range []struct {
			name string
			data []byte
		}{{"plain", data}, {"gzip", gz.Bytes()}} {
			got := asJSON(t, Scan(in.data, g.File))
			if len(got) != len(g.Metadata) {
				t.Errorf("%s (%s): %d columns, golden has %d", g.File, in.name, len(got), len(g.Metadata))
			}
			for name, want := range g.Metadata {
				gv, ok := got[name]
				if !ok {
					t.Errorf("%s (%s): no column %s", g.File, in.name, name)
					continue
				}
				if canon(t, gv) != canon(t, want) {
					t.Errorf("Scan(%s) (%s).%s = %s, want %s", g.File, in.name, name, gv, want)
				}
			}
		}
	}
}

// TestScanErrors: files gemmi refuses (or that are neither mmCIF nor PDB
// format) are rows with the error, the id and path kept and every other column
// empty.
func TestScanErrors(t *testing.T) {
	dir := testcorpus.Dir(t)
	// PDB format is scanned (pdbformat_test.go); a NUL byte gemmi refuses
	pdbFormat := []byte("HEADER    PLANT PROTEIN                           30-APR-81   1CRN              \nATOM      1  N   THR A   1      17.047  14.099   3.625  1.00 13.79           N  \n\x00END\n")
	broken, err := os.ReadFile(filepath.Join(dir, "edge", "biopandas_3eiy_stripped_ele.cif"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"pdb-format-nul", pdbFormat},
		{"neither", []byte("not a structure\n")},
		{"wrong-value-count", broken},
		{"two-blocks", []byte("data_a\n_x.y 1\ndata_b\n_x.y 2\n")},
		{"duplicate-tag", []byte("data_a\n_x.y 1\n_x.y 2\n")},
		{"bad-gzip", []byte{0x1f, 0x8b, 1, 2, 3}},
	} {
		e := Scan(tc.data, "mirror/Ab/1ABC.cif")
		if e.Error == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		want := Entry{PDBID: "1abc", Path: "mirror/Ab/1ABC.cif", ProteinEntityIDs: []string{}, ProteinEntityLengths: []int64{}, ProteinStrandIDs: []string{}, Error: e.Error}
		if !reflect.DeepEqual(e, want) {
			t.Errorf("%s: %+v, want only id, path and error", tc.name, e)
		}
		t.Logf("%s: %s", tc.name, *e.Error)
	}
}

// TestCountOperators checks _count_operators' forms, including its odd
// corners (nested parentheses, ranges that fail int(), empty parts).
func TestCountOperators(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1", 1}, {"1,2,3", 3}, {"1-60", 60}, {"(1-60)(61-88)", 60 * 28}, {"(1,2)(3-5)", 6},
		{"", 1}, {" , ,", 1}, {"-5-3", 1}, {"a-b", 1}, {"5-1", 1}, {"1-2,4-6,P", 6},
		{"(1-2)(X0)", 2}, {"((1,2))", 2}, {"1_0-1_2", 3}, {" 1 - 3 ", 3},
	} {
		if got, ok := countOperators(tc.in); !ok || got != tc.want {
			t.Errorf("countOperators(%q) = %d, %v, want %d", tc.in, got, ok, tc.want)
		}
	}
}
