package bench

import (
	"os"
	"path/filepath"
)

// standInGenerate is a stand-in for MarinFold's generate module, with the
// names marinfold_coord_reference.py calls: the document is the file's
// first line, the replayed residue names and degrees and the context
// length, so a test sees that the script replays each file's own record,
// skips filtered files (a first line "filtered") and hashes what it gets.
const standInGenerate = `import pyconfind
CONTEXT_LENGTH = 8192
class GenerationConfig:
    pass
def analyze_coordinates(path):
    first = open(path).readline().strip()
    if first == "filtered":
        raise ValueError("filtered")
    return first, pyconfind.analyze(None)
def _result_from_analyzed(analyzed, context_length, config):
    first, an = analyzed
    degrees = ",".join(str(c.degree) for c in an.report.contacts)
    resnames = "".join(p.position.resname for p in an.positions)
    class R:
        document = "%s|%s|%s|%d" % (first, resnames, degrees, context_length)
    return R
`

// WriteMarinFoldStandIn writes a stand-in MarinFold checkout into dir for
// tests of `docs --marinfold`: both coordinate formats' generate modules
// (standInGenerate), under package __init__ files that raise if they run
// (the script must register the packages bare, as MarinFold's import
// torch).
func WriteMarinFoldStandIn(dir string) error {
	root := filepath.Join(dir, "marinfold", "marinfold", "document_structures")
	for _, pkg := range []string{"contacts_and_crops_v1", "contacts_and_coordinates_v1"} {
		mod := filepath.Join(root, pkg)
		if err := os.MkdirAll(mod, 0o755); err != nil {
			return err
		}
		for name, text := range map[string]string{
			"__init__.py": "raise ImportError('the package __init__ must not run')\n",
			"generate.py": standInGenerate,
		} {
			if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
				return err
			}
		}
	}
	return os.WriteFile(filepath.Join(root, "..", "__init__.py"), []byte("raise ImportError('the package __init__ must not run')\n"), 0o644)
}
