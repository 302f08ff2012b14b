package core

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// Optimality of ν-SVC and ν-SVR solutions, checked from the returned α
// alone (KernelDual.Alpha) with the gradient recomputed in float64
// (kernelOf), against the conditions of smo_nu.go's problem
//
//	min ½ αᵀQα + pᵀα   s.t.  Σ_{y=+1} α = Σ_{y=−1} α = S,  0 ≤ α ≤ C:
//
// the box and the two sums (S = νl/2 for ν-SVC, Cνl/2 for ν-SVR; with
// instance weights w_t the box is 0 ≤ α_t ≤ C w_t and l is Σ w_t), the
// per-class violation max_c (m_c − M_c) ≤ eps, r₊ and r₋ by the rule of
// smo_nu.go against the model's ρ and the result's R, Schölkopf's bounds
// (bounded α ≤ νl ≤ support vectors, per pair), and the model's decision
// value at every training row against α: (y_v G_v − ρ)/r for ν-SVC (the
// C-SVC model with C = 1/r), G_v − p_v − ρ for ν-SVR. Rounding allowances
// as in kernel_kkt_test.go.

// nuProblem is one ν subproblem in the solver's variables (kktProblem's
// layout): variable v is row Row[v] with sign Y[v].
type nuProblem struct {
	Row   []int
	Y     []float64
	Alpha []float64
	C, S  float64   // the box and each side's sum
	W     []float64 // each variable's instance weight (its box is C·W[v]); nil: all 1
	P     []float64
	Eps   float64
	Rho   float64 // the model's ρ of the subproblem
	R     float64 // the result's r
	Scale float64 // the model's decision values are (y G − ρ)·Scale: 1/r for ν-SVC
	Dec   int
}

