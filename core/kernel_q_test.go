package core

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

var (
	_ qMatrix = (*svcQ)(nil)
	_ qMatrix = oneClassQ{}
	_ qMatrix = (*svrQ)(nil)
)

// exactQ returns the full Q of a formulation over the variables in their
// original order, each entry the float64 value Kernel.Dense or
// Kernel.Sparse gives with its sign: z_s z_t K(x_{row(s)}, x_{row(t)}).
func exactQ(k Kernel, ds *data.Dataset, rowOf []int32, z []int8) [][]float64 {
	n := len(rowOf)
	q := make([][]float64, n)
	for s := range q {
		q[s] = make([]float64, n)
		for t := range q[s] {
			q[s][t] = float64(z[s]) * float64(z[t]) * rowKernel(k, ds, int(rowOf[s]), int(rowOf[t]))
		}
	}
	return q
}

// exerciseQ drives q through random getQ and swapIndex calls, following the
// swaps with a permutation of the exact matrix, and checks that every
// column entry is the exact entry rounded to float32, that QD is the exact
// diagonal, and that the column of the previous getQ survives the next.
func exerciseQ(t *testing.T, name string, q qMatrix, exact [][]float64, ops int, seed uint64) {
	t.Helper()
	n := len(exact)
	perm := make([]int, n)
	for v := range perm {
		perm[v] = v
	}
	r := rand.New(rand.NewPCG(seed, 7))
	var prev []float32
	prevCol := -1
	active := n
	for op := range ops {
		switch r.IntN(8) {
		case 0: // shrink: move a random active variable past the active end
			if active > 2 {
				i := r.IntN(active)
				active--
				q.swapIndex(i, active)
				perm[i], perm[active] = perm[active], perm[i]
				prev = nil
			}
			continue
		case 1:
			if r.IntN(4) == 0 {
				active = n // unshrink
			}
		}
		i := r.IntN(active)
		length := active
		if r.IntN(5) == 0 {
			length = n // the solver's full-length fetch (Gbar updates)
		}
		col := q.getQ(i, length)
		if len(col) < length {
			t.Fatalf("%s op %d: getQ(%d, %d) has %d entries", name, op, i, length, len(col))
		}
		for k := range length {
			if want := float32(exact[perm[i]][perm[k]]); col[k] != want {
				t.Fatalf("%s op %d: Q[%d][%d] = %v, want %v", name, op, i, k, col[k], want)
			}
		}
		if prev != nil && prevCol != i {
			for k := range prev {
				if want := float32(exact[perm[prevCol]][perm[k]]); prev[k] != want {
					t.Fatalf("%s op %d: previous column %d changed at %d: %v, want %v", name, op, prevCol, k, prev[k], want)
				}
			}
		}
		prev, prevCol = col[:length], i
	}
	qd := q.QD()
	for k := range n {
		if qd[k] != exact[perm[k]][perm[k]] {
			t.Fatalf("%s: QD[%d] = %v, want %v", name, k, qd[k], exact[perm[k]][perm[k]])
		}
	}
}

