package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// forEachLevel runs f once per path this machine has, Portable first.
func forEachLevel(t *testing.T, f func(t *testing.T)) {
	for _, l := range available() {
		t.Run(l.String(), func(t *testing.T) {
			defer use(l)()
			f(t)
		})
	}
}

// randFloats returns n values of mixed sign and magnitude, at offset off
// inside a larger slice so that the data start unaligned.
func randFloats(r *rand.Rand, n, off int) []float32 {
	buf := make([]float32, n+off)
	for i := range buf {
		buf[i] = float32(r.NormFloat64() * math.Exp(r.Float64()*4-2))
	}
	return buf[off:]
}

// dotTol is the bound the package comment states for a float32 dot
// product of n terms whose absolute products sum to abs.
func dotTol(n int, abs float64) float64 {
	return 4*math.Sqrt(float64(n)+1)*0x1p-24*abs + 1e-30
}

func refDot(x, y []float32) (dot, abs float64) {
	for i := range x {
		p := float64(x[i]) * float64(y[i])
		dot += p
		abs += math.Abs(p)
	}
	return dot, abs
}

func TestDotRandom(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		lengths := []int{}
		for n := 0; n <= 67; n++ {
			lengths = append(lengths, n)
		}
		lengths = append(lengths, 255, 256, 784, 1000, 4099)
		for _, n := range lengths {
			for off := range 4 {
				x, y := randFloats(r, n, off), randFloats(r, n, 3-off)
				want, abs := refDot(x, y)
				got := Dot(x, y)
				if d := math.Abs(float64(got) - want); d > dotTol(n, abs) {
					t.Fatalf("n=%d off=%d: Dot = %v, want %v (diff %g > %g)", n, off, got, want, d, dotTol(n, abs))
				}
				pp := dotPortable(x, y)
				if d := math.Abs(float64(got) - float64(pp)); d > 2*dotTol(n, abs) {
					t.Fatalf("n=%d: Dot = %v, portable %v", n, got, pp)
				}
			}
		}
	})
}

func TestDotSpecials(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for n := 1; n <= 67; n++ {
			for _, pos := range []int{0, n / 2, n - 1} {
				x := make([]float32, n)
				y := make([]float32, n)
				for i := range x {
					x[i], y[i] = 1, 2
				}
				want := float32(2 * n)
				if got := Dot(x, y); got != want {
					t.Fatalf("n=%d: Dot of ones and twos = %v, want %v", n, got, want)
				}
				x[pos] = float32(math.NaN())
				if got := Dot(x, y); !math.IsNaN(float64(got)) {
					t.Fatalf("n=%d: NaN at %d gives %v", n, pos, got)
				}
				x[pos] = float32(math.Inf(1))
				if got := Dot(x, y); !math.IsInf(float64(got), 1) {
					t.Fatalf("n=%d: +Inf at %d gives %v", n, pos, got)
				}
				y[pos] = 0 // Inf·0 is NaN on every path
				if got := Dot(x, y); !math.IsNaN(float64(got)) {
					t.Fatalf("n=%d: Inf·0 at %d gives %v", n, pos, got)
				}
				// Subnormal products are kept, not flushed: 2⁻⁷⁰·2⁻⁷⁰ = 2⁻¹⁴⁰.
				for i := range x {
					x[i], y[i] = 0x1p-70, 0x1p-70
				}
				if got, want := Dot(x, y), float32(n)*0x1p-140; got != want {
					t.Fatalf("n=%d: subnormal dot = %v, want %v", n, got, want)
				}
			}
		}
	})
}

// refGemm returns C = A·Bᵀ in float64 and the sums of absolute products.
func refGemm(a []float32, lda, m int, b []float32, n, k int) (c, abs []float64) {
	c = make([]float64, m*n)
	abs = make([]float64, m*n)
	for i := range m {
		for j := range n {
			d, s := refDot(a[i*lda:][:k], b[j*k:][:k])
			c[i*n+j], abs[i*n+j] = d, s
		}
	}
	return c, abs
}

