package probfit

import (
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core/internal/solve"
	"github.com/libsvmgo/libsvmgo/core/model"
)

// Probability estimates for kernel SVMs (svm-train -b 1), as described in
// C.-C. Chang, C.-J. Lin, "LIBSVM: A Library for Support Vector Machines",
// ACM TIST 2(3), 2011, Section 8:
//
//   - each binary C-SVC subproblem fits Platt's sigmoid
//     P(y = +1 | f) = 1 / (1 + exp(A·f + B)) to decision values f that
//     internal 5-fold cross-validation produced (PlattFit,
//     CrossValidatedDecisions);
//   - with more than two classes, the pairwise probabilities
//     r_ij ≈ P(y = i | y ∈ {i, j}, x) are coupled into one distribution
//     (PairwiseCoupling);
//   - ε-SVR models the target as f(x) + z with Laplace noise
//     p(z) = e^{−|z|/σ} / (2σ), σ estimated from cross-validation residuals
//     (LaplaceScale).
//
// Nothing here copies LIBSVM's code; the algorithms follow the cited
// papers, and variable names follow their notation.

// Folds is the number of internal cross-validation folds (LIBSVM's).
const Folds = 5

// ProbMin bounds every pairwise probability to [ProbMin, 1−ProbMin] before
// coupling, as LIBSVM's predictor does: it keeps the coupling matrix's
// diagonal positive and log-losses finite.
const ProbMin = 1e-7

// Settings of Platt's Newton method, those of Lin, Lin & Weng (2007).
const (
	plattMaxIter = 100   // Newton iterations
	plattMinStep = 1e-10 // smallest line-search step before giving up
	plattSigma   = 1e-12 // added to the Hessian's diagonal: keeps it positive definite
	plattGradTol = 1e-5  // stop when both gradient components are this small
)

// PlattFit fits Platt's sigmoid P(y = +1 | f) = 1 / (1 + exp(A·f + B)) to
// decision values dec with classes positive, by the Newton method with
// backtracking line search of H.-T. Lin, C.-J. Lin, R. C. Weng, "A note on
// Platt's probabilistic outputs for support vector machines", Machine
// Learning 68, 2007 (its Newton pseudo-code). It minimises the
// negative log-likelihood with Platt's smoothed targets
//
//	F(A, B) = −Σ_i t_i log p_i + (1 − t_i) log(1 − p_i),  p_i = 1/(1 + exp(A·dec_i + B)),
//	t_i = (N₊ + 1)/(N₊ + 2) if positive[i],  1/(N₋ + 2) otherwise,
//
// which is convex in (A, B), evaluating every log(1 + exp(·)) in the form
// that cannot overflow. A < 0 when larger decision values mean the
// positive class. It stops after plattMaxIter iterations or when the line
// search fails, returning the best point found; it allocates nothing.
// It panics if the lengths differ.
func PlattFit(dec []float64, positive []bool) (A, B float64) {
	if len(dec) != len(positive) {
		panic(fmt.Sprintf("core: PlattFit: %d decision values for %d labels", len(dec), len(positive)))
	}
	positive = positive[:len(dec)] // one length for both: no bounds checks below
	var prior1, prior0 float64     // N₊, N₋
	for _, p := range positive {
		if p {
			prior1++
		} else {
			prior0++
		}
	}
	hiTarget := (prior1 + 1) / (prior1 + 2)
	loTarget := 1 / (prior0 + 2)

	// The starting point of the paper: A = 0 and B fitting the smoothed
	// class prior.
	A, B = 0, math.Log((prior0+1)/(prior1+1))
	fval := plattObjective(dec, positive, hiTarget, loTarget, A, B)
	for range plattMaxIter {
		// Gradient and Hessian of F; ∂F/∂z_i = t_i − p_i and
		// ∂²F/∂z_i² = p_i(1 − p_i) for z_i = A·dec_i + B.
		h11, h22, h21 := plattSigma, plattSigma, 0.0
		g1, g2 := 0.0, 0.0
		for i, f := range dec {
			p, q := PlattPQ(f*A + B)
			d2 := p * q
			h11 += f * f * d2
			h22 += d2
			h21 += f * d2
			d1 := plattTarget(positive[i], hiTarget, loTarget) - p
			g1 += f * d1
			g2 += d1
		}
		if math.Abs(g1) < plattGradTol && math.Abs(g2) < plattGradTol {
			break
		}
		// Newton direction −H⁻¹g, and gd = gᵀd < 0 for the Armijo test.
		det := h11*h22 - h21*h21
		dA := -(h22*g1 - h21*g2) / det
		dB := -(-h21*g1 + h11*g2) / det
		gd := g1*dA + g2*dB

		step := 1.0
		for step >= plattMinStep {
			newA, newB := A+step*dA, B+step*dB
			newf := plattObjective(dec, positive, hiTarget, loTarget, newA, newB)
			if newf < fval+1e-4*step*gd {
				A, B, fval = newA, newB, newf
				break
			}
			step /= 2
		}
		if step < plattMinStep {
			// No sufficient decrease along the Newton direction: the paper
			// stops here and keeps the current point.
			break
		}
	}
	return A, B
}

