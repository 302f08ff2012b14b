package simd

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// csrCase returns m sparse rows over n features, row k of length lens[k
// mod len(lens)] (capped at n), indices increasing, values mixed with
// zeros and negative zeros, in CSR form starting at offset off.
func csrCase(r *rand.Rand, n, m, off int, lens []int) ([]int, []int32, []float32) {
	start := []int{off}
	index := make([]int32, off)
	value := make([]float32, off)
	for k := range m {
		L := min(lens[k%len(lens)], n)
		for _, j := range r.Perm(n)[:L] {
			index = append(index, int32(j))
		}
		row := index[len(index)-L:]
		for a := 1; a < len(row); a++ { // insertion sort: short rows
			for b := a; b > 0 && row[b] < row[b-1]; b-- {
				row[b], row[b-1] = row[b-1], row[b]
			}
		}
		for range L {
			var v float32
			switch r.IntN(8) {
			case 0:
			case 1:
				v = float32(math.Copysign(0, -1))
			default:
				v = float32(r.NormFloat64() * math.Exp(r.Float64()*6-3))
			}
			value = append(value, v)
		}
		start = append(start, len(index))
	}
	return start, index, value
}

// TestHvSparseRows holds every level to the stated order (term q in lane
// q mod 4, the last len mod 4 terms into lane 0, (s0 + s1) + (s2 + s3) +
// s[n]·bias, c = scale·a[i] times that, Hs_j += c·x_ij) bit for bit,
// written out here one term at a time, for rows of 0..40 terms (the
// kernel's masked path runs up to 16, longer ones the loop), consecutive
// or listed with repeats, with and without the bias pseudo-feature; Hs
// past n (n + 1) is left alone; dots (odd n) gets each position's sum and
// nothing outside lo..hi−1.
func TestHvSparseRows(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(25, 7))
		for _, n := range []int{1, 5, 17, 64} {
			for _, lens := range [][]int{{0}, {1, 2, 3}, {4, 5, 6, 7, 8}, {9, 12, 15, 16, 17}, {3, 40, 11, 0, 33, 16}} {
				for _, picked := range []bool{false, true} {
					for _, bias := range []float64{-1, 0.5} {
						m := 9
						start, index, value := csrCase(r, n, m, r.IntN(3), lens)
						var rows []int32
						if picked {
							for range 12 {
								rows = append(rows, int32(r.IntN(m)))
							}
						}
						s := make([]float64, n+1)
						for j := range s {
							if r.IntN(5) > 0 {
								s[j] = r.NormFloat64()
							}
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
						var dots []float64
						if n%2 == 1 {
							dots = make([]float64, hi+1)
							dots[0], dots[hi] = 7, 7
						}
						HvSparseRows(got, s, start, index, value, n, rows, lo, hi, a, 2, bias, dots)
						if dots != nil && (dots[0] != 7 || dots[hi] != 7) {
							t.Fatalf("n %d lens %v: dots written outside lo..hi−1: %v", n, lens, dots)
						}
						for k := lo; k < hi; k++ {
							i := k
							if picked {
								i = int(rows[k])
							}
							var l [4]float64
							L := start[i+1] - start[i]
							for q := range L {
								lane := q % 4
								if q >= L-L%4 {
									lane = 0
								}
								p := float64(float64(value[start[i]+q]) * s[index[start[i]+q]]) // rounded: never fused
								l[lane] = l[lane] + p
							}
							sum := (l[0] + l[1]) + (l[2] + l[3])
							if bias >= 0 {
								sum += float64(s[n] * bias)
							} else {
								sum += 0
							}
							if dots != nil && math.Float64bits(dots[k]) != math.Float64bits(sum) {
								t.Fatalf("n %d lens %v picked %v bias %v: dots[%d] = %v, want %v", n, lens, picked, bias, k, dots[k], sum)
							}
							c := float64(2*a[i]) * sum
							for q := range L {
								j := index[start[i]+q]
								want[j] += float64(c * float64(value[start[i]+q]))
							}
							if bias >= 0 {
								want[n] += float64(c * bias)
							}
						}
						for j := range want {
							if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
								t.Fatalf("n %d lens %v picked %v bias %v: Hs[%d] = %v, want %v", n, lens, picked, bias, j, got[j], want[j])
							}
						}
					}
				}
			}
		}
	})
}

// TestHvSparseRowsPanics: an index past n, a row past start and a short
// vector panic on every level rather than read out of range.
func TestHvSparseRowsPanics(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		start, index, value := []int{0, 2, 3}, []int32{0, 4, 1}, []float32{1, 2, 3}
		s, Hs, a := make([]float64, 4), make([]float64, 4), []float64{1, 1}
		for name, f := range map[string]func(){
			"index past n": func() { HvSparseRows(Hs, s, start, index, value, 4, nil, 0, 2, a, 1, -1, nil) },
			"row past end": func() { HvSparseRows(Hs, s, start, index[:2], value, 3, []int32{1, 2}, 0, 2, a, 1, -1, nil) },
			"short s":      func() { HvSparseRows(Hs, s[:2], start, index, value, 3, nil, 0, 2, a, 1, -1, nil) },
			"bias past s":  func() { HvSparseRows(Hs, s, start, index, value, 4, nil, 0, 1, a, 1, 1, nil) },
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
	})
}

