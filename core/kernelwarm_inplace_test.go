package core

import (
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// syntheticPairsDual returns a C-SVC dual of n rows of c classes (row r
// of class r mod c) over every pair of classes, with a gradient as Train
// keeps it (gradientRows included), every third row a support vector
// with α between its bounds: the shape of the daemon's store (shuttle's 7
// classes, 21 pairs) without training.
func syntheticPairsDual(n, c int) *KernelDual {
	sv := data.NewDense(n, 1)
	rs := gradientRows{sv: sv, hash: make([]uint64, n), svOf: make([]int32, n), label: make([]int32, n)}
	for r := range n {
		rs.hash[r] = uint64(r)*0x9e3779b97f4a7c15 + 1
		rs.label[r] = int32(r % c)
		rs.svOf[r] = -1
		if r%3 == 0 {
			rs.svOf[r] = int32(sv.Len())
			if err := sv.AppendDense(float64(r%c), []float32{float32(r)}); err != nil {
				panic(err)
			}
		}
	}
	var pairs [][2]int32
	for i := range c {
		for j := i + 1; j < c; j++ {
			pairs = append(pairs, [2]int32{int32(i), int32(j)})
		}
	}
	g := &KernelGradient{Rows: n, rows: rs, First: make([]int, len(pairs))}
	d := &KernelDual{SVMType: CSVC, Pairs: pairs, Gradient: g}
	for v, p := range pairs {
		var G, a []float64
		full := make([]float64, n)
		for side, cl := range p {
			for r := range n {
				if rs.label[r] != cl {
					continue
				}
				x := 0.0
				if rs.svOf[r] >= 0 {
					x = 0.5
				}
				G, a = append(G, -1+float64(r)*1e-6), append(a, x)
				full[r] = x
			}
			if side == 0 {
				g.First[v] = len(G)
			}
		}
		g.G, g.Gbar, g.alpha = append(g.G, G), append(g.Gbar, make([]float64, len(G))), append(g.alpha, a)
		g.Box = append(g.Box, [2]float64{1, 1})
		d.Alpha = append(d.Alpha, full)
	}
	g.Check = foldRows(rs.hash)
	return d
}

// cloneKernelDual returns a copy of d whose vectors and gradient share no
// memory with d's (the support vectors excepted, which are read only).
func cloneKernelDual(d *KernelDual) *KernelDual {
	g := *d.Gradient
	g.G, g.Gbar, g.alpha = cloneVectors(g.G), cloneVectors(g.Gbar), cloneVectors(g.alpha)
	g.First = slices.Clone(g.First)
	g.rows.hash, g.rows.svOf, g.rows.label = slices.Clone(g.rows.hash), slices.Clone(g.rows.svOf), slices.Clone(g.rows.label)
	c := *d
	c.Alpha, c.Gradient = cloneVectors(d.Alpha), &g
	return &c
}

// TestKernelDualDeleteRowsInPlace: KernelDual.DeleteRows cuts a gradient
// of 10,000 rows in its own memory (it allocated 1.76 MB a call when it
// filtered into new slices; now the removed support vectors' terms, under
// 64 KiB), and what stays is each pair's entries of the rows that stay,
// in order, as a filter of a copy made before gives them.
func TestKernelDualDeleteRowsInPlace(t *testing.T) {
	const n, classes = 10000, 7
	d := syntheticPairsDual(n, classes)
	before := cloneKernelDual(d)
	del := []int{0, 1, 2, 3, 500, 501, 4000, 9998, 9999}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	if err := d.DeleteRows(del); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	if b := m1.TotalAlloc - m0.TotalAlloc; b > 64<<10 {
		t.Errorf("DeleteRows allocated %d bytes, want at most 64 KiB", b)
	}
	g, g0 := d.Gradient, before.Gradient
	if g == nil || g.Rows != n-len(del) || g.rows.gone == nil {
		t.Fatal("gradient dropped, or its rows or removed support vectors not kept")
	}
	gone := map[int]bool{}
	for _, r := range del {
		gone[r] = true
	}
	for v, p := range d.Pairs {
		var G, Gbar, a []float64
		first, e := 0, 0
		for _, cl := range p {
			for r := range n {
				if g0.rows.label[r] != cl {
					continue
				}
				if !gone[r] {
					G, Gbar, a = append(G, g0.G[v][e]), append(Gbar, g0.Gbar[v][e]), append(a, g0.alpha[v][e])
				}
				e++
			}
			if cl == p[0] {
				first = len(G)
			}
		}
		if !slices.Equal(g.G[v], G) || !slices.Equal(g.Gbar[v], Gbar) || !slices.Equal(g.alpha[v], a) || g.First[v] != first {
			t.Fatalf("pair %d: G, Gbar, α or First differ from the filter of the rows that stay", v)
		}
	}
	var hash []uint64
	for r, h := range g0.rows.hash {
		if !gone[r] {
			hash = append(hash, h)
		}
	}
	if !slices.Equal(g.rows.hash, hash) || g.Check != foldRows(hash) {
		t.Fatal("row hashes or check differ from the rows that stay")
	}
}

// BenchmarkKernelDualDeleteRows times KernelDual.DeleteRows of the oldest
// 1% of the rows (a window's retirement) from a 7-class dual of 10,000
// and 40,000 rows, the daemon's cut of its last run's state.
func BenchmarkKernelDualDeleteRows(b *testing.B) {
	for _, n := range []int{10000, 40000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			orig := syntheticPairsDual(n, 7)
			del := make([]int, n/100)
			for k := range del {
				del[k] = k
			}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				d := cloneKernelDual(orig)
				b.StartTimer()
				if err := d.DeleteRows(del); err != nil || d.Gradient == nil {
					b.Fatal("gradient dropped", err)
				}
			}
		})
	}
}
