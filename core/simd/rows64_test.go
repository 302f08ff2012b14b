package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// rowsCase returns a matrix of m rows of n entries (some zero, some
// negative zero) and, when picked, a row list with repeats out of order.
func rowsCase(r *rand.Rand, n, m int, picked bool) ([]float32, []int32) {
	X := make([]float32, n*m+r.IntN(3)) // a few entries past the last row
	for i := range X {
		switch r.IntN(8) {
		case 0:
			X[i] = 0
		case 1:
			X[i] = float32(math.Copysign(0, -1))
		default:
			X[i] = float32(r.NormFloat64() * math.Exp(r.Float64()*6-3))
		}
	}
	if !picked || m == 0 {
		return X, nil
	}
	rows := make([]int32, m+r.IntN(5))
	for k := range rows {
		rows[k] = int32(r.IntN(m))
	}
	return X, rows
}

// TestDotRows64x4 holds every level to the stated order (lanes j mod 4, the
// tail into lane 0, (s0 + s1) + (s2 + s3)) bit for bit, written out here
// one term at a time, for widths 0..40 and up to 20 rows, consecutive or
// listed; dst past the rows is left alone.
func TestDotRows64x4(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(25, 3))
		for n := range 41 {
			for _, m := range []int{0, 1, 2, 7, 20} {
				for _, picked := range []bool{false, true} {
					X, rows := rowsCase(r, n, m, picked)
					w := make([]float64, n+1)
					for j := range w {
						w[j] = r.NormFloat64()
					}
					k := m
					if rows != nil {
						k = len(rows)
					}
					dst := make([]float64, k+1)
					dst[k] = 7
					DotRows64x4(dst[:k], X, n, rows, w)
					for q := range k {
						i := q
						if rows != nil {
							i = int(rows[q])
						}
						var s [4]float64
						for j := range n {
							lane := j % 4
							if j >= n-n%4 {
								lane = 0
							}
							p := float64(float64(X[i*n+j]) * w[j]) // rounded: never fused
							s[lane] = s[lane] + p
						}
						if want := (s[0] + s[1]) + (s[2] + s[3]); math.Float64bits(dst[q]) != math.Float64bits(want) {
							t.Fatalf("n %d m %d row %d: %v, want %v", n, m, i, dst[q], want)
						}
					}
					if dst[k] != 7 {
						t.Fatalf("n %d: wrote past the rows", n)
					}
				}
			}
		}
	})
}

// TestAxpyRows64 holds every level to the rows added one after another,
// each product rounded then added, bit for bit; dst past n is left alone.
func TestAxpyRows64(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(25, 4))
		for n := range 41 {
			for _, m := range []int{0, 1, 2, 7, 20} {
				for _, picked := range []bool{false, true} {
					X, rows := rowsCase(r, n, m, picked)
					k := m
					if rows != nil {
						k = len(rows)
					}
					a := make([]float64, k)
					for q := range a {
						a[q] = r.NormFloat64()
					}
					dst, want := make([]float64, n+1), make([]float64, n+1)
					for j := range dst {
						dst[j] = r.NormFloat64()
					}
					copy(want, dst)
					AxpyRows64(dst, X, n, rows, a)
					for q := range k {
						i := q
						if rows != nil {
							i = int(rows[q])
						}
						for j := range n {
							p := float64(a[q] * float64(X[i*n+j]))
							want[j] = want[j] + p
						}
					}
					for j := range dst {
						if math.Float64bits(dst[j]) != math.Float64bits(want[j]) {
							t.Fatalf("n %d m %d entry %d: %v, want %v", n, m, j, dst[j], want[j])
						}
					}
				}
			}
		}
	})
}

// TestHvRows64x4 holds HvRows64x4 to its definition, row after row with
// DotRows64x4's sum (itself held to the order above) and each operation
// rounded alone, bit for bit, with and without the bias pseudo-feature,
// over ranges that start and end inside 64-row blocks.
func TestHvRows64x4(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(25, 5))
		for _, n := range []int{1, 4, 9, 13, 31} {
			for _, picked := range []bool{false, true} {
				for _, bias := range []float64{-1, 1, 0.5} {
					X, rows := rowsCase(r, n, 150, picked)
					m := 150
					if rows != nil {
						m = len(rows)
					}
					lo, hi := r.IntN(70), m-r.IntN(70)
					s, a := make([]float64, n+1), make([]float64, 150)
					for j := range s {
						s[j] = r.NormFloat64()
					}
					for i := range a {
						a[i] = r.Float64()
					}
					got, want := make([]float64, n+1), make([]float64, n+1)
					copy(got, s)
					copy(want, s)
					HvRows64x4(got, s, X, n, rows, lo, hi, a, 2, bias)
					for k := lo; k < hi; k++ {
						i := k
						if rows != nil {
							i = int(rows[k])
						}
						var d [1]float64
						DotRows64x4(d[:], X[i*n:], n, nil, s)
						if bias >= 0 {
							d[0] = d[0] + float64(s[n]*bias)
						}
						c := 2 * a[i] * d[0]
						for j := range n {
							p := float64(c * float64(X[i*n+j]))
							want[j] = want[j] + p
						}
						if bias >= 0 {
							p := float64(c * bias)
							want[n] = want[n] + p
						}
					}
					for j := range got {
						if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
							t.Fatalf("n %d bias %v entry %d: %v, want %v", n, bias, j, got[j], want[j])
						}
					}
				}
			}
		}
		X, s, a, Hs := make([]float32, 900), make([]float64, 10), make([]float64, 100), make([]float64, 10)
		if allocs := testing.AllocsPerRun(10, func() { HvRows64x4(Hs, s, X, 9, nil, 3, 97, a, 2, 1) }); allocs != 0 {
			t.Errorf("HvRows64x4 allocates %v times", allocs)
		}
	})
}

// TestRows64Misuse: rows past X, a short vector or a negative row panic.
func TestRows64Misuse(t *testing.T) {
	X := make([]float32, 12) // 3 rows of 4
	for name, f := range map[string]func(){
		"row past X":   func() { DotRows64x4(make([]float64, 1), X, 4, []int32{3}, make([]float64, 4)) },
		"rows past X":  func() { DotRows64x4(make([]float64, 4), X, 4, nil, make([]float64, 4)) },
		"short w":      func() { DotRows64x4(make([]float64, 1), X, 4, nil, make([]float64, 3)) },
		"negative row": func() { AxpyRows64(make([]float64, 4), X, 4, []int32{-1}, []float64{1}) },
		"short dst":    func() { AxpyRows64(make([]float64, 3), X, 4, nil, []float64{1}) },
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

// TestRows64Allocs: neither allocates.
func TestRows64Allocs(t *testing.T) {
	X, w, dst := make([]float32, 90), make([]float64, 9), make([]float64, 10)
	rows := []int32{3, 1, 9}
	if a := testing.AllocsPerRun(10, func() {
		DotRows64x4(dst, X, 9, nil, w)
		AxpyRows64(w, X, 9, rows, dst[:3])
	}); a != 0 {
		t.Errorf("%v allocations", a)
	}
}
