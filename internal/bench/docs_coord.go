package bench

// contacts-and-coordinates-v1 and contacts-and-crops-v1 in `foldcorpus
// bench docs`: the inputs are the structure files under DIR (the read stage
// parses them), and the contact degrees come precomputed, as the
// reference's quoted speed excludes pyconfind: the records of
// DIR/../golden/confind-mini.jsonl (the corpus layout), found by structure.

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordinatesv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/cropsv1"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// The reference's CPU per AFDB document without pyconfind, as the notes
// measured it on an AMD EPYC (../shared/formats/contacts-and-coordinates-crops-notes.md
// §10, median over 41 AFDB files; --marinfold measures it on this machine): full generate_document (gemmi read, CA
// mean, heavy-atom walk, build_document) and build_document alone.
var (
	ccoordDocs = docsFormat{
		load:               loadStructureInputs,
		build:              coordBuild(coordinatesv1.Name),
		perDocQuote:        true,
		side:               marinfoldCoordBaseline("coords"),
		sideNeedsMarinFold: true,
		quoted:             struct{ total, read, gen float64 }{total: 1 / 0.109, read: 1 / (0.109 - 0.091), gen: 1 / 0.091},
		note: "quoted: MarinFold's generator without pyconfind (the degrees replayed) on the AMD EPYC of the notes (§10), median\n" +
			"CPU per AFDB document: 0.109 s full (read 0.018 s, build_document 0.091 s); --marinfold times it here; goal >= 100x",
	}
	cropsDocs = docsFormat{
		load:               loadStructureInputs,
		build:              coordBuild(cropsv1.Name),
		perDocQuote:        true,
		side:               marinfoldCoordBaseline("crops"),
		sideNeedsMarinFold: true,
		quoted:             struct{ total, read, gen float64 }{total: 1 / 0.078, read: 1 / (0.078 - 0.064), gen: 1 / 0.064},
		note: "quoted: MarinFold's generator without pyconfind (the degrees replayed) on the AMD EPYC of the notes (§10), median\n" +
			"CPU per AFDB document: 0.078 s full (read 0.014 s, build_document 0.064 s); --marinfold times it here; goal >= 100x",
	}
)

// marinfoldCoordReference runs MarinFold's own generator of a coordinate
// format from a checkout, pyconfind's degrees replayed from the records.
//
//go:embed marinfold_coord_reference.py
var marinfoldCoordReference []byte

// marinfoldCoordBaseline is the coordinate formats' side-by-side baseline:
// MarinFold's generate_document (its module for which: "crops" or
// "coords") from the --marinfold checkout over the same files, each timed
// as the quoted figures were (the least of sa.reps in a row, the median
// over documents), its documents checked against ours.
func marinfoldCoordBaseline(which string) func(ctx context.Context, f format.Format, ins []docsBenchInput, sa sideArgs) (sideBySide, error) {
	return func(ctx context.Context, f format.Format, ins []docsBenchInput, sa sideArgs) (sideBySide, error) {
		dir, err := pythonBaselineDir("gemmi and numpy for MarinFold's generator (apt install python3-gemmi python3-numpy)")
		if err != nil {
			return sideBySide{}, err
		}
		defer os.RemoveAll(dir)
		args := []string{sa.marinfold, which, coordRecordsPath(sa.dir), strconv.Itoa(sa.reps)}
		ours := make([]string, len(ins))
		for i, in := range ins {
			p, err := in.read()
			if err != nil {
				return sideBySide{}, err
			}
			ours[i] = docSHA1(f, p)
			args = append(args, in.name)
		}
		what := "MarinFold's generate_document"
		if out, err := exec.CommandContext(ctx, "git", "-C", sa.marinfold, "rev-parse", "--short", "HEAD").Output(); err == nil {
			what += " at " + strings.TrimSpace(string(out))
		}
		return runPythonBaseline(ctx, dir, "marinfold_coord_reference.py", marinfoldCoordReference, args, ours, what+", pyconfind replayed")
	}
}

// coordBuild builds the named coordinate format with its analyses
// replayed from the records of DIR/../golden/confind-mini.jsonl.
func coordBuild(name string) func(dir string, opts map[string]string) (format.Format, error) {
	return func(dir string, opts map[string]string) (format.Format, error) {
		analyses, err := coordRecords(dir)
		if err != nil {
			return nil, err
		}
		an := coordfront.Replay(analyses)
		opts = withRotlib(opts)
		switch name {
		case coordinatesv1.Name:
			cfg, _, err := coordinatesv1.Kind.Configure(opts)
			if err != nil {
				return nil, err
			}
			return coordinatesv1.Kind.New(cfg, an)
		default:
			cfg, _, err := cropsv1.Kind.Configure(opts)
			if err != nil {
				return nil, err
			}
			return cropsv1.Kind.New(cfg, an)
		}
	}
}

// withRotlib sets the (here unused) required rotlib option.
func withRotlib(opts map[string]string) map[string]string {
	out := map[string]string{coordfront.KeyRotlib: "(degrees replayed from records)"}
	for k, v := range opts {
		out[k] = v
	}
	return out
}

// coordRecordsPath is where the records of the AFDB files in dir lie:
// DIR/../golden/confind-mini.jsonl, as in the shared corpus.
func coordRecordsPath(dir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(dir)), "golden", "confind-mini.jsonl")
}

// coordRecords reads DIR/../golden/confind-mini.jsonl and keys each
// record by the fingerprint of the structure file it was computed from.
func coordRecords(dir string) (map[string]*contactsv1.Analysis, error) {
	root, path := filepath.Dir(filepath.Clean(dir)), coordRecordsPath(dir)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the coordinate formats' bench replays the contact degrees of %s: %w", path, err)
	}
	defer f.Close()
	out := map[string]*contactsv1.Analysis{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l struct {
			File   string          `json:"file"`
			Record json.RawMessage `json:"record"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(l.Record) == 0 || string(l.Record) == "null" {
			continue
		}
		rec, err := contactsv1.RecordFromJSON(l.Record)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", path, l.File, err)
		}
		a, err := contactsv1.AnalysisFromRecord("", rec)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", path, l.File, err)
		}
		st, err := mmcif.ReadFile(filepath.Join(root, l.File))
		if err != nil {
			return nil, err
		}
		out[coordfront.Fingerprint(st)] = a
	}
	return out, sc.Err()
}
