// Package pdbgolden reads the pdb-curation golden files of the shared
// corpus (golden/pdb-curation/pdb-curation.jsonl and
// edge/pdb-curation-edge.jsonl): MarinFold exp222's own code run on the
// corpus's PDB entries, one line per entry with its header scan, its
// selection decision and task, its ledger row, its document rows, its
// analyses and its timing. One reader for every test and benchmark that
// checks a step of exp222 against it; each decodes the analyses it needs
// into its own type (Line.Analyses are raw).
package pdbgolden

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Line is one entry of a golden file.
type Line struct {
	Case        string   `json:"case"` // edge cases: what the crafted entry exercises
	File        string   `json:"file"` // relative to the corpus folder
	PDBID       string   `json:"pdb_id"`
	Metadata    Metadata `json:"metadata"`
	EntryFilter string   `json:"entry_filter"` // "selected", or the filter that rejected it
	Task        *Task    `json:"task"`         // set when selected
	// Ledger is exp222's ledger row (curation.LedgerRow's fields).
	Ledger json.RawMessage `json:"ledger"`
	// Documents are exp222's document rows, every column as JSON.
	Documents []map[string]json.RawMessage `json:"documents"`
	// Analyses are the structures exp222 analysed (monomers, then the
	// multimer), raw: kind, outcome, entry_id, structure_name,
	// model0_chains, positions, contacts, record, ...
	Analyses []json.RawMessage `json:"analyses"`
	Timing   Timing            `json:"timing"`
}

// Metadata is exp222's header scan of the entry (scan_metadata.py).
type Metadata struct {
	PDBID                   string   `json:"pdb_id"`
	Path                    string   `json:"path"`
	ReleaseDate             *string  `json:"release_date"`
	DepositionDate          *string  `json:"deposition_date"`
	Method                  *string  `json:"method"`
	Resolution              *float64 `json:"resolution"`
	ResolutionSource        *string  `json:"resolution_source"`
	NProteinEntities        int64    `json:"n_protein_entities"`
	NProteinAsymChains      int64    `json:"n_protein_asym_chains"`
	ProteinEntityIDs        []string `json:"protein_entity_ids"`
	ProteinEntityLengths    []int64  `json:"protein_entity_lengths"`
	ProteinStrandIDs        []string `json:"protein_strand_ids"`
	NAssembly1ProteinAsyms  int64    `json:"n_assembly1_protein_asyms"`
	NAssembly1ProteinChains int64    `json:"n_assembly1_protein_chains"`
	Error                   *string  `json:"error"`
}

// Task is exp222's Task of a selected entry: the generation manifest's
// columns (`foldcorpus select --pdb` writes them).
type Task struct {
	PDBID                  string   `json:"pdb_id"`
	ReleaseDate            string   `json:"release_date"`
	Resolution             *float64 `json:"resolution"`
	Method                 string   `json:"method"`
	EstResidues            int64    `json:"est_residues"`
	Assembly1ProteinChains int64    `json:"assembly1_protein_chains"`
	ProcessingRank         int64    `json:"processing_rank"`
}

// Timing is exp222's CPU and wall per entry (medians of three runs) and
// gemmi's read_structure of the file, measured the same day.
type Timing struct {
	ScanCPU    float64 `json:"scan_cpu_s"`
	ProcessCPU float64 `json:"process_cpu_s"`
	GemmiRead  float64 `json:"gemmi_read_cpu_s"`
}

// Selected reports whether exp222 selected the entry (it has a task).
func (l Line) Selected() bool { return l.EntryFilter == "selected" && l.Task != nil }

// DocumentString is a string column of document i ("" when absent or not
// a string).
func (l Line) DocumentString(i int, column string) string {
	var s string
	_ = json.Unmarshal(l.Documents[i][column], &s)
	return s
}

// Set is one golden file: its folder (which holds its cluster file and
// eval-set list) and exp222's document counts.
type Set struct {
	Dir, File           string
	Monomers, Multimers int
}

// Path is the set's golden file.
func (s Set) Path() string { return filepath.Join(s.Dir, s.File) }

// Clusters is the set's RCSB clusters-by-entity-40.txt.
func (s Set) Clusters() string { return filepath.Join(s.Dir, "clusters-by-entity-40.txt") }

// Sets are the golden files under the corpus folder: the 43 real entries
// (58 monomer and 13 multimer documents) and the crafted edge cases (20
// and 4).
func Sets(corpus string) []Set {
	base := filepath.Join(corpus, "golden", "pdb-curation")
	return []Set{
		{base, "pdb-curation.jsonl", 58, 13},
		{filepath.Join(base, "edge"), "pdb-curation-edge.jsonl", 20, 4},
	}
}

// Read reads a golden file, naming the line of a malformed one.
func Read(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Line
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for n := 1; sc.Scan(); n++ {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
