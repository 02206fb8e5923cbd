// Package leakage measures how close a PDB corpus comes to an evaluation
// set, as MarinFold exp222's qc.py leakage_audit does. Curation already
// drops the eval entries by PDB id (select --pdb --exclude-ids); what is
// left is homology, measured, never purged:
//
//   - eval_pdb_ids_present: distinct eval PDB ids that still have a
//     document (0 after select --pdb's exclusion).
//   - exact_sequence_matches: documents whose resolved_seq_sha1 equals an
//     eval sequence's hash. exp222 hashes the eval manifests' one-letter
//     input_seq in contacts-v1's three-letter space (SeqSHA1): a strict
//     lower bound, as a corpus chain with unresolved residues never
//     matches its input sequence.
//   - cluster40_homologous: documents with a cluster_ids entry that is the
//     40% cluster of some entity of an eval entry (the cluster file's
//     members "<PDBID>_<entity>", the id before the first "_" lower-cased).
//   - eval_entries_covered: eval entries with an entity in the cluster of
//     some document; over eval_entries_total, the figure comparable to
//     exp213 (eval set 58% homologous to exp199's AFDB training data).
//     eval_entries_clustered counts the eval entries the cluster file lists
//     at all. Every entity of an eval entry counts, so both cluster
//     figures are upper bounds.
//
// Fractions are rounded as qc.py rounds them (6 places, 4 for the covered
// fraction), so that its leakage_audit.csv can be compared column by
// column. exp222's production figures (552 eval entries, 526 clustered):
// monomers 602,859 documents, 44 exact, 8,400 homologous, 277 covered
// (0.5018); multimers 85,660, 1, 2,410, 173 (0.3134).
//
// foldcorpus leakage writes the figures as leakage.json; here the golden
// run against eval entries 3ptb_A and 4i6p_A (--eval-run: the run itself):
//
//	{
//	  "input": "out/*-of-*.parquet",     // the document shards read
//	  "shards": 1,
//	  "eval": {
//	    "ids_file": "ev2.csv",
//	    "pdb_ids": 2,                      // eval_entries_total
//	    "clusters_file": "clusters-by-entity-40.txt",  // "": no cluster figures
//	    "clustered": 2,                    // eval_entries_clustered; null without clusters
//	    "sequence_sources": ["out/*-of-*.parquet"],    // []: no exact figures
//	    "sequences": 2                     // distinct eval sequence hashes; null without sources
//	  },
//	  "figures": [                         // "all" first, then each subset by name (monomers, multimers)
//	    {"subset": "all", "documents": 71, "eval_pdb_ids_present": 2,
//	     "exact_sequence_matches": 3, "exact_sequence_fraction": 0.042254,
//	     "cluster40_homologous": 5, "cluster40_fraction": 0.070423,
//	     "eval_entries_total": 2, "eval_entries_clustered": 2,
//	     "eval_entries_covered": 2, "eval_entries_covered_fraction": 1,
//	     "examples": ["3zee_A->4i6p_A", "4i6p_A->4i6p_A", "3ptb_A->3ptb_A"]},
//	    ...                                // first 10 exact matches, document->eval label
//	  ],
//	  "leak": true    // some row has an eval id present or an exact match (Figures.Leaks)
//	}
//
// The exact_* fields are null when no eval sequences were given, the
// cluster fields (cluster40_*, eval_entries_clustered, _covered and
// _covered_fraction) null when no cluster file was. The "all" row of a
// dedup output folder is qc.py's "deduped" (or "deduped_monomers") row.
package leakage

import (
	"crypto/sha1"
	"encoding/hex"
	"math"
	"slices"
	"sort"
	"strings"
)

// MaxExamples is how many exact matches a Figures row names (qc.py: 10).
const MaxExamples = 10

// Doc is what the audit reads of one document row.
type Doc struct {
	EntryID    string
	Subset     string // "monomer" or "multimer" (reported as "monomers", "multimers")
	PDBID      string
	SeqSHA1    string // resolved_seq_sha1
	ClusterIDs []int64
}

// Eval is the evaluation side: its PDB ids, optionally its sequences'
// hashes and its entries' 40% clusters.
type Eval struct {
	ids      map[string]bool
	seqs     map[string]string  // hash -> label (eval stem or entry id), nil: not measured
	clusters map[int64][]string // cluster id -> eval PDB ids in it, nil: not measured
}

