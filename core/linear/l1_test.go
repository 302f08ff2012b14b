package linear

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// TestColumnView checks the column view against the rows it transposes:
// every entry in its place, rows increasing within a column, the bias
// column full, and its size as ColumnViewBytes says.
func TestColumnView(t *testing.T) {
	dense, sparse := readTestSets(t, "digits.train")
	for _, ds := range []*data.Dataset{dense, sparse} {
		for _, bias := range []float64{-1, 0.5} {
			var c columns
			c.build(ds, bias)
			n := ds.NumFeatures()
			got := make([]float32, ds.Len()*(n+1)) // row-major from the columns
			for j := range c.cols {
				idx, val := c.col(j)
				if !slices.IsSorted(idx) {
					t.Fatalf("column %d: rows not increasing", j)
				}
				for k, i := range idx {
					got[int(i)*(n+1)+j] = val[k]
				}
			}
			if bias >= 0 && c.cols != n+1 || bias < 0 && c.cols != n {
				t.Fatalf("bias %v: %d columns for %d features", bias, c.cols, n)
			}
			for i := range ds.Len() {
				want := make([]float32, n+1)
				if ds.IsDense() {
					copy(want, ds.DenseRow(i))
				} else {
					idx, val := ds.SparseRow(i)
					for k, j := range idx {
						want[j] = val[k]
					}
				}
				if bias >= 0 {
					want[n] = float32(bias)
				}
				if !slices.Equal(got[i*(n+1):(i+1)*(n+1)], want) {
					t.Fatalf("dense=%v bias=%v: row %d differs in the column view", ds.IsDense(), bias, i)
				}
			}
			if want := ColumnViewBytes(ds.Len(), n, nonzeroCount(ds), bias); c.Bytes() != want {
				t.Errorf("dense=%v bias=%v: view holds %d bytes, ColumnViewBytes says %d", ds.IsDense(), bias, c.Bytes(), want)
			}
		}
	}
}

// nonzeroCount counts the nonzero values stored in ds.
func nonzeroCount(ds *data.Dataset) int {
	n := 0
	for i := range ds.Len() {
		if ds.IsDense() {
			for _, v := range ds.DenseRow(i) {
				if v != 0 {
					n++
				}
			}
		} else {
			_, val := ds.SparseRow(i)
			n += len(val)
		}
	}
	return n
}

// TestL1SolversAllocateNothing checks that a solve, after setup, allocates
// nothing, on both layouts, with and without instance weights.
func TestL1SolversAllocateNothing(t *testing.T) {
	dense, sparse := readTestSets(t, "heart_scale")
	weights := make([]float64, dense.Len())
	for i := range weights {
		weights[i] = 0.5 + float64(i%4)
	}
	for _, ds := range []*data.Dataset{dense, sparse} {
		for _, c := range []struct {
			s  LinearSolver
			wt []float64
		}{{L1L2LossSVC, nil}, {L1Logistic, nil}, {L1L2LossSVC, weights}, {L1Logistic, weights}} {
			s := c.s
			p := DefaultLinearParams()
			p.Solver, p.Bias, p.Eps = s, 1, 0.001
			tr, err := NewLinearTrainer(p, ds.Len(), ds.NumFeatures())
			if err != nil {
				t.Fatal(err)
			}
			tr.cols.build(ds, p.Bias)
			wk := &tr.workers[0]
			y := wk.y[:ds.Len()]
			for i := range y {
				y[i] = int8(ds.Label(i))
			}
			alpha := make([]float64, ds.Len())
			var res SolveResult
			n := testing.AllocsPerRun(5, func() {
				res, _ = tr.solveL1(wk, y, c.wt, alpha, nil, 1, 1, 0)
			})
			if n != 0 {
				t.Errorf("%v dense=%v weighted=%v: a solve allocates %v times", s, ds.IsDense(), c.wt != nil, n)
			}
			if !res.Converged || res.Iterations < 2 {
				t.Errorf("%v: %+v, want a converged solve of a few iterations", s, res)
			}
		}
	}
}

