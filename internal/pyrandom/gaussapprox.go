package pyrandom

import "math"

// GaussApproxErr bounds |z' - z| where z is a standard normal value of
// gauss() (cos(x)*g or sin(x)*g with g = sqrt(-2*log(u)), glibc's log, sin
// and cos) and z' is FillGaussApprox's value for the same draws.
//
// The argument: fdlibm's log and Cephes's sin/cos kernels on [-pi/4, pi/4]
// are within about 1 ulp of the true functions (x is reduced by k*pi/2,
// k <= 4, with pi/2 split in three parts, so the reduction adds ~1e-16 at
// most), as is glibc. So cos and sin differ by at most ~4e-16 absolute and
// g (at most sqrt(-2*log(2^-53)) < 8.6) by a relative ~4.4e-16 (after
// sqrt), and |z' - z| <= 8.6*4e-16 + 8.6*4.4e-16 < 1e-14. The bound below
// is ten times that; TestGaussApproxErr measures the largest difference
// over tens of millions of draws and edge cases (about 2e-15).
const GaussApproxErr = 1e-13

// maxGaussZ bounds |z| for any draw: u >= 2^-53, so g <= 8.58.
const maxGaussZ = 9

// GaussApproxBound bounds the difference between FillGaussApprox's and
// FillGauss's dst[i] for the same draws: |sigma|*GaussApproxErr for z, plus
// one ulp of |mu| + 9|sigma| for each of the two roundings of mu + z*sigma
// (rounding is monotone and moves a value by at most half an ulp, in each of
// the two results). It is +Inf or NaN when mu or sigma is not finite.
func GaussApproxBound(mu, sigma float64) float64 {
	m := math.Abs(mu) + maxGaussZ*math.Abs(sigma)
	ulp := math.Nextafter(m, math.Inf(1)) - m
	return math.Abs(sigma)*GaussApproxErr + 2*ulp
}

// GaussDraws keeps the uniform draws behind one FillGaussApprox call, from
// which Exact recomputes any of its values bit for bit.
type GaussDraws struct {
	mu, sigma float64
	head      int     // 1 when dst[0] was gauss's cached value
	first     float64 // that value (exact)
	xs, us    []float64
	z         [2]float64
}

// FillGaussApprox is FillGauss with each dst[i] within
// GaussApproxBound(mu, sigma) of FillGauss's value: the same draws in the
// same order, the same cached value left behind (exact), only the log, sin
// and cos approximated (in one batch, several values at a time). d keeps the
// draws for Exact; it is overwritten by its next use. It allocates only when
// d's or r's scratch space grows.
func (r *Rand) FillGaussApprox(dst []float64, mu, sigma float64, d *GaussDraws) {
	r.fillGauss(dst, mu, sigma, d, true)
}

// fillGauss is FillGauss (approx false) and FillGaussApprox (approx true),
// keeping the draws in d.
func (r *Rand) fillGauss(dst []float64, mu, sigma float64, d *GaussDraws, approx bool) {
	d.mu, d.sigma, d.head = mu, sigma, 0
	i := 0
	if r.hasGauss && len(dst) > 0 {
		r.hasGauss = false
		d.first, d.head = r.gaussNext, 1
		dst[0] = mu + float64(r.gaussNext*sigma)
		i = 1
	}
	pairs := (len(dst) - i + 1) / 2
	if cap(d.xs) < pairs {
		d.xs, d.us = make([]float64, pairs), make([]float64, pairs)
	}
	d.xs, d.us = d.xs[:pairs], d.us[:pairs]
	if pairs == 0 {
		return
	}
	if cap(r.scratch) < 2*pairs {
		r.scratch = make([]float64, 2*pairs)
	}
	xs, us, zs := d.xs, d.us, r.scratch[:2*pairs]
	for p := range pairs {
		xs[p] = r.Random() * (2 * math.Pi)
		us[p] = 1.0 - r.Random()
	}
	if approx {
		gaussPairsApprox(xs, us, zs)
	} else {
		gaussPairs(xs, us, zs)
	}
	for p := range pairs {
		dst[i] = mu + float64(zs[2*p]*sigma)
		i++
		if i < len(dst) {
			dst[i] = mu + float64(zs[2*p+1]*sigma)
			i++
		} else {
			z := zs[2*p+1]
			if approx { // the cached value must be exact: recompute the pair
				gaussPairs(xs[p:p+1], us[p:p+1], d.z[:])
				z = d.z[1]
			}
			r.gaussNext, r.hasGauss = z, true
		}
	}
}

// Exact returns the value FillGauss would have set dst[i] to, where dst is
// the slice of d's last FillGaussApprox call.
func (d *GaussDraws) Exact(i int) float64 {
	if i < d.head {
		return d.mu + float64(d.first*d.sigma)
	}
	j := i - d.head
	p := j / 2
	gaussPairs(d.xs[p:p+1], d.us[p:p+1], d.z[:])
	return d.mu + float64(d.z[j&1]*d.sigma)
}
