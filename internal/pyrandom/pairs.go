package pyrandom

// GaussPairs sets z[2i] = cos(x[i])*g and z[2i+1] = sin(x[i])*g with
// g = sqrt(-2*log(u[i])): the two gauss() standard normals of each pair of
// draws (x = random()*2pi, u = 1.0 - random()), computed as CPython does
// (the C library's log, sin and cos when ExactLibm), in one batch. z must
// hold 2*len(x) values and u len(x).
func GaussPairs(x, u, z []float64) {
	if len(x) == 0 {
		return
	}
	_, _ = u[len(x)-1], z[2*len(x)-1]
	gaussPairs(x, u, z)
}

// GaussPairsApprox is GaussPairs with each value within GaussApproxErr of
// GaussPairs's (approximate log, sin and cos, several pairs at a time).
func GaussPairsApprox(x, u, z []float64) {
	if len(x) == 0 {
		return
	}
	_, _ = u[len(x)-1], z[2*len(x)-1]
	gaussPairsApprox(x, u, z)
}
