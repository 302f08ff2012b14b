package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotStrided holds DotStrided to Dot bit for bit on every path, over
// lengths around the kernels' steps (64, 16, the masked tail) and row
// counts around its three rows a call; the sums themselves are Dot's,
// which TestDotRandom checks against float64.
func TestDotStrided(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 14))
		for n := 0; n <= 200; n++ {
			for _, rows := range []int{1, 2, 3, 4, 5, 6, 7, 9} {
				ldy := n + r.IntN(5)
				x := randFloats(r, n, r.IntN(3))
				y := randFloats(r, (rows-1)*ldy+n, r.IntN(3))
				dst := make([]float32, rows+1)
				dst[rows] = 12345
				DotStrided(dst[:rows], x, y, ldy)
				for k := range rows {
					want := Dot(x, y[k*ldy:][:n])
					if math.Float32bits(dst[k]) != math.Float32bits(want) {
						t.Fatalf("n=%d rows=%d: row %d = %v, Dot %v", n, rows, k, dst[k], want)
					}
				}
				if dst[rows] != 12345 {
					t.Fatalf("n=%d rows=%d: wrote past dst", n, rows)
				}
			}
		}
	})
}