func TestGemm(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		ks := []int{0, 1, 2, 3, 9, 16, 31, 64, 67, 784}
		for _, k := range ks {
			for _, m := range []int{1, 2, 3, 4, 5, 7, 8, 9, 13, 14, 15, 23, 24, 29, 31} { // 24: three passes of gemm8AVX512's prefetches; 14 up: gemm14AVX512, 23 and 31 its overlapping last pass
				for _, n := range []int{1, 5, 31, 32, 33, 64, 67, 100} {
					lda := k + r.IntN(3)
					ldc := PaddedCols(n) + r.IntN(3)
					a := randFloats(r, max(0, (m-1)*lda+k), r.IntN(4))
					b := randFloats(r, n*k, 0)
					bp := make([]float32, PackedLen(n, k))
					Pack(bp, b, n, k, k, 1)
					const sentinel = 12345
					c := make([]float32, (m-1)*ldc+PaddedCols(n)+5)
					for i := range c {
						c[i] = sentinel
					}
					Gemm(c, ldc, a, lda, m, bp, n, k)
					want, abs := refGemm(a, lda, m, b, n, k)
					for i := range m {
						for j := range PaddedCols(n) {
							got := float64(c[i*ldc+j])
							if j >= n {
								if got != 0 {
									t.Fatalf("k=%d m=%d n=%d: padding c[%d][%d] = %v, want 0", k, m, n, i, j, got)
								}
								continue
							}
							if d := math.Abs(got - want[i*n+j]); d > dotTol(k, abs[i*n+j]) {
								t.Fatalf("k=%d m=%d n=%d: c[%d][%d] = %v, want %v", k, m, n, i, j, got, want[i*n+j])
							}
						}
						for j := PaddedCols(n); j < ldc && i < m-1; j++ {
							if c[i*ldc+j] != sentinel {
								t.Fatalf("k=%d m=%d n=%d: c[%d][%d] past the panels was written", k, m, n, i, j)
							}
						}
					}
					for _, v := range c[(m-1)*ldc+PaddedCols(n):] {
						if v != sentinel {
							t.Fatalf("k=%d m=%d n=%d: c written past its end", k, m, n)
						}
					}
				}
			}
		}
	})
}

// TestGemmRowsAgree checks that a row of C has the same bits however many
// rows Gemm takes at once: the 14-, 8- and 4-row kernels, the passes that
// overlap the one before (gemmPanels) and a row alone all compute an
// element as one chain of FMAs over q = 0, 1, ..., k−1, and the blocked
// predictors' decision values, hence their labels, do not depend on how a
// batch is cut into blocks.
func TestGemmRowsAgree(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(11, 12))
		for _, k := range []int{1, 2, 3, 784, 785} {
			const n = 230 // 8 panels: several of gemmBlockBytes's blocks at k = 784
			lda, ldc := k+1, PaddedCols(n)+3
			const rows = 47
			a := randFloats(r, rows*lda, 0)
			bp := make([]float32, PackedLen(n, k))
			Pack(bp, randFloats(r, n*k, 0), n, k, k, 1)
			alone := make([]float32, rows*ldc)
			for i := range rows {
				Gemm(alone[i*ldc:], ldc, a[i*lda:], lda, 1, bp, n, k)
			}
			c := make([]float32, rows*ldc)
			for m := 1; m <= rows; m++ {
				clear(c)
				Gemm(c, ldc, a, lda, m, bp, n, k)
				for i := range m {
					for j := range n {
						if got, want := c[i*ldc+j], alone[i*ldc+j]; math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("k=%d m=%d: c[%d][%d] = %v, alone %v", k, m, i, j, got, want)
						}
					}
				}
			}
		}
	})
}

func TestGemmColumnMajorPack(t *testing.T) {
	// Pack with strides (1, n) reads B stored column-major, as a linear
	// model's feature-major weights are.
	r := rand.New(rand.NewPCG(5, 6))
	n, k := 10, 37
	b := randFloats(r, n*k, 0)
	bt := make([]float32, n*k)
	for j := range n {
		for q := range k {
			bt[q*n+j] = b[j*k+q]
		}
	}
	p1 := make([]float32, PackedLen(n, k))
	p2 := make([]float32, PackedLen(n, k))
	Pack(p1, b, n, k, k, 1)
	Pack(p2, bt, n, k, 1, n)
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Fatalf("packed[%d]: row-major %v, column-major %v", i, p1[i], p2[i])
		}
	}
}

