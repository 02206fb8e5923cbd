// Package assembly reads the biological assemblies of an mmCIF entry
// (_pdbx_struct_assembly, _pdbx_struct_assembly_gen, _pdbx_struct_oper_list)
// and expands one as gemmi 0.7.5's make_assembly does with
// HowToNameCopiedChain::AddNumber, the way MarinFold's exp222 builds its
// multimers: from the raw entry (model 0, ligands and waters included,
// since the generators name their asym ids), operator by operator.
//
// # Reading (gemmi's read_assemblies)
//
//   - An assembly is a _pdbx_struct_assembly row; the category must have
//     the items id, details, method_details, oligomeric_details and
//     oligomeric_count (gemmi's Block::find needs every one; without one
//     there is no assembly). A row whose details is neither empty nor one
//     of gemmi's known kinds (author/software defined, complete
//     icosahedral, representative helical, complete point) is skipped.
//   - Its generators are the _pdbx_struct_assembly_gen rows of its id (the
//     category needs assembly_id, oper_expression, asym_id_list), in file
//     order; the asym list is split at ',' without trimming.
//   - Operators are named in the oper_expression as gemmi's
//     parse_operation_expr reads it: "1", "1,2", "1-60", "(1-60)",
//     "(2,3-8)"; of a product "(1-5)(6-10)" only the first parenthesised
//     group is read (gemmi ignores products). Each name is looked up by id
//     in _pdbx_struct_oper_list (needs the 12 matrix/vector items, id and
//     type); a name with no operator is skipped. Matrix and vector values
//     are numbers as gemmi's cif::as_number reads them (NaN otherwise).
//
// # Expanding (gemmi 0.7.5's make_assembly_, AddNumber)
//
// For every generator, for every operator (a running counter k from 0
// over all generators' operators), for every chain of the model in order
// that holds a residue of one of the generator's subchains: a new chain
// named chain+(k+1) (if that name is taken, k+2, k+3, ...), holding those
// residues in chain order, their atoms transformed (x' = m·x + v, summed
// as gemmi sums) and their subchain names suffixed with the same number.
// A generator subchain absent from the model is an error ("no subchain
// X"), as gemmi 0.7.5 throws when no logger is given (0.5.7 skipped it).
// gemmi 0.5.7 differs in naming: it numbered each chain's copies from 1.
package assembly

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// Operator is one _pdbx_struct_oper_list row.
type Operator struct {
	Name string
	Mat  [3][3]float64
	Vec  [3]float64
}

// Gen is one _pdbx_struct_assembly_gen row: operators applied to subchains
// (label_asym_id).
type Gen struct {
	Subchains []string
	Operators []Operator
}

// Assembly is one biological assembly as gemmi reads it.
type Assembly struct {
	Name       string
	Generators []Gen
}

// Chains is how many chains the expansion would create at most: the sum
// over generators of operators x subchains. It costs nothing to compute,
// so a caller can refuse an assembly before building it.
func (a *Assembly) Chains() int {
	n := 0
	for _, g := range a.Generators {
		n += len(g.Operators) * len(g.Subchains)
	}
	return n
}

// Find returns the assembly named name, or nil.
func Find(as []Assembly, name string) *Assembly {
	for i := range as {
		if as[i].Name == name {
			return &as[i]
		}
	}
	return nil
}

// knownDetails reports whether gemmi keeps an assembly of this
// _pdbx_struct_assembly.details (besides an empty one).
func knownDetails(d string) bool {
	switch d {
	case "author_and_software_defined_assembly", "author_defined_assembly",
		"software_defined_assembly", "complete icosahedral assembly",
		"representative helical assembly", "complete point assembly":
		return true
	}
	return false
}

// MaxOperNames bounds how many operator names one oper_expression may
// expand to ("1-1000000000" would otherwise exhaust memory, as in gemmi).
const MaxOperNames = 1 << 16

// Parse returns the entry's assemblies in _pdbx_struct_assembly order, as
// gemmi 0.7.5's read_assemblies reads them (see the package comment).
// What gemmi would not read is not there; the only error is an
// oper_expression naming more than MaxOperNames operators.
func Parse(e *mmcif.Entry) ([]Assembly, error) {
	asm := &e.Assembly
	cols, ok := columns(asm, "id", "details", "method_details", "oligomeric_details", "oligomeric_count")
	if !ok {
		return nil, nil
	}
	ops := operators(&e.OperList)
	gen := &e.AssemblyGen
	gcols, gok := columns(gen, "assembly_id", "oper_expression", "asym_id_list")
	var out []Assembly
	for r := 0; r < asm.Rows(); r++ {
		name := asm.At(r, cols[0]).Str()
		if d := asm.At(r, cols[1]).Str(); d != "" && !knownDetails(d) {
			continue
		}
		a := Assembly{Name: name}
		for g := 0; gok && g < gen.Rows(); g++ {
			if gen.At(g, gcols[0]).Str() != name {
				continue
			}
			var gn Gen
			gn.Subchains = strings.Split(gen.At(g, gcols[2]).Str(), ",")
			names, err := ParseOperExpr(gen.At(g, gcols[1]).Str())
			if err != nil {
				return nil, fmt.Errorf("_pdbx_struct_assembly_gen row %d (assembly %s): %w", g+1, name, err)
			}
			for _, opName := range names {
				for i := range ops {
					if ops[i].Name == opName {
						gn.Operators = append(gn.Operators, ops[i])
						break
					}
				}
			}
			a.Generators = append(a.Generators, gn)
		}
		out = append(out, a)
	}
	return out, nil
}

