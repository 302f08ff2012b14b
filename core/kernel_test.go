package core

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// kernelTol bounds the difference between a kernel value and its naive
// float64 reference (‖u−v‖² summed directly, math.Pow): both are float64
// computations of the same value in a different order.
const kernelTol = 1e-12

// naiveKernel evaluates k on two dense rows straight from its definition.
func naiveKernel(k Kernel, u, v []float64) float64 {
	var dot, d2 float64
	for j := range u {
		dot += u[j] * v[j]
		d2 += (u[j] - v[j]) * (u[j] - v[j])
	}
	switch k.Type {
	case PolyKernel:
		return math.Pow(k.Gamma*dot+k.Coef0, float64(k.Degree))
	case RBFKernel:
		return math.Exp(-k.Gamma * d2)
	case SigmoidKernel:
		return math.Tanh(k.Gamma*dot + k.Coef0)
	}
	return dot
}

var testKernels = []Kernel{
	{Type: LinearKernel},
	{Type: PolyKernel, Degree: 3, Gamma: 0.5, Coef0: 1},
	{Type: RBFKernel, Gamma: 0.3},
	{Type: SigmoidKernel, Gamma: 0.1, Coef0: -0.2},
}

func TestKernelHandValues(t *testing.T) {
	// u = (1, 2), v = (3, 0.5): u'v = 4, ‖u−v‖² = 4 + 2.25 = 6.25.
	u, v := []float32{1, 2}, []float32{3, 0.5}
	for _, c := range []struct {
		k    Kernel
		want float64
	}{
		{Kernel{Type: LinearKernel}, 4},
		{Kernel{Type: PolyKernel, Degree: 3, Gamma: 0.5, Coef0: 1}, 27}, // (0.5·4+1)³
		{Kernel{Type: PolyKernel, Degree: 0, Gamma: 0.5, Coef0: 1}, 1},
		{Kernel{Type: RBFKernel, Gamma: 0.1}, math.Exp(-0.625)},
		{Kernel{Type: SigmoidKernel, Gamma: 0.5, Coef0: 1}, math.Tanh(3)},
	} {
		if got := c.k.Dense(u, v); math.Abs(got-c.want) > kernelTol*math.Abs(c.want) {
			t.Errorf("%v dense: %v, want %v", c.k, got, c.want)
		}
		// u sparse: both entries; v given with an explicit extra feature 5
		// of value 0 and missing nothing.
		got := c.k.Sparse([]int32{0, 1}, u, []int32{0, 1, 5}, []float32{3, 0.5, 0})
		if math.Abs(got-c.want) > kernelTol*math.Abs(c.want) {
			t.Errorf("%v sparse: %v, want %v", c.k, got, c.want)
		}
	}
	// RBF of a row with itself is exactly 1 (the clamp at 0).
	x := []float32{0.1, 0.7, -0.3, 1e-3, 12.5}
	if got := (Kernel{Type: RBFKernel, Gamma: 7}).Dense(x, x); got != 1 {
		t.Errorf("RBF K(x, x) = %v, want 1", got)
	}
}

func TestKernelAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + r.IntN(23)
		u32, v32 := make([]float32, n), make([]float32, n)
		u64, v64 := make([]float64, n), make([]float64, n)
		var ui, vi []int32
		var uv, vv []float32
		for j := range n {
			if r.IntN(3) > 0 {
				u32[j] = float32(r.NormFloat64())
				ui, uv = append(ui, int32(j)), append(uv, u32[j])
			}
			if r.IntN(3) > 0 {
				v32[j] = float32(r.NormFloat64())
				vi, vv = append(vi, int32(j)), append(vv, v32[j])
			}
			u64[j], v64[j] = float64(u32[j]), float64(v32[j])
		}
		for _, k := range testKernels {
			want := naiveKernel(k, u64, v64)
			tol := kernelTol * max(1, math.Abs(want))
			if got := k.Dense(u32, v32); math.Abs(got-want) > tol {
				t.Fatalf("trial %d %v dense: %v, want %v", trial, k, got, want)
			}
			if got := k.Sparse(ui, uv, vi, vv); math.Abs(got-want) > tol {
				t.Fatalf("trial %d %v sparse: %v, want %v", trial, k, got, want)
			}
		}
	}
}

