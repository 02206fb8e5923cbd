package contactsv1

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

type goldenCase struct {
	Variant string          `json:"variant"`
	Input   json.RawMessage `json:"input"`
	Outcome string          `json:"outcome"`
	Output  map[string]any  `json:"output"`
	// Record is Input decoded as the pipeline hands a manifest row over.
	Record  map[string]any `json:"-"`
	EntryID string         `json:"-"`
}

func loadGolden(tb testing.TB) []goldenCase {
	tb.Helper()
	path := filepath.Join(testcorpus.Dir(tb), "golden", "contacts-v1.jsonl")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var cases []goldenCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var c goldenCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatalf("%s line %d: %v", path, len(cases)+1, err)
		}
		rec, err := RecordFromJSON(c.Input)
		if err != nil {
			tb.Fatalf("%s line %d: %v", path, len(cases)+1, err)
		}
		c.Record, c.EntryID = rec, rec["entry_id"].(string)
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(cases) == 0 {
		tb.Fatalf("%s: no cases", path)
	}
	return cases
}

// configFor maps a golden variant to the options the reference ran with.
func optionsFor(tb testing.TB, variant string) map[string]string {
	switch variant {
	case "default", "two-chain", "real-pyconfind-1QYS":
		return nil
	case "think":
		return map[string]string{"think": "true"}
	}
	tb.Fatalf("unknown golden variant %q", variant)
	return nil
}

// jsonRow renders our output row the way the golden file stores the
// reference's (document plus the metadata columns, nulls as null), so the
// two compare as decoded JSON values.
func jsonRow(tb testing.TB, cols []format.Column, res format.Result) map[string]any {
	tb.Helper()
	row := map[string]any{"document": res.Document}
	if len(res.Values) != len(cols) {
		tb.Fatalf("got %d values for %d columns", len(res.Values), len(cols))
	}
	for i, c := range cols {
		row[c.Name] = res.Values[i]
	}
	b, err := json.Marshal(row)
	if err != nil {
		tb.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		tb.Fatal(err)
	}
	return out
}

func TestGolden(t *testing.T) {
	cases := loadGolden(t)
	seen := map[string]int{}
	for n, c := range cases {
		seen[c.Variant+"/"+c.Outcome]++
		f, err := New(optionsFor(t, c.Variant))
		if err != nil {
			t.Fatal(err)
		}
		res, err := f.Generate(format.Input{EntryID: c.EntryID, Record: c.Record})
		if err != nil {
			t.Errorf("case %d %s %s: Generate: %v", n+1, c.Variant, c.EntryID, err)
			continue
		}
		switch c.Outcome {
		case "filtered":
			if res.Filtered == "" {
				t.Errorf("case %d %s %s: got a document, want filtered", n+1, c.Variant, c.EntryID)
			}
			continue
		case "document":
		default:
			t.Fatalf("case %d: unknown outcome %q", n+1, c.Outcome)
		}
		if res.Filtered != "" {
			t.Errorf("case %d %s %s: filtered %q, want a document", n+1, c.Variant, c.EntryID, res.Filtered)
			continue
		}
		got := jsonRow(t, f.Columns(), res)
		if got["document"] != c.Output["document"] {
			t.Errorf("case %d %s %s: document differs:\n got %.300s\nwant %.300s", n+1, c.Variant, c.EntryID,
				got["document"], c.Output["document"])
		}
		keys := map[string]bool{}
		for k := range got {
			keys[k] = true
		}
		for k := range c.Output {
			keys[k] = true
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if k == "document" {
				continue
			}
			g, gok := got[k]
			w, wok := c.Output[k]
			if gok != wok || !reflect.DeepEqual(g, w) {
				t.Errorf("case %d %s %s: column %s = %v (present %v), want %v (present %v)",
					n+1, c.Variant, c.EntryID, k, g, gok, w, wok)
			}
		}
	}
	// Every variant the issue names must have been exercised.
	for _, v := range []string{"default/document", "default/filtered", "think/document", "two-chain/document", "real-pyconfind-1QYS/document"} {
		if seen[v] == 0 {
			t.Errorf("golden file has no %s case", v)
		}
	}
	t.Logf("%d golden cases: %v", len(cases), seen)
}

// For the external pipeline test (package contactsv1_test, which imports the
// planner, which imports this package through the format registry).
type GoldenCase = goldenCase

// LoadGolden is loadGolden.
func LoadGolden(tb testing.TB) []GoldenCase { return loadGolden(tb) }
