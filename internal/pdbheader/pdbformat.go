package pdbheader

import (
	"math"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// scanPDB is the row of a PDB-format file: exp222's 15 columns derived
// from the header records as gemmi 0.5.7 reads them (mmcif.ReadPDBHeader;
// the rules are docs/pdb.md section 2's). release_date is null: gemmi
// reads no release date from a PDB file (REVDAT is not read).
func scanPDB(data []byte, e Entry) Entry {
	h, err := mmcif.ReadPDBHeader(data)
	if err != nil {
		return e.failed(err)
	}
	e.DepositionDate = first([]mmcif.Value{{Text: h.DepositionDate, Quoted: true}})
	e.Method = method(pdbMethods(h.Method))
	if h.Resolution != 0 && !math.IsNaN(h.Resolution) {
		v := h.Resolution
		src := "remark_2"
		if h.ResolutionRemark == 3 {
			src = "remark_3"
		}
		e.Resolution, e.ResolutionSource = &v, &src
	}
	protein := map[string]bool{}
	for _, ent := range h.Entities {
		if !ent.PeptideL {
			continue
		}
		e.ProteinEntityIDs = append(e.ProteinEntityIDs, ent.Name)
		e.ProteinEntityLengths = append(e.ProteinEntityLengths, int64(ent.Length))
		e.ProteinStrandIDs = append(e.ProteinStrandIDs, strings.Join(ent.Chains, ","))
		for _, c := range ent.Chains {
			protein[c] = true
		}
	}
	e.NProteinEntities = int64(len(e.ProteinEntityIDs))
	e.NProteinAsymChains = int64(len(protein))
	seen := map[string]bool{}
	var built int64
	for _, a := range h.Assemblies {
		if a.Name != "1" {
			continue
		}
		for _, g := range a.Generators {
			var chunk int64
			for _, c := range g.Chains {
				if protein[c] {
					chunk++
					seen[c] = true
				}
			}
			built += chunk * int64(g.Operators)
		}
	}
	if built > math.MaxInt32 {
		return e.failed(errRange)
	}
	e.NAssembly1ProteinAsyms, e.NAssembly1ProteinChains = int64(len(seen)), built
	return e
}

// pdbMethods is the EXPDTA text as gemmi's reader splits it into
// experiments: at ';', each method trimmed (text, never a CIF null).
func pdbMethods(text string) []mmcif.Value {
	var out []mmcif.Value
	for _, m := range strings.Split(text, ";") {
		out = append(out, mmcif.Value{Text: strings.TrimSpace(m), Quoted: true})
	}
	return out
}