// NewEval makes the eval side from its PDB ids (compared lower-case, as
// qc.py strips and lower-cases them) and a cluster table (ReadClusters; nil
// when none was given: no cluster figures). withSeqs says that sequences
// will be given (AddSeq, AddSeqsFromDocs); without it there are no exact
// figures.
func NewEval(pdbIDs []string, clusters map[string]int64, withSeqs bool) *Eval {
	e := &Eval{ids: map[string]bool{}}
	if withSeqs {
		e.seqs = map[string]string{}
	}
	for _, id := range pdbIDs {
		e.ids[strings.ToLower(strings.TrimSpace(id))] = true
	}
	if clusters != nil {
		e.clusters = map[int64][]string{}
		for key, c := range clusters {
			id, _, _ := strings.Cut(key, "_")
			id = strings.ToLower(id)
			if e.ids[id] && !slices.Contains(e.clusters[c], id) {
				e.clusters[c] = append(e.clusters[c], id)
			}
		}
	}
	return e
}

// AddSeq adds an eval sequence's hash (SeqSHA1, or a resolved_seq_sha1)
// with a label naming it (qc.py: the eval stem); the first label of a hash
// is kept, as qc.py's setdefault. An empty hash is ignored. It panics
// when the Eval was made without withSeqs.
func (e *Eval) AddSeq(hash, label string) {
	if e.seqs == nil {
		panic("leakage: AddSeq on an Eval made without sequences")
	}
	if _, ok := e.seqs[hash]; hash != "" && !ok {
		e.seqs[hash] = label
	}
}

// PDBIDs is the number of distinct eval PDB ids (eval_entries_total).
func (e *Eval) PDBIDs() int { return len(e.ids) }

// Sequences is the number of distinct eval sequence hashes, or -1 when no
// sequences were given.
func (e *Eval) Sequences() int {
	if e.seqs == nil {
		return -1
	}
	return len(e.seqs)
}

// Clustered is the number of eval entries the cluster table lists
// (eval_entries_clustered), or -1 without a table.
func (e *Eval) Clustered() int {
	if e.clusters == nil {
		return -1
	}
	seen := map[string]bool{}
	for _, ids := range e.clusters {
		for _, id := range ids {
			seen[id] = true
		}
	}
	return len(seen)
}

// Figures is one row of qc.py's leakage_audit.csv. Pointer fields are nil
// when the eval side lacks what they need (sequences, clusters).
type Figures struct {
	Subset                     string   `json:"subset"`
	Documents                  int64    `json:"documents"`
	EvalPDBIDsPresent          int      `json:"eval_pdb_ids_present"`
	ExactSequenceMatches       *int64   `json:"exact_sequence_matches"`
	ExactSequenceFraction      *float64 `json:"exact_sequence_fraction"`
	Cluster40Homologous        *int64   `json:"cluster40_homologous"`
	Cluster40Fraction          *float64 `json:"cluster40_fraction"`
	EvalEntriesTotal           int      `json:"eval_entries_total"`
	EvalEntriesClustered       *int     `json:"eval_entries_clustered"`
	EvalEntriesCovered         *int     `json:"eval_entries_covered"`
	EvalEntriesCoveredFraction *float64 `json:"eval_entries_covered_fraction"`
	Examples                   []string `json:"examples"`
}

// Leaks reports whether the row has an eval id present or an exact
// sequence match: what --fail-on-leak fails on. Shared 40% clusters are a
// measurement (exp222 found them harmless), never a failure.
func (f Figures) Leaks() bool {
	return f.EvalPDBIDsPresent > 0 || (f.ExactSequenceMatches != nil && *f.ExactSequenceMatches > 0)
}

// tally accumulates one Figures row.
type tally struct {
	docs, exact, homologous int64
	present, covered        map[string]bool
	examples                []string
}

// Audit accumulates the figures over documents added in input order:
// one row for every document ("all") and one per subset.
type Audit struct {
	eval    *Eval
	all     *tally
	subsets map[string]*tally
}

// NewAudit starts an audit against ev.
func NewAudit(ev *Eval) *Audit {
	return &Audit{eval: ev, all: newTally(), subsets: map[string]*tally{}}
}

func newTally() *tally { return &tally{present: map[string]bool{}, covered: map[string]bool{}} }

// Add counts one document.
func (a *Audit) Add(d Doc) {
	name := SubsetName(d.Subset)
	t := a.subsets[name]
	if t == nil {
		t = newTally()
		a.subsets[name] = t
	}
	ev := a.eval
	label, exact := ev.seqs[d.SeqSHA1]
	var hits []string
	for _, c := range d.ClusterIDs {
		hits = append(hits, ev.clusters[c]...)
	}
	for _, t := range []*tally{a.all, t} {
		t.docs++
		if ev.ids[strings.ToLower(d.PDBID)] {
			t.present[strings.ToLower(d.PDBID)] = true
		}
		if exact {
			t.exact++
			if len(t.examples) < MaxExamples {
				t.examples = append(t.examples, d.EntryID+"->"+label)
			}
		}
		if len(hits) > 0 {
			t.homologous++
			for _, id := range hits {
				t.covered[id] = true
			}
		}
	}
}