func TestSVCQ(t *testing.T) {
	dense, sparse := readTestSets(t, "heart_scale")
	// The variables: every other row, backwards, so variable and data row
	// numbers differ.
	var rows []int32
	var y []int8
	for i := dense.Len() - 1; i >= 0; i -= 2 {
		rows = append(rows, int32(i))
		if dense.Label(i) > 0 {
			y = append(y, 1)
		} else {
			y = append(y, -1)
		}
	}
	sq := make([]float64, dense.Len())
	for _, k := range testKernels {
		for _, ds := range []*data.Dataset{dense, sparse} {
			name := k.Type.String() + map[bool]string{true: "/dense", false: "/sparse"}[ds.IsDense()]
			exact := exactQ(k, ds, rows, y)
			kr := newKernelRows(ds, k, sq)
			q := newSVCQ(kr, rows, y, 0) // the smallest cache: three columns
			exerciseQ(t, name, q, exact, 600, 1)
			if q.kernelEvals == 0 {
				t.Errorf("%s: no kernel evaluations counted", name)
			}
			// reset reuses the matrix for a smaller subproblem
			q.reset(rows[:50], y[:50])
			sub := make([][]float64, 50)
			for s := range sub {
				sub[s] = exact[s][:50]
			}
			exerciseQ(t, name+"/reset", q, sub, 200, 2)
		}
	}
	// Labels grouped, +1 first, as a one-vs-one pair's: getQ negates one
	// range of each column (svcQ.split) until a swap of two labels mixes
	// them; the columns are the same either way.
	grouped, gy := slices.Clone(rows), slices.Clone(y)
	order := make([]int, len(rows))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(y[b]) - int(y[a]) })
	nPos := 0
	for k, o := range order {
		grouped[k], gy[k] = rows[o], y[o]
		if y[o] > 0 {
			nPos++
		}
	}
	for _, k := range testKernels {
		q := newSVCQ(newKernelRows(dense, k, sq), grouped, gy, 0)
		if q.split != nPos {
			t.Fatalf("%s: grouped labels: split %d, want %d", k.Type, q.split, nPos)
		}
		exerciseQ(t, k.Type.String()+"/grouped", q, exactQ(k, dense, grouped, gy), 600, 3)
	}
	// With a cache that holds everything, a second pass over the columns
	// computes nothing.
	kr := newKernelRows(dense, testKernels[2], sq)
	q := newSVCQ(kr, rows, y, 1<<20)
	for i := range rows {
		q.getQ(i, len(rows))
	}
	before := q.kernelEvals
	for i := range rows {
		q.getQ(i, len(rows))
	}
	if q.kernelEvals != before || before != int64(len(rows)*len(rows)) {
		t.Errorf("kernel evaluations %d then %d, want %d both times", before, q.kernelEvals, len(rows)*len(rows))
	}
}

func TestOneClassQ(t *testing.T) {
	_, sparse := readTestSets(t, "heart_scale")
	rows := make([]int32, 100)
	ones := make([]int8, 100)
	for v := range rows {
		rows[v], ones[v] = int32(2*v+1), 1
	}
	k := Kernel{Type: RBFKernel, Gamma: 1.0 / 13}
	q := newOneClassQ(newKernelRows(sparse, k, make([]float64, sparse.Len())), rows, 0)
	exerciseQ(t, "one-class", q, exactQ(k, sparse, rows, ones), 400, 3)
}

func TestSVRQ(t *testing.T) {
	dense, sparse := readTestSets(t, "diabetes.train")
	l := dense.Len()
	rows := make([]int32, l)
	for v := range rows {
		rows[v] = int32(l - 1 - v)
	}
	// variables t < l: α_t, sign +1; t >= l: α*_{t−l}, sign −1
	rowOf := append(append([]int32(nil), rows...), rows...)
	z := make([]int8, 2*l)
	for v := range z {
		z[v] = 1
		if v >= l {
			z[v] = -1
		}
	}
	sq := make([]float64, l)
	for _, k := range []Kernel{{Type: RBFKernel, Gamma: 0.1}, {Type: PolyKernel, Degree: 2, Gamma: 1, Coef0: 0.5}} {
		for _, ds := range []*data.Dataset{dense, sparse} {
			name := "svr/" + k.Type.String() + map[bool]string{true: "/dense", false: "/sparse"}[ds.IsDense()]
			q := newSVRQ(newKernelRows(ds, k, sq), rows, 0)
			exerciseQ(t, name, q, exactQ(k, ds, rowOf, z), 300, 4)
		}
	}
}

// svrQ.getQ before any swap (its copy of the column and of its negation)
// gives every length's entries as exactQ has them, from both halves.
func TestSVRQIdentityOrder(t *testing.T) {
	dense, _ := readTestSets(t, "diabetes.train")
	const l = 50
	rows := make([]int32, l)
	z := make([]int8, 2*l)
	for v := range rows {
		rows[v] = int32(3 * v)
	}
	for v := range z {
		z[v] = int8(1 - 2*(v/l))
	}
	k := Kernel{Type: RBFKernel, Gamma: 0.1}
	exact := exactQ(k, dense, append(append([]int32(nil), rows...), rows...), z)
	q := newSVRQ(newKernelRows(dense, k, make([]float64, dense.Len())), rows, 0)
	for _, i := range []int{0, 9, l - 1, l, l + 9, 2*l - 1} {
		for _, length := range []int{1, l - 1, l, l + 1, 2*l - 1, 2 * l} {
			col := q.getQ(i, length)
			for t2 := range length {
				if want := float32(exact[i][t2]); col[t2] != want {
					t.Fatalf("getQ(%d, %d)[%d] = %v, want %v", i, length, t2, col[t2], want)
				}
			}
		}
	}
}

