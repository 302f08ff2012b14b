package linear

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// Dual coordinate descent for L2-regularized L1- and L2-loss SVC.
//
// Primal:  min_w  ½‖w‖² + Σ C_i ξ(w; x_i, y_i),
//          ξ = max(0, 1 − y_i wᵀx_i) (L1 loss) or its square (L2 loss).
// Dual:    min_α  f(α) = ½ αᵀ Q̄ α − eᵀα
//          subject to 0 ≤ α_i ≤ U_i,
//          Q̄ = Q + D,  Q_ij = y_i y_j x_iᵀx_j,
//          L1 loss: U_i = C_i, D_ii = 0;  L2 loss: U_i = ∞, D_ii = 1/(2C_i),
//          C_i = C·(class weight)·w_i with w_i row i's instance weight.
// Primal from dual: w = Σ y_i α_i x_i, kept up to date as α changes, so a
// coordinate's gradient G = y_i wᵀx_i − 1 + D_ii α_i costs one row.
//
// C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi, S. Sundararajan,
// "A Dual Coordinate Descent Method for Large-scale Linear SVM", ICML 2008:
// Algorithm 1 with the random permutation of Section 3.1 and the shrinking
// of Algorithm 3 (Section 3.2). The stopping test is LIBLINEAR's: the
// projected gradients PG over the active set satisfy max PG − min PG ≤ eps.
// Before stopping, the test is checked on every variable at the returned α
// by one read-only pass (LIBLINEAR unshrinks and runs a pass with updates
// instead); a failed check unshrinks and the passes go on.
//
// Warm start: alpha may hold a previous solution on entry; it is clipped to
// the box and w is rebuilt from it (Section 3.3 of the paper notes that DCD
// takes any feasible starting point).

// dcdRows is what both DCD solvers share: the rows (with the bias pseudo-
// feature), the primal vector w, the active set and the permutation stream.
type dcdRows struct {
	ds    *data.Dataset
	n     int     // features of ds; w[:n] are their weights
	bias  float64 // bias pseudo-feature value; < 0: none
	w     []float64
	index []int32 // the permutation; index[:activeSize] is the active set
	rng   solve.RNG

	activeSize int
	iter       int     // outer passes done
	updates    int64   // coordinates visited (one row read each)
	touched    float32 // keeps TouchRow's loads alive
	touch      bool    // whether touchNext touches: the rows outgrow the cache
}

// touchNext starts loading the row visited after position k of the active
// set (see Dataset.TouchRow).
func (r *dcdRows) touchNext(k int) {
	if r.touch && k+1 < r.activeSize {
		r.touched += r.ds.TouchRow(int(r.index[k+1]))
	}
}

// touchMinBytes is the size of the rows below which touchNext does nothing:
// rows that fit in a core's L2 cache (1 MiB on the Zen 4 and 5 cores this
// is tuned on, 256 KiB to 2 MiB elsewhere) stay there after the first
// pass, so the next row's loads do not miss and touching it early only adds
// its loads (8% of digits -s 7).
const touchMinBytes = 512 << 10

// rowEntryBytes is the memory of one stored entry of ds: a float32, plus
// its int32 index when sparse.
func rowEntryBytes(ds *data.Dataset) int {
	if ds.IsDense() {
		return 4
	}
	return 8
}

// sizeRows sets up the shared state for ds, using w's and index's capacity.
// It panics if the buffers are too small (the trainer sizes them).
func (r *dcdRows) sizeRows(ds *data.Dataset, bias float64, w []float64, index []int32, seed uint64) {
	r.ds, r.n, r.bias = ds, ds.NumFeatures(), bias
	nw := r.n
	if bias >= 0 {
		nw++
	}
	r.w = w[:nw]
	clear(r.w)
	r.index = index[:ds.Len()]
	for i := range r.index {
		r.index[i] = int32(i)
	}
	r.rng = solve.NewRNG(seed)
	r.touch = ds.Nonzeros()*rowEntryBytes(ds) > touchMinBytes
	r.activeSize = ds.Len()
	r.iter, r.updates = 0, 0
}

// dot returns wᵀx_i including the bias pseudo-feature.
func (r *dcdRows) dot(i int) float64 {
	s := r.ds.Dot(i, r.w[:r.n])
	if r.bias >= 0 {
		s += r.w[r.n] * r.bias
	}
	return s
}

// addScaled does w += a·x_i including the bias pseudo-feature.
func (r *dcdRows) addScaled(a float64, i int) {
	r.ds.AddScaledTo(r.w[:r.n], a, i)
	if r.bias >= 0 {
		r.w[r.n] += a * r.bias
	}
}

// sqNorm returns x_iᵀx_i including the bias pseudo-feature.
func (r *dcdRows) sqNorm(i int) float64 {
	s := r.ds.SquaredNorm(i)
	if r.bias >= 0 {
		s += r.bias * r.bias
	}
	return s
}