func TestKernelValidate(t *testing.T) {
	for _, k := range append(testKernels, Kernel{Type: RBFKernel}, Kernel{Type: LinearKernel, Gamma: -1}) {
		if err := k.Validate(); err != nil {
			t.Errorf("%+v: %v", k, err)
		}
	}
	for _, k := range []Kernel{
		{Type: 4},
		{Type: -1},
		{Type: RBFKernel, Gamma: -0.1},
		{Type: RBFKernel, Gamma: math.NaN()},
		{Type: RBFKernel, Gamma: math.Inf(1)},
		{Type: PolyKernel, Degree: -1, Gamma: 1},
		{Type: SigmoidKernel, Gamma: 1, Coef0: math.NaN()},
	} {
		if err := k.Validate(); !errors.Is(err, ErrParams) {
			t.Errorf("%+v: error %v, want ErrParams", k, err)
		}
	}
	if s := RBFKernel.String(); s != "rbf" {
		t.Errorf("RBFKernel.String() = %q", s)
	}
}

// readTestSets returns a data file read as ReadFile reads it, and the same
// rows in the other layout.
func readTestSets(t testing.TB, name string) (dense, sparse *data.Dataset) {
	t.Helper()
	ds, err := data.ReadFile("testdata/"+name, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !ds.IsDense() {
		t.Fatalf("%s: expected a dense layout", name)
	}
	sp := data.NewSparse(ds.Len(), ds.Nonzeros(), 0)
	for i := range ds.Len() {
		if err := sp.AppendDense(ds.Label(i), ds.DenseRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	return ds, sp
}

// rowKernel evaluates k on rows i and j of ds through the exported
// functions.
func rowKernel(k Kernel, ds *data.Dataset, i, j int) float64 {
	if ds.IsDense() {
		return k.Dense(ds.DenseRow(i), ds.DenseRow(j))
	}
	xi, xv := ds.SparseRow(i)
	yi, yv := ds.SparseRow(j)
	return k.Sparse(xi, xv, yi, yv)
}

func TestKernelRows(t *testing.T) {
	dense, sparse := readTestSets(t, "heart_scale")
	l := dense.Len()
	rows := make([]int32, l)
	for v := range rows {
		rows[v] = int32((7 * v) % l) // 7 and 270 are coprime: a permutation
	}
	col := make([]float32, l)
	for _, k := range testKernels {
		sq := make([]float64, l)
		for _, ds := range []*data.Dataset{dense, sparse} {
			kr := newKernelRows(ds, k, sq)
			for _, i := range []int{0, 1, 100, l - 1} {
				kr.column(col, i, rows)
				for tt, j := range rows {
					want := rowKernel(k, ds, i, int(j))
					got := kr.eval(i, int(j))
					// The trainer's RBF exp is within a few float64 ulps of
					// math.Exp (kexp.go); every other kernel agrees exactly.
					if got != want && (k.Type != RBFKernel || math.Abs(got-want) > 8e-16*want) {
						t.Fatalf("%v dense=%v eval(%d,%d) = %v, want %v", k, ds.IsDense(), i, j, got, want)
					}
					want = got
					if col[tt] != float32(want) {
						t.Fatalf("%v dense=%v column(%d)[%d] = %v, want %v", k, ds.IsDense(), i, j, col[tt], float32(want))
					}
					// the layouts sum in a different order
					if o := rowKernel(k, dense, i, int(j)); math.Abs(o-want) > kernelTol*max(1, math.Abs(o)) {
						t.Fatalf("%v: sparse %v, dense %v", k, want, o)
					}
				}
			}
			for i := range l {
				if d, e := kr.diag(i), kr.eval(i, i); d != e {
					t.Fatalf("%v dense=%v diag(%d) = %v, eval %v", k, ds.IsDense(), i, d, e)
				}
			}
			if a := testing.AllocsPerRun(20, func() { kr.column(col, 5, rows) }); a != 0 {
				t.Errorf("%v dense=%v: column allocates %v", k, ds.IsDense(), a)
			}
		}
	}
}

func BenchmarkKernelColumn(b *testing.B) {
	dense, sparse := readTestSets(b, "heart_scale")
	l := dense.Len()
	rows := make([]int32, l)
	for v := range rows {
		rows[v] = int32(v)
	}
	col := make([]float32, l)
	for _, ds := range []*data.Dataset{dense, sparse} {
		name := "sparse"
		if ds.IsDense() {
			name = "dense"
		}
		b.Run(name, func(b *testing.B) {
			kr := newKernelRows(ds, Kernel{Type: RBFKernel, Gamma: 1.0 / 13}, make([]float64, l))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				kr.column(col, i%l, rows)
			}
		})
	}
}
