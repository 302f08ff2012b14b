package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExp64 holds every level to math.Exp bit for bit: random x over the
// vector path's range and past it (underflow, overflow), the logistic
// loss's −|z| from tiny to large, and the special values, at every length
// mod 8.
func TestExp64(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(25, 23))
		special := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, exp64LanesMin, exp64LanesMax,
			math.Nextafter(exp64LanesMin, -1000), math.Nextafter(exp64LanesMax, 1000), -745.2, -746, 709.8, 710,
			math.Inf(1), math.Inf(-1), math.NaN(), 1e-300, -1e-300, math.SmallestNonzeroFloat64, math.Ln2, -math.Ln2}
		for _, n := range []int{0, 1, 7, 8, 9, 64, 100, 1000} {
			x := make([]float64, n)
			for i := range x {
				switch r.IntN(4) {
				case 0:
					x[i] = (r.Float64()*2 - 1) * 750
				case 1:
					x[i] = -math.Abs(r.NormFloat64() * math.Exp(r.Float64()*12-6)) // −|z|
				case 2:
					x[i] = special[r.IntN(len(special))]
				default:
					x[i] = (r.Float64()*2 - 1) * 5
				}
			}
			dst := make([]float64, n+1)
			dst[n] = 7
			Exp64(dst[:n], x)
			for i, v := range x {
				if want := math.Exp(v); math.Float64bits(dst[i]) != math.Float64bits(want) && !(math.IsNaN(want) && math.IsNaN(dst[i])) {
					t.Fatalf("n %d: Exp64(%v) = %v (%#x), math.Exp %v (%#x)", n, v, dst[i], math.Float64bits(dst[i]), want, math.Float64bits(want))
				}
			}
			if dst[n] != 7 {
				t.Fatal("wrote past x")
			}
		}
	})
}

// BenchmarkExp64: 64 values of −|z| (sumLoss's block), portable math.Exp
// against this machine's path.
func BenchmarkExp64(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 9))
	x, dst := make([]float64, 64), make([]float64, 64)
	for i := range x {
		x[i] = -math.Abs(r.NormFloat64() * 3)
	}
	benchLevels(b, func(b *testing.B) {
		for range b.N {
			Exp64(dst, x)
		}
	})
}