// permute shuffles the active set (Fisher–Yates, as LIBLINEAR's loop does).
func (r *dcdRows) permute() {
	a := r.index[:r.activeSize]
	for i := range a {
		j := i + r.rng.Intn(len(a)-i)
		a[i], a[j] = a[j], a[i]
	}
}

// shrink removes the variable at position s of the active set by swapping
// it behind the active set's end; the caller revisits position s.
func (r *dcdRows) shrink(s int) {
	r.activeSize--
	r.index[s], r.index[r.activeSize] = r.index[r.activeSize], r.index[s]
}

// wNormSq returns ‖w‖².
func (r *dcdRows) wNormSq() float64 {
	var s float64
	for _, v := range r.w {
		s += v * v
	}
	return s
}

// dcdSVC is one binary SVC subproblem's solver state. The trainer owns the
// buffers and reuses one dcdSVC per worker across subproblems.
type dcdSVC struct {
	dcdRows
	y     []int8    // +1 / −1
	QD    []float64 // Q̄_ii = x_iᵀx_i + D_ii
	alpha []float64
	diag  [2]float64 // D_ii for y = −1 (0) and y = +1 (1), at weight 1
	upper [2]float64 // U_i likewise
	// wt holds the instance weights (nil: all 1): row i's U_i is
	// upper·wt[i] and its D_ii diag/wt[i] (bound).
	wt  []float64
	eps float64
	// polish marks a start from a given w (initFromW): solve checks the
	// stopping test before any pass and computes QD only if one is needed.
	polish bool

	PGmaxOld, PGminOld float64
	// progress, when not nil, is told of each outer pass that did not
	// stop: the pass count, f(α) and the largest projected-gradient
	// violation (the trainer sets it with the subproblem's class).
	progress func(iteration int, objective, violation float64)
}

func (s *dcdSVC) class(i int) int { return int(s.y[i]+1) >> 1 }

// bound returns row i's U_i and D_ii, of its class c.
func (s *dcdSVC) bound(i, c int) (U, D float64) {
	U, D = s.upper[c], s.diag[c]
	if s.wt != nil {
		w := s.wt[i]
		U, D = U*w, D/w
	}
	return U, D
}

// init prepares a solve over ds with targets y (±1) and dual variables alpha
// (len ds.Len(); a warm start when nonzero, clipped here). Cp and Cn are the
// costs of positive and negative rows; l1 selects the L1 loss.
func (s *dcdSVC) init(ds *data.Dataset, y []int8, alpha, QD []float64, Cp, Cn float64, l1 bool, bias, eps float64, seed uint64) {
	s.sizeRows(ds, bias, s.w[:cap(s.w)], s.index[:cap(s.index)], seed)
	s.y, s.alpha, s.QD, s.eps = y, alpha, QD[:ds.Len()], eps
	s.wt = solve.RowWeights(ds)
	if l1 {
		s.diag = [2]float64{0, 0}
		s.upper = [2]float64{Cn, Cp}
	} else {
		s.diag = [2]float64{0.5 / Cn, 0.5 / Cp}
		s.upper = [2]float64{math.Inf(1), math.Inf(1)}
	}
	for i := range s.alpha {
		U, D := s.bound(i, s.class(i))
		s.QD[i] = s.sqNorm(i) + D
		a := min(max(s.alpha[i], 0), U)
		s.alpha[i] = a
		if a != 0 {
			s.addScaled(float64(s.y[i])*a, i)
		}
	}
	s.PGmaxOld, s.PGminOld = math.Inf(1), math.Inf(-1)
	s.polish = false
}

// initFromW prepares an L2-loss solve from alpha (α ≥ 0) and its
// w0 = Σ y_i α_i x_i, computed by the caller (the primal twin's w − ∇f(w)),
// so neither w nor QD costs a pass over the rows unless solve needs one.
func (s *dcdSVC) initFromW(ds *data.Dataset, y []int8, alpha, QD []float64, Cp, Cn, bias, eps float64, seed uint64, w0 []float64) {
	s.sizeRows(ds, bias, s.w[:cap(s.w)], s.index[:cap(s.index)], seed)
	s.y, s.alpha, s.QD, s.eps = y, alpha, QD[:ds.Len()], eps
	s.wt = solve.RowWeights(ds)
	s.diag = [2]float64{0.5 / Cn, 0.5 / Cp}
	s.upper = [2]float64{math.Inf(1), math.Inf(1)}
	copy(s.w, w0)
	s.PGmaxOld, s.PGminOld = math.Inf(1), math.Inf(-1)
	s.polish = true
}

