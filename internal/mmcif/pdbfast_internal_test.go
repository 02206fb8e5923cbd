package mmcif

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFixedDecimalMatchesParseFloat: a %8.3f or %6.2f field read as an
// integer over 1000 or 100 (one IEEE division) is bit for bit
// strconv.ParseFloat's correctly rounded value and the general double's,
// for every 8.3 value from -999.999 to 9999.999 (every 6.2 value from
// -99.99 to 999.99), -0.000 and -0.00 included (both -0), and for random
// fields of other widths and precisions up to 15 digits; text in any other
// form is refused.
func TestFixedDecimalMatchesParseFloat(t *testing.T) {
	check := func(field string, frac int) {
		t.Helper()
		got, ok := fixedDecimal([]byte(field), frac)
		if !ok {
			t.Fatalf("fixedDecimal(%q, %d) refused", field, frac)
		}
		want, err := strconv.ParseFloat(strings.TrimLeft(field, " "), 64)
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("fixedDecimal(%q) = %v (%x), ParseFloat %v (%x)", field, got, math.Float64bits(got), want, math.Float64bits(want))
		}
		if d := pdbLine(field).double(0, len(field)); math.Float64bits(d) != math.Float64bits(want) {
			t.Fatalf("double(%q) = %v, ParseFloat %v", field, d, want)
		}
	}
	step := 1
	if testing.Short() {
		step = 97
	}
	for _, f := range []struct{ width, frac, lo, hi int }{{8, 3, -999999, 9999999}, {6, 2, -9999, 99999}} {
		for m := f.lo; m <= f.hi; m += step {
			check(pad(fixedText(m, f.frac), f.width), f.frac)
		}
		check(pad("-0."+strings.Repeat("0", f.frac), f.width), f.frac)
		check(pad("-"+strings.Repeat("9", f.width-f.frac-2)+"."+strings.Repeat("9", f.frac), f.width), f.frac)
	}
	// random fields of every width and precision fixedDecimal takes, and
	// random bytes: taken exactly when printf's form, then as ParseFloat
	form := regexp.MustCompile(`^ *-?[0-9]+\.[0-9]+$`)
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "  -0123456789.+e\t"
	for range 300000 {
		width, frac := 3+r.IntN(6), 1+r.IntN(6)
		b := make([]byte, width)
		if r.IntN(2) == 0 {
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		} else { // printf's form, or nearly
			intDigits := 1 + r.IntN(max(1, width-frac-1))
			m := r.Int64N(int64(pow10u[min(intDigits+frac, 14)]))
			if r.IntN(2) == 0 {
				m = -m
			}
			copy(b, pad(fixedText(int(m), frac), width))
		}
		field := string(b)
		v, ok := fixedDecimal(b, frac)
		want := form.MatchString(field) && len(field)-strings.IndexByte(field, '.')-1 == frac
		if ok != want {
			t.Fatalf("fixedDecimal(%q, %d): ok %v, want %v", field, frac, ok, want)
		}
		if ok {
			check(field, frac)
			_ = v
		}
	}
	for _, bad := range []string{"   1.2345", "  1.23 ", " 1.2-34", "1-2.345", "  +1.234", "   .123", "  1,234", "  1.2e3", "\t 1.234", "  --1.23", "   1.23x", "- 1.234", "        "} {
		if v, ok := fixedDecimal([]byte(bad), 3); ok {
			t.Errorf("fixedDecimal(%q, 3) = %v, want refused", bad, v)
		}
	}
}

// fixedText writes m/10^frac with frac decimals, from the integer's
// digits (no floating point).
func fixedText(m, frac int) string {
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	p := int(pow10u[frac])
	f := strconv.Itoa(m % p)
	return sign + strconv.Itoa(m/p) + "." + strings.Repeat("0", frac-len(f)) + f
}

// pad right-aligns s in a field of width w (wider fields as they are).
func pad(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return strings.Repeat(" ", w-len(s)) + s
}
