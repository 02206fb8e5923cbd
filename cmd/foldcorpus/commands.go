package main

import "github.com/foldcorpus/foldcorpus/internal/formats/registry"

// commands is the CLI's table: each command's name, its one-line summary
// (foldcorpus help lists them) and the function that runs it.
var commands = commandMap([]command{
	{"bench", "moved: the benchmarks are a command of their own, go run ./cmd/foldcorpus-bench KIND", runBench},
	{"confind", "ConFind contact degrees of structure files: pyconfind's .cont text, or MarinFold's analysis records", runConfind},
	{"dedup", "deduplicated cut of a PDB run's documents, one per cluster composition (RUN_OUT --out DIR)", runDedup},
	{"doc", "write one structure format's document for each mmCIF or PDB FILE (JSON lines)", runDoc},
	{"fetch-manifest", "fetch a manifest from the Hugging Face Hub, projected (hf://datasets/OWNER/NAME[@REV][/PATH] --out DIR|gs://B/P)", runFetchManifest},
	{"formats", "list the document formats, their input and each option with its default (set with --opt key=value)", runFormats},
	{"inspect", "read mmCIF or PDB files and print models, chains, sequences, pLDDT and contacts", runInspect},
	{"leakage", "exp222's leakage audit: a corpus's exact-sequence and 40% cluster overlap with an eval set (RUN_OUT --eval EVAL.csv)", runLeakage},
	{"manifest", "list a folder or bucket of structure files as a manifest ('DIR/**/*.cif.gz' --out m.parquet)", runManifest},
	{"publish", "publish a complete run's shards and a dataset card to the Hugging Face Hub (OUT hf://datasets/OWNER/NAME[@BRANCH][/PATH])", runPublish},
	{"report", "write report/summary.json and report/index.html (plots) for a run's output (DIR or gs://...)", runReport},
	{"rerun", "publish the shards of a cloud run that are not done (rerun --run ID [--shard N] [--gcloud])", runRerun},
	{"run", "build a corpus locally from a manifest (or the embedded sample); rerun to resume", runRun},
	{"scan", "header scan of PDB mmCIF files -> entries table (--manifest m.parquet | --input GLOB --out entries.parquet)", runScan},
	{"select", "Stage A: metadata-only cluster/pLDDT round selection -> generation manifest (--pdb: exp222's PDB entry selection)", runSelect},
	{"smoke", "time the first N rows of a manifest as one shard, then project the deployed run's wall-clock and cost", runSmoke},
	{"status", "show a run's ledger: done, failed (entry id + error), missing, filter counts (status DIR | --run ID)", runStatus},
	{"tpujob", "run the accelerator tokenize job (bio2token-v2) configured by FOLDCORPUS_* variables (see docs/deploy.md)", runTPUJob},
	{"verify", "check a corpus from storage alone: every manifest row once, one file per shard, nothing stray (verify OUT [--deep] [--json])", runVerify},
	{"version", "print foldcorpus's version (also in every output file's accounting metadata) and build", runVersion},
})

// commandMap indexes the table by name; a name given twice is a
// programming error.
func commandMap(list []command) map[string]command {
	m := make(map[string]command, len(list))
	for _, c := range list {
		if _, dup := m[c.name]; dup {
			panic("foldcorpus: command listed twice: " + c.name)
		}
		m[c.name] = c
	}
	return m
}

// formatRegistry is the CLI's format registry, built here, at the
// composition root: the builtin formats (a test adds its throwaway format
// to it). Every command resolves formats through it and hands it to the
// local runner (localrun.Config.Formats).
var formatRegistry = registry.Builtin()
