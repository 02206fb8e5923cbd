package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/leakage"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/planner"
)

// leakageFile is where leakage writes its figures under RUN_OUT: the
// report folder, beside summary.json (a file at RUN_OUT's top level is
// stray to verify, and verify guards publish).
const leakageFile = "report/leakage.json"

// leakExit is the exit status of --fail-on-leak when a leak is found (1
// and 2 are bad inputs and usage).
const leakExit = 3

// leakageDoc is what leakage.json holds (see package leakage's doc).
type leakageDoc struct {
	Input   string            `json:"input"`
	Shards  int               `json:"shards"`
	Eval    leakageEval       `json:"eval"`
	Figures []leakage.Figures `json:"figures"`
	Leak    bool              `json:"leak"`
}

type leakageEval struct {
	IDsFile         string   `json:"ids_file"`
	PDBIDs          int      `json:"pdb_ids"`
	ClustersFile    string   `json:"clusters_file"`
	Clustered       *int     `json:"clustered"`
	SequenceSources []string `json:"sequence_sources"`
	Sequences       *int     `json:"sequences"`
}

func runLeakage(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("leakage", flag.ContinueOnError)
	evalIDs := fs.String("eval", "", "the eval set's ids: a CSV with a pdb_id column (exp222's eval_set_pdb_ids.csv; a stem column names the chains evaluated)")
	evalSeqs := fs.String("eval-seqs", "", "eval manifests (columns stem, input_seq; comma-separated): their one-letter sequences, hashed as qc.py does")
	evalRun := fs.String("eval-run", "", "a foldcorpus run (folder or quoted glob of shards) over the eval entries' files: its monomer documents' resolved_seq_sha1")
	clusters := fs.String("clusters", "", "clusters-by-entity-40.txt (default: the run's clusters option, from its shards)")
	out := fs.String("out", "", "where to write the figures (default RUN_OUT/"+leakageFile+")")
	asJSON := fs.Bool("json", false, "print leakage.json on stdout instead of the table")
	failOnLeak := fs.Bool("fail-on-leak", false, fmt.Sprintf("exit %d when an eval id or an exact eval sequence is in the corpus (40%% clusters never fail)", leakExit))
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: foldcorpus leakage RUN_OUT|GLOB --eval EVAL.csv [--eval-seqs CSV,...] [--eval-run DIR] [--clusters FILE] [--json] [--fail-on-leak]

MarinFold exp222's leakage audit (qc.py): how close a PDB corpus comes to an
eval set, per subset (monomers, multimers) and for all documents. Reads the
document shards' entry_id, subset, pdb_id, resolved_seq_sha1, cluster_ids
(RUN_OUT/*-of-*.parquet: a run, or a dedup cut) and reports:

  eval ids present     eval PDB ids with a document (0 after select --pdb)
  exact matches        documents whose resolved_seq_sha1 is an eval sequence's
  40%% homologous       documents sharing a 40%% cluster with an eval entry
  eval covered         eval entries with a 40%% homolog in the corpus (exp213's figure)

The eval sequences come from --eval-seqs (exp74's eval manifests, as qc.py)
and/or --eval-run (a run over the eval entries' files with the corpus's
options, resolved sequence against resolved sequence); without either there
are no exact figures, without clusters no cluster figures. Writes the
figures to RUN_OUT/%s (or --out; a rerun with the same figures is a no-op).
Leakage is a measurement: the exit status is 0 unless an input is bad, or
--fail-on-leak finds an eval id or exact sequence (exit %d).

flags:
`, leakageFile, leakExit)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if fs.NArg() != 1 || *evalIDs == "" {
		return &exitError{2, errors.New("want one RUN_OUT (or a quoted glob of shards) and --eval EVAL.csv (see `foldcorpus leakage -h`)")}
	}
	src, dest := shardGlob(fs.Arg(0)), *out
	inReport := dest == "" // the run's report shows the figures: rebuilt below
	if dest == "" {
		if src == fs.Arg(0) {
			return &exitError{2, errors.New("RUN_OUT is a glob: name the output with --out")}
		}
		dest = planner.JoinURI(strings.TrimRight(fs.Arg(0), "/"), leakageFile)
	}
	store := cliStores()
	defer store.Close()
	doc, err := leakageAudit(ctx, store, src, *evalIDs, *evalSeqs, *evalRun, *clusters)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if err := writeOnce(ctx, store, dest, b); err != nil {
		return err
	}
	if *asJSON {
		os.Stdout.Write(b)
	} else {
		printLeakage(os.Stdout, doc)
		fmt.Fprintf(os.Stderr, "leakage: figures in %s\n", dest)
	}
	if inReport {
		// the report page and the dataset card tell the figures with the
		// rest of the corpus's story
		if page, err := writeReport(ctx, strings.TrimRight(fs.Arg(0), "/")); err != nil {
			fmt.Fprintf(os.Stderr, "leakage: the report was not rebuilt: %s\n", derrors.Describe(err))
		} else if !*asJSON {
			fmt.Fprintf(os.Stderr, "leakage: report with the figures: %s\n", page)
		}
	}
	if *failOnLeak && doc.Leak {
		return &exitError{leakExit, errors.New("an eval id or an exact eval sequence is in the corpus (--fail-on-leak)")}
	}
	return nil
}

// shardGlob is the document shards of a run folder, or arg itself when it
// is already a glob.
func shardGlob(arg string) string {
	if strings.ContainsAny(arg, "*?[") {
		return arg
	}
	return strings.TrimRight(arg, "/") + "/*-of-*.parquet"
}

// leakageAudit reads the eval side and the shards matching src and counts.
func leakageAudit(ctx context.Context, store blob.Store, src, idsFile, seqFiles, evalRun, clustersFile string) (*leakageDoc, error) {
	shards, err := store.List(ctx, src)
	if err != nil {
		return nil, err
	}
	if len(shards) == 0 {
		return nil, fmt.Errorf("no document shards match %s", src)
	}
	b, err := store.ReadAll(ctx, idsFile)
	if err != nil {
		return nil, fmt.Errorf("--eval: %w", err)
	}
	ids, stems, err := leakage.ReadEvalIDs(bytes.NewReader(b), idsFile)
	if err != nil {
		return nil, err
	}
	doc := &leakageDoc{Input: src, Shards: len(shards), Eval: leakageEval{IDsFile: idsFile, SequenceSources: []string{}}}
	if clustersFile == "" {
		m, err := corpus.ReadMeta(ctx, store, shards[0])
		if err != nil {
			return nil, err
		}
		clustersFile = m.Accounting.Options["clusters"]
	}
	var table map[string]int64
	if clustersFile != "" {
		b, err := store.ReadAll(ctx, clustersFile)
		if err != nil {
			return nil, fmt.Errorf("clusters (--clusters, or the run's clusters option): %w", err)
		}
		if table, err = leakage.ReadClusters(bytes.NewReader(b), clustersFile); err != nil {
			return nil, err
		}
	}
	ev := leakage.NewEval(ids, table, seqFiles != "" || evalRun != "")
	for _, f := range strings.Split(seqFiles, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		b, err := store.ReadAll(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("--eval-seqs: %w", err)
		}
		if _, err := leakage.ReadEvalSeqs(bytes.NewReader(b), f, ev); err != nil {
			return nil, err
		}
		doc.Eval.SequenceSources = append(doc.Eval.SequenceSources, f)
	}
	if evalRun != "" {
		var docs []leakage.Doc
		if err := readLeakageDocs(ctx, store, shardGlob(evalRun), func(d leakage.Doc) { docs = append(docs, d) }); err != nil {
			return nil, fmt.Errorf("--eval-run: %w", err)
		}
		ev.AddSeqsFromDocs(docs, stems)
		doc.Eval.SequenceSources = append(doc.Eval.SequenceSources, shardGlob(evalRun))
	}
	a := leakage.NewAudit(ev)
	if err := readLeakageDocs(ctx, store, src, a.Add); err != nil {
		return nil, err
	}
	doc.Figures = a.Figures()
	doc.Eval.PDBIDs, doc.Eval.ClustersFile = ev.PDBIDs(), clustersFile
	if n := ev.Clustered(); n >= 0 {
		doc.Eval.Clustered = &n
	}
	if n := ev.Sequences(); n >= 0 {
		doc.Eval.Sequences = &n
	}
	for _, f := range doc.Figures {
		doc.Leak = doc.Leak || f.Leaks()
	}
	return doc, nil
}

// leakageColumns are the document columns the audit reads.
var leakageColumns = []string{"entry_id", "subset", "pdb_id", "resolved_seq_sha1", "cluster_ids"}

// readLeakageDocs calls fn with every document row of the shards matching
// src, in file and row order. A missing column, or a value of another
// type, is an error naming the file and row.
func readLeakageDocs(ctx context.Context, store blob.Store, src string, fn func(leakage.Doc)) error {
	files, err := store.List(ctx, src)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no document shards match %s", src)
	}
	for _, f := range files {
		err := manifest.ReadFile(ctx, store, f, nil, leakageColumns, func(r *manifest.Rows) error {
			for i, v := range r.Values {
				var d leakage.Doc
				var ok [4]bool
				d.EntryID, ok[0] = v[0].(string)
				d.Subset, ok[1] = v[1].(string)
				d.PDBID, ok[2] = v[2].(string)
				d.SeqSHA1, ok[3] = v[3].(string)
				if v[4] != nil {
					var isList bool
					if d.ClusterIDs, isList = v[4].([]int64); !isList {
						return derrors.Permanent(fmt.Errorf("%s row %d: cluster_ids is %T, want a list of integers", f, r.First+int64(i), v[4]))
					}
				}
				for k, good := range ok {
					if !good && v[k] != nil {
						return derrors.Permanent(fmt.Errorf("%s row %d: %s is %T, want a string", f, r.First+int64(i), leakageColumns[k], v[k]))
					}
				}
				fn(d)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// writeOnce creates dest with data; an existing dest with the same bytes
// is left as it is, one with other bytes is an error naming it.
func writeOnce(ctx context.Context, store blob.Store, dest string, data []byte) error {
	err := store.Create(ctx, dest, data)
	if !errors.Is(err, derrors.ErrExists) {
		return err
	}
	old, rerr := store.ReadAll(ctx, dest)
	if rerr == nil && bytes.Equal(old, data) {
		return nil
	}
	return fmt.Errorf("%s exists with other figures: remove it, or write these elsewhere with --out", dest)
}

// printLeakage writes the figures as a table.
func printLeakage(w io.Writer, d *leakageDoc) {
	ev := d.Eval
	fmt.Fprintf(w, "leakage: %s (%d shards) against %d eval entries", d.Input, d.Shards, ev.PDBIDs)
	if ev.Clustered != nil {
		fmt.Fprintf(w, ", %d in %s", *ev.Clustered, ev.ClustersFile)
	}
	if ev.Sequences != nil {
		fmt.Fprintf(w, ", %d eval sequences", *ev.Sequences)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "subset\tdocuments\teval ids present\texact sequence\t40% homologous\teval entries covered\t")
	for _, f := range d.Figures {
		exact, hom, cov := "n/a (no eval sequences)", "n/a (no clusters)", "n/a"
		if f.ExactSequenceMatches != nil {
			exact = fmt.Sprintf("%d (%.4f%%)", *f.ExactSequenceMatches, 100**f.ExactSequenceFraction)
		}
		if f.Cluster40Homologous != nil {
			hom = fmt.Sprintf("%d (%.2f%%)", *f.Cluster40Homologous, 100**f.Cluster40Fraction)
			cov = fmt.Sprintf("%d of %d (%.2f%%)", *f.EvalEntriesCovered, f.EvalEntriesTotal, 100**f.EvalEntriesCoveredFraction)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t\n", f.Subset, f.Documents, f.EvalPDBIDsPresent, exact, hom, cov)
	}
	tw.Flush()
	for _, f := range d.Figures[:1] {
		if len(f.Examples) > 0 {
			fmt.Fprintf(w, "exact matches (document->eval): %s\n", strings.Join(f.Examples, "; "))
		}
	}
}