func checkNuProblem(t *testing.T, name string, m *KernelModel, ds *data.Dataset, pr *nuProblem) {
	t.Helper()
	n := len(pr.Alpha)
	c := map[int]float64{}
	a := map[int]float64{}
	var sum [2]float64
	bound := func(v int) float64 {
		if pr.W == nil {
			return pr.C
		}
		return pr.C * pr.W[v]
	}
	var nSV, nBSV float64 // the support vectors' and bounded ones' Σ C_t / C
	for v, al := range pr.Alpha {
		if !(al >= 0 && al <= bound(v)) {
			t.Errorf("%s: α_%d = %v outside [0, %v]", name, v, al, bound(v))
		}
		if al != 0 {
			c[pr.Row[v]] += pr.Y[v] * al
			a[pr.Row[v]] += al
			nSV += bound(v) / pr.C
		}
		if al == bound(v) {
			nBSV += bound(v) / pr.C
		}
		side := 0
		if pr.Y[v] < 0 {
			side = 1
		}
		sum[side] += al
	}
	for side, s := range sum {
		if math.Abs(s-pr.S) > kktEqRel*pr.S {
			t.Errorf("%s: side %d sums to %.17g, want %.17g", name, side, s, pr.S)
		}
	}
	// Schölkopf et al. (2000), Proposition 5, in the scaled variables:
	// α ≤ C and Σα = 2S make at least 2S/C of them nonzero and at most
	// 2S/C of them bounded (with weights, counting each by w_t).
	if nBSV > 2*pr.S/pr.C*(1+1e-12)+1e-9 || nSV < 2*pr.S/pr.C*(1-1e-12)-1e-9 {
		t.Errorf("%s: %v bounded and %v support vectors (by weight) for Σα/C = %v", name, nBSV, nSV, 2*pr.S/pr.C)
	}
	// G_v = Y_v Σ_s c_s K(x_v, x_s) + p_v, the sum once per data row.
	sumK := map[int]float64{}
	bnd := map[int]float64{}
	maxB := 0.0
	for _, r := range pr.Row {
		if _, ok := sumK[r]; ok {
			continue
		}
		var s, b float64
		for sv, cs := range c {
			k := kernelOf(m.Kernel, ds, r, sv)
			s += cs * k
			b += math.Abs(k) * a[sv]
		}
		sumK[r], bnd[r] = s, b
		maxB = max(maxB, b)
	}
	G := make([]float64, n)
	for v := range n {
		G[v] = pr.Y[v]*sumK[pr.Row[v]] + pr.P[v]
	}
	allow := kktRoundFactor * maxB
	var m_, M_ [2]float64
	var freeSum, ub, lb [2]float64
	var nFree [2]int
	for side := range 2 {
		m_[side], M_[side] = math.Inf(-1), math.Inf(1)
		ub[side], lb[side] = math.Inf(1), math.Inf(-1)
	}
	for v := range n {
		side := 0
		if pr.Y[v] < 0 {
			side = 1
		}
		al := pr.Alpha[v]
		g := -pr.Y[v] * G[v]
		up := pr.Y[v] > 0 && al < bound(v) || pr.Y[v] < 0 && al > 0
		low := pr.Y[v] < 0 && al < bound(v) || pr.Y[v] > 0 && al > 0
		if up {
			m_[side] = max(m_[side], g)
		}
		if low {
			M_[side] = min(M_[side], g)
		}
		switch {
		case al > 0 && al < bound(v):
			freeSum[side] += G[v]
			nFree[side]++
		case al >= bound(v):
			lb[side] = max(lb[side], G[v])
		default:
			ub[side] = min(ub[side], G[v])
		}
	}
	var rc [2]float64
	for side := range 2 {
		if gap := m_[side] - M_[side]; gap > pr.Eps+allow {
			t.Errorf("%s: side %d: m − M = %.6g > eps %v + rounding %.3g", name, side, gap, pr.Eps, allow)
		}
		switch {
		case nFree[side] > 0:
			rc[side] = freeSum[side] / float64(nFree[side])
		case math.IsInf(ub[side], 1):
			rc[side] = lb[side]
		case math.IsInf(lb[side], -1):
			rc[side] = ub[side]
		default:
			rc[side] = (ub[side] + lb[side]) / 2
		}
	}
	rho, r := (rc[0]-rc[1])/2, (rc[0]+rc[1])/2
	if math.Abs(r-pr.R) > allow {
		t.Errorf("%s: r = %.17g, from α %.17g (allowance %.3g)", name, pr.R, r, allow)
	}
	if math.Abs(rho*pr.Scale-pr.Rho) > allow*pr.Scale {
		t.Errorf("%s: model ρ = %.17g, from α %.17g (allowance %.3g)", name, pr.Rho, rho*pr.Scale, allow*pr.Scale)
	}
	dec := make([]float64, m.NumDecisionValues())
	for v := range n {
		row := pr.Row[v]
		var f float64
		if ds.IsDense() {
			f = m.DecisionDense(dec, ds.DenseRow(row))[pr.Dec]
		} else {
			idx, val := ds.SparseRow(row)
			f = m.DecisionSparse(dec, idx, val)[pr.Dec]
		}
		want := (pr.Y[v]*(G[v]-pr.P[v]) - rho) * pr.Scale
		if d := math.Abs(f - want); d > (kktDecRel*(1+bnd[row])+allow)*pr.Scale {
			t.Errorf("%s: row %d: model decision %.17g, from α %.17g", name, row, f, want)
			break
		}
	}
}

// nuSVCProblems builds the pairs of a ν-SVC dual.
func nuSVCProblems(t *testing.T, m *KernelModel, dual *KernelDual, ds *data.Dataset) []*nuProblem {
	t.Helper()
	nr := len(m.Labels)
	var probs []*nuProblem
	for i := range nr {
		for j := i + 1; j < nr; j++ {
			pi := len(probs)
			if dual.Pairs[pi] != [2]int32{m.Labels[i], m.Labels[j]} {
				t.Fatalf("pair %d: dual has %v", pi, dual.Pairs[pi])
			}
			sub := m.Result.Subproblems[pi]
			pr := &nuProblem{C: 1, Eps: m.Params.Eps, Rho: m.Rho[pi], R: sub.R, Scale: 1 / sub.R, Dec: pi}
			L := 0.0 // the pair's rows counted by weight
			for _, side := range []int32{m.Labels[i], m.Labels[j]} {
				for r := range ds.Len() {
					if int32(ds.Label(r)) != side {
						continue
					}
					y := 1.0
					if side == m.Labels[j] {
						y = -1
					}
					pr.Row, pr.Y = append(pr.Row, r), append(pr.Y, y)
					pr.Alpha, pr.P = append(pr.Alpha, dual.Alpha[pi][r]), append(pr.P, 0)
					pr.W = append(pr.W, ds.Weight(r))
					L += ds.Weight(r)
				}
			}
			pr.S = m.Params.Nu * L / 2
			probs = append(probs, pr)
		}
	}
	return probs
}

