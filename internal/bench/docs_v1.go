package bench

// contacts-v1 in `foldcorpus bench docs`: the inputs are analysis records
// (JSON lines), and the read stage decodes one into the manifest row the
// pipeline would hand the format. The side-by-side baseline is a Python
// re-implementation of the reference generator (contactsv1_reference.py).

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
)

//go:embed contactsv1_reference.py
var contactsV1Reference []byte

// contactsV1Docs: records in, generation only.
var contactsV1Docs = docsFormat{
	load:   loadRecordInputs,
	quoted: struct{ total, read, gen float64 }{total: 4.45},
	note: "quoted: the reference's whole exp53 job (pyconfind contact degrees + generation, 4.2M documents)\n" +
		"ran at 4.45 docs/s/core; here the degrees come precomputed in the records, so only generation is left",
	side: pythonContactsV1Baseline,
}

// loadRecordInputs reads analysis records from a JSON-lines file, or from
// DIR/contacts-v1.jsonl when given a folder (the golden file: each line's
// "input" is the record). Other lines are records themselves.
func loadRecordInputs(path string) ([]docsBenchInput, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "contacts-v1.jsonl")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ins []docsBenchInput
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for line := 1; sc.Scan(); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var wrapped struct {
			Input json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(raw, &wrapped); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		data := bytes.Clone(raw)
		if wrapped.Input != nil {
			data = wrapped.Input
		}
		name := fmt.Sprintf("%s:%d", path, line)
		ins = append(ins, docsBenchInput{name: name, bytes: len(data), read: func() (format.Input, error) {
			rec, err := contactsv1.RecordFromJSON(data)
			if err != nil {
				return format.Input{}, fmt.Errorf("%s: %w", name, err)
			}
			id, _ := rec["entry_id"].(string)
			return format.Input{EntryID: id, Record: rec}, nil
		}})
	}
	return ins, sc.Err()
}

// pythonContactsV1Baseline runs contactsv1_reference.py under
// /usr/bin/python3 over the same records with the same options (process CPU
// time measured inside the script, interpreter start-up excluded) and checks
// that its documents equal ours.
func pythonContactsV1Baseline(ctx context.Context, f format.Format, ins []docsBenchInput, sa sideArgs) (sideBySide, error) {
	cf, ok := f.(*contactsv1.Format)
	if !ok {
		return sideBySide{}, fmt.Errorf("format %s is not contacts-v1", f.Name())
	}
	dir, err := pythonBaselineDir("no extra modules")
	if err != nil {
		return sideBySide{}, err
	}
	defer os.RemoveAll(dir)
	records := filepath.Join(dir, "records.jsonl")
	var buf bytes.Buffer
	ours := make([]string, len(ins))
	for i, in := range ins {
		p, err := in.read()
		if err != nil {
			return sideBySide{}, err
		}
		line, err := json.Marshal(p.Record)
		if err != nil {
			return sideBySide{}, err
		}
		buf.Write(append(line, '\n'))
		ours[i] = docSHA1(f, p)
	}
	if err := os.WriteFile(records, buf.Bytes(), 0o644); err != nil {
		return sideBySide{}, err
	}
	cfg := cf.Config()
	args := []string{strconv.FormatBool(cfg.Think), strconv.Itoa(cfg.MinSeqSeparation),
		strconv.FormatFloat(cfg.MinContactDegree, 'g', -1, 64), strconv.Itoa(cfg.ContextLength), strconv.Itoa(sa.reps), records}
	return runPythonBaseline(ctx, dir, "contactsv1_reference.py", contactsV1Reference, args, ours, "Python 3.11 re-implementation")
}