// plattTarget is t_i of PlattFit.
func plattTarget(positive bool, hiTarget, loTarget float64) float64 {
	if positive {
		return hiTarget
	}
	return loTarget
}

// plattObjective is F(A, B) of PlattFit. With z = A·f + B,
// −t log p − (1 − t) log(1 − p) = (t − 1)·z + log(1 + e^z)
// = t·z + log(1 + e^{−z}); the form is chosen by z's sign so that the
// exponent is never positive.
func plattObjective(dec []float64, positive []bool, hiTarget, loTarget, A, B float64) float64 {
	positive = positive[:len(dec)]
	var F float64
	for i, f := range dec {
		z := f*A + B
		t := plattTarget(positive[i], hiTarget, loTarget)
		if z >= 0 {
			F += t*z + math.Log1p(math.Exp(-z))
		} else {
			F += (t-1)*z + math.Log1p(math.Exp(z))
		}
	}
	return F
}

// PlattPQ returns p = 1/(1 + e^z) and q = 1 − p without overflow and
// without the cancellation of computing 1 − p.
func PlattPQ(z float64) (p, q float64) {
	if z >= 0 {
		e := math.Exp(-z)
		return e / (1 + e), 1 / (1 + e)
	}
	e := math.Exp(z)
	return 1 / (1 + e), e / (1 + e)
}

// PlattProb returns Platt's P(y = +1 | dec) = 1 / (1 + exp(A·dec + B)),
// finite and in [0, 1] for every finite input.
func PlattProb(dec, A, B float64) float64 {
	p, _ := PlattPQ(dec*A + B)
	return p
}

// PairwiseCouplingScratch returns the length of the scratch slice
// PairwiseCoupling needs for k classes.
func PairwiseCouplingScratch(k int) int { return k*k + k }

