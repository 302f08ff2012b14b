package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// log1pCases returns x values for Log1p: uniform in [0, 1), e^{−|z|} of
// normal margins, log-uniform down to 2⁻⁴⁰, 64 neighbours each side of
// every boundary of log1p.go's branches and of the vector path's range,
// and values outside [0, 1] (negative, above 1, 0, −0, ±Inf, NaN,
// subnormal).
func log1pCases() []float64 {
	r := rand.New(rand.NewPCG(25, 1))
	var xs []float64
	for range 100000 {
		xs = append(xs, r.Float64(), math.Exp(-math.Abs(3*r.NormFloat64())), math.Exp2(-40*r.Float64()))
	}
	sqrt2M1 := math.Float64frombits(0x3fda827999fcef32)
	for _, b := range []float64{log1pLanesMin, 1.0 / (1 << 54), sqrt2M1, math.Sqrt2 - 1, log1pLanesMax, 1, 0.5, 2} {
		up, down := b, b
		for range 64 {
			up, down = math.Nextafter(up, 2), math.Nextafter(down, -1)
			xs = append(xs, up, down)
		}
		xs = append(xs, b)
	}
	return append(xs, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), -0.5, -1, -2,
		1.5, 1e300, 5e-324, -1e-300, math.SmallestNonzeroFloat64*3)
}

// TestLog1p holds every level to math.Log1p bit for bit, at every offset
// of the cases into an 8-lane step (lengths not multiples of 8).
func TestLog1p(t *testing.T) {
	xs := log1pCases()
	forEachLevel(t, func(t *testing.T) {
		for _, off := range []int{0, 1, 3, 7} {
			x := xs[off:]
			x = x[:len(x)-off]
			dst := make([]float64, len(x)+1)
			dst[len(x)] = 42
			Log1p(dst, x)
			for i, v := range x {
				want := math.Log1p(v)
				if math.Float64bits(dst[i]) != math.Float64bits(want) && !(math.IsNaN(want) && math.IsNaN(dst[i])) {
					t.Fatalf("offset %d: Log1p(%v) (%#x) = %v, want %v", off, v, math.Float64bits(v), dst[i], want)
				}
			}
			if dst[len(x)] != 42 {
				t.Fatal("Log1p wrote past len(x)")
			}
		}
		out := make([]float64, 64)
		if a := testing.AllocsPerRun(10, func() { Log1p(out, xs[:64]) }); a != 0 {
			t.Errorf("Log1p allocates %v times", a)
		}
	})
	defer func() {
		if recover() == nil {
			t.Error("Log1p with a short dst did not panic")
		}
	}()
	Log1p(make([]float64, 3), xs[:4])
}