func TestKernelQNoAllocs(t *testing.T) {
	dense, _ := readTestSets(t, "diabetes.train")
	l := dense.Len()
	rows := make([]int32, l)
	y := make([]int8, l)
	for v := range rows {
		rows[v], y[v] = int32(v), int8(1-2*(v&1))
	}
	kr := newKernelRows(dense, Kernel{Type: RBFKernel, Gamma: 0.1}, make([]float64, l))
	// A cache of 10 columns: most getQ calls miss and compute.
	budget := kernelCacheBookBytes(l) + 4*10*int64(l)
	svc, svr := newSVCQ(kr, rows, y, budget), newSVRQ(kr, rows, budget)
	i := 0
	for _, c := range []struct {
		name string
		q    qMatrix
		n    int
	}{{"svc", svc, l}, {"svr", svr, 2 * l}} {
		a := testing.AllocsPerRun(100, func() {
			c.q.getQ((i*37)%c.n, c.n-i%5)
			c.q.getQ((i*11+5)%c.n, c.n)
			if i%7 == 0 {
				c.q.swapIndex(i%c.n, (i*3)%c.n)
			}
			i++
		})
		if a != 0 {
			t.Errorf("%s: getQ allocates %v times a call", c.name, a)
		}
	}
}

// svrQ.twin names the variable whose column of Q is the negation of
// variable i's (α*_t for α_t) in the identity ordering, both ways, and
// −1 once a swap moved it: the column check below is against getQ.
func TestSVRQTwin(t *testing.T) {
	dense, _ := readTestSets(t, "diabetes.train")
	const l = 40
	rows := make([]int32, l)
	for v := range rows {
		rows[v] = int32(v)
	}
	q := newSVRQ(newKernelRows(dense, Kernel{Type: RBFKernel, Gamma: 0.1}, make([]float64, dense.Len())), rows, 0)
	for _, i := range []int{0, 7, l - 1, l, l + 7, 2*l - 1} {
		u := q.twin(i)
		if want := (i + l) % (2 * l); u != want {
			t.Fatalf("twin(%d) = %d, want %d", i, u, want)
		}
		ci := append([]float32(nil), q.getQ(i, 2*l)...)
		cu := q.getQ(u, 2*l)
		for k := range ci {
			if cu[k] != -ci[k] {
				t.Fatalf("columns %d and %d at %d: %v, %v; want negated", i, u, k, ci[k], cu[k])
			}
		}
	}
	q.swapIndex(3, l+5)
	if u := q.twin(3); u != -1 {
		t.Errorf("after a swap twin(3) = %d, want −1", u)
	}
	if u := q.twin(l + 3); u != -1 {
		t.Errorf("after a swap twin(%d) = %d, want −1", l+3, u)
	}
}

// labelSplit finds where grouped labels change sign, and refuses
// labels that are not grouped +1 first.
func TestLabelSplit(t *testing.T) {
	for _, c := range []struct {
		y    []int8
		want int
	}{
		{nil, -1}, {[]int8{}, 0}, {[]int8{1, 1}, 2}, {[]int8{-1, -1}, 0}, {[]int8{1, 1, -1}, 2},
		{[]int8{-1, 1}, -1}, {[]int8{1, -1, 1}, -1},
	} {
		if got := labelSplit(c.y); got != c.want {
			t.Errorf("labelSplit(%v) = %d, want %d", c.y, got, c.want)
		}
	}
}

// signLabels negates exactly the entries whose label differs from y_i,
// bit for bit as the negation does (zeros and NaN payloads included).
func TestSignLabels(t *testing.T) {
	col := []float32{1.5, -2, 0, float32(math.Copysign(0, -1)), math.Float32frombits(keptUnset), 3e-39, -7}
	y := []int8{1, -1, -1, 1, -1, -1, 1}
	for _, yi := range []int8{1, -1} {
		got := slices.Clone(col)
		signLabels(got, y, yi)
		for k, v := range col {
			want := v
			if y[k] != yi {
				want = -v
			}
			if math.Float32bits(got[k]) != math.Float32bits(want) {
				t.Errorf("y_i %d, entry %d: %08x, want %08x", yi, k, math.Float32bits(got[k]), math.Float32bits(want))
			}
		}
	}
}