// nuSVRProblem builds ν-SVR's 2l variables from β (α = β⁺, α* = β⁻).
func nuSVRProblem(m *KernelModel, dual *KernelDual, ds *data.Dataset) *nuProblem {
	l := ds.Len()
	sub := m.Result.Subproblems[0]
	L := 0.0 // the rows counted by weight
	for r := range l {
		L += ds.Weight(r)
	}
	pr := &nuProblem{C: m.Params.C, S: m.Params.C * m.Params.Nu * L / 2, Eps: m.Params.Eps,
		Rho: m.Rho[0], R: sub.R, Scale: 1}
	for side := range 2 {
		for r, b := range dual.Alpha[0] {
			y, al, p := 1.0, max(b, 0), -ds.Label(r)
			if side == 1 {
				y, al, p = -1, max(-b, 0), ds.Label(r)
			}
			pr.Row, pr.Y, pr.Alpha, pr.P = append(pr.Row, r), append(pr.Y, y), append(pr.Alpha, al), append(pr.P, p)
			pr.W = append(pr.W, ds.Weight(r))
		}
	}
	return pr
}

// setNuTestWeights gives row r of ds the weight nuTestWeights[r % 6]:
// fractional and whole, below and above 1.
func setNuTestWeights(t *testing.T, ds *data.Dataset) {
	t.Helper()
	for r := range ds.Len() {
		if err := ds.SetWeight(r, nuTestWeights[r%len(nuTestWeights)]); err != nil {
			t.Fatal(err)
		}
	}
}

var nuTestWeights = []float64{1, 2, 0.5, 1, 3, 1.75}

func TestNuKKT(t *testing.T) {
	for _, c := range []struct {
		name, data, opts string
		weighted         bool // instance weights (setNuTestWeights)
	}{
		{"heart_scale", "heart_scale", "-s 1 -n 0.5", false},
		{"heart_scale_poly", "heart_scale", "-s 1 -t 1 -d 2 -g 0.1 -r 1 -n 0.3", false},
		{"heart_scale_noshrink", "heart_scale", "-s 1 -n 0.2 -h 0", false},
		{"digits", "digits.train", "-s 1 -n 0.1", false},
		{"diabetes", "diabetes.train", "-s 4 -n 0.5 -c 10", false},
		{"diabetes_nu0.2", "diabetes.train", "-s 4 -n 0.2 -c 100 -g 1", false},
		{"heart_scale_weighted", "heart_scale", "-s 1 -n 0.5", true},
		{"heart_scale_weighted_noshrink", "heart_scale", "-s 1 -n 0.2 -h 0", true},
		{"digits_weighted", "digits.train", "-s 1 -n 0.1", true},
		{"diabetes_weighted", "diabetes.train", "-s 4 -n 0.5 -c 10", true},
		{"diabetes_weighted_nu0.2", "diabetes.train", "-s 4 -n 0.2 -c 100 -g 1", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, _, err := ParseKernelOptions(strings.Fields(c.opts))
			if err != nil {
				t.Fatal(err)
			}
			ds := readRefData(t, c.data)
			if c.weighted {
				setNuTestWeights(t, ds)
			}
			m, dual, err := TrainKernel(ds, o.Params)
			if err != nil {
				t.Fatal(err)
			}
			if m.SVMType != o.Params.SVMType || dual.SVMType != o.Params.SVMType {
				t.Fatalf("model %v, dual %v, want %v", m.SVMType, dual.SVMType, o.Params.SVMType)
			}
			if m.SVMType == NuSVC {
				for k, pr := range nuSVCProblems(t, m, dual, ds) {
					checkNuProblem(t, fmt.Sprintf("pair %d", k), m, ds, pr)
				}
				return
			}
			if r := m.Result.Subproblems[0].R; !(r < 0) {
				t.Errorf("ν-SVR r = %v: want ε = −r > 0", r)
			}
			checkNuProblem(t, "nu-SVR", m, ds, nuSVRProblem(m, dual, ds))
		})
	}
}