// TestL1LayoutsSeedsThreads checks that the layout and the thread count do
// not change the model, that a seed gives the same model twice, and that
// the model satisfies the optimality conditions of min ‖w‖₁ + C·Σ loss:
// |∇_j L| ≤ 1 where w_j = 0, ∇_j L = −sign(w_j) elsewhere, to the
// tolerance a tight eps leaves.
func TestL1LayoutsSeedsThreads(t *testing.T) {
	dense, sparse := readTestSets(t, "digits.train")
	for _, args := range []string{"-s 5 -B 1", "-s 6", "-s 6 -B 1 -c 4 -w3 2"} {
		opts, _, err := ParseLinearOptions(append(strings.Fields(args), "-e", "0.0001"))
		if err != nil {
			t.Fatal(err)
		}
		p := opts.Params
		p.Threads = 1
		md, _, err := TrainLinear(dense, p)
		if err != nil {
			t.Fatal(err)
		}
		p.Threads = 2
		ms, _, err := TrainLinear(sparse, p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(md.W, ms.W) {
			t.Errorf("%s: dense, 1 thread and sparse, 2 threads give different weights", args)
		}
		p.Seed = 7
		m7, _, _ := TrainLinear(sparse, p)
		if slices.Equal(m7.W, ms.W) {
			t.Errorf("%s: seeds 1 and 7 give the same weights: the seed is not used", args)
		}
		checkL1Optimality(t, args, sparse, md)
	}
}

// checkL1Optimality checks the subgradient conditions of each converged
// decision function of m on ds, in float64 from the float32 weights: the
// 1-norm of the minimum-norm subgradient, Σ_j |∇ˢ_j f(w)|, at most 3 times
// what the stopping test allows, eps·min(#pos, #neg)/l times its value at
// w = 0 (the solver's scale at a cold start is its first pass's, which is
// of that size).
func checkL1Optimality(t *testing.T, name string, ds *data.Dataset, m *LinearModel) {
	t.Helper()
	p, nrW, n := m.Params, m.NrW(), m.NumFeatures
	rows := m.weightRows()
	dec := make([]float64, nrW)
	violations := func(grad []float64, k int, atZero bool) float64 {
		var sum float64
		for j, g := range grad {
			w := float64(m.W[j*nrW+k])
			switch {
			case w == 0 || atZero:
				sum += max(0, math.Abs(g)-1)
			case w > 0:
				sum += math.Abs(g + 1)
			default:
				sum += math.Abs(g - 1)
			}
		}
		return sum
	}
	for k := range nrW {
		if !m.Result.Subproblems[k].Converged {
			continue
		}
		grad, grad0 := make([]float64, rows), make([]float64, rows)
		pos := 0
		for i := range ds.Len() {
			idx, val := ds.SparseRow(i)
			m.DecisionSparse(dec, idx, val)
			label := int32(ds.Label(i))
			y, C := -1.0, p.C
			if label == m.Labels[k] {
				y, C = 1, p.C*p.weightOf(label)
				pos++
			} else if nrW == 1 {
				C = p.C * p.weightOf(label)
			}
			z := y * dec[k]
			var dz, dz0 float64 // d loss / d z at w and at 0
			if m.Solver == L1L2LossSVC {
				dz, dz0 = -2*max(0, 1-z), -2
			} else {
				dz, dz0 = -sigma(-z), -0.5
			}
			for q, j := range idx {
				grad[j] += C * dz * y * float64(val[q])
				grad0[j] += C * dz0 * y * float64(val[q])
			}
			if m.Bias >= 0 {
				grad[n] += C * dz * y * m.Bias
				grad0[n] += C * dz0 * y * m.Bias
			}
		}
		l := ds.Len()
		allowed := p.Eps * float64(min(pos, l-pos)) / float64(l) * violations(grad0, k, true)
		if got := violations(grad, k, false); got > 3*allowed {
			t.Errorf("%s: function %d: subgradient 1-norm %.3g, the test allows about %.3g", name, k, got, allowed)
		}
	}
}

// TestL1WarmStart checks the primal warm start of -s 5 and -s 6: from the
// model of 90% of the rows to all of them, the same objective as a cold run
// (the test is scaled at w = 0 either way) in fewer coordinate updates; and
// from the optimum itself, a stop after one pass.
func TestL1WarmStart(t *testing.T) {
	ds := readTestdata(t, "debdesc_bin.train")
	if testing.Short() {
		ds = prefix(ds, 2000)
	}
	part := prefix(ds, ds.Len()*9/10)
	for _, s := range []LinearSolver{L1L2LossSVC, L1Logistic} {
		p := DefaultLinearParams()
		p.Solver, p.Eps = s, 0.001
		tr, err := NewLinearTrainer(p, ds.Len(), ds.NumFeatures())
		if err != nil {
			t.Fatal(err)
		}
		m90, _, err := tr.Train(part, nil)
		if err != nil {
			t.Fatal(err)
		}
		cold, _, err := tr.Train(ds, nil)
		if err != nil {
			t.Fatal(err)
		}
		warm, _, err := tr.TrainFrom(ds, nil, PrimalOf(m90))
		if err != nil {
			t.Fatal(err)
		}
		fc, fw := cold.Result.PrimalObjective, warm.Result.PrimalObjective
		if rel := math.Abs(fw-fc) / fc; rel > 1e-3 {
			t.Errorf("%v: warm objective %.6f, cold %.6f", s, fw, fc)
		}
		if !warm.Result.Converged || warm.Result.Updates >= cold.Result.Updates {
			t.Errorf("%v: warm run %d updates, cold %d", s, warm.Result.Updates, cold.Result.Updates)
		}
		again, _, _ := tr.TrainFrom(ds, nil, PrimalOf(warm))
		if again.Result.Iterations > 2 {
			t.Errorf("%v: from its own optimum, %d iterations", s, again.Result.Iterations)
		}
		t.Logf("%v: cold %d updates, warm from 90%% %d (%.2f), objective %.6f / %.6f",
			s, cold.Result.Updates, warm.Result.Updates, float64(warm.Result.Updates)/float64(cold.Result.Updates), fc, fw)
	}
}

// BenchmarkL1Train trains -s 5 and -s 6 at -e 0.0001 on digits (dense, 10
// classes one-vs-rest) and debdesc_bin (sparse, binary), one thread.
func BenchmarkL1Train(b *testing.B) {
	for _, data := range []string{"digits.train", "debdesc_bin.train"} {
		ds := readTestdata(b, data)
		for _, s := range []LinearSolver{L1L2LossSVC, L1Logistic} {
			b.Run(data+"/"+s.String(), func(b *testing.B) {
				p := DefaultLinearParams()
				p.Solver, p.Eps, p.Threads = s, 0.0001, 1
				tr, err := NewLinearTrainer(p, ds.Len(), ds.NumFeatures())
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := tr.Train(ds, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestNonzeroRows checks the dense predictors over an L1 model's nonzero
// rows against the same model read row by row (NonzeroRows nil): the same
// decision values to rounding and the same labels, single rows, batches
// and more classes than the stack holds; no allocation; and Validate's
// refusal of an index that misses a nonzero row.
func TestNonzeroRows(t *testing.T) {
	dense, _ := readTestSets(t, "digits.train")
	o, _, _ := ParseLinearOptions(strings.Fields("-s 6 -c 0.02 -B 1"))
	m, _, err := TrainLinear(dense, o.Params)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.NonzeroRows) == 0 || len(m.NonzeroRows) > m.NumFeatures/2 {
		t.Fatalf("NonzeroRows %v: want the index of an L1 model's few nonzero rows", m.NonzeroRows)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	plain := *m
	plain.NonzeroRows = nil
	got, want := make([]float64, m.NrW()), make([]float64, m.NrW())
	for i := range dense.Len() {
		x := dense.DenseRow(i)
		m.DecisionDense(got, x)
		plain.DecisionDense(want, x)
		for k := range got {
			if math.Abs(got[k]-want[k]) > 1e-12*max(1, math.Abs(want[k])) {
				t.Fatalf("row %d function %d: %v over the nonzero rows, %v over all", i, k, got[k], want[k])
			}
		}
	}
	pg := m.PredictBatch(make([]float64, dense.Len()), dense)
	pw := plain.PredictBatch(make([]float64, dense.Len()), dense)
	if !slices.Equal(pg, pw) {
		t.Error("PredictBatch differs with the nonzero rows index")
	}
	x := dense.DenseRow(0)
	if n := testing.AllocsPerRun(100, func() { m.DecisionDense(got, x) }); n != 0 {
		t.Errorf("DecisionDense over the nonzero rows allocates %v times", n)
	}

	// More classes than the stack paths hold: denseOne.
	wide := &LinearModel{Solver: L1Logistic, NumFeatures: 4, Bias: -1, Labels: make([]int32, 70)}
	for k := range wide.Labels {
		wide.Labels[k] = int32(k)
	}
	wide.W = make([]float32, 4*70)
	for k := range 70 {
		wide.W[1*70+k] = float32(k % 9)
		wide.W[3*70+k] = -float32(k % 5)
	}
	wide.IndexNonzeroRows()
	if !slices.Equal(wide.NonzeroRows, []int32{1, 3}) {
		t.Fatalf("wide model NonzeroRows %v, want [1 3]", wide.NonzeroRows)
	}
	// Decision value k is k%9 − 0.5·(k%5): largest, 8, at k = 35.
	if got := wide.PredictDense([]float32{5, 1, 7, 0.5}); got != 35 {
		t.Errorf("wide model predicts %v, want 35", got)
	}

	bad := *m
	bad.NonzeroRows = m.NonzeroRows[1:]
	if err := bad.Validate(); err == nil {
		t.Error("Validate accepts an index that misses a nonzero row")
	}
}

// BenchmarkDecisionDenseL1: one dense 784-feature row through a 10-class
// model with 3% nonzero rows, over the nonzero rows and over all.
func BenchmarkDecisionDenseL1(b *testing.B) {
	const n, nrW = 784, 10
	r := solve.NewRNG(1)
	m := &LinearModel{Solver: L1L2LossSVC, Labels: make([]int32, nrW), NumFeatures: n, Bias: -1, W: make([]float32, n*nrW)}
	for j := range n {
		if r.Intn(100) < 3 {
			for k := range nrW {
				m.W[j*nrW+k] = float32(r.Intn(1000))/1000 - 0.5
			}
		}
	}
	x := make([]float32, n)
	for j := range x {
		if r.Intn(2) == 0 {
			x[j] = float32(r.Intn(255)) / 255
		}
	}
	dst := make([]float64, nrW)
	m.IndexNonzeroRows()
	plain := *m
	plain.NonzeroRows = nil
	b.Run("nonzero-rows", func(b *testing.B) {
		for b.Loop() {
			m.DecisionDense(dst, x)
		}
	})
	b.Run("all-rows", func(b *testing.B) {
		for b.Loop() {
			plain.DecisionDense(dst, x)
		}
	})
}

// sigma returns 1/(1 + e^{−t}).
func sigma(t float64) float64 { return 1 / (1 + math.Exp(-t)) }
