package core

import "github.com/libsvmgo/libsvmgo/core/internal/probfit"

// The rules that turn decision values into predictions and probabilities,
// exported so that models holding their parameters in another form (the
// quantized models of package quantize) predict with exactly core's rules:
// one copy of LIBSVM's voting and tie rule, of LIBLINEAR's arg-max and of
// the Platt-and-coupling probability code.

// KernelPrediction turns the decision values of a kernel model of type t
// into its prediction, as KernelModel's predictors do: the value dec[0] for
// ε-SVR; +1 when dec[0] > 0, else −1, for one-class; for C-SVC the label
// of the class with the most one-vs-one votes, where the pair (i, j), i < j,
// in the pair order (0,1), (0,2), …, (1,2), … of dec votes for i when its
// decision value is > 0 and for j otherwise, and a tie goes to the first
// class in labels order (LIBSVM's svm_predict_values). votes is scratch of
// at least len(labels) entries (C-SVC only; nil will do otherwise). It
// allocates nothing; it panics if dec, labels or votes are too short.
func KernelPrediction(t SVMType, labels []int32, dec, votes []float64) float64 {
	switch t {
	case EpsSVR, NuSVR:
		return dec[0]
	case OneClass:
		if dec[0] > 0 {
			return 1
		}
		return -1
	}
	nr := len(labels)
	votes = votes[:nr]
	clear(votes)
	p := 0
	for i := 0; i < nr; i++ {
		for j := i + 1; j < nr; j++ {
			if dec[p] > 0 {
				votes[i]++
			} else {
				votes[j]++
			}
			p++
		}
	}
	best := 0
	for c, v := range votes {
		if v > votes[best] {
			best = c
		}
	}
	return float64(labels[best])
}

// PairwiseProbabilities writes to dst[:k] (k = len(dst), the number of
// classes) the class probabilities of a C-SVC model from the decision
// values dec of its k(k−1)/2 class pairs, in pair order, and the Platt
// parameters probA, probB of each pair, exactly as
// KernelModel.ProbabilityDense computes them: Platt's sigmoid of each
// pair's value, clipped, coupled over the pairs by method 2 of Wu, Lin &
// Weng (2004) with LIBSVM's limits. It returns whether the coupling
// converged (always true for two classes). scratch must hold at least
// ProbabilityScratch(k) entries. It allocates nothing; it panics if an
// argument is too short.
func PairwiseProbabilities(dst, dec, probA, probB, scratch []float64) bool {
	return probfit.PairwiseProbabilities(dst, dec, probA, probB, scratch)
}

// ProbabilityScratch returns the length of the scratch slice
// PairwiseProbabilities needs for k classes.
func ProbabilityScratch(k int) int { return probfit.ProbabilityScratch(k) }

// FromDot returns K(u, v) from u'u, v'v and u'v, exactly as the kernel
// predictors compute it: RBF as exp(−γ·max(0, u'u + v'v − 2u'v)) (the
// clamp absorbs cancellation when u ≈ v), the other kernels from u'v
// alone (uu and vv are then ignored).
func (k Kernel) FromDot(uu, vv, uv float64) float64 {
	if k.Type == RBFKernel {
		return k.rbf(uu, vv, uv)
	}
	return k.ofDot(uv)
}

// KernelDecisions writes the decision values of a kernel model to dec from
// the kernel values kv (one per support vector, len(kv) = l), LIBSVM's
// sv_coef layout coef ((nrClass−1) rows of l) and rho. For C-SVC (t ==
// CSVC), start[c]..start[c+1]−1 are class c's support vectors and pair
// p = (i, j), i < j, in LIBSVM's order, gets
//
//	Σ_{s ∈ class i} coef[j−1][s]·kv[s] + Σ_{s ∈ class j} coef[i][s]·kv[s] − rho[p];
//
// otherwise dec[0] = Σ_s coef[s]·kv[s] − rho[0]. Float and quantized kernel
// models share it, so both add in the same order. It allocates nothing.
func KernelDecisions(t SVMType, dec, kv, coef, rho []float64, start []int) {
	l := len(kv)
	if !t.IsSVC() {
		var s float64
		for i, c := range coef[:l] {
			s += c * kv[i]
		}
		dec[0] = s - rho[0]
		return
	}
	nr := len(start) - 1
	p := 0
	for i := 0; i < nr; i++ {
		for j := i + 1; j < nr; j++ {
			dec[p] = pairDecision(kv, coef, rho, start, i, j, p)
			p++
		}
	}
}

// pairDecision is KernelDecisions' decision value p, that of classes i < j
// of a C-SVC or ν-SVC model, from the kernel values kv of all its support
// vectors.
func pairDecision(kv, coef, rho []float64, start []int, i, j, p int) float64 {
	l := len(kv)
	si, ei, sj, ej := start[i], start[i+1], start[j], start[j+1]
	ci := coef[(j-1)*l+si : (j-1)*l+ei]
	cj := coef[i*l+sj : i*l+ej]
	// equal lengths: no bounds checks in the loops
	ki, kj := kv[si:ei][:len(ci)], kv[sj:ej][:len(cj)]
	var s float64
	for t, c := range ci {
		s += c * ki[t]
	}
	for t, c := range cj {
		s += c * kj[t]
	}
	return s - rho[p]
}