// The two formulations' equivalence (Chang & Lin 2001, Theorem 2): the
// ν-SVC model of a pair is the C-SVC model with C = 1/r, and ε-SVR with
// ε = −r (and the same C) is the ν-SVR model.
func TestNuEquivalentC(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	p := DefaultKernelParams()
	p.SVMType, p.Nu, p.Eps = NuSVC, 0.4, 1e-6
	nm, _, err := TrainKernel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	q := DefaultKernelParams()
	q.C, q.Eps = 1/nm.Result.Subproblems[0].R, 1e-6
	cm, _, err := TrainKernel(ds, q)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(nm.Rho[0] - cm.Rho[0]); d > 1e-4*max(1, math.Abs(cm.Rho[0])) {
		t.Errorf("ν-SVC ρ %.9g, C-SVC with C = 1/r ρ %.9g", nm.Rho[0], cm.Rho[0])
	}
	dec := []float64{0}
	for i := range ds.Len() {
		idx, val := nuSparseRow(ds, i)
		a := nm.DecisionSparse(dec, idx, val)[0]
		b := cm.DecisionSparse(dec, idx, val)[0]
		if math.Abs(a-b) > 1e-4*max(1, math.Abs(b)) {
			t.Fatalf("row %d: ν-SVC decision %.9g, C-SVC %.9g", i, a, b)
		}
	}

	dr := readRefData(t, "diabetes.train")
	p = DefaultKernelParams()
	p.SVMType, p.Nu, p.C, p.Eps = NuSVR, 0.3, 10, 1e-6
	nr, _, err := TrainKernel(dr, p)
	if err != nil {
		t.Fatal(err)
	}
	q = DefaultKernelParams()
	q.SVMType, q.C, q.P, q.Eps = EpsSVR, 10, -nr.Result.Subproblems[0].R, 1e-6
	er, _, err := TrainKernel(dr, q)
	if err != nil {
		t.Fatal(err)
	}
	// ε-SVR's objective adds ε·Σ(α + α*) = ε·Cνl to ν-SVR's.
	if d := math.Abs(nr.Result.Objective - (er.Result.Objective - q.P*p.C*p.Nu*float64(dr.Len()))); d > 1e-6*math.Abs(er.Result.Objective) {
		t.Errorf("ν-SVR objective %.9g, ε-SVR's %.9g − ε·Cνl %.9g", nr.Result.Objective, er.Result.Objective, q.P*p.C*p.Nu*float64(dr.Len()))
	}
	for i := range dr.Len() {
		a, b := predictRow(nr, dr, i), predictRow(er, dr, i)
		if math.Abs(a-b) > 1e-4*max(1, math.Abs(b)) {
			t.Fatalf("row %d: ν-SVR %.9g, ε-SVR with ε = −r %.9g", i, a, b)
		}
	}
}

func TestNuInfeasible(t *testing.T) {
	// Classes of 10, 3 and 2 rows: the pair (10, 2) allows ν ≤ 4/12.
	ds := data.NewDense(15, 1)
	for i := range 15 {
		label := 1.0
		switch {
		case i >= 13:
			label = 3
		case i >= 10:
			label = 2
		}
		if err := ds.AppendDense(label, []float32{float32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	p := DefaultKernelParams()
	p.SVMType, p.Nu = NuSVC, 0.34
	_, _, err := TrainKernel(ds, p)
	if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), "specified nu is infeasible") ||
		!strings.Contains(err.Error(), "classes 1 (10 rows) and 3 (2 rows)") {
		t.Errorf("ν = 0.34: error %v, want svm-train's \"specified nu is infeasible\" naming classes 1 and 3", err)
	}
	if _, err := CrossValidateKernel(ds, p, 3); err == nil || !strings.Contains(err.Error(), "specified nu is infeasible") {
		t.Errorf("cross validation: error %v, want infeasible", err)
	}
	p.Nu = 1.0 / 3 // the limit itself is feasible
	if _, _, err := TrainKernel(ds, p); err != nil {
		t.Errorf("ν = 1/3: %v", err)
	}
}

// Identical rows in both classes: the reduced convex hulls meet, the dual
// optimum is 0 and r = 0, where LIBSVM would divide by zero.
func TestNuDegenerate(t *testing.T) {
	ds := data.NewDense(8, 1)
	for i := range 8 {
		label := 1.0
		if i%2 == 1 {
			label = -1
		}
		if err := ds.AppendDense(label, []float32{float32(i / 2)}); err != nil {
			t.Fatal(err)
		}
	}
	p := DefaultKernelParams()
	p.SVMType, p.Nu = NuSVC, 0.5
	_, _, err := TrainKernel(ds, p)
	if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), "larger nu") {
		t.Errorf("error %v, want ErrParams asking for a larger nu", err)
	}
}

