package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHvWidenRows holds every level to the stated arithmetic bit for bit:
// c = (scale·a_i)·(DotWiden(x_i, s) + s[n]·bias), its lanes as the
// portable DotWiden (itself held to the written-out tree by
// TestDotWiden*) sums them, then Hs_j += c·x_ij one entry at a time, for
// widths 1..100 (whole steps of 32 and every tail), rows consecutive or
// listed with repeats, with and without the bias; Hs past n (n + 1) is
// left alone.
func TestHvWidenRows(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(25, 13))
		for _, n := range []int{1, 7, 8, 9, 31, 32, 33, 40, 63, 64, 65, 71, 96, 100} {
			for _, picked := range []bool{false, true} {
				for _, bias := range []float64{-1, 0.75} {
					m := 7
					X, rows := rowsCase(r, n, m, picked)
					s := make([]float64, n+1)
					for j := range s {
						s[j] = r.NormFloat64()
					}
					a := make([]float64, m)
					for i := range a {
						a[i] = r.Float64() * 3
					}
					lo, hi := 1, m
					if picked {
						hi = len(rows)
					}
					got := make([]float64, n+2)
					for j := range got {
						got[j] = r.NormFloat64()
					}
					want := append([]float64(nil), got...)
					HvWidenRows(got, s, X, n, rows, lo, hi, a, 0.5, bias)
					for k := lo; k < hi; k++ {
						i := k
						if picked {
							i = int(rows[k])
						}
						x := X[i*n : (i+1)*n]
						sb := 0.0
						if bias >= 0 {
							sb = float64(s[n] * bias)
						}
						c := float64(0.5*a[i]) * (dotWidenPortable(x, s) + sb)
						for j, v := range x {
							want[j] += float64(c * float64(v))
						}
						if bias >= 0 {
							want[n] += float64(c * bias)
						}
					}
					for j := range want {
						if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
							t.Fatalf("n %d picked %v bias %v: Hs[%d] = %v, want %v", n, picked, bias, j, got[j], want[j])
						}
					}
				}
			}
		}
	})
}

// TestHvWidenRowsPanics: a row past X or a, and a short s, panic.
func TestHvWidenRowsPanics(t *testing.T) {
	X, s, Hs, a := make([]float32, 2*40), make([]float64, 41), make([]float64, 41), []float64{1, 1}
	for name, f := range map[string]func(){
		"row past X": func() { HvWidenRows(Hs, s, X, 40, []int32{0, 2}, 0, 2, a, 1, -1) },
		"row past a": func() { HvWidenRows(Hs, s, X, 40, nil, 0, 2, a[:1], 1, -1) },
		"short s":    func() { HvWidenRows(Hs, s[:30], X, 40, nil, 0, 2, a, 1, -1) },
		"no bias":    func() { HvWidenRows(Hs, s[:40], X, 40, nil, 0, 2, a, 1, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestDotWidenRows holds every level to DotWiden's portable sum bit for
// bit over rows lo..hi−1 of widths 1..100; dst elsewhere is left alone.
func TestDotWidenRows(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(25, 17))
		for _, n := range []int{1, 7, 8, 9, 31, 32, 33, 40, 63, 64, 65, 71, 96, 100} {
			m := 6
			X, _ := rowsCase(r, n, m, false)
			s := make([]float64, n)
			for j := range s {
				s[j] = r.NormFloat64()
			}
			dst := make([]float64, m+1)
			for i := range dst {
				dst[i] = 7
			}
			DotWidenRows(dst, s, X, n, 2, m)
			for i := range dst {
				want := 7.0
				if i >= 2 && i < m {
					want = dotWidenPortable(X[i*n:(i+1)*n], s)
				}
				if math.Float64bits(dst[i]) != math.Float64bits(want) {
					t.Fatalf("n %d: dst[%d] = %v, want %v", n, i, dst[i], want)
				}
			}
		}
	})
}

// BenchmarkHvWidenRows: a Hessian-vector pass over 2,000 rows of 64
// features (digits' shape), portable against this machine's path.
func BenchmarkHvWidenRows(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 7))
	m, n := 2000, 64
	X, _ := rowsCase(r, n, m, false)
	s, Hs, a := make([]float64, n), make([]float64, n), make([]float64, m)
	for j := range s {
		s[j] = r.NormFloat64()
	}
	for i := range a {
		a[i] = r.Float64()
	}
	benchLevels(b, func(b *testing.B) {
		b.SetBytes(int64(4 * m * n))
		for range b.N {
			HvWidenRows(Hs, s, X, n, nil, 0, m, a, 1, -1)
		}
	})
}
