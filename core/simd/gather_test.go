package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// testMarker is a NaN payload, as kept kernel columns use for "not set".
const testMarker uint32 = 0x7fc0_1a2b

// TestGatherMarked32 checks every level against the loop written out, bit
// for bit (NaN payloads included), on every length up to 100 and on
// longer ones, with and without marked values in src, indices repeated,
// and on dst longer than idx (the rest untouched).
func TestGatherMarked32(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(21, 5))
		for _, n := range append(lengths(100), 287, 1422, 4096) {
			for trial := range 6 {
				src := randFloats(r, 50+n+trial*7, trial%3)
				if trial%2 == 1 {
					for range 1 + trial {
						src[r.IntN(len(src))] = math.Float32frombits(testMarker)
					}
				}
				idx := make([]int32, n)
				for k := range idx {
					idx[k] = int32(r.IntN(len(src)))
				}
				dst := make([]float32, n+3)
				for k := range dst {
					dst[k] = -7
				}
				got := GatherMarked32(dst, src, idx, testMarker)
				want := false
				for k, i := range idx {
					if math.Float32bits(dst[k]) != math.Float32bits(src[i]) {
						t.Fatalf("n %d trial %d: dst[%d] = %x, src[%d] = %x", n, trial, k, math.Float32bits(dst[k]), i, math.Float32bits(src[i]))
					}
					want = want || math.Float32bits(src[i]) == testMarker
				}
				if got != want {
					t.Fatalf("n %d trial %d: marked %v, want %v", n, trial, got, want)
				}
				for k := n; k < len(dst); k++ {
					if dst[k] != -7 {
						t.Fatalf("n %d: dst[%d] past idx written", n, k)
					}
				}
			}
		}
	})
}

// GatherMarked32 panics on an index outside src, negative or past its
// end, in a whole block of 16 or in the tail, and on a short dst; it
// allocates nothing.
func TestGatherMarked32Panics(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		src := make([]float32, 40)
		for _, bad := range []int32{-1, 40, math.MaxInt32} {
			for _, at := range []int{0, 15, 16, 33} {
				idx := make([]int32, 34)
				idx[at] = bad
				func() {
					defer func() {
						if recover() == nil {
							t.Errorf("index %d at %d: no panic", bad, at)
						}
					}()
					GatherMarked32(make([]float32, 34), src, idx, testMarker)
				}()
			}
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Error("short dst: no panic")
				}
			}()
			GatherMarked32(make([]float32, 3), src, make([]int32, 4), testMarker)
		}()
		idx, dst := make([]int32, 287), make([]float32, 287)
		if a := testing.AllocsPerRun(20, func() { GatherMarked32(dst, src, idx, testMarker) }); a != 0 {
			t.Errorf("%v allocations a call", a)
		}
	})
}

func BenchmarkGatherMarked32(b *testing.B) {
	for _, l := range available() {
		b.Run(l.String(), func(b *testing.B) {
			defer use(l)()
			r := rand.New(rand.NewPCG(1, 2))
			src := randFloats(r, 1422, 0)
			idx, dst := make([]int32, 287), make([]float32, 287)
			for k := range idx {
				idx[k] = int32(r.IntN(len(src)))
			}
			b.SetBytes(4 * int64(len(idx)))
			for b.Loop() {
				GatherMarked32(dst, src, idx, testMarker)
			}
		})
	}
}

// TestGatherMarkedSigned32 checks every level against the loop written
// out, bit for bit: each value's sign flipped where its label differs
// from yi (NaN payloads and zeros included), the marker found before the
// flip, labels in runs and mixed; a short y panics.
func TestGatherMarkedSigned32(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(21, 6))
		for _, n := range append(lengths(100), 287, 1422, 4096) {
			for trial := range 6 {
				src := randFloats(r, 50+n+trial*7, trial%3)
				src[r.IntN(len(src))] = 0
				if trial%2 == 1 {
					for range 1 + trial {
						src[r.IntN(len(src))] = math.Float32frombits(testMarker)
					}
				}
				idx := make([]int32, n)
				y := make([]int8, n)
				split := r.IntN(n + 1)
				for k := range idx {
					idx[k] = int32(r.IntN(len(src)))
					y[k] = 1
					if trial < 3 && k >= split || trial >= 3 && r.IntN(2) == 0 {
						y[k] = -1
					}
				}
				yi := int8(1 - 2*(trial%2))
				dst := make([]float32, n+3)
				for k := range dst {
					dst[k] = -7
				}
				got := GatherMarkedSigned32(dst, src, idx, y, yi, testMarker)
				want := false
				for k, i := range idx {
					b := math.Float32bits(src[i])
					want = want || b == testMarker
					if y[k] != yi {
						b ^= 1 << 31
					}
					if math.Float32bits(dst[k]) != b {
						t.Fatalf("n %d trial %d: dst[%d] = %x, want %x", n, trial, k, math.Float32bits(dst[k]), b)
					}
				}
				if got != want {
					t.Fatalf("n %d trial %d: marked %v, want %v", n, trial, got, want)
				}
				for k := n; k < len(dst); k++ {
					if dst[k] != -7 {
						t.Fatalf("n %d: dst[%d] past idx written", n, k)
					}
				}
			}
		}
		defer func() {
			if recover() == nil {
				t.Error("short y: no panic")
			}
		}()
		GatherMarkedSigned32(make([]float32, 4), make([]float32, 4), make([]int32, 4), make([]int8, 3), 1, testMarker)
	})
}

// TestGatherInt32 checks every level against the loop written out, on
// every length up to 100 and longer ones; an index outside src panics.
func TestGatherInt32(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(21, 8))
		for _, n := range append(lengths(100), 287, 4096) {
			src := make([]int32, 40+n)
			for k := range src {
				src[k] = int32(r.Uint32())
			}
			src[0] = -1
			idx := make([]int32, n)
			for k := range idx {
				idx[k] = int32(r.IntN(len(src)))
			}
			dst := make([]int32, n+2)
			GatherInt32(dst, src, idx)
			for k, i := range idx {
				if dst[k] != src[i] {
					t.Fatalf("n %d: dst[%d] = %d, want %d", n, k, dst[k], src[i])
				}
			}
			if dst[n] != 0 || dst[n+1] != 0 {
				t.Fatalf("n %d: written past idx", n)
			}
		}
		defer func() {
			if recover() == nil {
				t.Error("index outside src: no panic")
			}
		}()
		GatherInt32(nil, nil, nil)
		GatherInt32(make([]int32, 20), make([]int32, 5), append(make([]int32, 19), 5))
	})
}
