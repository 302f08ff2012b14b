package core

import (
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// A column split with a helper is the column computed alone, bit for bit,
// and the split allocates nothing.
func TestColumnSplitter(t *testing.T) {
	const l, n = 6000, 20
	ds := data.NewDense(l, n)
	rng := solve.NewRNG(3)
	row := make([]float32, n)
	for range l {
		for k := range row {
			row[k] = float32(rng.Next()>>40) / (1 << 24)
		}
		if err := ds.AppendDense(float64(rng.Next()%2), row); err != nil {
			t.Fatal(err)
		}
	}
	rows := make([]int32, l)
	for v := range rows {
		rows[v] = int32((7 * v) % l)
	}
	for _, k := range []Kernel{{Type: RBFKernel, Gamma: 0.5}, {Type: PolyKernel, Gamma: 0.1, Coef0: 1, Degree: 3}} {
		sq := make([]float64, l)
		kr := newKernelRows(ds, k, sq)
		kr.scratch = make([]float64, n)
		helper := &kernelRows{ds: ds, k: k, sqnorm: kr.sqnorm, scratch: make([]float64, n)}
		pool := startColumnPool([]*kernelRows{helper})
		c := columnSplitter{pool: pool}
		want := make([]float32, l)
		got := make([]float32, l)
		for _, i := range []int{0, 17, l - 1} {
			kr.column(want, i, rows)
			for range 3 { // the helper may be idle or not: either way
				clear(got)
				c.column(kr, got, i, rows)
				for tt := range want {
					if math.Float32bits(got[tt]) != math.Float32bits(want[tt]) {
						t.Fatalf("%v: column %d entry %d: split %v, alone %v", k, i, tt, got[tt], want[tt])
					}
				}
			}
		}
		if a := testing.AllocsPerRun(20, func() { c.column(kr, got, 5, rows) }); a != 0 {
			t.Errorf("%v: split column allocates %v", k, a)
		}
		pool.stop()
	}
}
