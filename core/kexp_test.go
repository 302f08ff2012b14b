package core

import (
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// expFast against math.Exp: relative error a few float64 ulps over the
// RBF kernel's range, and float32 results equal but for rare ties.
func TestExpFast(t *testing.T) {
	rng := solve.NewRNG(7)
	const n = 1_000_000
	x := make([]float64, n)
	for i := range x {
		switch i % 4 {
		case 0:
			x[i] = -(float64(rng.Next()>>11) / (1 << 53)) * 750 // the whole range, subnormals included
		case 1:
			x[i] = -(float64(rng.Next()>>11) / (1 << 53)) * 20 // where kernel values live
		case 2:
			x[i] = -(float64(rng.Next()>>11) / (1 << 53)) * 1e-6 // near K = 1
		default:
			x[i] = ((float64(rng.Next()>>11) / (1 << 53)) - 0.5) * 1400 // both signs
		}
	}
	dst := make([]float32, n)
	expBatch32(dst, x)
	mismatch := 0
	for i, v := range x {
		want := math.Exp(v)
		got := expFast(v)
		if want > 1e-300 && math.Abs(got-want) > 8e-16*want {
			t.Fatalf("expFast(%v) = %v, math.Exp %v: relative error %.3g", v, got, want, (got-want)/want)
		}
		if f := float32(got); dst[i] != f && !(math.IsNaN(float64(f)) && math.IsNaN(float64(dst[i]))) {
			t.Fatalf("expBatch32 at %v = %v, float32(expFast) %v: the batch and the scalar differ", v, dst[i], f)
		}
		if dst[i] != float32(want) {
			mismatch++
			if d := math.Abs(float64(dst[i]) - float64(float32(want))); d > 1.2e-7*want {
				t.Fatalf("expBatch32 at %v = %v, want %v", v, dst[i], float32(want))
			}
		}
	}
	if mismatch > n/100000 {
		t.Errorf("%d of %d float32 results differ from math.Exp's", mismatch, n)
	}
	for _, c := range []struct{ x, want float64 }{
		{0, 1}, {math.Inf(-1), 0}, {-746, 0}, {-1, math.Exp(-1)}, {math.Ln2 / 64, math.Exp(math.Ln2 / 64)},
	} {
		if got := expFast(c.x); got != c.want && math.Abs(got-c.want) > 2.3e-16*c.want {
			t.Errorf("expFast(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if !math.IsNaN(expFast(math.NaN())) {
		t.Error("expFast(NaN) is not NaN")
	}
	if a := testing.AllocsPerRun(10, func() { expBatch32(dst[:1000], x[:1000]) }); a != 0 {
		t.Errorf("expBatch32 allocates %v", a)
	}
}

func BenchmarkExp(b *testing.B) {
	x := make([]float64, 4096)
	for i := range x {
		x[i] = -float64(i) / 256
	}
	dst := make([]float32, len(x))
	b.Run("expBatch32", func(b *testing.B) {
		b.SetBytes(int64(len(x)) * 8)
		for b.Loop() {
			expBatch32(dst, x)
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		b.SetBytes(int64(len(x)) * 8)
		for b.Loop() {
			for t, v := range x {
				dst[t] = float32(math.Exp(v))
			}
		}
	})
}
