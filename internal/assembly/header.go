package assembly

import (
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// HeaderProteinChains counts assembly assemblyID's protein chains from the
// header alone, as exp222's scan_metadata does (_assembly_protein_chains):
// over the _pdbx_struct_assembly_gen rows of the assembly, the asyms of
// its asym_id_list that belong to a "polypeptide(l)" entity (any case;
// _entity_poly and _struct_asym), distinct, and built: each row's protein
// asyms times its operator count (CountOperators; a product such as
// "(1-60)(61-88)" counts 60 x 28). Nothing is expanded: this is the number
// exp222 declines an assembly by before building it
// (MAX_ASSEMBLY_CHAINS_BEFORE_EXPANSION).
func HeaderProteinChains(e *mmcif.Entry, assemblyID string) (distinct, built int) {
	proteinEntities := map[string]bool{}
	if c := &e.EntityPoly; c.Col("entity_id") >= 0 && c.Col("type") >= 0 {
		ci, ct := c.Col("entity_id"), c.Col("type")
		for r := 0; r < c.Rows(); r++ {
			t := c.At(r, ct)
			if t.IsNull() || strings.ToLower(strings.TrimSpace(t.Text)) != "polypeptide(l)" {
				continue
			}
			proteinEntities[pyStr(c.At(r, ci))] = true
		}
	}
	proteinAsyms := map[string]bool{}
	if c := &e.StructAsym; c.Col("id") >= 0 && c.Col("entity_id") >= 0 {
		ci, ce := c.Col("id"), c.Col("entity_id")
		for r := 0; r < c.Rows(); r++ {
			if ent := c.At(r, ce); !ent.IsNull() && proteinEntities[strings.TrimSpace(ent.Text)] {
				proteinAsyms[pyStr(c.At(r, ci))] = true
			}
		}
	}
	g := &e.AssemblyGen
	ca, cl, co := g.Col("assembly_id"), g.Col("asym_id_list"), g.Col("oper_expression")
	if ca < 0 || g.Rows() == 0 {
		return 0, 0
	}
	seen := map[string]bool{}
	for r := 0; r < g.Rows(); r++ {
		if id := g.At(r, ca); id.IsNull() || strings.TrimSpace(id.Text) != assemblyID {
			continue
		}
		if cl < 0 {
			continue
		}
		raw := g.At(r, cl)
		if raw.IsNull() || raw.Text == "" {
			continue
		}
		n := 0
		for _, a := range strings.Split(raw.Text, ",") {
			if a = strings.TrimSpace(a); a != "" && proteinAsyms[a] {
				n++
				seen[a] = true
			}
		}
		if n == 0 {
			continue
		}
		oper := "1"
		if co >= 0 {
			if v := g.At(r, co); !v.IsNull() && v.Text != "" {
				oper = strings.TrimSpace(v.Text)
			}
		}
		built += n * CountOperators(oper)
	}
	return len(seen), built
}

// pyStr is str(value).strip() of a value as gemmi's get_mmcif_category
// hands it to Python ('?' is None, '.' is False).
func pyStr(v mmcif.Value) string {
	switch {
	case !v.Quoted && v.Text == "?":
		return "None"
	case !v.Quoted && v.Text == ".":
		return "False"
	}
	return strings.TrimSpace(v.Text)
}

// CountOperators is exp222's _count_operators: how many operators an
// oper_expression expands to, counting a product of parenthesised groups
// as the product of their counts ("(1-60)(61-88)" is 1680), a list by its
// items and ranges, at least 1.
func CountOperators(expr string) int {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return 1
	}
	if strings.Contains(expr, "(") {
		total, depth := 1, 0
		var cur strings.Builder
		for _, ch := range expr {
			if ch == '(' {
				depth++
				if depth == 1 {
					cur.Reset()
					continue
				}
			}
			if ch == ')' {
				depth--
				if depth == 0 {
					total *= CountOperators(cur.String())
					continue
				}
			}
			if depth >= 1 {
				cur.WriteRune(ch)
			}
		}
		return total
	}
	count := 0
	for _, part := range strings.Split(expr, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.Contains(part[1:], "-") {
			lo, hi, _ := strings.Cut(part, "-")
			l, err1 := strconv.Atoi(strings.TrimSpace(lo))
			h, err2 := strconv.Atoi(strings.TrimSpace(hi))
			if err1 == nil && err2 == nil {
				count += h - l + 1
				continue
			}
		}
		count++
	}
	return max(count, 1)
}
