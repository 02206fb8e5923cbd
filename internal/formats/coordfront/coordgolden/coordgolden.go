// Package coordgolden loads the coordinate formats' golden files for tests:
// the reference's outcome for every corpus file
// (golden/contacts-and-coordinates-v1.jsonl, golden/contacts-and-crops-v1.jsonl)
// and the analysis record each was generated from (golden/confind-mini.jsonl,
// joined on file), and maps the reference's outcomes to this project's.
package coordgolden

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// Line is one golden line.
type Line struct {
	File              string                     `json:"file"`
	EntryID           *string                    `json:"entry_id"`
	Options           map[string]json.RawMessage `json:"options"`
	Outcome           string                     `json:"outcome"`
	Reason            *string                    `json:"reason"`
	ErrorType         string                     `json:"error_type"`
	CaughtByReference bool                       `json:"caught_by_reference"`
	Document          string                     `json:"document"`
	SHA1              string                     `json:"sha1"`
	NumTokens         int                        `json:"num_tokens"`
	Metadata          map[string]any             `json:"metadata"`
	// Analysis is the file's record in confind-mini.jsonl (nil when
	// pyconfind failed on the file and there is none).
	Analysis *contactsv1.Analysis `json:"-"`
	// Record is that record as a manifest row (format.Input.Record).
	Record map[string]any `json:"-"`
}

// ID is the entry id ("" when the reference could not read the file).
func (l Line) ID() string {
	if l.EntryID == nil {
		return ""
	}
	return *l.EntryID
}

// ReadError is the expected outcome of a file the reader rejects (gemmi's
// ValueError and IndexError).
const ReadError = "read_error"

var (
	tooFew   = regexp.MustCompile(`^skipping .*: (\d+) residues outside \[2, \d+\]$`)
	chains   = regexp.MustCompile(`: found \d+ protein chains \(.*\) but max_chains=1\. `)
	noRes    = regexp.MustCompile(`: no protein residues$`)
	noJoin   = regexp.MustCompile(`protein residues but no heavy atoms joined`)
	syntax   = regexp.MustCompile(`^edge/.*:\d+:\d+: `)
	seqRoom  = regexp.MustCompile(`^skipping .*: fixed sequence section needs`)
	cubeSkip = regexp.MustCompile(`^skipping .*: could not be serialized`)
)

// Expected is the outcome this project must give for the line: "document",
// a coordfront filter reason (the reference's skips, and the ValueErrors
// its drivers catch: chain count, no residues, failed join), ReadError for
// files the reader rejects (gemmi's ValueError and IndexError).
func (l Line) Expected(t testing.TB) string {
	reason := ""
	if l.Reason != nil {
		reason = *l.Reason
	}
	switch l.Outcome {
	case "document":
		return "document"
	case "filtered":
		switch {
		case tooFew.MatchString(reason):
			if strings.Contains(reason, ": 0 residues") || strings.Contains(reason, ": 1 residues") {
				return coordfront.FilterTooShort
			}
			return coordfront.FilterTooLong
		case seqRoom.MatchString(reason):
			return coordfront.FilterSequenceRoom
		case cubeSkip.MatchString(reason):
			return coordfront.FilterCube
		}
	case "error":
		switch {
		case l.ErrorType == "IndexError" || (l.ErrorType == "ValueError" && syntax.MatchString(reason)):
			return ReadError
		case chains.MatchString(reason):
			return coordfront.FilterMultiChain
		case noRes.MatchString(reason):
			return coordfront.FilterNoProtein
		case noJoin.MatchString(reason):
			return coordfront.FilterNoAtomsJoin
		}
	}
	t.Fatalf("%s: golden outcome %s (%s %q) has no rule", l.File, l.Outcome, l.ErrorType, reason)
	return ""
}

