package core

import (
	"fmt"
	"math"
)

// SVMType names a kernel SVM formulation. The values are LIBSVM's -s
// numbers, so they mean the same thing on the command line and in files.
type SVMType int

// The formulations SMO solves (Chang & Lin 2011, Section 2).
const (
	CSVC     SVMType = 0 // -s 0: C-support vector classification (LIBSVM's default)
	NuSVC    SVMType = 1 // -s 1: ν-support vector classification
	OneClass SVMType = 2 // -s 2: one-class SVM, distribution estimation with ν
	EpsSVR   SVMType = 3 // -s 3: ε-support vector regression
	NuSVR    SVMType = 4 // -s 4: ν-support vector regression
)

func (t SVMType) valid() bool {
	switch t {
	case CSVC, NuSVC, OneClass, EpsSVR, NuSVR:
		return true
	}
	return false
}

// IsRegression reports whether t predicts real values (ε-SVR, ν-SVR).
func (t SVMType) IsRegression() bool { return t == EpsSVR || t == NuSVR }

// IsSVC reports whether t is a one-vs-one classifier (C-SVC, ν-SVC): its
// models have class labels, a support vector count per class and a
// decision value per class pair, and predict by voting.
func (t SVMType) IsSVC() bool { return t == CSVC || t == NuSVC }

// usesNu reports whether ν (-n) is a parameter of t.
func (t SVMType) usesNu() bool { return t == NuSVC || t == OneClass || t == NuSVR }

// String returns the name LIBSVM writes in a model file's svm_type line.
func (t SVMType) String() string {
	switch t {
	case CSVC:
		return "c_svc"
	case NuSVC:
		return "nu_svc"
	case OneClass:
		return "one_class"
	case EpsSVR:
		return "epsilon_svr"
	case NuSVR:
		return "nu_svr"
	}
	return fmt.Sprintf("SVMType(%d)", int(t))
}

// KernelParams are the training parameters of a kernel SVM. Start from
// DefaultKernelParams, which holds svm-train's defaults.
type KernelParams struct {
	SVMType SVMType
	// Kernel is the kernel function (-t, -d, -g, -r). A zero Gamma means
	// "automatic": 1/num_features, resolved when training starts (see
	// ResolvedKernel), as svm-train does.
	Kernel Kernel
	// C is the cost of a loss unit (-c), > 0; used by C-SVC, ε-SVR and
	// ν-SVR.
	C float64
	// Nu is ν of ν-SVC, one-class SVM and ν-SVR (-n), in (0, 1]: an upper
	// bound on the fraction of margin errors (outliers) and a lower bound
	// on the fraction of support vectors. For ν-SVC it must also be
	// feasible for every class pair (i, j) of the data:
	// ν·(n_i + n_j)/2 ≤ min(n_i, n_j), or Train fails as svm-train does
	// ("specified nu is infeasible").
	Nu float64
	// P is the width ε of the ε-insensitive loss of ε-SVR (-p), ≥ 0.
	P float64
	// Eps is the stopping tolerance (-e), > 0: SMO stops when the maximal
	// violating pair violates the KKT conditions by at most Eps
	// (m(α) − M(α) ≤ Eps, Chang & Lin 2011, Section 4.1.3).
	Eps float64
	// CacheMB is the kernel cache budget in MiB (-m), > 0. LIBSVM's -m is
	// fractional too; an edge device may set a fraction of one MiB.
	CacheMB float64
	// KeepMB is the budget in MiB (-M, ≥ 0) of the kernel columns a
	// KernelTrainer keeps from one warm Train to the next (kkeep.go): the
	// support vectors' columns, filled with the entries the runs compute
	// (the trainer's first cold Train with a dual, and every warm one),
	// which the next warm runs read instead of computing them again. 0,
	// the default here and svm-train's, keeps none; the trainers that
	// retrain as rows arrive (the daemon, the C ABI trainer) default it to
	// CacheMB for wide rows (options.KernelOptions.Incremental). It
	// changes the work of warm runs, not their results.
	KeepMB float64
	// Shrinking turns on the shrinking heuristics (-h 1).
	Shrinking bool
	// Probability asks for probability estimates (-b 1): Platt scaling for
	// C-SVC and ν-SVC, fitted on internal 5-fold cross-validation decision
	// values; for ε-SVR and ν-SVR, LIBSVM's Laplace noise width. One-class
	// SVM has none.
	Probability bool
	// Weights scale C per class (-wi), C-SVC only (ν-SVC refuses them: it
	// has no C; LIBSVM ignores them there); a label may appear once.
	// Labels absent from the training set are ignored, as in LIBSVM.
	Weights []ClassWeight
	// Seed seeds the random fold assignment of the internal
	// cross-validation of Probability: equal inputs and seeds give equal
	// models, bit for bit. (LIBSVM uses the C library's rand.)
	Seed uint64
	// MaxIter caps the SMO iterations of each binary subproblem; a run that
	// hits it reports Converged = false. Zero means LIBSVM's cap,
	// max(10⁷, 100·l) for l training rows.
	MaxIter int
}

