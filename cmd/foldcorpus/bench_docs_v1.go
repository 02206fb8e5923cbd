package main

// contacts-v1 in `foldcorpus bench docs`: the inputs are analysis records
// (JSON lines), and the read stage decodes one into the manifest row the
// pipeline would hand the format.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
)

func init() {
	docsBenchLoaders[contactsv1.Name] = loadRecordInputs
	// The reference's whole exp53 job (pyconfind + generation) ran at 4.45
	// documents/s per core; pyconfind cannot run here (no Dunbrack library).
	docsBaseline[contactsv1.Name] = struct{ total, read, gen float64 }{total: 4.45}
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