// Load reads the golden file name (under golden/) and joins each line with
// its confind-mini.jsonl record. It fails when the file is empty.
func Load(t testing.TB, name string) []Line {
	t.Helper()
	dir := testcorpus.Dir(t)
	records := loadRecords(t, filepath.Join(dir, "golden", "confind-mini.jsonl"))
	var out []Line
	scan(t, filepath.Join(dir, "golden", name), func(b []byte) {
		var l Line
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatalf("%s line %d: %v", name, len(out)+1, err)
		}
		if rec, ok := records[l.File]; ok {
			l.Record = rec
			a, err := contactsv1.AnalysisFromRecord("", rec)
			if err != nil {
				t.Fatalf("%s: confind-mini record: %v", l.File, err)
			}
			l.Analysis = a
		}
		out = append(out, l)
	})
	if len(out) == 0 {
		t.Fatalf("%s: no lines", name)
	}
	return out
}

func loadRecords(t testing.TB, path string) map[string]map[string]any {
	out := map[string]map[string]any{}
	scan(t, path, func(b []byte) {
		var l struct {
			File   string          `json:"file"`
			Record json.RawMessage `json:"record"`
		}
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(l.Record) == 0 || string(l.Record) == "null" {
			return
		}
		rec, err := contactsv1.RecordFromJSON(l.Record)
		if err != nil {
			t.Fatalf("%s %s: %v", path, l.File, err)
		}
		out[l.File] = rec
	})
	return out
}

func scan(t testing.TB, path string, fn func([]byte)) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// FirstDiff describes where got first differs from want, by token.
func FirstDiff(got, want string) string {
	g, w := strings.Fields(got), strings.Fields(want)
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			lo := max(0, i-6)
			return "first difference at token " + itoa(i) + ":\n got …" + strings.Join(g[lo:min(len(g), i+6)], " ") +
				"\nwant …" + strings.Join(w[lo:min(len(w), i+6)], " ")
		}
	}
	return "token counts " + itoa(len(g)) + " and " + itoa(len(w)) + ", one a prefix of the other"
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// CheckMetadata compares every key of the line's golden metadata with got
// (decoded through JSON, so numbers compare as float64), exactly.
func CheckMetadata(t testing.TB, l Line, got map[string]any) {
	t.Helper()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]any
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	for k, w := range l.Metadata {
		v, ok := g[k]
		if !ok {
			t.Errorf("%s: metadata %s missing (golden %v)", l.File, k, w)
			continue
		}
		if !equalJSON(v, w) {
			t.Errorf("%s: metadata %s = %v, golden %v", l.File, k, v, w)
		}
	}
}

func equalJSON(a, b any) bool {
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return string(ab) == string(bb)
}

// Generated is one generator outcome as Check compares it.
type Generated struct {
	Filtered  string
	SHA1      string
	Text      string
	NumTokens int
	Metadata  map[string]any
}

// FromGenerator is Check's gen for a coordinate format's generator g (one
// for every line: reused memory must not leak state): each document as the
// format writes it, its metadata the row's columns by name.
func FromGenerator[C any](g coordfront.Generator[C], columns []format.Column, cfg C) func(*structure.Structure, *contactsv1.Analysis, string) Generated {
	return func(st *structure.Structure, a *contactsv1.Analysis, id string) Generated {
		res, filtered := g.Write(st, a, id, cfg)
		if filtered != "" {
			return Generated{Filtered: filtered}
		}
		m := map[string]any{}
		for i, c := range columns {
			m[c.Name] = res.Values[i]
		}
		tokens, _ := m["num_tokens"].(int64)
		sum := sha1.Sum([]byte(res.Document))
		return Generated{SHA1: hex.EncodeToString(sum[:]), Text: res.Document, NumTokens: int(tokens), Metadata: m}
	}
}