// PairwiseCoupling combines pairwise class probabilities into one
// distribution over k classes by method 2 of T.-F. Wu, C.-J. Lin,
// R. C. Weng, "Probability estimates for multi-class classification by
// pairwise coupling", JMLR 5, 2004 (Section 4, and the fixed-point
// iteration of its Theorem 2 as Chang & Lin 2011, Section 8, use it):
//
//	min_p ½ pᵀQp  subject to  Σ_t p_t = 1,  p ≥ 0,
//	Q_tt = Σ_{j≠t} r_jt²,  Q_tj = −r_jt·r_tj,
//
// the least-squares fit of r_ji·p_i = r_ij·p_j. Starting from the uniform
// distribution it sweeps t = 0..k−1, setting
// p_t ← p_t + (pᵀQp − (Qp)_t)/Q_tt and renormalising, until
// max_t |(Qp)_t − pᵀQp| < 0.005/k (the optimality condition) or after
// max(100, k) sweeps: LIBSVM's limits, kept so that a LIBSVM model gives
// svm-predict's probabilities. They are loose — the answer can be 10⁻³
// from the exact minimiser — which costs nothing measurable in log-loss.
//
// r is k×k row-major: r[i*k+j] = r_ij ≈ P(y = i | y ∈ {i, j}), with
// r_ji = 1 − r_ij and every r_ij in (0, 1) (callers clip, as
// PairwiseProbabilities does); the diagonal is ignored. The result goes
// to dst[:k]. It returns false when the sweep limit stopped it.
// It allocates nothing; it panics if dst is shorter than k, r than k·k or
// scratch than PairwiseCouplingScratch(k).
func PairwiseCoupling(dst, r []float64, k int, scratch []float64) (converged bool) {
	return CoupleFixedPoint(dst, r, k, 0.005/float64(k), max(100, k), scratch)
}

// CoupleFixedPoint is PairwiseCoupling with the stopping tolerance eps on
// max_t |(Qp)_t − pᵀQp| and the sweep limit maxIter as arguments.
func CoupleFixedPoint(dst, r []float64, k int, eps float64, maxIter int, scratch []float64) (converged bool) {
	if len(dst) < k || len(r) < k*k || len(scratch) < PairwiseCouplingScratch(k) {
		panic(fmt.Sprintf("core: PairwiseCoupling: %d classes need dst %d, r %d, scratch %d; have %d, %d, %d",
			k, k, k*k, PairwiseCouplingScratch(k), len(dst), len(r), len(scratch)))
	}
	p := dst[:k]
	Q := scratch[:k*k]
	Qp := scratch[k*k : k*k+k]
	for t := range k {
		p[t] = 1 / float64(k)
		qtt := 0.0
		for j := range k {
			if j == t {
				continue
			}
			rjt := r[j*k+t]
			qtt += rjt * rjt
			Q[t*k+j] = -rjt * r[t*k+j]
		}
		Q[t*k+t] = qtt
	}

	for range maxIter {
		// Qp and pᵀQp afresh each sweep, at the cost of one sweep, so that
		// the incremental updates below cannot drift.
		pQp := 0.0
		for t := range k {
			row := Q[t*k : t*k+k]
			s := 0.0
			for j, q := range row {
				s += q * p[j]
			}
			Qp[t] = s
			pQp += p[t] * s
		}
		maxErr := 0.0
		for _, v := range Qp {
			maxErr = max(maxErr, math.Abs(v-pQp))
		}
		if maxErr < eps {
			return true
		}
		for t := range k {
			qtt := Q[t*k+t]
			delta := (pQp - Qp[t]) / qtt
			// p + δ·e_t sums to 1 + δ; Qp, pᵀQp follow p, then all three
			// are rescaled to the normalised p.
			p[t] += delta
			s := 1 + delta
			pQp = (pQp + delta*(2*Qp[t]+delta*qtt)) / (s * s)
			row := Q[t*k : t*k+k] // column t, as Q is symmetric
			for j, q := range row {
				Qp[j] = (Qp[j] + delta*q) / s
				p[j] /= s
			}
		}
	}
	return false
}

// ProbabilityScratch returns the length of the scratch slice
// PairwiseProbabilities needs for k classes.
func ProbabilityScratch(k int) int { return k*k + PairwiseCouplingScratch(k) }

