package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxAbsProd holds every level to the written-out contract (the
// largest |x·a|, NaN when a product is NaN) on every length up to 100 and
// a Fashion-MNIST row's 784, with zeros, infinities against zero steps,
// NaNs and negative values at random places.
func TestMaxAbsProd(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(30, 3))
		for _, n := range append(lengths(100), 784) {
			for trial := range 12 {
				x, a := make([]float32, n), make([]float32, n+trial%2)
				for i := range x {
					x[i] = float32(r.NormFloat64() * 100)
					a[i] = float32(r.Float64())
					if r.IntN(4) == 0 {
						x[i] = 0
					}
				}
				if n > 0 {
					switch p := r.IntN(n); trial % 4 {
					case 1:
						x[p], a[p] = float32(math.Inf(1)), 0 // NaN product
					case 2:
						x[p] = float32(math.NaN())
					case 3:
						x[p], a[p] = float32(math.Inf(-1)), 0.5 // +Inf product
					}
				}
				want, nan := 0.0, false
				for i := range x {
					p := math.Abs(float64(x[i]) * float64(a[i]))
					if math.IsNaN(p) {
						nan = true
					} else if p > want {
						want = p
					}
				}
				if nan {
					want = math.NaN()
				}
				got := MaxAbsProd(x, a)
				if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && nan) {
					t.Fatalf("n=%d trial %d: %v, want %v", n, trial, got, want)
				}
			}
		}
	})
}

// TestRoundLimbs holds every level to the written-out contract: q the
// nearest integer to x·a·inv (halves away from zero), lo in
// [−2^(shift−1), 2^(shift−1)) and hi·2^shift + lo = q, over random values
// up to 2^25, exact halves of both signs, the largest value below 1/2,
// zeros of both signs, at shifts 12 and 16 and every length up to 100.
func TestRoundLimbs(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(30, 4))
		for _, shift := range []int{12, 16} {
			for _, n := range append(lengths(100), 784) {
				x, a := make([]float32, n), make([]float32, n)
				inv := 1 + r.Float64()
				for i := range x {
					a[i] = float32(r.Float64())
					x[i] = float32(r.NormFloat64() * float64(1<<24) / inv)
					switch r.IntN(6) {
					case 0: // an exact half: x·1·1 = k + 1/2
						x[i], a[i] = float32(r.IntN(1<<20))+0.5, 1
						if r.IntN(2) == 0 {
							x[i] = -x[i]
						}
					case 1:
						x[i] = 0
						if r.IntN(2) == 0 {
							x[i] = float32(math.Copysign(0, -1))
						}
					case 2:
						x[i], a[i] = float32(r.Float64()*16-8), 1
					}
				}
				hi, lo := make([]int16, n+1), make([]int16, n+1)
				hi[n], lo[n] = 7, 7 // past len(x): untouched
				invs := []float64{inv, 1}
				for _, inv := range invs {
					RoundLimbs(hi, lo, x, a, inv, shift)
					for i := range x {
						y := float64(x[i]) * float64(a[i]) * inv
						q := math.Floor(math.Abs(y))
						if math.Abs(y)-q >= 0.5 {
							q++
						}
						q = math.Copysign(q, y)
						l := int64(lo[i])
						if l < -(1<<(shift-1)) || l >= 1<<(shift-1) ||
							float64(int64(hi[i])<<shift+l) != q {
							t.Fatalf("shift %d n=%d i=%d: y %v: hi %d lo %d, want %v", shift, n, i, y, hi[i], lo[i], q)
						}
					}
					if hi[n] != 7 || lo[n] != 7 {
						t.Fatalf("n=%d: wrote past len(x)", n)
					}
				}
			}
		}
		// The largest float64 below 1/2 rounds to 0, not 1.
		hi, lo := make([]int16, 16), make([]int16, 16)
		x, a := make([]float32, 16), make([]float32, 16)
		for i := range x {
			x[i], a[i] = 1, 1
		}
		RoundLimbs(hi, lo, x, a, math.Nextafter(0.5, 0), 16)
		for i := range x {
			if hi[i] != 0 || lo[i] != 0 {
				t.Fatalf("0.49999999999999994 gave hi %d lo %d", hi[i], lo[i])
			}
		}
	})
}

