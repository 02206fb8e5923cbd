package mmcif

import (
	"math"
	"strconv"
)

var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat parses a CIF number into the correctly rounded float64.
// Plain decimals whose digits fit in 2^53 with at most 22 fraction digits
// take Clinger's fast path (one exact conversion and one correctly rounded
// division); anything else goes to strconv.ParseFloat. A trailing
// standard uncertainty "(n)" is ignored, as gemmi does. Non-numbers ('?',
// '.', text) give NaN.
func parseFloat(s []byte) float64 {
	n := len(s)
	i := 0
	neg := false
	if n > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		i = 1
	}
	var mant uint64
	start := i
	for i < n && s[i]-'0' < 10 {
		mant = mant*10 + uint64(s[i]-'0')
		i++
	}
	digits := i - start
	frac := 0
	if i < n && s[i] == '.' {
		i++
		fs := i
		for i < n && s[i]-'0' < 10 {
			mant = mant*10 + uint64(s[i]-'0')
			i++
		}
		frac = i - fs
		digits += frac
	}
	// anything else (exponent, esd, junk, too many digits) takes the
	// general path; 19 digits cannot overflow uint64
	if i != n || digits == 0 || digits > 19 || mant > 1<<53 || frac > 22 {
		return slowFloat(s)
	}
	f := float64(mant)
	if frac > 0 {
		f /= pow10[frac]
	}
	if neg {
		f = -f
	}
	return f
}

func slowFloat(s []byte) float64 {
	t := string(s)
	if k := indexByte(t, '('); k > 0 && t[len(t)-1] == ')' {
		t = t[:k]
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f
		}
		return math.NaN()
	}
	return f
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// parseInt parses an optionally signed decimal integer; ok is false for an
// empty, null or malformed value.
func parseInt(s []byte) (int, bool) {
	if len(s) == 0 {
		return 0, false
	}
	i, neg := 0, false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		i++
	}
	if i == len(s) || len(s)-i > 18 {
		return 0, false
	}
	v := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}