func TestGemmSpecials(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		const m, n, k = 5, 40, 19
		a := make([]float32, m*k)
		for i := range a {
			a[i] = 1
		}
		b := make([]float32, n*k)
		for i := range b {
			b[i] = 0x1p-70
		}
		a[2*k+3] = float32(math.NaN())
		b[7*k+5] = float32(math.Inf(-1))
		bp := make([]float32, PackedLen(n, k))
		Pack(bp, b, n, k, k, 1)
		c := make([]float32, m*PaddedCols(n))
		Gemm(c, PaddedCols(n), a, k, m, bp, n, k)
		for i := range m {
			for j := range n {
				got := c[i*PaddedCols(n)+j]
				switch {
				case i == 2:
					if !math.IsNaN(float64(got)) {
						t.Fatalf("row with NaN: c[%d][%d] = %v", i, j, got)
					}
				case j == 7:
					if !math.IsInf(float64(got), -1) {
						t.Fatalf("column with -Inf: c[%d][%d] = %v", i, j, got)
					}
				default:
					if want := float32(k) * 0x1p-70; got != want {
						t.Fatalf("c[%d][%d] = %v, want %v", i, j, got, want)
					}
				}
			}
		}
	})
}

// expCases returns a dense sweep of the float32 range of exp plus specials.
func expCases() []float32 {
	var xs []float32
	for x := -110.0; x <= 95; x += 0.0137 {
		xs = append(xs, float32(x))
	}
	for _, v := range []float64{0, math.Copysign(0, -1), 1e-40, -1e-40, 0x1p-149, 1e-8, -1e-8,
		-87.33654, -87.3, -88.7, -103.9, -104, -150, 88.72, 88.7228, 88.73, 89, 1000, -1000} {
		xs = append(xs, float32(v))
	}
	return xs
}

func checkExp(t *testing.T, x, got []float32) {
	t.Helper()
	for i, v := range x {
		g := float64(got[i])
		w := math.Exp(float64(v))
		switch {
		case w > math.MaxFloat32:
			if !math.IsInf(g, 1) {
				t.Fatalf("Exp(%v) = %v, want +Inf", v, g)
			}
		case w >= 0x1p-126:
			if e := math.Abs(g-w) / w; e > ExpMaxRelError {
				t.Fatalf("Exp(%v) = %v, want %v (relative error %g > %g)", v, g, w, e, ExpMaxRelError)
			}
		default:
			if d := math.Abs(g - w); d > 0x1p-126 {
				t.Fatalf("Exp(%v) = %v, want %v within 2⁻¹²⁶", v, g, w)
			}
		}
	}
}

func TestExp(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		xs := expCases()
		for off := range 4 {
			x := append(make([]float32, off), xs...)[off:]
			got := make([]float32, len(x))
			exp(got, x)
			checkExp(t, x, got)
			want := make([]float32, len(x))
			expPortable(want, x)
			for i := range x {
				if d := math.Abs(float64(got[i]) - float64(want[i])); !(d <= 2*ExpMaxRelError*math.Abs(float64(want[i]))+0x1p-126) &&
					!(math.IsInf(float64(got[i]), 1) && math.IsInf(float64(want[i]), 1)) {
					t.Fatalf("Exp(%v) = %v, portable %v", x[i], got[i], want[i])
				}
			}
		}
		// Specials and every short length (masked tails).
		sp := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
		wants := []float64{math.NaN(), math.Inf(1), 0}
		for n := 0; n <= 67; n++ {
			x := make([]float32, n+1)
			for i := range x {
				x[i] = float32(i%7) - 3.5
			}
			got := make([]float32, n+1)
			got[n] = 42
			exp(got[:n], x[:n])
			if got[n] != 42 {
				t.Fatalf("n=%d: Exp wrote past len(x)", n)
			}
			checkExp(t, x[:n], got[:n])
			if n > 0 {
				for s, v := range sp {
					x[n-1] = v
					exp(got[:n], x[:n])
					g := float64(got[n-1])
					if math.IsNaN(wants[s]) != math.IsNaN(g) || (!math.IsNaN(g) && g != wants[s]) {
						t.Fatalf("n=%d: Exp(%v) = %v, want %v", n, v, g, wants[s])
					}
				}
			}
		}
		// In place.
		x := []float32{0, 1, -1, 2}
		exp(x, x)
		if x[0] != 1 || math.Abs(float64(x[1])-math.E) > 1e-6 {
			t.Fatalf("Exp in place: %v", x)
		}
	})
}

