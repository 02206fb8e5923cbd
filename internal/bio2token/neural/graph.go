//lint:file-ignore ST1001 the graph DSL (Add, Mul, Exp, ...) reads best unqualified, as in GoMLX examples

package neural

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
)

// This file builds the encoder as a GoMLX graph. Inputs: coords [B,L,3]
// float32, lengths [B] int32 (real atoms per row, padded to L), then the
// parameters in Weights.params order. Output: codes [B,L] int32; codes at
// padded positions are meaningless.
//
// Padding is a no-op by construction: rows are right-padded; before every
// block the hidden state and residual are zeroed at pads; the post-conv
// activation (the SSM input) is zeroed at pads; the backward direction
// reverses each row within its own length (pads stay at the end), so both
// directions see real atoms at positions 0..n-1 followed by pads. Every op
// is then either per-position or causal along the sequence (the conv and
// the scan), and the Hillis-Steele scan combines position t only with
// positions <= t in a tree that does not depend on L, so real positions
// compute exactly the same floating-point operations as an unpadded run.

// encodeGraph builds the whole encoder.
func encodeGraph(cfg b2t.Config, inputs []*Node) *Node { return fsqCodes(encodeBounded(cfg, inputs)) }

// encodeBounded builds the encoder up to the FSQ bound (before rounding):
// [B,L,6] float32.
func encodeBounded(cfg b2t.Config, inputs []*Node) *Node {
	coords, lengths, ps := inputs[0], inputs[1], inputs[2:]
	next := func() *Node { p := ps[0]; ps = ps[1:]; return p }
	dims := coords.Shape().Dimensions
	bsz, l := dims[0], dims[1]
	g := coords.Graph()

	pos := Iota(g, shapes.Make(dtypes.Int32, bsz, l), 1)
	rowLen := BroadcastToDims(ExpandAxes(lengths, -1), bsz, l)
	mask := LessThan(pos, rowLen) // [B,L]
	rev := Where(mask, Sub(Sub(rowLen, Scalar(g, dtypes.Int32, 1)), pos), pos)
	revIdx := Stack([]*Node{Iota(g, shapes.Make(dtypes.Int32, bsz, l), 0), rev}, -1) // [B,L,2]
	reverse := func(x *Node) *Node { return Gather(x, revIdx) }

	h := maskPads(linear(coords, next()), mask)
	var res *Node
	for i := 0; i < cfg.Layers; i++ {
		lw := blockWeights{next(), next(), next(), next(), next(), next(), next(), next(), next(), next()}
		hf, rf := block(cfg, lw, h, res, mask)
		var resRev *Node
		if res != nil {
			resRev = reverse(res)
		}
		hb, rb := block(cfg, lw, reverse(h), resRev, mask)
		h = Add(hf, reverse(hb))
		res = Add(rf, reverse(rb))
	}
	res = Add(h, res)
	h = rmsNorm(res, next())
	zl := linear(h, next())
	z := Add(zl, bc(next(), zl)) // [B,L,6]
	return fsqBound(z)
}

type blockWeights struct {
	norm, inProj, convW, convB, xProj, dtW, dtB, aLog, d, outProj *Node
}

// block is one pre-norm Mamba-1 block; it returns (mixer output, residual).
func block(cfg b2t.Config, w blockWeights, h, res *Node, mask *Node) (*Node, *Node) {
	if res == nil {
		res = h
	} else {
		res = Add(h, res)
	}
	res = maskPads(res, mask)
	xz := linear(rmsNorm(res, w.norm), w.inProj) // [B,L,2*DI]
	di, n, r := cfg.DInner, cfg.DState, cfg.DTRank
	x := SliceAxis(xz, 2, AxisRange(0, di))
	z := SliceAxis(xz, 2, AxisRange(di, 2*di))

	xc := maskPads(silu(causalConv(x, w.convW, w.convB, cfg.DConv)), mask)
	xdbl := linear(xc, w.xProj) // [B,L,R+2N]
	dtr := SliceAxis(xdbl, 2, AxisRange(0, r))
	bm := SliceAxis(xdbl, 2, AxisRange(r, r+n))
	cm := SliceAxis(xdbl, 2, AxisRange(r+n, r+2*n))
	dtl := linear(dtr, w.dtW)
	dt := softplus(Add(dtl, bc(w.dtB, dtl))) // [B,L,DI]
	a := Neg(Exp(w.aLog))                    // [DI,N]

	// [B,L,DI,N] products; size-1 axes broadcast inside the ops.
	dA := Exp(Mul(ExpandAxes(dt, -1), Reshape(a, 1, 1, di, n)))
	dBx := Mul(ExpandAxes(Mul(dt, xc), -1), ExpandAxes(bm, 2))
	hs := Scan(dA, dBx)
	y := ReduceSum(Mul(hs, ExpandAxes(cm, 2)), -1) // [B,L,DI]
	y = Add(y, Mul(xc, bc(w.d, xc)))
	y = Mul(y, silu(z))
	return linear(y, w.outProj), res
}

// Scan computes h_t = a_t*h_{t-1} + b_t (h_{-1} = 0) along axis 1 as a
// Hillis-Steele associative scan over the affine maps (a, b), with
// (a2,b2)∘(a1,b1) = (a2·a1, a2·b1 + b2): ceil(log2 L) vectorised steps.
// Shifted-in elements are the identity (1, 0), so the result at t does not
// depend on the length of the axis.
func Scan(a, b *Node) *Node {
	l := a.Shape().Dimensions[1]
	for s := 1; s < l; s *= 2 {
		bPrev := shiftRight(b, s, 0)
		b = Add(Mul(a, bPrev), b)
		if 2*s < l {
			a = Mul(a, shiftRight(a, s, 1))
		}
	}
	return b
}