// SubsetName is the name a subset's row carries: qc.py's table names
// ("monomer" -> "monomers", "multimer" -> "multimers"); others as they are,
// an empty subset "(none)".
func SubsetName(s string) string {
	switch s {
	case "monomer", "multimer":
		return s + "s"
	case "":
		return "(none)"
	}
	return s
}

// Figures returns the rows: "all" first, then the subsets by name.
func (a *Audit) Figures() []Figures {
	names := make([]string, 0, len(a.subsets))
	for n := range a.subsets {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []Figures{a.figures("all", a.all)}
	for _, n := range names {
		out = append(out, a.figures(n, a.subsets[n]))
	}
	return out
}

// figures turns a tally into its row, with qc.py's rounding.
func (a *Audit) figures(name string, t *tally) Figures {
	ev := a.eval
	f := Figures{Subset: name, Documents: t.docs, EvalPDBIDsPresent: len(t.present),
		EvalEntriesTotal: len(ev.ids), Examples: slices.Clone(t.examples)}
	if f.Examples == nil {
		f.Examples = []string{}
	}
	if ev.seqs != nil {
		f.ExactSequenceMatches = ptr(t.exact)
		f.ExactSequenceFraction = ptr(fraction(t.exact, t.docs, 6))
	}
	if ev.clusters != nil {
		f.Cluster40Homologous = ptr(t.homologous)
		f.Cluster40Fraction = ptr(fraction(t.homologous, t.docs, 6))
		f.EvalEntriesClustered = ptr(ev.Clustered())
		f.EvalEntriesCovered = ptr(len(t.covered))
		f.EvalEntriesCoveredFraction = ptr(fraction(int64(len(t.covered)), int64(len(ev.ids)), 4))
	}
	return f
}

func ptr[T any](v T) *T { return &v }

// fraction is n/d rounded to places decimals (half to even, as Python's
// round does for the values it can represent), 0 when d is 0.
func fraction(n, d int64, places int) float64 {
	if d == 0 {
		return 0
	}
	p := math.Pow(10, float64(places))
	return math.RoundToEven(float64(n)/float64(d)*p) / p
}

// oneToThree is contacts-v1's ONE_LETTER_TO_THREE: the standard 20; every
// other letter is UNK.
var oneToThree = map[rune]string{
	'A': "ALA", 'R': "ARG", 'N': "ASN", 'D': "ASP", 'C': "CYS",
	'Q': "GLN", 'E': "GLU", 'G': "GLY", 'H': "HIS", 'I': "ILE",
	'L': "LEU", 'K': "LYS", 'M': "MET", 'F': "PHE", 'P': "PRO",
	'S': "SER", 'T': "THR", 'W': "TRP", 'Y': "TYR", 'V': "VAL",
}

// SeqSHA1 hashes a one-letter sequence as qc.py hashes an eval manifest's
// input_seq, in the space of a document's resolved_seq_sha1: white space
// removed, upper-cased, each letter mapped to its three-letter name (UNK
// outside the standard 20), the names concatenated, SHA-1 in hex. The
// empty sequence returns "" (qc.py skips it).
func SeqSHA1(seq string) string {
	seq = strings.ToUpper(strings.Join(strings.Fields(seq), ""))
	if seq == "" {
		return ""
	}
	var b strings.Builder
	for _, r := range seq {
		three, ok := oneToThree[r]
		if !ok {
			three = "UNK"
		}
		b.WriteString(three)
	}
	h := sha1.Sum([]byte(b.String()))
	return hex.EncodeToString(h[:])
}

// AddSeqsFromDocs takes the eval sequences from a corpus of the eval
// entries (a foldcorpus run over their files, with the corpus's options):
// the resolved_seq_sha1 of each monomer document whose pdb_id is an eval
// id and, when stems is not empty, whose entry_id (<pdb>_<chain>) is one of
// stems (the eval CSV's stem column: the chains actually evaluated),
// labelled with its entry_id. Resolved against resolved, so it also finds
// a corpus chain whose unresolved residues qc.py's input sequences miss;
// it never sees an eval chain the run did not curate into a document. It
// returns the number of documents taken.
func (e *Eval) AddSeqsFromDocs(docs []Doc, stems map[string]bool) int {
	n := 0
	for _, d := range docs {
		if d.Subset != "monomer" || !e.ids[strings.ToLower(d.PDBID)] || d.SeqSHA1 == "" {
			continue
		}
		if len(stems) > 0 && !stems[d.EntryID] {
			continue
		}
		e.AddSeq(d.SeqSHA1, d.EntryID)
		n++
	}
	return n
}