func TestExpRBF(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		for n := 0; n <= 67; n++ {
			dot := randFloats(r, n, n%4)
			base := randFloats(r, n, 0)
			const scale, offset = 0.7, -0.25
			got := make([]float32, n)
			ExpRBF(got, dot, base, scale, offset)
			for i := range n {
				arg := min(0, scale*float64(dot[i])+float64(base[i])+offset)
				w := math.Exp(arg)
				// The argument's own rounding (≤ 2 ulps of its terms) adds to Exp's error.
				tol := ExpMaxRelError*w + w*4*0x1p-24*(math.Abs(scale*float64(dot[i]))+math.Abs(float64(base[i]))+math.Abs(offset))
				if d := math.Abs(float64(got[i]) - w); d > tol {
					t.Fatalf("n=%d: ExpRBF[%d] = %v, want %v", n, i, got[i], w)
				}
			}
		}
		got := []float32{0}
		ExpRBF(got, []float32{float32(math.NaN())}, []float32{0}, 1, 0)
		if !math.IsNaN(float64(got[0])) {
			t.Fatalf("ExpRBF(NaN) = %v", got[0])
		}
	})
}

func TestTanh(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		var xs []float32
		for x := -12.0; x <= 12; x += 0.00731 {
			xs = append(xs, float32(x))
		}
		for _, v := range []float64{0, 1e-40, -1e-40, 1e-20, 0.29999, 0.3, 0.30001, -0.3, 100, -100} {
			xs = append(xs, float32(v))
		}
		got := make([]float32, len(xs))
		Tanh(got, xs)
		for i, v := range xs {
			w := math.Tanh(float64(v))
			if w == 0 {
				if got[i] != 0 {
					t.Fatalf("Tanh(%v) = %v, want 0", v, got[i])
				}
				continue
			}
			if e := math.Abs(float64(got[i])-w) / math.Abs(w); e > TanhMaxRelError {
				t.Fatalf("Tanh(%v) = %v, want %v (relative error %g)", v, got[i], w, e)
			}
		}
		sp := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
		Tanh(sp, sp)
		if !math.IsNaN(float64(sp[0])) || sp[1] != 1 || sp[2] != -1 {
			t.Fatalf("Tanh(NaN, +Inf, -Inf) = %v", sp)
		}
	})
}

