package report

import (
	"math"
	"sort"
	"strconv"
)

// Dist summarizes one numeric column: counts and quantiles. Quantiles are
// linearly interpolated between closest ranks (numpy's default, DuckDB's
// quantile_cont), so any tool can recompute them.
type Dist struct {
	Count int64   `json:"count"`
	Sum   float64 `json:"sum"`
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
	P10   float64 `json:"p10"`
	P25   float64 `json:"p25"`
	P50   float64 `json:"p50"`
	P75   float64 `json:"p75"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// Histogram counts values into bins [Edges[i], Edges[i+1]); the last bin
// also holds values equal to its upper edge. Values outside the edges are
// counted in Below/Above, so Below + sum(Counts) + Above = the number of
// values, always.
type Histogram struct {
	Edges  []float64 `json:"edges"`
	Counts []int64   `json:"counts"`
	Below  int64     `json:"below,omitempty"`
	Above  int64     `json:"above,omitempty"`
}

// quantile returns the q-quantile of sorted values by linear interpolation
// (position q*(n-1)).
func quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	pos := q * float64(n-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	if lo == hi {
		return sorted[lo]
	}
	frac := pos - float64(lo)
	return sorted[lo] + (sorted[hi]-sorted[lo])*frac
}

// newDist summarizes values; it sorts a copy. NaN values are dropped (they
// are not counted), so a corrupt value cannot poison every quantile.
func newDist(values []float64) Dist {
	s := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) {
			s = append(s, v)
		}
	}
	if len(s) == 0 {
		return Dist{}
	}
	sort.Float64s(s)
	var sum float64
	for _, v := range s {
		sum += v
	}
	return Dist{
		Count: int64(len(s)),
		Sum:   sum,
		Mean:  sum / float64(len(s)),
		Min:   s[0],
		P10:   quantile(s, 0.10),
		P25:   quantile(s, 0.25),
		P50:   quantile(s, 0.50),
		P75:   quantile(s, 0.75),
		P90:   quantile(s, 0.90),
		P99:   quantile(s, 0.99),
		Max:   s[len(s)-1],
	}
}

// newHistogram counts values into the given edges (ascending, at least 2).
func newHistogram(values []float64, edges []float64) Histogram {
	h := Histogram{Edges: edges, Counts: make([]int64, len(edges)-1)}
	last := edges[len(edges)-1]
	for _, v := range values {
		switch {
		case math.IsNaN(v):
			continue
		case v < edges[0]:
			h.Below++
		case v > last:
			h.Above++
		case v == last:
			h.Counts[len(h.Counts)-1]++
		default:
			// the first edge greater than v closes v's bin.
			i := sort.SearchFloat64s(edges, v)
			if i < len(edges) && edges[i] == v {
				i++
			}
			h.Counts[i-1]++
		}
	}
	return h
}

// linearEdges returns n+1 edges from lo to hi.
func linearEdges(lo, hi float64, n int) []float64 {
	e := make([]float64, n+1)
	for i := range e {
		e[i] = lo + (hi-lo)*float64(i)/float64(n)
	}
	e[n] = hi
	return e
}

// niceWidth returns the smallest of 1, 2, 5 x 10^k that is >= x.
func niceWidth(x float64) float64 {
	if x <= 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// integerEdges returns edges 0, w, 2w, ... covering [0, max] with at most
// about maxBins bins of a round width, so two runs with similar data share
// their bins.
func integerEdges(max float64, maxBins int) []float64 {
	if max < 1 {
		max = 1
	}
	w := niceWidth(max / float64(maxBins))
	n := int(math.Floor(max/w)) + 1
	e := make([]float64, n+1)
	for i := range e {
		e[i] = float64(i) * w
	}
	return e
}

// trimFloat formats a number for the page: integers plainly, others with
// four significant decimals.
func trimFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