// pass runs one outer iteration over the active set and reports whether
// the stopping test held on it. It allocates nothing.
func (s *dcdSVC) pass() bool {
	s.permute()
	PGmaxNew, PGminNew := math.Inf(-1), math.Inf(1)
	for k := 0; k < s.activeSize; k++ {
		i := int(s.index[k])
		s.touchNext(k)
		U, D := s.bound(i, s.class(i))
		yi := float64(s.y[i])
		s.updates++
		G := yi*s.dot(i) - 1 + s.alpha[i]*D

		PG := 0.0
		switch a := s.alpha[i]; {
		case a == 0:
			if G > s.PGmaxOld {
				s.shrink(k)
				k--
				continue
			}
			PG = min(G, 0)
		case a == U:
			if G < s.PGminOld {
				s.shrink(k)
				k--
				continue
			}
			PG = max(G, 0)
		default:
			PG = G
		}
		PGmaxNew = max(PGmaxNew, PG)
		PGminNew = min(PGminNew, PG)

		if math.Abs(PG) > 1e-12 {
			old := s.alpha[i]
			s.alpha[i] = min(max(old-G/s.QD[i], 0), U)
			s.addScaled((s.alpha[i]-old)*yi, i)
		}
	}
	s.iter++

	if PGmaxNew-PGminNew <= s.eps {
		return true
	}
	s.PGmaxOld, s.PGminOld = PGmaxNew, PGminNew
	if s.PGmaxOld <= 0 {
		s.PGmaxOld = math.Inf(1)
	}
	if s.PGminOld >= 0 {
		s.PGminOld = math.Inf(-1)
	}
	return false
}

// unshrink makes every variable active again with LIBLINEAR's thresholds
// reset, after a whole-set check found the shrunk solve not done.
func (s *dcdSVC) unshrink() {
	s.activeSize = len(s.alpha)
	s.PGmaxOld, s.PGminOld = math.Inf(1), math.Inf(-1)
}

// spread returns max PG − min PG over all variables at the current α,
// reading every row once and changing nothing.
func (s *dcdSVC) spread() float64 {
	PGmax, PGmin := math.Inf(-1), math.Inf(1)
	for i, a := range s.alpha { // in row order, which hardware prefetching follows
		U, D := s.bound(i, s.class(i))
		s.updates++
		G := float64(s.y[i])*s.dot(i) - 1 + a*D
		PG := G
		switch a {
		case 0:
			PG = min(G, 0)
		case U:
			PG = max(G, 0)
		}
		PGmax, PGmin = max(PGmax, PG), min(PGmin, PG)
	}
	return PGmax - PGmin
}

// solve runs passes until the stopping test holds or maxIter passes are
// done, and returns the result. Costs are per class as in init.
func (s *dcdSVC) solve(maxIter int, Cp, Cn float64, l1 bool) SolveResult {
	converged := false
	if s.polish {
		converged = s.spread() <= s.eps
		for i := range s.alpha {
			if !converged {
				_, D := s.bound(i, s.class(i))
				s.QD[i] = s.sqNorm(i) + D
			}
		}
	}
	for !converged && s.iter < maxIter {
		if !s.pass() {
			if s.progress != nil {
				s.progress(s.iter, s.dualObjective(), s.PGmaxOld-s.PGminOld)
			}
			continue
		}
		// The test held on the active set, measured on each PG before its
		// own update. Check it on every variable at the α to be returned,
		// with one read-only pass; LIBLINEAR instead unshrinks and runs a
		// whole pass with updates, and then only knows the PGs before them.
		if s.spread() <= s.eps {
			converged = true
			break
		}
		s.unshrink()
	}
	res := SolveResult{Iterations: s.iter, Updates: s.updates, Converged: converged}
	s.objectives(&res, Cp, Cn, l1)
	return res
}

// objectives sets res's dual and primal objectives, duality gap and
// support vector counts at the current α and w, with one pass over the
// rows.
func (s *dcdSVC) objectives(res *SolveResult, Cp, Cn float64, l1 bool) {
	// f(α) = ½‖w‖² + Σ (½ D_ii α_i² − α_i); P(w) = ½‖w‖² + Σ C_i ξ_i.
	half := 0.5 * s.wNormSq()
	f, loss := half, 0.0
	for i, a := range s.alpha {
		c := s.class(i)
		U, D := s.bound(i, c)
		f += 0.5*D*a*a - a
		if a > 0 {
			res.NumSV++
			if a == U {
				res.NumBoundSV++
			}
		}
		C := Cn
		if c == 1 {
			C = Cp
		}
		if s.wt != nil {
			C *= s.wt[i]
		}
		xi := max(0, 1-float64(s.y[i])*s.dot(i))
		if l1 {
			loss += C * xi
		} else {
			loss += C * xi * xi
		}
	}
	res.DualObjective = f
	res.PrimalObjective = half + loss
	res.DualityGap = res.PrimalObjective + f
}

// dualObjective returns f(α) = ½‖w‖² + Σ (½ D_ii α_i² − α_i) at the
// current α and w, in one pass over α (no row is read).
func (s *dcdSVC) dualObjective() float64 {
	f := 0.5 * s.wNormSq()
	for i, a := range s.alpha {
		_, D := s.bound(i, s.class(i))
		f += 0.5*D*a*a - a
	}
	return f
}
