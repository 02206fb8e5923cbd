package coordfront

import "math"

// Fsum is Python's math.fsum: the correctly rounded sum of xs (Shewchuk's
// partials, then CPython's half-even correction), for finite xs.
func Fsum(xs []float64) float64 {
	var buf [8]float64
	p := buf[:0]
	for _, x := range xs {
		i := 0
		for _, y := range p {
			if math.Abs(x) < math.Abs(y) {
				x, y = y, x
			}
			hi := x + y
			lo := y - (hi - x)
			if lo != 0 {
				p[i] = lo
				i++
			}
			x = hi
		}
		p = append(p[:i], x)
	}
	n := len(p)
	hi := 0.0
	if n > 0 {
		n--
		hi = p[n]
		lo := 0.0
		for n > 0 {
			x := hi
			n--
			y := p[n]
			hi = x + y
			yr := hi - x
			lo = y - yr
			if lo != 0 {
				break
			}
		}
		if n > 0 && ((lo < 0 && p[n-1] < 0) || (lo > 0 && p[n-1] > 0)) {
			y := lo * 2
			x := hi + y
			yr := x - hi
			if y == yr {
				hi = x
			}
		}
	}
	return hi
}

// Fsum3 is Fsum of three values, without a slice: two-sums give the
// exact sum as s + e1 + e2; when e1 + e2 is itself exact, one addition
// rounds the exact sum correctly. Otherwise it falls back to Fsum.
func Fsum3(a, b, c float64) float64 {
	s, e1 := twoSum(a, b)
	s2, e2 := twoSum(s, c)
	e, e3 := twoSum(e1, e2)
	if e3 == 0 {
		return s2 + e
	}
	return Fsum([]float64{a, b, c})
}

// twoSum returns a + b rounded and its rounding error (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}