// TestNuWarmStart: a warm start from the solution on the first 90% of the
// rows (under another ν; with instance weights, the same or none) reaches
// the cold optimum on all of them, optimal by checkNuProblem.
func TestNuWarmStart(t *testing.T) {
	for _, c := range []struct {
		name, data string
		typ        SVMType
		nu0, nu    float64
		// weights: 0 none; 1 the rows weigh setNuTestWeights' weights in
		// both runs; 2 in the second run only, so the warm α are clipped
		// into the new boxes and the sums repaired (feasible.RepairSums).
		weights int
	}{
		{"svc", "digits.train", NuSVC, 0.1, 0.1, 0},
		{"svc_new_nu", "digits.train", NuSVC, 0.2, 0.1, 0},
		{"svr", "diabetes.train", NuSVR, 0.5, 0.5, 0},
		{"svr_new_nu", "diabetes.train", NuSVR, 0.3, 0.5, 0},
		{"svc_weighted", "digits.train", NuSVC, 0.1, 0.1, 1},
		{"svc_weighted_new_nu", "digits.train", NuSVC, 0.2, 0.1, 1},
		{"svc_reweighted", "digits.train", NuSVC, 0.1, 0.1, 2},
		{"svr_weighted", "diabetes.train", NuSVR, 0.5, 0.5, 1},
		{"svr_weighted_new_nu", "diabetes.train", NuSVR, 0.3, 0.5, 1},
		{"svr_reweighted", "diabetes.train", NuSVR, 0.5, 0.5, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := readRefData(t, c.data)
			first := ds // the rows of the 90% run
			if c.weights == 2 {
				first = readRefData(t, c.data)
			}
			if c.weights > 0 {
				setNuTestWeights(t, ds)
			}
			L := 0.0 // the rows counted by weight
			for r := range ds.Len() {
				L += ds.Weight(r)
			}
			p := DefaultKernelParams()
			p.SVMType, p.Nu, p.C = c.typ, c.nu, 10
			p.Kernel.Gamma = 1 / float64(ds.NumFeatures())
			tr, err := NewKernelTrainer(p, ds.Len(), ds.NumFeatures())
			if err != nil {
				t.Fatal(err)
			}
			cold, _, err := tr.Train(ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			p0 := p
			p0.Nu = c.nu0
			tr0, err := NewKernelTrainer(p0, ds.Len(), ds.NumFeatures())
			if err != nil {
				t.Fatal(err)
			}
			_, d90, err := tr0.Train(first.Prefix(ds.Len()*9/10), nil)
			if err != nil {
				t.Fatal(err)
			}
			warm, wdual, err := tr.Train(ds, extendDual(d90, ds.Len()))
			if err != nil {
				t.Fatal(err)
			}
			// The solver's objective (ν-SVC's before the division by r²,
			// which magnifies r's tolerance) of two points that are both
			// optimal to eps differ by at most about eps·Σα.
			for k, s := range warm.Result.Subproblems {
				cs := cold.Result.Subproblems[k]
				wo, co, sum := s.Objective, cs.Objective, p.C*p.Nu*L
				if c.typ == NuSVC {
					// Σα of the pair's rows, counted by weight.
					sum = 0
					for r := range ds.Len() {
						if y := int32(ds.Label(r)); y == s.Pos || y == s.Neg {
							sum += ds.Weight(r)
						}
					}
					wo, co, sum = wo*s.R*s.R, co*cs.R*cs.R, p.Nu*sum
				}
				if math.Abs(wo-co) > p.Eps*sum {
					t.Errorf("sub %d: warm objective %.8g, cold %.8g (solver's scale)", k, wo, co)
				}
			}
			if c.typ == NuSVC {
				for k, pr := range nuSVCProblems(t, warm, wdual, ds) {
					checkNuProblem(t, fmt.Sprintf("pair %d", k), warm, ds, pr)
				}
			} else {
				checkNuProblem(t, "nu-SVR", warm, ds, nuSVRProblem(warm, wdual, ds))
			}
			t.Logf("kernel evaluations: cold %d, warm %d; iterations cold %d, warm %d",
				cold.Result.KernelEvals, warm.Result.KernelEvals, cold.Result.Iterations, warm.Result.Iterations)
			if c.nu0 == c.nu && c.weights < 2 && warm.Result.KernelEvals >= cold.Result.KernelEvals {
				t.Errorf("warm start took %d kernel evaluations, cold %d", warm.Result.KernelEvals, cold.Result.KernelEvals)
			}
			// From its own dual and gradient, a run is optimal at once.
			again, _, err := tr.Train(ds, wdual)
			if err != nil {
				t.Fatal(err)
			}
			if again.Result.Iterations != 0 {
				t.Errorf("warm start at the optimum took %d iterations", again.Result.Iterations)
			}
		})
	}
}

