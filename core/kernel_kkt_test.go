package core

import (
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// Optimality of the kernel trainer's solutions, checked from the returned
// α alone (KernelDual.Alpha, never the solver's stored G): each
// subproblem's gradient G = Qα + p is recomputed in float64 with
// Kernel.Dense or Kernel.Sparse, and the conditions of the dual
//
//	min ½ αᵀQα + pᵀα   s.t.  yᵀα = Δ,  0 ≤ α_t ≤ C_t
//
// are checked: the box, the equality, the maximal violating pair
// m(α) − M(α) ≤ eps (smo.go's stopping rule), ρ against the rule smo.go
// states (mean of y_t G_t over free α_t, else the midpoint of the interval
// the bounded ones allow), and the model's Coef, SV and decision values
// against α.
//
// Rounding allowance. The solver's Q entries are float32 (like LIBSVM's
// Qfloat) of the float64 kernel values Kernel.Dense/Sparse return bit for
// bit (kernel.go), so each entry is off by at most 2⁻²⁴ relative, and the
// solver's G_t by at most 2⁻²⁴·B_t with B_t = Σ_s |K_ts| α_s: the error of
// each entry enters G_t once, through the final α_s, however many
// iterations added it. The float64 sums over iterations add about
// iterations × 2⁻⁵³ relative, below 10⁻¹⁰ here. A gap takes two
// gradients, so the recomputed gap may exceed the solver's by
// 2·2⁻²⁴·max B; kktRoundFactor = 2⁻²² doubles that to cover the float64
// part. The same bound, halved, applies to ρ, a mean or midpoint of G
// values. A second pass rounds each K to float32 as the solver does, which
// leaves only float64 rounding between its G and ours, and checks the gap
// and ρ again under that much tighter allowance: the exact check says the
// solution is optimal to eps, the second that the solver stopped by its
// own rule.
const (
	kktRoundFactor = 0x1p-22 // gap allowance per unit of max_t B_t
	kktEqRel       = 1e-9    // |yᵀα − Δ| relative to max(Σα, Δ)
	kktDecRel      = 1e-9    // model decision value vs G, relative to 1 + B_t
)

// kktProblem is one subproblem in the solver's variables, built from a
// KernelDual: variable v is row Row[v] of the data set with sign Y[v]
// (Q_vw = Y_v Y_w K(x_Row[v], x_Row[w]), and y of the equality is Y too for
// every formulation here).
type kktProblem struct {
	Row   []int
	Y     []float64
	Alpha []float64
	C     []float64
	P     []float64
	Delta float64
	Eps   float64
	Rho   float64 // the model's ρ of this subproblem
	Dec   int     // index of its decision value in DecisionDense's output
	Iter  int     // the solver's iterations, for the float64 rounding bound
}

// kktReport is what checkKKTProblem measured.
type kktReport struct {
	Gap, Allow, RhoDiff, EqRes, DecDiff float64
	// Gap32 and Allow32 are the gap with the solver's float32 Q entries
	// and its float64-only allowance; RhoDiff32 |ρ − rule| from that G.
	Gap32, Allow32, RhoDiff32 float64
}

// kernelOf returns K(x_i, x_j) of rows i and j of ds in float64.
func kernelOf(k Kernel, ds *data.Dataset, i, j int) float64 {
	if ds.IsDense() {
		return k.Dense(ds.DenseRow(i), ds.DenseRow(j))
	}
	ii, iv := ds.SparseRow(i)
	ji, jv := ds.SparseRow(j)
	return k.Sparse(ii, iv, ji, jv)
}

// checkKKTProblem recomputes G of pr on ds and checks the conditions; it
// returns the measured gap, its allowance, |ρ − rule|, the equality
// residual and the largest decision-value difference.
func checkKKTProblem(t *testing.T, name string, m *KernelModel, ds *data.Dataset, pr *kktProblem) kktReport {
	t.Helper()
	n := len(pr.Alpha)
	// Coefficients per data row: c_r = Σ_{v: Row v = r} Y_v α_v, a_r = Σ α_v.
	c := map[int]float64{}
	a := map[int]float64{}
	var sumA, yA float64
	for v, al := range pr.Alpha {
		if !(al >= 0 && al <= pr.C[v]) {
			t.Errorf("%s: α_%d = %v outside [0, %v]", name, v, al, pr.C[v])
		}
		if al != 0 {
			c[pr.Row[v]] += pr.Y[v] * al
			a[pr.Row[v]] += al
		}
		sumA += al
		yA += pr.Y[v] * al
	}
	var rep kktReport
	rep.EqRes = math.Abs(yA - pr.Delta)
	if rep.EqRes > kktEqRel*max(sumA, math.Abs(pr.Delta)) {
		t.Errorf("%s: yᵀα = %.17g, want %.17g (Σα = %v)", name, yA, pr.Delta, sumA)
	}

	// Σ_s c_s K(x_r, x_s) and B per data row, once per row; sum32 with
	// K rounded to float32 as the solver's Q holds it.
	sum := map[int]float64{}
	sum32 := map[int]float64{}
	bnd := map[int]float64{}
	for _, r := range pr.Row {
		if _, ok := sum[r]; ok {
			continue
		}
		var s, s32, b float64
		for sv, cs := range c {
			k := kernelOf(m.Kernel, ds, r, sv)
			s += cs * k
			s32 += cs * float64(float32(k))
			b += math.Abs(k) * a[sv]
		}
		sum[r], sum32[r], bnd[r] = s, s32, b
	}
	G := make([]float64, n)
	G32 := make([]float64, n)
	maxB, maxP := 0.0, 0.0
	for v := range n {
		G[v] = pr.Y[v]*sum[pr.Row[v]] + pr.P[v]
		G32[v] = pr.Y[v]*sum32[pr.Row[v]] + pr.P[v]
		maxB = max(maxB, bnd[pr.Row[v]])
		maxP = max(maxP, math.Abs(pr.P[v]))
	}
	rep.Allow = kktRoundFactor * maxB
	// With the solver's own Q, only float64 rounding separates its G from
	// G32: at most 2⁻⁵³ relative per addition, one addition per iteration
	// plus up to n in a rebuild, on values bounded by B + |p|; two G's per
	// gap.
	rep.Allow32 = 2 * float64(pr.Iter+n) * 0x1p-53 * (maxB + maxP)
	rep.Gap32, rep.RhoDiff32 = kktGapRho(pr, G32)
	if rep.Gap32 > pr.Eps+rep.Allow32 {
		t.Errorf("%s: with float32 Q, m(α) − M(α) = %.9g > eps %v + rounding %.3g", name, rep.Gap32, pr.Eps, rep.Allow32)
	}
	if rep.RhoDiff32 > rep.Allow32/2 {
		t.Errorf("%s: with float32 Q, model ρ = %.17g is %.3g off the rule (allowance %.3g)", name, pr.Rho, rep.RhoDiff32, rep.Allow32/2)
	}
	rep.Gap, rep.RhoDiff = kktGapRho(pr, G)
	if rep.Gap > pr.Eps+rep.Allow {
		t.Errorf("%s: m(α) − M(α) = %.6g > eps %v + rounding %.3g", name, rep.Gap, pr.Eps, rep.Allow)
	}
	if rep.RhoDiff > rep.Allow/2 {
		t.Errorf("%s: model ρ = %.17g is %.3g off the rule from α (allowance %.3g)", name, pr.Rho, rep.RhoDiff, rep.Allow/2)
	}

	// The model's decision value at each training row of the subproblem is
	// Y_v (G_v − p_v) − ρ: it ties Coef, SV and Rho to α end to end.
	dec := make([]float64, m.NumDecisionValues())
	seen := map[int]bool{}
	for v := range n {
		r := pr.Row[v]
		if seen[r] {
			continue
		}
		seen[r] = true
		var f float64
		if ds.IsDense() {
			f = m.DecisionDense(dec, ds.DenseRow(r))[pr.Dec]
		} else {
			idx, val := ds.SparseRow(r)
			f = m.DecisionSparse(dec, idx, val)[pr.Dec]
		}
		want := pr.Y[v]*(G[v]-pr.P[v]) - pr.Rho
		d := math.Abs(f - want)
		rep.DecDiff = max(rep.DecDiff, d)
		if d > kktDecRel*(1+bnd[r]) {
			t.Errorf("%s: row %d: model decision %.17g, from α %.17g", name, r, f, want)
			break
		}
	}
	return rep
}

// kktGapRho returns m(α) − M(α) over I_up and I_low for the gradient G,
// and |ρ − rule| for the rule of smo.go (mean of y_t G_t over free α_t,
// else the midpoint of the interval the bounded ones allow).
func kktGapRho(pr *kktProblem, G []float64) (gap, rhoDiff float64) {
	n := len(G)
	up := func(v int) bool { return pr.Y[v] > 0 && pr.Alpha[v] < pr.C[v] || pr.Y[v] < 0 && pr.Alpha[v] > 0 }
	low := func(v int) bool { return pr.Y[v] < 0 && pr.Alpha[v] < pr.C[v] || pr.Y[v] > 0 && pr.Alpha[v] > 0 }
	mUp, mLow := math.Inf(-1), math.Inf(1)
	for v := range n {
		g := -pr.Y[v] * G[v]
		if up(v) {
			mUp = max(mUp, g)
		}
		if low(v) {
			mLow = min(mLow, g)
		}
	}
	ub, lb := math.Inf(1), math.Inf(-1)
	var free float64
	nFree := 0
	for v := range n {
		yG := pr.Y[v] * G[v]
		switch {
		case pr.Alpha[v] > 0 && pr.Alpha[v] < pr.C[v]:
			free += yG
			nFree++
		case up(v):
			ub = min(ub, yG)
		default:
			lb = max(lb, yG)
		}
	}
	var rule float64
	switch {
	case nFree > 0:
		rule = free / float64(nFree)
	case math.IsInf(ub, 1) && math.IsInf(lb, -1):
	case math.IsInf(ub, 1):
		rule = lb
	case math.IsInf(lb, -1):
		rule = ub
	default:
		rule = (ub + lb) / 2
	}
	return mUp - mLow, math.Abs(pr.Rho - rule)
}

// sameRow reports whether row i of a and row j of b hold the same features.
func sameRow(a *data.Dataset, i int, b *data.Dataset, j int) bool {
	if a.IsDense() != b.IsDense() {
		return false
	}
	if a.IsDense() {
		x, y := a.DenseRow(i), b.DenseRow(j)
		if len(x) != len(y) {
			return false
		}
		for k := range x {
			if x[k] != y[k] {
				return false
			}
		}
		return true
	}
	xi, xv := a.SparseRow(i)
	yi, yv := b.SparseRow(j)
	if len(xi) != len(yi) {
		return false
	}
	for k := range xi {
		if xi[k] != yi[k] || xv[k] != yv[k] {
			return false
		}
	}
	return true
}

// svcProblems builds the subproblems of a C-SVC dual and checks that m's
// Labels, SV, NumSV and Coef follow from α by LIBSVM's layout.
func svcProblems(t *testing.T, m *KernelModel, dual *KernelDual, ds *data.Dataset) []*kktProblem {
	t.Helper()
	nr := len(m.Labels)
	cls := make([]int, ds.Len())
	for r := range cls {
		cls[r] = -1
		for c, lab := range m.Labels {
			if float64(lab) == ds.Label(r) {
				cls[r] = c
			}
		}
		if cls[r] < 0 {
			t.Fatalf("row %d: label %v not in %v", r, ds.Label(r), m.Labels)
		}
	}
	pairOf := make([][]int, nr) // pairOf[i][j], i < j: index of pair (i, j)
	for i := range pairOf {
		pairOf[i] = make([]int, nr)
	}
	var probs []*kktProblem
	for i := range nr {
		for j := i + 1; j < nr; j++ {
			pi := len(probs)
			pairOf[i][j] = pi
			if pi >= len(dual.Pairs) || dual.Pairs[pi] != [2]int32{m.Labels[i], m.Labels[j]} {
				t.Fatalf("pair %d: dual has %v, want (%d, %d)", pi, dual.Pairs, m.Labels[i], m.Labels[j])
			}
			Cp := m.Params.C * m.Params.weightOf(m.Labels[i])
			Cn := m.Params.C * m.Params.weightOf(m.Labels[j])
			pr := &kktProblem{Eps: m.Params.Eps, Rho: m.Rho[pi], Dec: pi, Iter: m.Result.Subproblems[pi].Iterations}
			al := dual.Alpha[pi]
			for _, side := range []int{i, j} {
				for r := range ds.Len() {
					if cls[r] != side {
						continue
					}
					y, C := 1.0, Cp
					if side == j {
						y, C = -1, Cn
					}
					pr.Row = append(pr.Row, r)
					pr.Y = append(pr.Y, y)
					pr.Alpha = append(pr.Alpha, al[r])
					pr.C = append(pr.C, C)
					pr.P = append(pr.P, -1)
				}
			}
			for r, v := range al {
				if cls[r] != i && cls[r] != j && v != 0 {
					t.Errorf("pair %d: row %d of another class has α = %v", pi, r, v)
				}
			}
			if got := m.Result.Subproblems[pi].Rho; got != m.Rho[pi] {
				t.Errorf("pair %d: Result ρ %v, model ρ %v", pi, got, m.Rho[pi])
			}
			probs = append(probs, pr)
		}
	}

	// Support vectors: rows with α > 0 in some pair, by class in Labels
	// order, data order within a class; Coef row k of class c's SV is y·α
	// in the pair of c with k (k < c) or with k+1 (k ≥ c).
	nSV := m.SV.Len()
	s := 0
	for c := range nr {
		nc := 0
		for r := range ds.Len() {
			if cls[r] != c {
				continue
			}
			isSV := false
			for _, al := range dual.Alpha {
				isSV = isSV || al[r] > 0
			}
			if !isSV {
				continue
			}
			if s >= nSV || !sameRow(m.SV, s, ds, r) {
				t.Fatalf("support vector %d is not row %d", s, r)
			}
			for k := range nr - 1 {
				o := k
				if k >= c {
					o = k + 1
				}
				var want float64
				if c < o {
					want = dual.Alpha[pairOf[c][o]][r]
				} else {
					want = -dual.Alpha[pairOf[o][c]][r]
				}
				if got := m.Coef[k*nSV+s]; got != want {
					t.Errorf("Coef[%d][%d] (row %d) = %v, y·α = %v", k, s, r, got, want)
				}
			}
			s++
			nc++
		}
		if int(m.NumSV[c]) != nc {
			t.Errorf("NumSV[%d] = %d, α gives %d", c, m.NumSV[c], nc)
		}
	}
	if s != nSV {
		t.Errorf("%d support vectors, α gives %d", nSV, s)
	}
	return probs
}

// singleCoef checks the Coef and SV of a one-class or ε-SVR model against
// the per-row coefficients coef (α, or β): the rows with coef ≠ 0, in data
// order.
func singleCoef(t *testing.T, m *KernelModel, ds *data.Dataset, coef []float64) {
	t.Helper()
	s := 0
	for r, v := range coef {
		if v == 0 {
			continue
		}
		if s >= m.SV.Len() || !sameRow(m.SV, s, ds, r) || m.Coef[s] != v {
			t.Fatalf("support vector %d: want row %d with coefficient %v", s, r, v)
		}
		s++
	}
	if s != m.SV.Len() {
		t.Errorf("%d support vectors, α gives %d", m.SV.Len(), s)
	}
	if m.Result.Subproblems[0].Rho != m.Rho[0] {
		t.Errorf("Result ρ %v, model ρ %v", m.Result.Subproblems[0].Rho, m.Rho[0])
	}
}

func TestKernelKKT(t *testing.T) {
	_, cases, _ := readLibsvmRef(t)
	want := map[string]bool{
		"heart_scale": true, "heart_scale_linear": true, "heart_scale_poly": true,
		"heart_scale_weighted": true, "breast_cancer": true, "digits": true,
		"diabetes": true, "diabetes_c1000": true, "heart_scale_oneclass": true, "heart_scale_oneclass_nu0.1": true,
	}
	ran := 0
	for _, c := range cases {
		if !want[c.Name] {
			continue
		}
		ran++
		t.Run(c.Name, func(t *testing.T) {
			if testing.Short() && c.Name == "digits" {
				t.Skip("short")
			}
			opt, rest, err := ParseKernelOptions(c.Options)
			if err != nil || len(rest) != 0 {
				t.Fatalf("options %v: %v", c.Options, err)
			}
			ds := readRefData(t, c.Train)
			m, dual, err := TrainKernel(ds, opt.Params)
			if err != nil {
				t.Fatal(err)
			}
			if !m.Result.Converged {
				t.Fatal("did not converge")
			}
			l := ds.Len()
			var probs []*kktProblem
			switch m.SVMType {
			case CSVC:
				probs = svcProblems(t, m, dual, ds)
			case OneClass:
				pr := &kktProblem{Delta: m.Params.Nu * float64(l), Eps: m.Params.Eps, Rho: m.Rho[0], Iter: m.Result.Iterations}
				for r := range l {
					pr.Row = append(pr.Row, r)
					pr.Y = append(pr.Y, 1)
					pr.Alpha = append(pr.Alpha, dual.Alpha[0][r])
					pr.C = append(pr.C, 1)
					pr.P = append(pr.P, 0)
				}
				singleCoef(t, m, ds, dual.Alpha[0])
				probs = []*kktProblem{pr}
			case EpsSVR:
				// β gives α = max(β, 0), α* = max(−β, 0) back only when no
				// row has both nonzero; Train drops the gradient otherwise.
				if dual.Gradient == nil {
					t.Fatal("a row has both α and α* nonzero: β does not determine the 2l variables")
				}
				C, eps := m.Params.C, m.Params.P
				pr := &kktProblem{Eps: m.Params.Eps, Rho: m.Rho[0], Iter: m.Result.Iterations}
				for _, y := range []float64{1, -1} {
					for r := range l {
						z := ds.Label(r)
						pr.Row = append(pr.Row, r)
						pr.Y = append(pr.Y, y)
						pr.Alpha = append(pr.Alpha, max(y*dual.Alpha[0][r], 0))
						pr.C = append(pr.C, C)
						pr.P = append(pr.P, eps-y*z) // ε − z for α, ε + z for α*
					}
				}
				singleCoef(t, m, ds, dual.Alpha[0])
				probs = []*kktProblem{pr}
			}
			var worst kktReport
			for k, pr := range probs {
				rep := checkKKTProblem(t, c.Name, m, ds, pr)
				if rep.Gap-rep.Allow > worst.Gap-worst.Allow || k == 0 {
					worst.Gap, worst.Allow = rep.Gap, rep.Allow
				}
				if rep.Gap32 > worst.Gap32 || k == 0 {
					worst.Gap32, worst.Allow32 = rep.Gap32, rep.Allow32
				}
				worst.RhoDiff32 = max(worst.RhoDiff32, rep.RhoDiff32)
				worst.RhoDiff = max(worst.RhoDiff, rep.RhoDiff)
				worst.EqRes = max(worst.EqRes, rep.EqRes)
				worst.DecDiff = max(worst.DecDiff, rep.DecDiff)
			}
			t.Logf("%d subproblems, eps %v: worst gap %.6g (allowance %.3g), |ρ − rule| %.3g; float32 Q: gap %.6g (allowance %.3g), |ρ − rule| %.3g; |yᵀα − Δ| %.3g, |decision − G| %.3g",
				len(probs), m.Params.Eps, worst.Gap, worst.Allow, worst.RhoDiff, worst.Gap32, worst.Allow32, worst.RhoDiff32, worst.EqRes, worst.DecDiff)
		})
	}
	if ran != len(want) {
		t.Fatalf("%d of %d cases found in libsvm-ref.txt", ran, len(want))
	}
}
