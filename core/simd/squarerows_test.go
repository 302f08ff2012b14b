package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAxpySquaresRows holds every level to g_j += a_i·x_ij and D_j +=
// ((2·b_i)·x_ij)·x_ij, row after row, bit for bit, for widths 0..40,
// rows consecutive or listed with repeats; g and D past n are left alone.
func TestAxpySquaresRows(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(25, 19))
		for n := range 41 {
			for _, picked := range []bool{false, true} {
				m := 7
				X, rows := rowsCase(r, n, m, picked)
				a, b := make([]float64, m), make([]float64, m)
				for i := range a {
					a[i], b[i] = r.NormFloat64(), r.Float64()*3
				}
				lo, hi := 1, m
				if picked {
					hi = len(rows)
				}
				g, D := make([]float64, n+1), make([]float64, n+1)
				for j := range g {
					g[j], D[j] = r.NormFloat64(), r.Float64()
				}
				wg, wD := append([]float64(nil), g...), append([]float64(nil), D...)
				AxpySquaresRows(g, D, X, n, rows, lo, hi, a, b, 2)
				for k := lo; k < hi; k++ {
					i := k
					if picked {
						i = int(rows[k])
					}
					for j, v := range X[i*n : (i+1)*n] {
						x := float64(v)
						wg[j] += float64(a[i] * x)
						wD[j] += float64(float64(2*b[i]*x) * x)
					}
				}
				for j := range wg {
					if math.Float64bits(g[j]) != math.Float64bits(wg[j]) || math.Float64bits(D[j]) != math.Float64bits(wD[j]) {
						t.Fatalf("n %d picked %v: g, D[%d] = %v, %v, want %v, %v", n, picked, j, g[j], D[j], wg[j], wD[j])
					}
				}
			}
		}
	})
}
