package bio2token

import "math"

// This file is an independent float64 implementation of the encoder with
// plain sequential loops (the recurrence step by step, the reversal by
// index), written from the architecture description, not from graph.go. The
// tests hold the GoMLX encoder to it; the tokenize benchmark uses it as the
// sequential baseline.

// ReferenceEncode returns the encoder's pre-rounding FSQ values [n][6] and
// codes [n] for n atoms of coords (x, y, z per atom), in float64.
func ReferenceEncode(w *Weights, coords []float32) (bounded [][FSQDims]float64, codes []int32) {
	c := w.Config
	n := len(coords) / 3
	h := make([][]float64, n)
	for t := 0; t < n; t++ {
		h[t] = make([]float64, c.DModel)
		for o := 0; o < c.DModel; o++ {
			var s float64
			for k := 0; k < 3; k++ {
				s += float64(w.InProj[o*3+k]) * float64(coords[3*t+k])
			}
			h[t][o] = s
		}
	}
	var res [][]float64
	for li := range w.Layers {
		l := &w.Layers[li]
		hf, rf := refBlock(c, l, h, res)
		hb, rb := refBlock(c, l, reverseRows(h), reverseRows(res))
		hb, rb = reverseRows(hb), reverseRows(rb)
		for t := 0; t < n; t++ {
			for o := 0; o < c.DModel; o++ {
				hf[t][o] += hb[t][o]
				rf[t][o] += rb[t][o]
			}
		}
		h, res = hf, rf
	}
	bounded = make([][FSQDims]float64, n)
	codes = make([]int32, n)
	shift := math.Tan(0.5 / 1.4985)
	for t := 0; t < n; t++ {
		r := make([]float64, c.DModel)
		for o := range r {
			r[o] = h[t][o] + res[t][o]
		}
		x := refRMSNorm(r, w.NormF)
		code, mult := 0, 1
		for q := 0; q < FSQDims; q++ {
			z := float64(w.FSQB[q])
			for o := 0; o < c.DModel; o++ {
				z += float64(w.FSQW[q*c.DModel+o]) * x[o]
			}
			b := math.Tanh(z+shift)*1.4985 - 0.5
			bounded[t][q] = b
			code += (int(math.RoundToEven(b)) + 2) * mult
			mult *= FSQLevels
		}
		codes[t] = int32(code)
	}
	return bounded, codes
}

func reverseRows(x [][]float64) [][]float64 {
	if x == nil {
		return nil
	}
	out := make([][]float64, len(x))
	for i := range x {
		out[len(x)-1-i] = x[i]
	}
	return out
}

func refRMSNorm(x []float64, w []float32) []float64 {
	var ms float64
	for _, v := range x {
		ms += v * v
	}
	ms /= float64(len(x))
	r := 1 / math.Sqrt(ms+NormEps)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * r * float64(w[i])
	}
	return out
}

func refSiLU(x float64) float64 { return x / (1 + math.Exp(-x)) }

func refSoftplus(x float64) float64 {
	if x > SoftplusThreshold {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// refBlock is one Mamba-1 block with pre-norm, returning (output, residual).
func refBlock(c Config, l *Layer, h, res [][]float64) ([][]float64, [][]float64) {
	n := len(h)
	di, ds, r, k := c.DInner, c.DState, c.DTRank, c.DConv
	newRes := make([][]float64, n)
	xs := make([][]float64, n)
	zs := make([][]float64, n)
	for t := 0; t < n; t++ {
		newRes[t] = append([]float64(nil), h[t]...)
		if res != nil {
			for o := range newRes[t] {
				newRes[t][o] += res[t][o]
			}
		}
		x := refRMSNorm(newRes[t], l.Norm)
		xs[t] = make([]float64, di)
		zs[t] = make([]float64, di)
		for o := 0; o < 2*di; o++ {
			var s float64
			for i := 0; i < c.DModel; i++ {
				s += float64(l.InProj[o*c.DModel+i]) * x[i]
			}
			if o < di {
				xs[t][o] = s
			} else {
				zs[t][o-di] = s
			}
		}
	}
	// Causal depthwise conv + SiLU.
	u := make([][]float64, n)
	for t := 0; t < n; t++ {
		u[t] = make([]float64, di)
		for d := 0; d < di; d++ {
			s := float64(l.ConvB[d])
			for j := 0; j < k; j++ {
				if src := t - (k - 1) + j; src >= 0 {
					s += float64(l.ConvW[d*k+j]) * xs[src][d]
				}
			}
			u[t][d] = refSiLU(s)
		}
	}
	// Selective scan, sequentially.
	state := make([]float64, di*ds)
	out := make([][]float64, n)
	proj := make([]float64, r+2*ds)
	for t := 0; t < n; t++ {
		for o := range proj {
			var s float64
			for i := 0; i < di; i++ {
				s += float64(l.XProj[o*di+i]) * u[t][i]
			}
			proj[o] = s
		}
		y := make([]float64, di)
		for d := 0; d < di; d++ {
			dtv := float64(l.DtB[d])
			for j := 0; j < r; j++ {
				dtv += float64(l.DtW[d*r+j]) * proj[j]
			}
			dtv = refSoftplus(dtv)
			var acc float64
			for s := 0; s < ds; s++ {
				a := -math.Exp(float64(l.ALog[d*ds+s]))
				st := math.Exp(dtv*a)*state[d*ds+s] + dtv*proj[r+s]*u[t][d]
				state[d*ds+s] = st
				acc += st * proj[r+ds+s]
			}
			y[d] = (acc + float64(l.D[d])*u[t][d]) * refSiLU(zs[t][d])
		}
		out[t] = make([]float64, c.DModel)
		for o := 0; o < c.DModel; o++ {
			var s float64
			for d := 0; d < di; d++ {
				s += float64(l.OutProj[o*di+d]) * y[d]
			}
			out[t][o] = s
		}
	}
	return out, newRes
}
