package linear

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLRLog checks lrLog against math.Log bit for bit: on the ratios
// z/(C − z) of -s 7 (z in (0, C)), over the whole positive range of
// exponents, around the √2/2 switch and at the special arguments.
func TestLRLog(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	check := func(x float64) {
		t.Helper()
		if got, want := lrLog(x), math.Log(x); math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("lrLog(%v) = %v, math.Log gives %v", x, got, want)
		}
	}
	for range 1_000_000 {
		C := math.Exp(8 * r.NormFloat64())
		z := C * r.Float64()
		check(z / (C - z))
		check(math.Float64frombits(r.Uint64() &^ (1 << 63))) // any positive bit pattern
	}
	for k := -1074; k <= 1023; k++ {
		x := math.Ldexp(1, k)
		check(x)
		check(math.Nextafter(x, 0))
		check(math.Nextafter(x, math.Inf(1)))
		check(x * math.Sqrt2 / 2)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -1, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64, math.MaxFloat64, 1, 2, 0.5} {
		check(x)
	}
}