// PairwiseProbabilities writes to dst[:k] the class probabilities of a
// C-SVC model with k = len(dst) classes, from the k(k−1)/2 decision values
// dec of its class pairs, in the model's pair order (0,1), (0,2), …,
// (1,2), …, with the Platt parameters probA, probB of each pair:
// r_ij = PlattProb(dec_ij, A_ij, B_ij) clipped to [ProbMin, 1 − ProbMin],
// r_ji = 1 − r_ij; two classes take r directly, more are coupled by
// PairwiseCoupling. It returns PairwiseCoupling's convergence (true for
// two classes). It allocates nothing; it panics if dec, probA or probB
// hold fewer than k(k−1)/2 values or scratch fewer than
// ProbabilityScratch(k).
func PairwiseProbabilities(dst, dec, probA, probB, scratch []float64) bool {
	k := len(dst)
	pairs := k * (k - 1) / 2
	if len(dec) < pairs || len(probA) < pairs || len(probB) < pairs || len(scratch) < ProbabilityScratch(k) {
		panic(fmt.Sprintf("core: PairwiseProbabilities: %d classes need %d decision values and Platt pairs, scratch %d; have %d, %d, %d, %d",
			k, pairs, ProbabilityScratch(k), len(dec), len(probA), len(probB), len(scratch)))
	}
	if k == 1 {
		dst[0] = 1
		return true
	}
	r := scratch[:k*k]
	p := 0
	for i := range k {
		for j := i + 1; j < k; j++ {
			rij := min(max(PlattProb(dec[p], probA[p], probB[p]), ProbMin), 1-ProbMin)
			r[i*k+j], r[j*k+i] = rij, 1-rij
			p++
		}
	}
	if k == 2 {
		dst[0], dst[1] = r[1], r[2]
		return true
	}
	return PairwiseCoupling(dst, r, k, scratch[k*k:])
}

// CrossValidatedDecisions fills dst[i] with the decision value of binary
// row i (class y[i] = ±1) from a model that did not see it, as LIBSVM
// prepares Platt fitting (Chang & Lin 2011, Section 8): the rows are
// shuffled by a generator seeded with seed and cut into folds nearly equal
// parts (fold f holds positions f·l/folds up to (f+1)·l/folds of the
// shuffle; LIBSVM does not stratify here); for each fold, fit trains on
// the other folds and its decide gives the fold's values. A fold whose
// training part holds one class gets +1 (only y = +1) or −1 (only y = −1)
// without calling fit, and 0 when the training part is empty.
//
// fit receives the training rows as indices into y, valid only during the
// call, and returns decide, whose value for a row is positive toward
// y = +1. Errors: ErrParams wrapped when folds < 2, and fit's error
// wrapped with the fold. It panics if len(dst) != len(y) or a label is not
// ±1.
func CrossValidatedDecisions(dst []float64, y []int8, folds int, seed uint64,
	fit func(train []int32) (decide func(row int32) float64, err error)) error {
	if len(dst) != len(y) {
		panic(fmt.Sprintf("core: CrossValidatedDecisions: %d values for %d rows", len(dst), len(y)))
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			panic(fmt.Sprintf("core: CrossValidatedDecisions: label %d of row %d is not ±1", v, i))
		}
	}
	return crossValidate(len(y), folds, seed, func(train, test []int32) error {
		var nPos, nNeg int
		for _, i := range train {
			if y[i] > 0 {
				nPos++
			} else {
				nNeg++
			}
		}
		var fixed float64
		switch {
		case nPos > 0 && nNeg > 0:
			decide, err := fit(train)
			if err != nil {
				return err
			}
			for _, i := range test {
				dst[i] = decide(i)
			}
			return nil
		case nPos > 0:
			fixed = 1
		case nNeg > 0:
			fixed = -1
		}
		for _, i := range test {
			dst[i] = fixed
		}
		return nil
	})
}