// TestGemmS16Limbs holds every path to an int64 reference at the limits
// of the chunk bound: limbs and codes drawn from their extremes as well as
// at random, so that the int32 sums of a chunk reach ±(2³¹ − 1)·(near).
func TestGemmS16Limbs(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 14))
		for _, lim := range []struct{ shift, maxLo, maxHi, maxB int }{
			{16, 32768, 256, 128},   // int8 codes
			{12, 2048, 4097, 32768}, // int16 codes
		} {
			maxA := max(lim.maxLo, lim.maxHi)
			chunk := S16Chunk(int64(maxA), int64(lim.maxB))
			draw := func(m int) int16 { // extremes half the time
				switch r.IntN(4) {
				case 0:
					return int16(-m)
				case 1:
					return int16(m - 1)
				}
				return int16(r.IntN(2*m) - m)
			}
			for _, k := range []int{0, 1, 3, 4, 14, 15, 64, 67, 784} {
				for _, m := range []int{1, 3, 4, 5, 9} {
					for _, n := range []int{1, 31, 33, 70} {
						k2 := Round2(k)
						lda := k2 + r.IntN(2)*2
						ldc := PaddedCols(n) + r.IntN(3)
						hi := make([]int16, (m-1)*lda+k2)
						lo := make([]int16, len(hi))
						for i := range hi {
							hi[i], lo[i] = draw(lim.maxHi), draw(lim.maxLo)
						}
						b := make([]int16, n*k)
						for i := range b {
							b[i] = draw(lim.maxB)
						}
						bp := make([]int16, PackedLenS16(n, k))
						PackS16(bp, b, n, k, k, 1)
						c := make([]int64, (m-1)*ldc+PaddedCols(n))
						for i := range c {
							c[i] = int64(i) << 40 // overwritten
						}
						GemmS16Limbs(c, ldc, hi, lo, lda, m, bp, n, k, lim.shift, chunk)
						if lim.maxB <= 128 { // int8 codes: the int8 packing gives the same
							b8 := make([]int8, len(b))
							for i, v := range b {
								b8[i] = int8(v)
							}
							bp8 := make([]int8, PackedLenS16(n, k))
							PackS8Pairs(bp8, b8, n, k, k, 1)
							c8 := make([]int64, len(c))
							GemmS8Limbs(c8, ldc, hi, lo, lda, m, bp8, n, k, lim.shift, chunk)
							for i := range m {
								if !slices.Equal(c8[i*ldc:][:PaddedCols(n)], c[i*ldc:][:PaddedCols(n)]) {
									t.Fatalf("k=%d m=%d n=%d: GemmS8Limbs row %d differs from GemmS16Limbs", k, m, n, i)
								}
							}
						}
						for i := range m {
							for j := range PaddedCols(n) {
								var w int64
								for q := 0; q < k && j < n; q++ {
									w += (int64(hi[i*lda+q])<<lim.shift + int64(lo[i*lda+q])) * int64(b[j*k+q])
								}
								if c[i*ldc+j] != w {
									t.Fatalf("shift %d k=%d m=%d n=%d: c[%d][%d] = %d, want %d", lim.shift, k, m, n, i, j, c[i*ldc+j], w)
								}
							}
						}
					}
				}
			}
		}
	})
}

func TestS16Chunk(t *testing.T) {
	// 2·32768·128 = 2²³: 255 pairs keep the sums below 2³¹; 256 do not.
	if got := S16Chunk(32768, 128); got != 255 {
		t.Fatalf("S16Chunk(32768, 128) = %d, want 255", got)
	}
	if got := S16Chunk(32768, 32768); got != 0 {
		t.Fatalf("S16Chunk(32768, 32768) = %d, want 0", got)
	}
}

func TestPanics(t *testing.T) {
	cases := map[string]func(){
		"Dot":            func() { Dot(make([]float32, 3), make([]float32, 4)) },
		"ExpRBF":         func() { ExpRBF(make([]float32, 3), make([]float32, 3), make([]float32, 2), 1, 0) },
		"Tanh":           func() { Tanh(make([]float32, 2), make([]float32, 3)) },
		"Gemm c":         func() { Gemm(make([]float32, 31), 32, make([]float32, 4), 4, 1, make([]float32, 128), 1, 4) },
		"Gemm a":         func() { Gemm(make([]float32, 64), 32, make([]float32, 7), 4, 2, make([]float32, 128), 1, 4) },
		"Gemm bp":        func() { Gemm(make([]float32, 32), 32, make([]float32, 4), 4, 1, make([]float32, 127), 1, 4) },
		"Gemm ldc":       func() { Gemm(make([]float32, 64), 16, make([]float32, 8), 4, 2, make([]float32, 128), 1, 4) },
		"DotStrided y":   func() { DotStrided(make([]float32, 2), make([]float32, 3), make([]float32, 6), 4) },
		"DotStrided ldy": func() { DotStrided(make([]float32, 2), make([]float32, 3), make([]float32, 9), -1) },
		"GemmS16Limbs hi": func() {
			GemmS16Limbs(make([]int64, 32), 32, make([]int16, 3), make([]int16, 3), 4, 1, make([]int16, 128), 1, 3, 0, 1)
		},
		"GemmS16Limbs lo": func() {
			GemmS16Limbs(make([]int64, 32), 32, make([]int16, 4), make([]int16, 3), 4, 1, make([]int16, 128), 1, 3, 0, 1)
		},
		"GemmS16Limbs chunk": func() {
			GemmS16Limbs(make([]int64, 32), 32, make([]int16, 4), make([]int16, 4), 4, 1, make([]int16, 128), 1, 3, 0, 0)
		},
		"Pack b":        func() { Pack(make([]float32, 128), make([]float32, 3), 1, 4, 4, 1) },
		"PackS16 short": func() { PackS16(make([]int16, 127), make([]int16, 4), 1, 4, 4, 1) },
		"GemmS8Limbs bp": func() {
			GemmS8Limbs(make([]int64, 32), 32, make([]int16, 4), make([]int16, 4), 4, 1, make([]int8, 127), 1, 3, 0, 1)
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s: no panic", name)
				}
			}()
			f()
		})
	}
}

