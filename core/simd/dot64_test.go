package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDot64x4Order checks Dot64x4's summation order on hand-derived sums
// where the order decides the result.
func TestDot64x4Order(t *testing.T) {
	ones := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1}
	for _, c := range []struct {
		x    []float32
		want float64
	}{
		{nil, 0},
		{[]float32{2, 3, 5}, 10}, // the tail alone
		// Lanes 1e16 (+1 from the tail: 1e16+1 rounds to 1e16), 1, −1e16,
		// 1: (1e16 + 1) + (−1e16 + 1) = 1e16 − 1e16 = 0; the exact sum is 3.
		{[]float32{1e16, 1, -1e16, 1, 1}, 0},
		// The same terms ordered so that the large ones share a lane pair
		// sum first: (1e16 + −1e16) + (1 + 1) = 2, plus the tail's 1 in
		// lane 0 before: s0 = 1e16 + 1 → 1e16, so (1e16 − 1e16) + 2 = 2.
		{[]float32{1e16, -1e16, 1, 1, 1}, 2},
	} {
		if got := Dot64x4(c.x, ones[:len(c.x)]); got != c.want {
			t.Errorf("Dot64x4(%v, ones) = %v, want %v", c.x, got, c.want)
		}
	}
}

// TestDot64x4Accuracy holds Dot64x4 to the float64 error bound of its sum
// on random vectors, and checks that it reads only len(x) values of y.
func TestDot64x4Accuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 4, 7, 64, 1001} {
		x, y := randFloats(r, n, 0), randFloats(r, n+3, 0)
		want, abs := refDot(x, y[:n])
		if d := math.Abs(Dot64x4(x, y) - want); d > float64(n)*0x1p-52*abs {
			t.Errorf("n=%d: Dot64x4 off by %g (sum of |terms| %g)", n, d, abs)
		}
	}
	x := make([]float32, 100)
	if a := testing.AllocsPerRun(10, func() { Dot64x4(x, x) }); a != 0 {
		t.Errorf("%v allocations", a)
	}
}

// TestDot64x4Paths holds Dot64x4 on every path to the four accumulators
// written out in Go, bit for bit, on lengths around the vector path's
// groups of four and its threshold, with values whose sums round.
func TestDot64x4Paths(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(41, 42))
		for n := 0; n <= 70; n++ {
			x, y := randFloats(r, n, r.IntN(3)), randFloats(r, n, 0)
			var s [4]float64
			j := 0
			for ; j+4 <= n; j += 4 {
				for i := range s {
					s[i] += float64(x[j+i]) * float64(y[j+i])
				}
			}
			for ; j < n; j++ {
				s[0] += float64(x[j]) * float64(y[j])
			}
			want := (s[0] + s[1]) + (s[2] + s[3])
			if got := Dot64x4(x, y); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("n=%d: Dot64x4 %v, the accumulators in Go %v", n, got, want)
			}
		}
	})
}
