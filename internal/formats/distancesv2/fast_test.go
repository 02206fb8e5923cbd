package distancesv2

import (
	"math"
	"testing"
)

func TestCeilIntMatchesMathCeil(t *testing.T) {
	for _, q := range []float64{0, math.Copysign(0, -1), 0.5, 1, math.Nextafter(1, 0), math.Nextafter(1, 2), 16, 16.000000001,
		63.99999999, 1 << 52, 1<<52 + 0.5, 1 << 60, -0.5, -1, -1.5, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64} {
		if got, want := ceilInt(q), int(math.Ceil(q)); got != want {
			t.Errorf("ceilInt(%v) = %d, want %d", q, got, want)
		}
	}
}

func TestAppendPosMatchesPosToken(t *testing.T) {
	g := NewGenerator(Defaults())
	g.growPos(12000)
	for i := int32(0); i < 12000; i++ {
		for _, room := range []int{0, 7, 8, 64} {
			b := make([]byte, 3, 3+room)
			copy(b, "abc")
			if got, want := string(g.appendPos(b, i)), string(posToken([]byte("abc"), i)); got != want {
				t.Fatalf("appendPos(%d) with room %d = %q, want %q", i, room, got, want)
			}
		}
	}
}

func TestAppendWMatchesAppend(t *testing.T) {
	for _, s := range []string{"", " <A>", " <think>", " <long-range-contact>", "exactly twenty-four byte", "twenty-five bytes, one more"} {
		tok := newWtok(s)
		for _, room := range []int{0, 8, 23, 24, 40} {
			b := make([]byte, 2, 2+room)
			copy(b, "xy")
			if got := string(appendW(b, &tok)); got != "xy"+s {
				t.Errorf("appendW(%q) with room %d = %q", s, room, got)
			}
		}
	}
}
