package core

import (
	"math"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// TestRemovedGradient removes rows, support vectors among them, from a
// trained dual in two calls and checks the gradient kept for the rows
// that stay (KernelDual.DeleteRows), with the removed rows' terms taken
// out (takeOutRemoved), against its definition over the rows that stay:
// G_t = Σ_j Q_tj α_j + p_t and Gbar_t = Σ_{j: α_j = C_j} C_j Q_tj, summed
// here in float64 from the kernel (the solver's Q is float32).
func TestRemovedGradient(t *testing.T) {
	digits, err := data.ReadFile("testdata/digits.train", data.ReadOptions{ClassLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	diabetes, err := data.ReadFile("testdata/diabetes.train", data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ds   *data.Dataset
		p    func(*KernelParams)
	}{
		{"C-SVC", digits.Prefix(400), func(p *KernelParams) { p.C = 10 }},
		{"one-class", digits.Prefix(300), func(p *KernelParams) { p.SVMType, p.Nu = OneClass, 0.2 }},
		{"eps-SVR", diabetes, func(p *KernelParams) { p.SVMType, p.C, p.P = EpsSVR, 100, 5 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := newLike(c.ds, c.ds.Len(), c.ds.Nonzeros())
			for i := range c.ds.Len() {
				solve.AppendRow(ds, c.ds, i)
			}
			p := DefaultKernelParams()
			c.p(&p)
			tr, err := NewKernelTrainer(p, ds.Len(), ds.NumFeatures())
			if err != nil {
				t.Fatal(err)
			}
			_, dual, err := tr.Train(ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Two removals: the second's gone list extends the first's.
			removedSV := 0
			for _, del := range [][]int{{0, 1, 2, 7, 30, 31}, {5, 6, 40, 41, 42, 90}} {
				for _, r := range del {
					if dual.Gradient.rows.svOf[r] >= 0 {
						removedSV++
					}
				}
				if err := ds.DeleteRows(del); err != nil {
					t.Fatal(err)
				}
				if err := dual.DeleteRows(del); err != nil {
					t.Fatal(err)
				}
				if dual.Gradient == nil {
					t.Fatal("gradient dropped")
				}
			}
			if removedSV < 2 {
				t.Fatalf("%d support vectors removed: the test would not see their terms", removedSV)
			}
			g := dual.Gradient
			hMid, _ := hashRows(ds, g.Rows, nil)
			k := p.ResolvedKernel(ds.NumFeatures())
			if usableGradient(dual, k, g.Epsilon, hMid, ds.Len()) == nil {
				t.Fatal("the gradient kept does not pass its check")
			}
			checkRemovedGradient(t, ds, dual, p, k)
		})
	}
}

// checkRemovedGradient compares each subproblem's stored G and Gbar, with
// the removed rows' terms taken out, with their definitions.
func checkRemovedGradient(t *testing.T, ds *data.Dataset, dual *KernelDual, p KernelParams, k Kernel) {
	t.Helper()
	g := dual.Gradient
	l := ds.Len()
	for v := range dual.Alpha {
		var rows []int32
		var y []int8
		ni := l
		var Cp, Cn float64
		switch {
		case p.SVMType == CSVC:
			for side, c := range dual.Pairs[v] {
				for i := range l {
					if int32(ds.Label(i)) == c {
						rows = append(rows, int32(i))
						y = append(y, int8(1-2*side))
					}
				}
				if side == 0 {
					ni = len(rows)
				}
			}
			Cp, Cn = p.C, p.C
		default:
			for i := range l {
				rows, y = append(rows, int32(i)), append(y, 1)
			}
			Cp, Cn = 1, 1
			if p.SVMType == EpsSVR {
				Cp, Cn = p.C, p.C
			}
		}
		n := len(rows)
		a0, G0, Gbar0 := make([]float64, n), make([]float64, n), make([]float64, n)
		if p.SVMType == EpsSVR {
			a2, G2, Gbar2 := make([]float64, 2*n), make([]float64, 2*n), make([]float64, 2*n)
			g.fillStoredSVR(a2, G2, Gbar2)
			copy(G0, G2[:n])
			copy(Gbar0, Gbar2[:n])
			for r := range n {
				a0[r] = a2[r] - a2[n+r] // β
			}
		} else {
			g.fillStored(a0, G0, Gbar0, rows, ni, false, v)
		}
		// The α the gradient keeps, cut as the dual's vectors were.
		for r, row := range rows {
			if a0[r] != dual.Alpha[v][row] {
				t.Fatalf("subproblem %d, row %d: stored α %v, the dual's %v", v, row, a0[r], dual.Alpha[v][row])
			}
		}
		sqnorm := make([]float64, l)
		for i := range l {
			if ds.IsDense() {
				sqnorm[i] = trainDot(ds.DenseRow(i), ds.DenseRow(i))
			} else {
				_, v := ds.SparseRow(i)
				sqnorm[i] = sqSparse32(v)
			}
		}
		kr := &kernelRows{ds: ds, k: k, sqnorm: sqnorm, scratch: make([]float64, ds.NumFeatures())}
		var pairs [][2]int32 // C-SVC: the removed rows' columns over their pairs' rows only
		if p.SVMType == CSVC {
			pairs = dual.Pairs
		}
		cols, _ := g.removedColumns(kr, nil, pairs)
		g.takeOutRemoved(G0, Gbar0, rows, ni, false, v, cols)
		for r, row := range rows {
			want, wantBar, scale := 0.0, 0.0, 1.0
			switch p.SVMType {
			case CSVC:
				want = -1
			case EpsSVR:
				want = p.P - ds.Label(int(row))
			}
			for s, col := range rows {
				a := dual.Alpha[v][col]
				if a == 0 {
					continue
				}
				q := kernelAcross(k, ds, int(row), ds, int(col)) * float64(y[r]) * float64(y[s])
				want += q * a
				scale += math.Abs(q * a)
				C := Cn
				if y[s] > 0 {
					C = Cp
				}
				if math.Abs(a) >= C {
					wantBar += q * a
				}
			}
			if d := math.Abs(G0[r] - want); d > 1e-5*scale {
				t.Fatalf("subproblem %d, row %d: G %.9g, want %.9g", v, row, G0[r], want)
			}
			if d := math.Abs(Gbar0[r] - wantBar); d > 1e-5*scale {
				t.Fatalf("subproblem %d, row %d: Gbar %.9g, want %.9g", v, row, Gbar0[r], wantBar)
			}
		}
	}
}

// kernelAcross returns K(x_i, z_j) for row i of ds and row j of sv, which
// are stored alike (both dense or both sparse).
func kernelAcross(k Kernel, ds *data.Dataset, i int, sv *data.Dataset, j int) float64 {
	if ds.IsDense() {
		return k.Dense(ds.DenseRow(i), sv.DenseRow(j))
	}
	xi, xv := ds.SparseRow(i)
	zi, zv := sv.SparseRow(j)
	return k.Sparse(xi, xv, zi, zv)
}

// TestRemovedGradientFlippedPairs: after rows left (support vectors among
// them) and rows came, a warm C-SVC retrain whose classes appear in
// another order (the first row's class left the front, so pairs come as
// (b, a) where the stored gradient has (a, b)) starts each flipped pair
// from the stored values of the other side (KernelGradient.storedSides)
// with the removed rows' terms taken out with the other sign; the
// gradient it returns must still be G = Qα + p and Gbar at its α, by
// definition, as checkRemovedGradient has it.
func TestRemovedGradientFlippedPairs(t *testing.T) {
	full, err := data.ReadFile("testdata/digits.train", data.ReadOptions{ClassLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	const n, added = 400, 8
	ds := data.NewDense(n+added, full.NumFeatures())
	for i := range n {
		solve.AppendRow(ds, full, i)
	}
	p := DefaultKernelParams()
	p.C = 10
	tr, err := NewKernelTrainer(p, n+added, ds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	_, dual, err := tr.Train(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(dual.Pairs)
	// The leading rows of the first class, and support vectors further on.
	first := ds.Label(0)
	var del []int
	for i := 0; i < n && ds.Label(i) == first; i++ {
		del = append(del, i)
	}
	removedSV := 0
	for i := len(del); i < n && removedSV < 6; i += 7 {
		if dual.Gradient.rows.svOf[i] >= 0 {
			del = append(del, i)
			removedSV++
		}
	}
	if err := ds.DeleteRows(del); err != nil {
		t.Fatal(err)
	}
	if err := dual.DeleteRows(del); err != nil {
		t.Fatal(err)
	}
	if dual.Gradient == nil || dual.Gradient.rows.gone == nil {
		t.Fatal("gradient dropped, or no removed support vector kept")
	}
	for i := n; i < n+added; i++ {
		solve.AppendRow(ds, full, i)
	}
	warm := (&Dual{Kernel: dual}).ExtendInPlace(ds.Len()).Kernel
	_, after, err := tr.Train(ds, warm)
	if err != nil {
		t.Fatal(err)
	}
	flipped := 0
	for _, pr := range after.Pairs {
		if slices.Contains(before, [2]int32{pr[1], pr[0]}) {
			flipped++
		}
	}
	if flipped == 0 {
		t.Fatalf("no pair came flipped (before %v, after %v): the test would not see the other side's values", before, after.Pairs)
	}
	checkRemovedGradient(t, ds, after, p, p.ResolvedKernel(ds.NumFeatures()))
}
