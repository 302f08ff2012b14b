package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Each benchmark runs the portable code (the scalar baseline) and the
// path this machine takes, side by side: go test -bench . ./core/simd.

func benchLevels(b *testing.B, f func(b *testing.B)) {
	ls := []Level{Portable}
	if CurrentLevel() != Portable {
		ls = append(ls, CurrentLevel())
	}
	for _, l := range ls {
		b.Run(l.String(), func(b *testing.B) {
			defer use(l)()
			b.ReportAllocs()
			f(b)
		})
	}
}

var sinkF float32

func BenchmarkDot(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{16, 64, 784, 4096} {
		x, y := randFloats(r, n, 0), randFloats(r, n, 0)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					sinkF += Dot(x, y)
				}
			})
		})
	}
}

// BenchmarkGemm reports bytes as the FLOPs of the product (2·m·n·k), so
// that MB/s reads as MFLOP/s.
func BenchmarkGemm(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	for _, sz := range []struct{ m, n, k int }{{1, 512, 64}, {4, 512, 9}, {32, 1024, 784}, {64, 5556, 784}} {
		a := randFloats(r, sz.m*sz.k, 0)
		bb := randFloats(r, sz.n*sz.k, 0)
		bp := make([]float32, PackedLen(sz.n, sz.k))
		Pack(bp, bb, sz.n, sz.k, sz.k, 1)
		c := make([]float32, sz.m*PaddedCols(sz.n))
		b.Run(fmt.Sprintf("%dx%dx%d", sz.m, sz.n, sz.k), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(int64(2 * sz.m * sz.n * sz.k))
				for b.Loop() {
					Gemm(c, PaddedCols(sz.n), a, sz.k, sz.m, bp, sz.n, sz.k)
				}
			})
		})
	}
}

func BenchmarkExp(b *testing.B) {
	for _, n := range []int{16, 1024, 5556} {
		x := make([]float32, n)
		for i := range x {
			x[i] = -float32(i%100) * 0.37
		}
		d := make([]float32, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(int64(4 * n))
				for b.Loop() {
					exp(d, x)
				}
			})
		})
	}
}

func BenchmarkExpRBF(b *testing.B) {
	const n = 5556
	x := make([]float32, n)
	base := make([]float32, n)
	for i := range x {
		x[i], base[i] = float32(i%100)*0.37, -float32(i%50)
	}
	d := make([]float32, n)
	benchLevels(b, func(b *testing.B) {
		b.SetBytes(4 * n)
		for b.Loop() {
			ExpRBF(d, x, base, 0.06, -3)
		}
	})
}

func BenchmarkTanh(b *testing.B) {
	const n = 1024
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i%100)*0.07 - 3.5
	}
	d := make([]float32, n)
	benchLevels(b, func(b *testing.B) {
		b.SetBytes(4 * n)
		for b.Loop() {
			Tanh(d, x)
		}
	})
}

// BenchmarkGemmS16Limbs reports 2·m·n·k "bytes", as BenchmarkGemm does:
// MB/s reads as millions of exact multiply-adds (of 25-bit by 16-bit
// integers) a second. The two chunk lengths are those of a quantized
// kernel model's int8 codes (255 pairs) and int16 codes (7).
func BenchmarkGemmS16Limbs(b *testing.B) {
	for _, sz := range []struct{ m, n, k, chunk int }{{64, 5556, 784, 255}, {64, 5556, 784, 7}} {
		k2 := Round2(sz.k)
		a := make([]int16, sz.m*k2)
		for i := range a {
			a[i] = int16(i * 7)
		}
		bb := make([]int16, sz.n*sz.k)
		for i := range bb {
			bb[i] = int16(i * 13)
		}
		bp := make([]int16, PackedLenS16(sz.n, sz.k))
		PackS16(bp, bb, sz.n, sz.k, sz.k, 1)
		c := make([]int64, sz.m*PaddedCols(sz.n))
		b.Run(fmt.Sprintf("%dx%dx%d/chunk%d", sz.m, sz.n, sz.k, sz.chunk), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(int64(2 * sz.m * sz.n * sz.k))
				for b.Loop() {
					GemmS16Limbs(c, PaddedCols(sz.n), a, a, k2, sz.m, bp, sz.n, sz.k, 12, sz.chunk)
				}
			})
		})
		bb8 := make([]int8, len(bb))
		for i, v := range bb {
			bb8[i] = int8(v)
		}
		bp8 := make([]int8, len(bp))
		PackS8Pairs(bp8, bb8, sz.n, sz.k, sz.k, 1)
		b.Run(fmt.Sprintf("%dx%dx%d/chunk%d/int8", sz.m, sz.n, sz.k, sz.chunk), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				b.SetBytes(int64(2 * sz.m * sz.n * sz.k))
				for b.Loop() {
					GemmS8Limbs(c, PaddedCols(sz.n), a, a, k2, sz.m, bp8, sz.n, sz.k, 12, sz.chunk)
				}
			})
		})
	}
}

// BenchmarkGemmS8x16 reports the products as bytes (two operations a
// product: MB/s reads as MOP/s, beside BenchmarkGemm's MFLOP/s).
func BenchmarkGemmS8x16(b *testing.B) {
	m, n, k := 64, 5556, 784
	k2 := Round2(k)
	a := make([]int16, m*k2)
	for i := range a {
		a[i] = int16(i * 7)
	}
	b8 := make([]int8, n*k)
	for i := range b8 {
		b8[i] = int8(i * 13)
	}
	bp := make([]int8, PackedLenS16(n, k))
	PackS8Pairs(bp, b8, n, k, k, 1)
	c := make([]int32, m*PaddedCols(n))
	benchLevels(b, func(b *testing.B) {
		b.SetBytes(int64(2 * m * n * k))
		for b.Loop() {
			GemmS8x16(c, PaddedCols(n), a, k2, m, bp, n, k)
		}
	})
}

// BenchmarkLog1p: a block of e^{−|z|} of normal margins, as the logistic
// loss's line search takes them.
func BenchmarkLog1p(b *testing.B) {
	r := rand.New(rand.NewPCG(25, 2))
	x, dst := make([]float64, 64), make([]float64, 64)
	for i := range x {
		x[i] = math.Exp(-math.Abs(3 * r.NormFloat64()))
	}
	benchLevels(b, func(b *testing.B) {
		b.SetBytes(int64(8 * len(x)))
		for b.Loop() {
			Log1p(dst, x)
		}
	})
}

// BenchmarkPairDots64 times a linear model's decision values for 784
// features and 10 classes (svmgo serve's benchmark model): one row, as a
// single-row request predicts, and a batch of 64.
func BenchmarkPairDots64(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const nf, nw = 784, 10
	w := randFloats(r, nf*nw, 0)
	for _, rows := range []int{1, 64} {
		x := randFloats(r, rows*nf, 0)
		dst := make([]float64, rows*nw)
		b.Run(fmt.Sprint(rows), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				for b.Loop() {
					PairDots64(dst, x, rows, nf, w, nw)
				}
			})
		})
	}
}