// columns returns the indices of names in c, and false when one is missing
// (gemmi's Block::find with required tags finds no table then).
func columns(c *mmcif.Category, names ...string) ([]int, bool) {
	idx := make([]int, len(names))
	for i, n := range names {
		if idx[i] = c.Col(n); idx[i] < 0 {
			return nil, false
		}
	}
	return idx, true
}

// operators reads _pdbx_struct_oper_list as gemmi does.
func operators(c *mmcif.Category) []Operator {
	names := []string{
		"matrix[1][1]", "matrix[1][2]", "matrix[1][3]", "vector[1]",
		"matrix[2][1]", "matrix[2][2]", "matrix[2][3]", "vector[2]",
		"matrix[3][1]", "matrix[3][2]", "matrix[3][3]", "vector[3]",
		"id", "type",
	}
	cols, ok := columns(c, names...)
	if !ok {
		return nil
	}
	ops := make([]Operator, c.Rows())
	for r := range ops {
		op := &ops[r]
		op.Name = c.At(r, cols[12]).Str()
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				op.Mat[i][j] = asNumber(c.At(r, cols[4*i+j]))
			}
			op.Vec[i] = asNumber(c.At(r, cols[4*i+3]))
		}
	}
	return ops
}

// asNumber is gemmi's cif::as_number on the raw value: a decimal number,
// optionally with a standard uncertainty "(n)"; NaN for anything else
// (nulls, quoted values, inf, nan).
func asNumber(v mmcif.Value) float64 {
	if v.Quoted {
		return math.NaN()
	}
	s := strings.TrimPrefix(v.Text, "+")
	if s == "" {
		return math.NaN()
	}
	c := s[0]
	if c == '-' && len(s) > 1 {
		c = s[1]
	}
	if c|0x20 == 'i' || c|0x20 == 'n' {
		return math.NaN()
	}
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		su := s[i+1 : len(s)-1]
		if strings.Trim(su, "0123456789") == "" {
			s = s[:i]
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRange(err) {
		return math.NaN()
	}
	return f
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// ParseOperExpr lists the operator names of an oper_expression as gemmi's
// parse_operation_expr does: comma-separated names or "a-b" ranges, in
// the first parenthesised group when the expression starts with '(' (the
// rest of a product such as "(1-5)(6-10)" is ignored, as in gemmi).
// More than MaxOperNames names is an error.
func ParseOperExpr(expr string) ([]string, error) {
	var out []string
	start := 0
	closeBr := -1 // npos
	if len(expr) > 0 && expr[0] == '(' {
		start = 1
		closeBr = strings.IndexByte(expr, ')')
	}
	npos := len(expr) + 1
	if closeBr < 0 {
		closeBr = npos
	}
	find := func(c byte, from int) int {
		if from > len(expr) {
			return npos
		}
		if i := strings.IndexByte(expr[from:], c); i >= 0 {
			return from + i
		}
		return npos
	}
	for {
		sep := min(find(',', start), closeBr)
		minus := find('-', start)
		if minus < sep {
			lo, hi := noSignAtoi(expr[start:]), noSignAtoi(expr[minus+1:])
			if hi-lo >= MaxOperNames-len(out) {
				return nil, fmt.Errorf("oper_expression %.40q names more than %d operators", expr, MaxOperNames)
			}
			for n := lo; n <= hi; n++ {
				out = append(out, strconv.Itoa(n))
			}
		} else {
			end := min(sep, len(expr))
			if start > len(expr) {
				start = len(expr)
			}
			out = append(out, expr[start:end])
		}
		if sep == closeBr {
			break
		}
		if len(out) > MaxOperNames {
			return nil, fmt.Errorf("oper_expression %.40q names more than %d operators", expr, MaxOperNames)
		}
		start = sep + 1
	}
	return out, nil
}

// noSignAtoi is gemmi's no_sign_atoi: leading blanks, then digits.
func noSignAtoi(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\v' || s[i] == '\f') {
		i++
	}
	n := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n > 1<<30 {
			break
		}
	}
	return n
}