// TestDotSparseRows holds every level to data.DotSparse's order (as
// TestHvSparseRows writes it out) plus s[n]·bias when bias ≥ 0, bit for
// bit, for rows of 0..40 terms, consecutive or listed (rows); dst
// outside the rows is left alone.
func TestDotSparseRows(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(25, 9))
		for _, n := range []int{1, 5, 17, 64} {
			for _, lens := range [][]int{{0}, {1, 2, 3}, {4, 5, 6, 7, 8}, {9, 12, 15, 16, 17}, {3, 40, 11, 0, 33, 16}} {
				for _, bias := range []float64{-1, 0.5} {
					m := 11
					start, index, value := csrCase(r, n, m, r.IntN(3), lens)
					var rows []int32 // a listing: every other row, backwards
					if bias >= 0 {
						rows = []int32{0, 0, 9, 7, 5, 3, 1}
					}
					s := make([]float64, n+1)
					for j := range s {
						if r.IntN(5) > 0 {
							s[j] = r.NormFloat64()
						}
					}
					dst := make([]float64, m+1)
					for i := range dst {
						dst[i] = 7
					}
					lo, hi := 2, m
					if rows != nil {
						hi = len(rows)
					}
					DotSparseRows(dst, s, start, index, value, n, rows, lo, hi, bias)
					for i := range dst {
						want := 7.0
						if rows == nil && i >= lo && i < hi || rows != nil && slices.Contains(rows[lo:hi], int32(i)) {
							var l [4]float64
							L := start[i+1] - start[i]
							for q := range L {
								lane := q % 4
								if q >= L-L%4 {
									lane = 0
								}
								l[lane] = l[lane] + float64(float64(value[start[i]+q])*s[index[start[i]+q]])
							}
							want = (l[0] + l[1]) + (l[2] + l[3])
							if bias >= 0 {
								want += float64(s[n] * bias)
							}
						}
						if math.Float64bits(dst[i]) != math.Float64bits(want) {
							t.Fatalf("n %d lens %v bias %v: dst[%d] = %v, want %v", n, lens, bias, i, dst[i], want)
						}
					}
				}
			}
		}
	})
}

// TestAxpySquaresSparseRows holds every level to g_j += a_i·x_ij and D_j
// += ((2·b_i)·x_ij)·x_ij, row after row, bit for bit, for rows of 0..40
// terms, consecutive from lo or listed with repeats, with and without the
// bias pseudo-feature; g and D past n (n + 1) are left alone.
func TestAxpySquaresSparseRows(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(25, 11))
		for _, n := range []int{1, 5, 17, 64} {
			for _, lens := range [][]int{{0}, {1, 2, 3}, {4, 5, 6, 7, 8}, {9, 12, 15, 16, 17}, {3, 40, 11, 0, 33, 16}} {
				for _, picked := range []bool{false, true} {
					for _, bias := range []float64{-1, 0.5} {
						m := 9
						start, index, value := csrCase(r, n, m, r.IntN(3), lens)
						var rows []int32
						lo, hi := 2, m
						if picked {
							lo, hi = 1, 12
							for range hi {
								rows = append(rows, int32(r.IntN(m)))
							}
						}
						a, b := make([]float64, m), make([]float64, m)
						for i := range a {
							a[i], b[i] = r.NormFloat64(), r.Float64()*3
						}
						g, D := make([]float64, n+2), make([]float64, n+2)
						for j := range g {
							g[j], D[j] = r.NormFloat64(), r.Float64()
						}
						wg, wD := append([]float64(nil), g...), append([]float64(nil), D...)
						AxpySquaresSparseRows(g, D, start, index, value, n, rows, lo, hi, a, b, 2, bias)
						for k := lo; k < hi; k++ {
							i := k
							if picked {
								i = int(rows[k])
							}
							for e := start[i]; e < start[i+1]; e++ {
								v, j := float64(value[e]), index[e]
								wg[j] += float64(a[i] * v)
								wD[j] += float64(float64(2*b[i]*v) * v)
							}
							if bias >= 0 {
								wg[n] += float64(a[i] * bias)
								wD[n] += float64(float64(2*b[i]*bias) * bias)
							}
						}
						for j := range wg {
							if math.Float64bits(g[j]) != math.Float64bits(wg[j]) || math.Float64bits(D[j]) != math.Float64bits(wD[j]) {
								t.Fatalf("n %d lens %v picked %v bias %v: g, D[%d] = %v, %v, want %v, %v", n, lens, picked, bias, j, g[j], D[j], wg[j], wD[j])
							}
						}
					}
				}
			}
		}
	})
}

// BenchmarkHvSparseRows: a Hessian-vector pass over 20,000 rows of 3..10
// nonzeros among 9,000 features drawn from a Zipf law (debdesc_bin's
// shape: a text set's words), portable against this machine's path.
func BenchmarkHvSparseRows(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 5))
	m, n := 20000, 9000
	z := rand.NewZipf(r, 1.1, 2, uint64(n-1))
	start, index, value := []int{0}, []int32(nil), []float32(nil)
	for k := range m {
		row := map[int32]bool{}
		for len(row) < 3+k%8 {
			row[int32(z.Uint64())] = true
		}
		for j := range int32(n) { // increasing
			if row[j] {
				index, value = append(index, j), append(value, float32(r.Float64()))
			}
		}
		start = append(start, len(index))
	}
	s, Hs, a := make([]float64, n), make([]float64, n), make([]float64, m)
	for j := range s {
		s[j] = r.NormFloat64()
	}
	for i := range a {
		a[i] = r.Float64()
	}
	benchLevels(b, func(b *testing.B) {
		b.SetBytes(int64(8 * len(index)))
		for range b.N {
			HvSparseRows(Hs, s, start, index, value, n, nil, 0, m, a, 1, -1, nil)
		}
	})
}
