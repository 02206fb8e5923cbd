package pdbheader

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// errRange is returned when a count does not fit the table's int32 columns
// (exp222's pyarrow write would fail on it).
var errRange = errors.New("assembly chain count out of the int32 range")

// assemblyProteinChains is exp222's _assembly_protein_chains: over the
// _pdbx_struct_assembly_gen rows of assembly id, the distinct protein asyms
// listed and the chains built (each protein asym of a row times the number
// of operators of its expression).
func assemblyProteinChains(gen *mmcif.Category, id string, protein map[string]bool) (distinct, built int64, err error) {
	if gen == nil || len(gen.Tags) == 0 {
		return 0, 0, nil
	}
	ids, lists, opers := gen.Column("assembly_id"), gen.Column("asym_id_list"), gen.Column("oper_expression")
	seen := map[string]bool{}
	for i, aid := range ids {
		if aid.Null() == '?' || pyStrip(pyStr(aid)) != id {
			continue
		}
		if i >= len(lists) || !truthy(lists[i]) {
			continue
		}
		var chunk int64
		for _, a := range strings.Split(pyStr(lists[i]), ",") {
			if a = pyStrip(a); a != "" && protein[a] {
				chunk++
				seen[a] = true
			}
		}
		if chunk == 0 {
			continue
		}
		oper := "1"
		if i < len(opers) && truthy(opers[i]) {
			oper = pyStrip(pyStr(opers[i]))
		}
		n, ok := countOperators(oper)
		if !ok || n > math.MaxInt32 || chunk*n > math.MaxInt32-built {
			return 0, 0, fmt.Errorf("%w: assembly %s, oper_expression %q", errRange, id, oper)
		}
		built += chunk * n
	}
	return int64(len(seen)), built, nil
}

// countOperators is exp222's _count_operators: the number of operators an
// oper_expression expands to ("1,2,3", "1-60", "(1-60)(61-88)"). ok is
// false when the count leaves the int64 range.
func countOperators(expr string) (int64, bool) {
	expr = pyStrip(expr)
	if expr == "" {
		return 1, true
	}
	if strings.Contains(expr, "(") {
		total, depth := int64(1), 0
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
					n, ok := countOperators(cur.String())
					if !ok || (n != 0 && total > math.MaxInt64/n) {
						return 0, false
					}
					total *= n
					continue
				}
			}
			if depth >= 1 {
				cur.WriteRune(ch)
			}
		}
		return total, true
	}
	var count int64
	for _, part := range strings.Split(expr, ",") {
		part = pyStrip(part)
		if part == "" {
			continue
		}
		if _, size := utf8.DecodeRuneInString(part); strings.Contains(part[size:], "-") {
			lo, hi, _ := strings.Cut(part, "-")
			l, okl := pyInt(lo)
			h, okh := pyInt(hi)
			if okl && okh {
				if l < -1<<61 || l > 1<<61 || h < -1<<61 || h > 1<<61 {
					return 0, false
				}
				n := h - l + 1
				if n > 0 && count > math.MaxInt64-n {
					return 0, false
				}
				count += n
				continue
			}
		}
		count++
	}
	return max(count, 1), true
}

// pyInt is Python's int() of a string: optional surrounding whitespace and
// sign, decimal digits with single underscores between them. ok is false
// where int() raises ValueError (or the value leaves the int64 range).
func pyInt(s string) (int64, bool) {
	s = pyStrip(s)
	if strings.Contains(s, "__") || strings.HasSuffix(s, "_") {
		return 0, false
	}
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" || digits[0] == '_' {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	return v, err == nil
}

// pyFloat is Python's float() of an already stripped string: decimal and
// exponent forms, inf/infinity/nan, underscores between digits; no hex.
func pyFloat(s string) (float64, bool) {
	if s == "" || strings.ContainsAny(s, "xXpP") && !isInfNaN(s) {
		return 0, false
	}
	if strings.Contains(s, "_") {
		for i := 0; i < len(s); i++ {
			if s[i] == '_' && (i == 0 || i == len(s)-1 || !isDigit(s[i-1]) || !isDigit(s[i+1])) {
				return 0, false
			}
		}
		s = strings.ReplaceAll(s, "_", "")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return v, true // Python gives inf or 0.0 where Go reports the range
		}
		return 0, false
	}
	return v, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isInfNaN(s string) bool {
	t := strings.ToLower(strings.TrimLeft(s, "+-"))
	return t == "inf" || t == "infinity" || t == "nan"
}