// DefaultKernelParams returns svm-train's defaults: -s 0 -t 2 -d 3
// -g 1/num_features (Gamma 0) -r 0 -c 1 -n 0.5 -p 0.1 -m 100 -e 0.001 -h 1
// -b 0, with seed 1 and LIBSVM's iteration cap.
func DefaultKernelParams() KernelParams {
	return KernelParams{
		SVMType:   CSVC,
		Kernel:    Kernel{Type: RBFKernel, Degree: 3, Gamma: 0, Coef0: 0},
		C:         1,
		Nu:        0.5,
		P:         0.1,
		Eps:       0.001,
		CacheMB:   100,
		Shrinking: true,
		Seed:      1,
	}
}

// Validate reports the first parameter that is out of range. The checks are
// LIBSVM's (svm_check_parameter), plus: finite values, positive class
// weights named once each, and a non-negative MaxIter. Errors wrap
// ErrParams.
func (p KernelParams) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrParams}, args...)...)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if !p.SVMType.valid() {
		return bad("unknown SVM type -s %d (want 0, 1, 2, 3 or 4)", int(p.SVMType))
	}
	// An automatic Gamma (0) is a valid kernel parameter as it stands.
	if err := p.Kernel.Validate(); err != nil {
		return err
	}
	switch {
	case p.SVMType != OneClass && p.SVMType != NuSVC && (!(p.C > 0) || !finite(p.C)):
		return bad("C = %v, want C > 0", p.C)
	case p.SVMType.usesNu() && (!(p.Nu > 0) || p.Nu > 1):
		return bad("nu = %v, want 0 < nu <= 1", p.Nu)
	case p.SVMType == EpsSVR && (!(p.P >= 0) || !finite(p.P)):
		return bad("p = %v, want p >= 0", p.P)
	case !(p.Eps > 0) || !finite(p.Eps):
		return bad("eps = %v, want eps > 0", p.Eps)
	case !(p.CacheMB > 0) || !finite(p.CacheMB):
		return bad("cache size = %v MB, want > 0", p.CacheMB)
	case !(p.KeepMB >= 0) || !finite(p.KeepMB):
		return bad("kept columns = %v MB, want >= 0", p.KeepMB)
	case p.Probability && p.SVMType == OneClass:
		return bad("probability estimates (-b 1) are not available for one-class SVM")
	case p.SVMType == NuSVC && len(p.Weights) != 0:
		return bad("class weights (-wi) are for C-SVC; ν-SVC has no C to weight")
	case p.MaxIter < 0:
		return bad("max iterations = %d, want >= 0 (0: LIBSVM's cap)", p.MaxIter)
	}
	for i, w := range p.Weights {
		if !(w.Weight > 0) || !finite(w.Weight) {
			return bad("weight %v for class %d, want > 0", w.Weight, w.Label)
		}
		for _, v := range p.Weights[:i] {
			if v.Label == w.Label {
				// LIBSVM multiplies repeated weights; naming a class twice
				// is more likely a typo than a wish for that.
				return bad("class %d is weighted twice", w.Label)
			}
		}
	}
	return nil
}

// ResolvedKernel returns p.Kernel with an automatic Gamma (0) replaced by
// 1/numFeatures, as svm-train does; with no features Gamma stays 0.
func (p KernelParams) ResolvedKernel(numFeatures int) Kernel {
	k := p.Kernel
	if k.Gamma == 0 && numFeatures > 0 {
		k.Gamma = 1 / float64(numFeatures)
	}
	return k
}

// weightOf returns the C multiplier of a class: its -wi weight, or 1.
func (p *KernelParams) weightOf(label int32) float64 {
	for _, w := range p.Weights {
		if w.Label == label {
			return w.Weight
		}
	}
	return 1
}

// keepBytes is KeepMB in bytes.
func (p *KernelParams) keepBytes() int64 {
	return int64(p.KeepMB * (1 << 20))
}

// cacheBytes is the kernel cache budget in bytes, rounded down as LIBSVM
// rounds -m.
func (p *KernelParams) cacheBytes() int64 {
	return int64(p.CacheMB * (1 << 20))
}
