package data

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAxpyDense checks the unrolled axpyDense against the one-element loop
// it replaces, bit for bit, at every length around the unrolling's step
// and with dst shorter and longer than x.
func TestAxpyDense(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 13 {
		for _, extra := range []int{-2, 0, 3} {
			x := make([]float32, n)
			for j := range x {
				x[j] = float32(r.NormFloat64())
			}
			m := max(n+extra, 0)
			got, want := make([]float64, m), make([]float64, m)
			for j := range got {
				got[j] = r.NormFloat64()
				want[j] = got[j]
			}
			a := r.NormFloat64()
			axpyDense(got, a, x)
			for j := range min(n, m) {
				want[j] += a * float64(x[j])
			}
			for j := range got {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("n=%d len(dst)=%d: dst[%d] = %v, want %v", n, m, j, got[j], want[j])
				}
			}
		}
	}
}

// BenchmarkAxpyDense times one row update on rows of 9 (shuttle) and 64
// (digits) features.
func BenchmarkAxpyDense(b *testing.B) {
	for _, n := range []int{9, 64} {
		b.Run(map[int]string{9: "n=9", 64: "n=64"}[n], func(b *testing.B) {
			x, dst := make([]float32, n), make([]float64, n)
			for j := range x {
				x[j] = float32(j) * 0.25
			}
			b.SetBytes(int64(12 * n))
			b.ReportAllocs()
			for b.Loop() {
				axpyDense(dst, 1e-9, x)
			}
		})
	}
}