func BenchmarkRoundLimbs(b *testing.B) {
	for _, l := range available() {
		b.Run(l.String(), func(b *testing.B) {
			defer use(l)()
			x, a := make([]float32, 784), make([]float32, 784)
			hi, lo := make([]int16, 784), make([]int16, 784)
			for i := range x {
				x[i], a[i] = float32(i%255)/255, 1.0/255
			}
			b.SetBytes(4 * 784)
			for b.Loop() {
				RoundLimbs(hi, lo, x, a, 1<<24, 16)
				MaxAbsProd(x, a)
			}
		})
	}
}

// TestGemmS8x16 holds every level to the product written out in int64
// and truncated to int32 (the sums wrap modulo 2³² alike): exact within
// the stated bound (|a| ≤ 2^14+1 against int8 codes over 392 pairs, a
// Fashion-MNIST row), and modulo 2³² at the extremes of int16, over row
// counts around the 8-row kernel and widths around a panel.
func TestGemmS8x16(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(30, 5))
		for _, maxA := range []int{1<<14 + 1, 1 << 15} {
			if maxA == 1<<14+1 && S16Chunk(int64(maxA), 128) < 392 {
				t.Fatalf("S16Chunk(2^14+1, 128) = %d, below 392 pairs", S16Chunk(int64(maxA), 128))
			}
			for _, k := range []int{0, 1, 3, 4, 67, 784} {
				for _, m := range []int{1, 7, 8, 9, 17} {
					for _, n := range []int{1, 31, 33, 70} {
						k2 := Round2(k)
						lda := k2 + r.IntN(2)*2
						ldc := PaddedCols(n) + r.IntN(3)
						a := make([]int16, (m-1)*lda+k2)
						for i := range a {
							a[i] = int16(r.IntN(2*maxA) - maxA)
							if r.IntN(8) == 0 {
								a[i] = 0
							}
						}
						b := make([]int8, n*k)
						for i := range b {
							b[i] = int8(r.IntN(256) - 128)
						}
						bp := make([]int8, PackedLenS16(n, k))
						PackS8Pairs(bp, b, n, k, k, 1)
						c := make([]int32, (m-1)*ldc+PaddedCols(n))
						for i := range c {
							c[i] = int32(i) // overwritten
						}
						GemmS8x16(c, ldc, a, lda, m, bp, n, k)
						for i := range m {
							for j := range PaddedCols(n) {
								var want int64
								for q := 0; q < k && j < n; q++ {
									want += int64(a[i*lda+q]) * int64(b[j*k+q])
								}
								if got := c[i*ldc+j]; got != int32(want) {
									t.Fatalf("maxA %d k=%d m=%d n=%d: c[%d][%d] = %d, want %d", maxA, k, m, n, i, j, got, want)
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestWidenShift holds every level to int64(x)<<shift + add over every
// length up to 100, the extremes of int32 and shifts 0, 10 and 31.
func TestWidenShift(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(30, 6))
		for _, shift := range []int{0, 10, 31} {
			for _, n := range lengths(100) {
				src := make([]int32, n)
				for i := range src {
					src[i] = int32(r.Uint32())
					if i%7 == 0 {
						src[i] = math.MinInt32 + int32(i%2)*-1
					}
				}
				add := r.Int64N(1<<40) - 1<<39
				dst := make([]int64, n+1)
				dst[n] = 5
				WidenShift(dst, src, shift, add)
				for i, v := range src {
					if want := int64(v)<<shift + add; dst[i] != want {
						t.Fatalf("shift %d n=%d i=%d: %d, want %d", shift, n, i, dst[i], want)
					}
				}
				if dst[n] != 5 {
					t.Fatalf("n=%d: wrote past len(src)", n)
				}
			}
		}
	})
}