// CrossValidatedPredictions fills dst[i], for each of len(dst) rows, with
// the prediction of a model that did not see row i, over the same folds as
// CrossValidatedDecisions: the held-out predictions ε-SVR's Laplace scale
// is estimated from. fit receives the training rows (valid only during the
// call) and returns the model's predict. Errors: ErrParams wrapped when
// folds < 2, and fit's error wrapped with the fold.
func CrossValidatedPredictions(dst []float64, folds int, seed uint64,
	fit func(train []int32) (predict func(row int32) float64, err error)) error {
	return crossValidate(len(dst), folds, seed, func(train, test []int32) error {
		if len(train) == 0 {
			// Nothing to learn from (fewer rows than folds): predict 0.
			for _, i := range test {
				dst[i] = 0
			}
			return nil
		}
		predict, err := fit(train)
		if err != nil {
			return err
		}
		for _, i := range test {
			dst[i] = predict(i)
		}
		return nil
	})
}

// crossValidate shuffles rows 0..l−1 with a generator seeded with seed
// (Fisher–Yates, as CrossValidateLinear) and calls fold with each
// non-empty fold's held-out rows and the rest.
func crossValidate(l, folds int, seed uint64, fold func(train, test []int32) error) error {
	if folds < 2 {
		return fmt.Errorf("%w: %d-fold cross validation for probability estimates", model.ErrParams, folds)
	}
	perm := make([]int32, l)
	for i := range perm {
		perm[i] = int32(i)
	}
	r := solve.NewRNG(seed)
	for i := range perm {
		j := i + r.Intn(l-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	train := make([]int32, 0, l)
	for f := range folds {
		begin, end := f*l/folds, (f+1)*l/folds
		if begin == end {
			continue
		}
		train = append(append(train[:0], perm[:begin]...), perm[end:]...)
		if err := fold(train, perm[begin:end]); err != nil {
			return fmt.Errorf("core: probability cross validation fold %d of %d: %w", f+1, folds, err)
		}
	}
	return nil
}

// LaplaceScale estimates the scale σ of the Laplace noise model of ε-SVR,
// p(z) = e^{−|z|/σ}/(2σ), from cross-validation residuals z_i = y_i − f_i
// (Chang & Lin 2011, Section 8): σ's maximum-likelihood estimate is the
// mean |z_i|, taken again after discarding the residuals beyond five
// standard deviations of that first fit (a Laplace variable's standard
// deviation is √2·σ). It returns 0 for no residuals.
func LaplaceScale(residuals []float64) float64 {
	if len(residuals) == 0 {
		return 0
	}
	mae := 0.0
	for _, z := range residuals {
		mae += math.Abs(z)
	}
	mae /= float64(len(residuals))
	limit := 5 * math.Sqrt2 * mae
	sum, n := 0.0, 0
	for _, z := range residuals {
		if a := math.Abs(z); a <= limit {
			sum += a
			n++
		}
	}
	// n ≥ 1: some |z_i| is at most their mean, hence within the limit.
	return sum / float64(n)
}

// FitBinaryProbability returns Platt's A and B for a binary subproblem
// with labels y (±1): decision values from CrossValidatedDecisions with
// Folds folds, then PlattFit. fit is as for CrossValidatedDecisions.
func FitBinaryProbability(y []int8, seed uint64,
	fit func(train []int32) (decide func(row int32) float64, err error)) (A, B float64, err error) {
	dec := make([]float64, len(y))
	if err := CrossValidatedDecisions(dec, y, Folds, seed, fit); err != nil {
		return 0, 0, err
	}
	positive := make([]bool, len(y))
	for i, v := range y {
		positive[i] = v > 0
	}
	A, B = PlattFit(dec, positive)
	return A, B, nil
}

// FitSVRScale returns the Laplace scale σ of ε-SVR for targets y: the
// residuals y_i − f_i of CrossValidatedPredictions with Folds folds,
// then LaplaceScale. fit is as for CrossValidatedPredictions.
func FitSVRScale(y []float64, seed uint64,
	fit func(train []int32) (predict func(row int32) float64, err error)) (float64, error) {
	res := make([]float64, len(y))
	if err := CrossValidatedPredictions(res, Folds, seed, fit); err != nil {
		return 0, err
	}
	for i, v := range y {
		res[i] = v - res[i]
	}
	return LaplaceScale(res), nil
}
