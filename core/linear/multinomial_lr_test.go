package linear

import (
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// multinomialGradient returns ‖∇f(W)‖ / ‖∇f(0)‖ of -s 40's objective at the
// float32 model m, computed from its weights alone (not the solver's
// buffers), and f(W).
func multinomialGradient(ds *data.Dataset, m *LinearModel) (rel, f float64) {
	K, n := len(m.Labels), m.NumFeatures
	d := n
	if m.Bias >= 0 {
		d++
	}
	grad := func(w func(j, k int) float64) ([]float64, float64) {
		g := make([]float64, K*d)
		var obj float64
		for k := range K {
			for j := range n {
				g[k*d+j] = w(j, k)
				obj += 0.5 * w(j, k) * w(j, k)
			}
		}
		z, p := make([]float64, K), make([]float64, K)
		for i := range ds.Len() {
			idx, val := anyRow(ds, i)
			zmax := math.Inf(-1)
			for k := range K {
				z[k] = 0
				for q, j := range idx {
					if int(j) < n {
						z[k] += float64(val[q]) * w(int(j), k)
					}
				}
				if m.Bias >= 0 {
					z[k] += m.Bias * w(n, k)
				}
				zmax = max(zmax, z[k])
			}
			var sum float64
			for k := range K {
				p[k] = math.Exp(z[k] - zmax)
				sum += p[k]
			}
			y := 0
			for k, l := range m.Labels {
				if float64(l) == ds.Labels()[i] {
					y = k
				}
			}
			c := m.Params.C
			obj += c * (zmax + math.Log(sum) - z[y])
			for k := range K {
				a := c * p[k] / sum
				if k == y {
					a -= c
				}
				for q, j := range idx {
					if int(j) < n {
						g[k*d+int(j)] += a * float64(val[q])
					}
				}
				if m.Bias >= 0 {
					g[k*d+n] += a * m.Bias
				}
			}
		}
		return g, obj
	}
	g0, _ := grad(func(int, int) float64 { return 0 })
	g, f := grad(func(j, k int) float64 { return float64(m.W[j*K+k]) })
	return norm2(g) / norm2(g0), f
}

// anyRow returns row i of a dense or sparse ds as indices and values.
func anyRow(ds *data.Dataset, i int) ([]int32, []float32) {
	if !ds.IsDense() {
		return ds.SparseRow(i)
	}
	x := ds.DenseRow(i)
	idx := make([]int32, len(x))
	for j := range idx {
		idx[j] = int32(j)
	}
	return idx, x
}

// TestMultinomialOptimality trains -s 40 on digits and heart_scale and
// checks the optimality condition ∇f(W) = 0 on the float32 model's own
// weights, recomputed independently of the solver.
func TestMultinomialOptimality(t *testing.T) {
	for _, tc := range []struct {
		name string
		bias float64
	}{{"digits.train", 1}, {"digits.train", -1}, {"heart_scale", 1}} {
		ds := readTestdata(t, tc.name)
		p := DefaultLinearParams()
		p.Solver, p.Eps, p.Bias = L2LogisticMultinomial, 1e-6, tc.bias
		m, _, err := TrainLinear(ds, p)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Result.Converged {
			t.Fatalf("%s: did not converge in %d iterations", tc.name, m.Result.Iterations)
		}
		if m.NrW() != len(m.Labels) {
			t.Fatalf("%s: %d decision functions for %d classes", tc.name, m.NrW(), len(m.Labels))
		}
		rel, f := multinomialGradient(ds, m)
		// float32 weights: the gradient of the rounded model, relative.
		if rel > 1e-4 {
			t.Errorf("%s -B %v: ‖∇f‖/‖∇f(0)‖ = %.3g at the model's weights", tc.name, tc.bias, rel)
		}
		if d := math.Abs(f-m.Result.PrimalObjective) / f; d > 1e-6 {
			t.Errorf("%s: objective %.10g recomputed, solver %.10g", tc.name, f, m.Result.PrimalObjective)
		}
		t.Logf("%s -B %v: %d Newton iterations, %d Hessian products, f = %.8g, ‖∇f‖ rel %.2g",
			tc.name, tc.bias, m.Result.Iterations, m.Result.HessianProducts, f, rel)
	}
}

// TestMultinomialBinaryIsLogistic: with two classes and no bias, the
// softmax over (w_1, w_2) at cost C is binary logistic regression in
// v = w_1 − w_2 at cost 2C (½(‖w_1‖² + ‖w_2‖²) is smallest at w_1 = −w_2 =
// v/2, where it is ¼‖v‖²), so -s 40 -c 0.5 gives -s 0 -c 1's weights,
// which the -s 0 parity tests hold to LIBLINEAR's.
func TestMultinomialBinaryIsLogistic(t *testing.T) {
	ds := readTestdata(t, "heart_scale")
	p := DefaultLinearParams()
	p.Solver, p.C, p.Eps = L2LogisticMultinomial, 0.5, 1e-8
	mm, _, err := TrainLinear(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	p.Solver, p.C, p.Eps = L2Logistic, 1, 1e-8
	mb, _, err := TrainLinear(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	if mm.Labels[0] != mb.Labels[0] {
		t.Fatalf("labels %v and %v", mm.Labels, mb.Labels)
	}
	for j := range mm.NumFeatures {
		v := float64(mm.W[2*j]) - float64(mm.W[2*j+1])
		if d := math.Abs(v - float64(mb.W[j])); d > 1e-5*(1+math.Abs(v)) {
			t.Errorf("feature %d: w1 − w2 = %.8g, -s 0 w = %.8g", j, v, mb.W[j])
		}
	}
	// Same probabilities: softmax of (d_1, d_2) is σ(d_1 − d_2).
	x := make([]float32, ds.NumFeatures())
	pm, pb := make([]float64, 2), make([]float64, 2)
	for i := range 20 {
		clear(x)
		idx, val := anyRow(ds, i)
		for q, j := range idx {
			x[j] = val[q]
		}
		mm.ProbabilityDense(pm, x)
		mb.ProbabilityDense(pb, x)
		if math.Abs(pm[0]-pb[0]) > 1e-5 {
			t.Errorf("row %d: softmax P = %v, logistic %v", i, pm, pb)
		}
		if mm.PredictDense(x) != mb.PredictDense(x) && math.Abs(pb[0]-0.5) > 1e-6 {
			t.Errorf("row %d: predictions differ", i)
		}
	}
}

// TestMultinomialWarmStart: a run started from the model's own weights
// stops at once, at the cold test.
func TestMultinomialWarmStart(t *testing.T) {
	ds := readTestdata(t, "digits.train")
	p := DefaultLinearParams()
	p.Solver, p.Bias = L2LogisticMultinomial, 1
	tr, err := NewLinearTrainer(p, ds.Len(), ds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	cold, _, err := tr.Train(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	warm, _, err := tr.TrainFrom(ds, nil, PrimalOf(cold))
	if err != nil {
		t.Fatal(err)
	}
	if !warm.Result.Converged || warm.Result.Iterations > 1 {
		t.Errorf("warm start from the solution: %d iterations (cold %d)", warm.Result.Iterations, cold.Result.Iterations)
	}
}

// TestMultinomialSolveNoAllocs: an iteration (and a whole solve, once the
// buffers are sized) allocates nothing.
func TestMultinomialSolveNoAllocs(t *testing.T) {
	ds := readTestdata(t, "digits.train")
	p := DefaultLinearParams()
	p.Solver, p.Bias = L2LogisticMultinomial, 1
	tr, err := NewLinearTrainer(p, ds.Len(), ds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.Train(ds, nil); err != nil {
		t.Fatal(err)
	}
	s := &tr.mlr
	labels := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	Ck := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	allocs := testing.AllocsPerRun(3, func() {
		s.init(ds, labels, Ck, 1, nil)
		s.solve(1e-4, 100)
	})
	if allocs != 0 {
		t.Errorf("init and solve allocate %v times", allocs)
	}
}
