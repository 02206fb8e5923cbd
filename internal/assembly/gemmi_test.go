package assembly

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// gemmiAssembly is run by python3-gemmi (0.5.7): assembly 1 of each file's
// model 0 as exp222's build_assembly makes it, every coordinate as
// the SHA-1 of its chains' coordinates as little-endian float64s.
const gemmiAssembly = `
import sys, json, gemmi, hashlib, struct
out = []
for path in sys.argv[1:]:
    st = gemmi.read_structure(path)
    if len(st) > 1:
        del st[1:]
    st.setup_entities()
    a = next((a for a in st.assemblies if a.name == "1"), None)
    if a is None:
        out.append(None)
        continue
    m = gemmi.make_assembly(a, st[0], gemmi.HowToNameCopiedChain.AddNumber)
    chains = []
    for ch in m:
        h = hashlib.sha1()
        n = 0
        for r in ch:
            for at in r:
                h.update(struct.pack("<3d", at.pos.x, at.pos.y, at.pos.z))
                n += 1
        chains.append([ch.name, [r.subchain for r in ch], n, h.hexdigest()])
    out.append(chains)
json.dump(out, sys.stdout)
`

// TestExpandAgreesWithGemmi: on 13 PDB corpus entries and golden edge
// cases (all 58 with FOLDCORPUS_GEMMI_ALL=1), Expand builds assembly 1 with gemmi's chains, order, subchain
// names and coordinates bit for bit. The oracle is gemmi 0.5.7, whose
// transform arithmetic 0.7.5 keeps; its naming differs from 0.7.5's only
// for generators that copy chains out of step, which no corpus entry has
// (TestExpandNamesAsGemmi075 pins 0.7.5 there).
func TestExpandAgreesWithGemmi(t *testing.T) {
	py := testcorpus.Tool(t, "/usr/bin/python3", "python3-gemmi (Debian) is the assembly oracle")
	dir := testcorpus.Dir(t)
	var files []string
	for _, f := range []string{
		"pdb/1stp.cif", "pdb/1a7g.cif", "pdb/3hyd.cif", "pdb/5i55.cif", "pdb/3zee.cif", "pdb/4hhb.cif",
		"pdb/2w83.cif", "pdb/1ncb.cif", "pdb/5y2e.cif",
		"golden/pdb-curation/edge/edge_chain_id_2char.cif", "golden/pdb-curation/edge/edge_ring_2000.cif",
		"golden/pdb-curation/edge/edge_assembly_60.cif", "golden/pdb-curation/edge/edge_clash.cif",
	} {
		files = append(files, filepath.Join(dir, f))
	}
	if os.Getenv("FOLDCORPUS_GEMMI_ALL") == "1" { // every entry (about 10 s)
		files = testcorpus.Files(t, "pdb")
		edge, _ := filepath.Glob(filepath.Join(dir, "golden", "pdb-curation", "edge", "edge_*.cif"))
		files = append(files, edge...)
	}
	script := filepath.Join(t.TempDir(), "asm.py")
	if err := os.WriteFile(script, []byte(gemmiAssembly), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, append([]string{script}, files...)...)
	cmd.Stderr = os.Stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Skipf("SKIP: python3-gemmi did not run (%v)", err)
	}
	var want [][][]json.RawMessage
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	built, atoms := 0, 0
	var refused []string
	for i, f := range files {
		e, err := mmcif.ReadEntryFile(f)
		if err != nil {
			t.Fatal(err)
		}
		as, err := Parse(e)
		if err != nil {
			t.Fatal(err)
		}
		a := Find(as, "1")
		if (a == nil) != (want[i] == nil) {
			t.Errorf("%s: assembly 1 found %v, gemmi %v", filepath.Base(f), a != nil, want[i] != nil)
			continue
		}
		if a == nil {
			continue
		}
		m, err := Expand(a, &e.Structure.Models[0])
		if err != nil {
			// gemmi 0.7.5 throws where 0.5.7 (the oracle) skips the subchain
			if !strings.Contains(err.Error(), "no subchain") {
				t.Errorf("%s: %v", filepath.Base(f), err)
			}
			refused = append(refused, filepath.Base(f))
			continue
		}
		built++
		if len(m.Chains) != len(want[i]) {
			t.Errorf("%s: %d chains, gemmi %d", filepath.Base(f), len(m.Chains), len(want[i]))
			continue
		}
		for ci, wc := range want[i] {
			var name, sum string
			var subs []string
			var n int
			_ = json.Unmarshal(wc[0], &name)
			_ = json.Unmarshal(wc[1], &subs)
			_ = json.Unmarshal(wc[2], &n)
			_ = json.Unmarshal(wc[3], &sum)
			c := &m.Chains[ci]
			if c.Name != name || len(c.Residues) != len(subs) {
				t.Errorf("%s chain %d: %s with %d residues, gemmi %s with %d", filepath.Base(f), ci, c.Name, len(c.Residues), name, len(subs))
				continue
			}
			h := sha1.New()
			k := 0
			var buf [24]byte
			for ri := range c.Residues {
				if c.Residues[ri].Subchain != subs[ri] {
					t.Errorf("%s %s residue %d: subchain %s, gemmi %s", filepath.Base(f), name, ri, c.Residues[ri].Subchain, subs[ri])
				}
				for _, at := range c.Residues[ri].Atoms {
					binary.LittleEndian.PutUint64(buf[0:], math.Float64bits(at.X))
					binary.LittleEndian.PutUint64(buf[8:], math.Float64bits(at.Y))
					binary.LittleEndian.PutUint64(buf[16:], math.Float64bits(at.Z))
					h.Write(buf[:])
					k++
				}
			}
			if got := hex.EncodeToString(h.Sum(nil)); k != n || got != sum {
				t.Errorf("%s %s: %d atoms, coordinates sha1 %s; gemmi %d, %s", filepath.Base(f), name, k, got, n, sum)
			}
			atoms += k
		}
	}
	t.Logf("%d files, %d assemblies built, %d atoms compared bit for bit; refused as gemmi 0.7.5 does (a generator subchain without atoms): %v", len(files), built, atoms, refused)
}