// shiftRight shifts x by s along axis 1, filling with fill.
func shiftRight(x *Node, s int, fill float32) *Node {
	l := x.Shape().Dimensions[1]
	return Concatenate([]*Node{fillBlock(x, s, fill), SliceAxis(x, 1, AxisRange(0, l-s))}, 1)
}

// fillBlock is a block of x's shape with s positions on axis 1, all fill
// (the pure-Go backend has no Pad).
func fillBlock(x *Node, s int, fill float32) *Node {
	dims := append([]int(nil), x.Shape().Dimensions...)
	dims[1] = s
	return BroadcastToDims(Scalar(x.Graph(), x.DType(), fill), dims...)
}

// causalConv is the depthwise causal conv1d (kernel k, left zero padding)
// with bias: out_t = sum_j w[j]*x_{t-k+1+j} + bias.
func causalConv(x, w, bias *Node, k int) *Node {
	l := x.Shape().Dimensions[1]
	di := x.Shape().Dimensions[2]
	xp := x
	if k > 1 {
		xp = Concatenate([]*Node{fillBlock(x, k-1, 0), x}, 1)
	}
	w2 := Reshape(w, di, k)
	var acc *Node
	for j := 0; j < k; j++ {
		xs := SliceAxis(xp, 1, AxisRange(j, j+l))
		term := Mul(xs, bc(Reshape(SliceAxis(w2, 1, AxisRange(j, j+1)), di), xs))
		if acc == nil {
			acc = term
		} else {
			acc = Add(acc, term)
		}
	}
	return Add(acc, bc(bias, acc))
}

// fsqBound is the official FSQ bound, tanh(z + shift)*half_l - offset, with
// the official tan shift.
func fsqBound(z *Node) *Node {
	g := z.Graph()
	return Sub(Mul(Tanh(AddScalar(z, float64(b2t.FSQShift))), Scalar(g, dtypes.Float32, b2t.FSQHalfL)), Scalar(g, dtypes.Float32, b2t.FSQOffset))
}

// fsqCodes rounds the bounded values [B,L,6] half to even and packs the
// levels into one code per position.
func fsqCodes(bounded *Node) *Node {
	g := bounded.Graph()
	q := roundHalfEven(bounded)
	weights := make([]float32, b2t.FSQDims)
	for i, m := 0, float32(1); i < b2t.FSQDims; i, m = i+1, m*b2t.FSQLevels {
		weights[i] = m
	}
	qs := AddScalar(q, b2t.FSQLevels/2)
	code := ReduceSum(Mul(qs, bc(Const(g, weights), qs)), -1)
	return ConvertDType(code, dtypes.Int32)
}

// roundHalfEven rounds to the nearest integer, ties to even (the backends'
// Round may round ties away from zero).
func roundHalfEven(x *Node) *Node {
	f := Floor(x)
	d := Sub(x, f)
	half := Scalar(x.Graph(), x.DType(), 0.5)
	odd := Equal(Abs(Mod(f, Scalar(x.Graph(), x.DType(), 2))), Scalar(x.Graph(), x.DType(), 1))
	up := LogicalOr(GreaterThan(d, half), LogicalAnd(Equal(d, half), odd))
	return Where(up, AddScalar(f, 1), f)
}

// linear is x @ w^T for x [B,L,in], w [out,in] (PyTorch layout).
func linear(x, w *Node) *Node {
	return DotGeneral(x, []int{2}, nil, w, []int{1}, nil)
}

// rmsNorm is x / sqrt(mean(x²) + eps) * w over the last axis.
func rmsNorm(x, w *Node) *Node {
	ms := ReduceAndKeep(Square(x), ReduceMean, -1)
	xn := Div(x, BroadcastToDims(Sqrt(AddScalar(ms, b2t.NormEps)), x.Shape().Dimensions...))
	return Mul(xn, bc(w, xn))
}

func silu(x *Node) *Node { return Mul(x, Sigmoid(x)) }

// softplus is torch's: log1p(exp(x)), or x above the threshold 20.
func softplus(x *Node) *Node {
	big := GreaterThan(x, Scalar(x.Graph(), x.DType(), b2t.SoftplusThreshold))
	safe := Where(big, ZerosLike(x), x)
	return Where(big, x, Log1p(Exp(safe)))
}

// maskPads zeroes x [B,L,...] where mask [B,L] is false.
func maskPads(x, mask *Node) *Node {
	m := mask
	for m.Rank() < x.Rank() {
		m = ExpandAxes(m, -1)
	}
	return Where(BroadcastToDims(m, x.Shape().Dimensions...), x, ZerosLike(x))
}

// bc broadcasts the trailing-axes tensor x (e.g. a weight vector) to like's shape.
func bc(x, like *Node) *Node { return bcDims(x, like.Shape().Dimensions) }

func bcDims(x *Node, dims []int) *Node {
	if x.Rank() < len(dims) {
		shape := make([]int, len(dims))
		for i := range shape {
			shape[i] = 1
		}
		copy(shape[len(dims)-x.Rank():], x.Shape().Dimensions)
		x = Reshape(x, shape...)
	}
	return BroadcastToDims(x, dims...)
}