// Check runs gen on every line of the golden file name whose outcome the
// generator decides (all but the reader's errors, which must be errors of
// mmcif.ReadFile, and the lines without an analysis record, which need
// ConFind): each document must be byte-identical (sha1 and text) with
// equal metadata, each filter the reference's. It returns the outcome
// counts and fails unless every one of the golden file's documents was
// compared.
func Check(t *testing.T, name string, gen func(st *structure.Structure, a *contactsv1.Analysis, entryID string) Generated) map[string]int {
	t.Helper()
	dir := testcorpus.Dir(t)
	lines := Load(t, name)
	counts := map[string]int{}
	golden := 0
	for _, l := range lines {
		want := l.Expected(t)
		if want == "document" {
			golden++
		}
		st, err := mmcif.ReadFile(filepath.Join(dir, l.File))
		if want == ReadError {
			switch {
			case err == nil && len(st.Models) == 0 && l.ErrorType == "IndexError":
				// gemmi throws in its metadata reading on a valid CIF
				// without _atom_site; our reader reads 0 models
				// (mmcif/doc.go), which ConFind analyses as no residues.
				counts["read as 0 models (gemmi IndexError)"]++
			case err == nil:
				t.Errorf("%s: read, but gemmi fails on it (%s)", l.File, *l.Reason)
			default:
				counts[want]++
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", l.File, err)
			continue
		}
		if l.Analysis == nil {
			counts["needs ConFind: "+want]++
			continue
		}
		g := gen(st, l.Analysis, l.ID())
		if want != "document" {
			if g.Filtered != want {
				t.Errorf("%s: filtered %q, want %q (%s)", l.File, g.Filtered, want, *l.Reason)
			}
			counts[want]++
			continue
		}
		if g.Filtered != "" {
			t.Errorf("%s: filtered %q, want a document", l.File, g.Filtered)
			continue
		}
		if g.SHA1 != l.SHA1 || g.Text != l.Document || g.NumTokens != l.NumTokens {
			t.Errorf("%s: sha1 %s (%d tokens), golden %s (%d tokens)\n%s", l.File, g.SHA1, g.NumTokens, l.SHA1, l.NumTokens, FirstDiff(g.Text, l.Document))
			continue
		}
		counts[want]++
		CheckMetadata(t, l, g.Metadata)
	}
	t.Logf("%s, %d lines: %v", name, len(lines), counts)
	if counts["document"] != golden || golden == 0 {
		t.Errorf("%d of the golden file's %d documents are byte-identical", counts["document"], golden)
	}
	return counts
}

// OptionStrings returns the line's options as run options: JSON true/false as
// "true"/"false", null as "none", numbers in Go's shortest form.
func (l Line) OptionStrings(t testing.TB) map[string]string {
	out := map[string]string{}
	for k, raw := range l.Options {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: option %s: %v", l.File, k, err)
		}
		switch x := v.(type) {
		case nil:
			out[k] = "none"
		case bool:
			out[k] = strconv.FormatBool(x)
		case float64:
			out[k] = strconv.FormatFloat(x, 'g', -1, 64)
		default:
			t.Fatalf("%s: option %s = %v: unexpected type", l.File, k, v)
		}
	}
	return out
}

// CPU is the process's CPU time so far (user + system), for benchmarks'
// per-document CPU figures on a shared machine.
func CPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Pair is one document as a differential test compares it: its text,
// the whole generated value (compared with reflect.DeepEqual), or the
// filter reason.
type Pair struct {
	Text     string
	Doc      any
	Filtered string
}

// SameDocuments generates the structure of every golden line name that
// has a document and an analysis record, under three seeds each (the
// entry id, then it with "-b" and "-c"), with gen's two variants
// (variant false: the reference implementation, true: the one checked
// against it), and fails at the first document whose text or value
// differ. It returns the number of documents compared.
func SameDocuments(t *testing.T, name, setup string, gen func(st *structure.Structure, a *contactsv1.Analysis, entryID string, variant bool) Pair) int {
	t.Helper()
	dir := testcorpus.Dir(t)
	docs := 0
	for _, l := range Load(t, name) {
		if l.Analysis == nil || l.Outcome != "document" {
			continue
		}
		st, err := mmcif.ReadFile(filepath.Join(dir, l.File))
		if err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{"", "-b", "-c"} {
			id := l.ID() + suffix
			want, got := gen(st, l.Analysis, id, false), gen(st, l.Analysis, id, true)
			switch {
			case want.Filtered != got.Filtered:
				t.Fatalf("%s, %s: filtered %q, and %q by the variant", setup, id, want.Filtered, got.Filtered)
			case want.Filtered != "":
				continue
			case got.Text != want.Text:
				t.Fatalf("%s, %s: the variant's document differs\n%s", setup, id, FirstDiff(got.Text, want.Text))
			case !reflect.DeepEqual(got.Doc, want.Doc):
				t.Fatalf("%s, %s: the variant's metadata differ\nvariant:   %+v\nreference: %+v", setup, id, got.Doc, want.Doc)
			}
			docs++
		}
	}
	return docs
}
