package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFlipSigns32 checks every level against the loop written out, bit
// for bit (NaN payloads, zeros), with labels in runs, mixed, and none.
func TestFlipSigns32(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(21, 7))
		for _, n := range append(lengths(100), 287, 1422) {
			for trial := range 6 {
				v := randFloats(r, n, trial%3)
				if n > 0 {
					v[r.IntN(n)] = math.Float32frombits(testMarker)
					v[r.IntN(n)] = 0
				}
				want := append([]float32(nil), v...)
				var y []int8
				yi := int8(1 - 2*(trial%2))
				if trial > 0 {
					y = make([]int8, n+1)
					split := r.IntN(n + 1)
					for k := range y {
						y[k] = 1
						if trial < 3 && k >= split || trial >= 3 && r.IntN(2) == 0 {
							y[k] = -1
						}
					}
				}
				for k := range want {
					if y == nil || y[k] != yi {
						want[k] = math.Float32frombits(math.Float32bits(want[k]) ^ (1 << 31))
					}
				}
				FlipSigns32(v, y, yi)
				for k := range v {
					if math.Float32bits(v[k]) != math.Float32bits(want[k]) {
						t.Fatalf("n %d trial %d: v[%d] = %x, want %x", n, trial, k, math.Float32bits(v[k]), math.Float32bits(want[k]))
					}
				}
			}
		}
		v, y := make([]float32, 287), make([]int8, 287)
		if a := testing.AllocsPerRun(20, func() { FlipSigns32(v, y, 1) }); a != 0 {
			t.Errorf("%v allocations a call", a)
		}
		defer func() {
			if recover() == nil {
				t.Error("short y: no panic")
			}
		}()
		FlipSigns32(make([]float32, 4), make([]int8, 3), 1)
	})
}
