package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// firstNonFiniteRef is FirstNonFinite one value at a time, by math.IsNaN
// and math.IsInf: the reference every level is held to.
func firstNonFiniteRef(x []float32) int {
	for i, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return i
		}
	}
	return -1
}

// TestFirstNonFinite checks every level against the reference on every
// length up to 100 (three AVX2 blocks of 32, the word loop and the tail),
// with a NaN, an infinity or the largest finite values at every index, in
// slices starting at even and odd indices of their array; and with two
// non-finite values, the first found.
func TestFirstNonFinite(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 9))
		base := make([]float32, 101)
		for i := range base {
			bits := rng.Uint32()
			for bits&0x7f800000 == 0x7f800000 {
				bits = rng.Uint32()
			}
			base[i] = math.Float32frombits(bits)
		}
		specials := []uint32{0x7fc00000, 0x7f800000, 0xff800000, 0x7f800001, 0xffffffff, 0x7f7fffff, 0xff7fffff, 0x00800000, 0}
		for off := range 2 {
			for n := range 101 - off {
				x := base[off : off+n]
				if got := FirstNonFinite(x); got != -1 {
					t.Fatalf("offset %d, length %d, all finite: got %d", off, n, got)
				}
				for k := range n {
					for _, bits := range specials {
						old := x[k]
						x[k] = math.Float32frombits(bits)
						if got, want := FirstNonFinite(x), firstNonFiniteRef(x); got != want {
							t.Fatalf("offset %d, length %d, %#08x at %d: got %d, want %d", off, n, bits, k, got, want)
						}
						if k+40 < n {
							later := x[k+40]
							x[k+40] = float32(math.Inf(-1))
							if got := FirstNonFinite(x); got != firstNonFiniteRef(x) {
								t.Fatalf("offset %d, length %d, %#08x at %d and -Inf at %d: got %d", off, n, bits, k, k+40, got)
							}
							x[k+40] = later
						}
						x[k] = old
					}
				}
			}
		}
	})
}

// BenchmarkFirstNonFinite times the scan of 1000 rows of 784 finite
// values (a 1000-row request to svmgo serve), on each level.
func BenchmarkFirstNonFinite(b *testing.B) {
	x := make([]float32, 1000*784)
	for i := range x {
		x[i] = float32(i%255) / 255
	}
	for _, l := range available() {
		b.Run(l.String(), func(b *testing.B) {
			defer use(l)()
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				if FirstNonFinite(x) != -1 {
					b.Fatal("non-finite")
				}
			}
		})
	}
}