func TestNoAllocs(t *testing.T) {
	x := make([]float32, 100)
	bp := make([]float32, PackedLen(40, 100))
	c := make([]float32, 5*PaddedCols(40))
	a := make([]float32, 5*100)
	u := make([]int16, 5*100)
	bs := make([]int16, PackedLenS16(40, 100))
	ci := make([]int64, 5*PaddedCols(40))
	allocs := testing.AllocsPerRun(20, func() {
		Dot(x, x)
		DotStrided(c[:7], x[:13], x, 12)
		Gemm(c, PaddedCols(40), a, 100, 5, bp, 40, 100)
		exp(x, x)
		ExpRBF(x, x, x, 1, 0)
		Tanh(x, x)
		GemmS16Limbs(ci, PaddedCols(40), u, u, 100, 5, bs, 40, 100, 16, 255)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run, want 0", allocs)
	}
}

func TestInfo(t *testing.T) {
	want := Portable
	switch {
	case hasAVX512:
		want = AVX512
	case hasAVX2:
		want = AVX2
	case hasNEON:
		want = NEON
	}
	if CurrentLevel() != want {
		t.Fatalf("CurrentLevel() = %v, want %v", CurrentLevel(), want)
	}
	t.Logf("simd: %s", Info())
	_ = fmt.Sprint(Info())
}

// exp is the exp kernel that ExpRBF and Tanh run (dst[i] = e^x[i],
// ExpMaxRelError), called as they call it: the tests check it over the
// whole float32 range, where ExpRBF clamps its argument to x ≤ 0.
func exp(dst, x []float32) {
	if len(dst) < len(x) {
		panic("simd: exp: dst shorter than x")
	}
	expRBF(dst, x, nil, 0, 0, false)
}

// TestRBFArgsS64 holds every path to the Go expression, bit for bit,
// including clamped (negative) distances, NaN sums' neighbours and lengths
// that leave a tail.
func TestRBFArgsS64(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(15, 16))
		for _, n := range []int{0, 1, 7, 8, 9, 64, 131} {
			s := make([]int64, n)
			ss := make([]float64, n)
			for i := range s {
				s[i] = r.Int64N(1<<50) - 1<<49
				ss[i] = r.Float64() * 100
			}
			xx, c0, tt, g := 40.0, 0.25, 3e-14, 0.03
			if n > 3 {
				ss[2] = math.NaN() // a NaN exponent, not counted
				s[3] = int64((xx + ss[3]) / 2 / tt)
			}
			dst := make([]float32, n)
			mx := RBFArgsS64(dst, s, ss, xx, c0, tt, g)
			want := math.Inf(-1)
			for i := range s {
				d := xx + ss[i] - 2*(c0+tt*float64(s[i]))
				if d < 0 {
					d = 0
				}
				e := -g * d
				if e > want {
					want = e
				}
				// A NaN's sign and payload depend on the operand order and the
				// architecture (amd64's default NaN is negative, arm64's
				// positive): any NaN for a NaN, every other value bit for bit.
				nan := math.IsNaN(float64(dst[i])) && math.IsNaN(e)
				if !nan && math.Float32bits(dst[i]) != math.Float32bits(float32(e)) {
					t.Fatalf("n=%d: dst[%d] = %v, want %v", n, i, dst[i], float32(e))
				}
			}
			if mx != want {
				t.Fatalf("n=%d: maximum %v, want %v", n, mx, want)
			}
		}
	})
}