// The ν solve allocates nothing, cold or warm from a stored gradient.
func TestNuSolveAllocs(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	l := ds.Len()
	k := DefaultKernelParams().ResolvedKernel(ds.NumFeatures())
	kr := newKernelRows(ds, k, make([]float64, l))
	rows := make([]int32, l)
	y := make([]int8, l)
	p := make([]float64, l)
	nPos := 0
	for r := range l {
		rows[r] = int32(r)
		y[r] = -1
		if ds.Label(r) > 0 {
			y[r] = 1
			nPos++
		}
	}
	q := newSVCQ(kr, rows, y, 1<<20)
	s := newSMO(l)
	par := smoParams{Cp: 1, Cn: 1, Shrinking: true, Nu: true}
	start := make([]float64, l)
	fill := func() {
		pos, neg := 0.25*float64(l), 0.25*float64(l)
		for r := range l {
			if y[r] > 0 {
				start[r] = min(1, pos)
				pos -= start[r]
			} else {
				start[r] = min(1, neg)
				neg -= start[r]
			}
		}
	}
	var res smoResult
	allocs := testing.AllocsPerRun(5, func() {
		fill()
		q.reset(rows, y)
		res = s.solve(q, p, y, start, par)
	})
	if allocs != 0 || !res.Converged || res.Iterations == 0 || !(res.R > 0) {
		t.Errorf("%g allocations per solve (converged %v, %d iterations, r %v)", allocs, res.Converged, res.Iterations, res.R)
	}
}

// A ν-SVC model trained here and LIBSVM's model of the same options
// (testdata/heart_scale_nu.libsvm.model, svm-train 3.24) predict the same
// label on every row, with decision values within the two solvers'
// stopping tolerance; the same for ν-SVR's values on diabetes.test.
func TestNuPredictionsMatchLIBSVM(t *testing.T) {
	_, _, imports := readLibsvmRef(t)
	for _, c := range []struct {
		imp, train, opts string
		tol              float64 // decision values, relative to max(1, |value|)
	}{
		{"heart_scale_nu_libsvm", "heart_scale", "-s 1 -t 2 -n 0.5", 1e-3},
		{"diabetes_nu_libsvm", "diabetes.train", "-s 4 -t 2 -n 0.5 -c 10", 1e-4},
	} {
		t.Run(c.imp, func(t *testing.T) {
			var ref *libsvmRefImport
			for k := range imports {
				if imports[k].Name == c.imp {
					ref = &imports[k]
				}
			}
			if ref == nil {
				t.Fatalf("no import record %s", c.imp)
			}
			o, _, err := ParseKernelOptions(strings.Fields(c.opts))
			if err != nil {
				t.Fatal(err)
			}
			m, _, err := TrainKernel(readRefData(t, c.train), o.Params)
			if err != nil {
				t.Fatal(err)
			}
			test := readRefData(t, ref.Test)
			dec := make([]float64, 1)
			worst := 0.0
			for i := range test.Len() {
				idx, val := nuSparseRow(test, i)
				got := m.DecisionSparse(dec, idx, val)[0]
				want := ref.Dec[i][0]
				d := math.Abs(got-want) / max(1, math.Abs(want))
				worst = max(worst, d)
				if d > c.tol {
					t.Errorf("row %d: decision %.9g, LIBSVM %.9g", i+1, got, want)
				}
				if pred := m.PredictSparse(idx, val); !m.IsRegression() && pred != ref.Labels[i] {
					t.Errorf("row %d: predicted %v, LIBSVM %v", i+1, pred, ref.Labels[i])
				}
			}
			t.Logf("largest decision value difference %.3g (relative)", worst)
		})
	}
}

// nuSparseRow returns row i of ds as 0-based indices and values, the
// nonzeros of a dense row.
func nuSparseRow(ds *data.Dataset, i int) ([]int32, []float32) {
	if !ds.IsDense() {
		return ds.SparseRow(i)
	}
	var idx []int32
	var val []float32
	for j, v := range ds.DenseRow(i) {
		if v != 0 {
			idx, val = append(idx, int32(j)), append(val, v)
		}
	}
	return idx, val
}
