package core

import (
	"fmt"
	"math"
	"sync"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/model"
	"github.com/libsvmgo/libsvmgo/core/rowscale"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// KernelModel is a trained kernel SVM: support vectors, their coefficients
// and the offsets ρ, laid out as LIBSVM lays out its svm_model, so that a
// LIBSVM model file maps onto it field by field.
//
// A KernelModel is immutable once trained or loaded, and safe for
// concurrent use after Init (training calls Init; loaders must call it
// before handing the model out).
type KernelModel struct {
	// SVMType is the formulation: C-SVC, one-class or ε-SVR.
	SVMType SVMType
	// Kernel is the kernel with Gamma resolved (never 0 meaning "auto").
	Kernel Kernel
	// NumFeatures is the number of input features: dense rows must have
	// this many. A sparse row's features at or past it meet no support
	// vector feature, so they add nothing to u'v; RBF still counts them in
	// ‖x − sv‖², as LIBSVM does (the distance is the true one).
	NumFeatures int
	// Labels are the C-SVC classes in LIBSVM's order (first appearance in
	// the training data); nil for ε-SVR and one-class.
	Labels []int32
	// NumSV is, for C-SVC, the number of support vectors of each class in
	// Labels order; nil otherwise.
	NumSV []int32
	// SV holds the support vectors; for C-SVC grouped by class in Labels
	// order (LIBSVM's layout). Its labels are not used.
	SV *data.Dataset
	// Coef is LIBSVM's sv_coef: (nrClass−1) rows of SV.Len() coefficients,
	// row-major, Coef[k*SV.Len()+i] (one row for ε-SVR and one-class). For
	// C-SVC, support vector i of class c carries, in row k, its y·α in the
	// pair of c with class k if k < c, or with class k+1 if k ≥ c.
	Coef []float64
	// Rho holds ρ of each decision function: nrClass·(nrClass−1)/2 for
	// C-SVC in pair order (0,1), (0,2), …, (1,2), …; one value otherwise.
	Rho []float64
	// ProbA and ProbB are Platt's sigmoid parameters per pair (C-SVC), or
	// nil without probability estimates. For ε-SVR ProbA[0] is the scale of
	// the Laplace noise model and ProbB is nil.
	ProbA, ProbB []float64
	// Params are the parameters the model was trained with.
	Params KernelParams
	// Result describes the training run that produced the model.
	Result KernelTrainResult
	// Created is the creation time in Unix seconds, 0 when not recorded
	// (training leaves it 0 so that equal inputs give equal model files).
	Created int64
	// Scale, when not nil, is the scaling the model was trained behind
	// (train --scale): the support vectors are scaled rows, and every
	// predict method takes raw rows and scales each into pooled scratch
	// before the kernel (scaling.go). Its ranges cover exactly
	// NumFeatures features, without target scaling.
	Scale *scale.Ranges

	// pre is what Init precomputes; nil before Init.
	pre *kernelPre
}

// KernelTrainResult describes a kernel training run: one entry per binary
// subproblem and totals over them.
type KernelTrainResult struct {
	// Subproblems holds one result per SMO solve: per class pair in Rho's
	// order for C-SVC, a single one for ε-SVR and one-class.
	Subproblems []KernelSubproblem
	// Iterations is the total of the subproblems' SMO iterations.
	Iterations int
	// KernelEvals counts kernel evaluations over all subproblems (cache
	// hits excluded): the work a warm start saves.
	KernelEvals int64
	// Objective is the sum of the subproblems' dual objectives.
	Objective float64
	// NumSV is the number of support vectors of the model (rows with a
	// nonzero coefficient in some subproblem); NumBoundSV the number of
	// subproblem variables at their upper bound, summed.
	NumSV, NumBoundSV int
	// Converged is true when every subproblem met the stopping tolerance
	// before its iteration cap.
	Converged bool
}

// KernelSubproblem is the result of one SMO solve.
type KernelSubproblem struct {
	// Pos and Neg are the classes of a C-SVC pair (y = +1 for Pos);
	// both 0 for ε-SVR and one-class.
	Pos, Neg int32
	// Rows is the number of training rows in the subproblem.
	Rows int
	// Iterations is the number of SMO iterations.
	Iterations int
	// Objective is the dual objective f(α) = ½ αᵀQα + pᵀα at the solution
	// (LIBSVM's "obj").
	Objective float64
	// Rho is ρ of the decision function.
	Rho float64
	// R is r of ν-SVC and ν-SVR, 0 otherwise: a ν-SVC pair's model is the
	// C-SVC one with C = 1/R (LIBSVM prints "C = 1/R"), and ν-SVR's tube
	// width is ε = −R (LIBSVM's "epsilon").
	R float64
	// Gap is the maximal KKT violation m(α) − M(α) at the solution.
	Gap float64
	// KernelEvals counts kernel evaluations of this solve.
	KernelEvals int64
	// NumSV counts rows with α > 0 (for ε-SVR, with α ≠ α*); NumBoundSV
	// those at the upper bound.
	NumSV, NumBoundSV int
	// Converged is false when the iteration cap stopped the solve.
	Converged bool
}

// kernelPre holds what Init derives from a model's fields for prediction.
type kernelPre struct {
	sqnorm  []float64 // sv_i'sv_i of every support vector (RBF)
	start   []int     // C-SVC: class c's support vectors are start[c]..start[c+1]-1
	scratch int       // float64 scratch a prediction needs
	pool    sync.Pool // *[]float64 of scratch entries, for models too big for the stack

	// blk is the blocked prediction state (kernelblock.go), nil to predict
	// a row at a time. It is built by the first prediction (blocks), not
	// by Init: a model that is only trained and written never needs the
	// packed copy of its support vectors, about as large as they are.
	blkOnce sync.Once
	blk     *kernelBlocks

	// scaled is the model without Scale wrapped in the one scaled form,
	// to which a scaled model's predict methods hand their raw rows; nil
	// for an unscaled model.
	scaled *rowscale.Scaled
}

// blocks returns the blocked prediction state of m, packing the support
// vectors on the first call. Concurrent callers wait for the one packing
// (sync.Once), and every later call reads the result without allocating.
func (pre *kernelPre) blocks(m *KernelModel) *kernelBlocks {
	pre.blkOnce.Do(func() { pre.blk = newKernelBlocks(m, pre) })
	return pre.blk
}

// maxStackKernel bounds the scratch (kernel values, decision values and
// votes) a single-row prediction keeps on the stack; bigger models take
// their scratch from a pool, which is allocation-free once warm.
const maxStackKernel = 512

// IsRegression reports whether the model predicts real values (ε-SVR).
func (m *KernelModel) IsRegression() bool { return m.SVMType.IsRegression() }

// NumClasses returns the number of classes of a C-SVC model, 2 for
// one-class and ε-SVR (LIBSVM's nr_class).
func (m *KernelModel) NumClasses() int {
	if m.SVMType.IsSVC() {
		return len(m.Labels)
	}
	return 2
}

// NumDecisionValues returns how many decision values DecisionDense and
// DecisionSparse write: one per class pair for C-SVC, else one.
func (m *KernelModel) NumDecisionValues() int {
	if m.SVMType.IsSVC() {
		n := len(m.Labels)
		return n * (n - 1) / 2
	}
	return 1
}

// Validate checks that the model's fields agree with each other: the
// formulation and kernel, the shapes of Labels, NumSV, Coef, Rho, ProbA and
// ProbB against SV.Len(), and that every number is finite. Loaders call it
// (through Init) before handing out a model. Errors name the field.
func (m *KernelModel) Validate() error {
	if err := m.validateShape(); err != nil {
		return err
	}
	for i := range m.SV.Len() {
		var v []float32
		if m.SV.IsDense() {
			v = m.SV.DenseRow(i)
		} else {
			_, v = m.SV.SparseRow(i)
		}
		for _, x := range v {
			if math.Float32bits(x)&0x7f800000 == 0x7f800000 { // an infinity or a NaN
				return fmt.Errorf("core: kernel model: support vector %d has a non-finite value", i)
			}
		}
	}
	return nil
}

// validateShape is Validate without the support vectors' values: a
// trainer's model copies them from a data set, whose rows were checked
// when they were stored (initTrained).
func (m *KernelModel) validateShape() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("core: kernel model: "+format, args...)
	}
	if !m.SVMType.valid() {
		return bad("unknown SVM type %d", int(m.SVMType))
	}
	if err := m.Kernel.Validate(); err != nil {
		return bad("%w", err)
	}
	if m.NumFeatures < 0 {
		return bad("negative feature count %d", m.NumFeatures)
	}
	if m.SV == nil {
		return bad("no support vector set")
	}
	l := m.SV.Len()
	if m.SV.NumFeatures() > m.NumFeatures {
		return bad("support vectors have %d features, model %d", m.SV.NumFeatures(), m.NumFeatures)
	}
	nDec := 1
	if m.SVMType.IsSVC() {
		nr := len(m.Labels)
		if nr < 2 {
			return bad("%v model with %d classes, want at least 2", m.SVMType, nr)
		}
		if len(m.NumSV) != nr {
			return bad("%d support vector counts for %d classes", len(m.NumSV), nr)
		}
		total := 0
		for c, n := range m.NumSV {
			if n < 0 {
				return bad("negative support vector count %d of class %d", n, m.Labels[c])
			}
			total += int(n)
		}
		if total != l {
			return bad("support vector counts add up to %d, SV has %d rows", total, l)
		}
		nDec = nr * (nr - 1) / 2
		if len(m.Coef) != (nr-1)*l {
			return bad("%d coefficients, want %d (%d classes − 1 × %d support vectors)", len(m.Coef), (nr-1)*l, nr, l)
		}
		if (m.ProbA == nil) != (m.ProbB == nil) || (m.ProbA != nil && (len(m.ProbA) != nDec || len(m.ProbB) != nDec)) {
			return bad("%d probA and %d probB values, want none or %d each", len(m.ProbA), len(m.ProbB), nDec)
		}
	} else {
		if len(m.Labels) != 0 || len(m.NumSV) != 0 {
			return bad("%v model with %d labels and %d class counts, want none", m.SVMType, len(m.Labels), len(m.NumSV))
		}
		if len(m.Coef) != l {
			return bad("%d coefficients for %d support vectors", len(m.Coef), l)
		}
		switch {
		case m.SVMType == OneClass && (m.ProbA != nil || m.ProbB != nil):
			return bad("one-class model with probability parameters")
		case m.SVMType.IsRegression() && (len(m.ProbB) != 0 || (m.ProbA != nil && len(m.ProbA) != 1)):
			return bad("%v model with %d probA and %d probB values, want none or one probA", m.SVMType, len(m.ProbA), len(m.ProbB))
		}
	}
	if len(m.Rho) != nDec {
		return bad("%d rho values, want %d", len(m.Rho), nDec)
	}
	// Per-label work comes after the counts, so a hostile file declaring
	// 65536 labels is refused by its counts before it costs anything.
	if c, ok := model.RepeatedLabel(m.Labels); ok {
		return bad("label %d repeated", c)
	}
	for _, v := range [][]float64{m.Coef, m.Rho, m.ProbA, m.ProbB} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return bad("non-finite coefficient, rho or probability parameter %v", x)
			}
		}
	}
	return nil
}

// Init validates the model and precomputes what prediction needs (the
// squared norms of the support vectors, class offsets, scratch pools). The
// trainer calls it; code that builds a KernelModel otherwise (model file
// decoding, import of LIBSVM text models) must call it before the first
// prediction and before sharing the model between goroutines. The
// predictors panic on a model whose Init was not called.
func (m *KernelModel) Init() error {
	if err := m.Validate(); err != nil {
		return err
	}
	return m.prepare()
}

// initTrained is Init for a model a trainer just built, whose support
// vectors are copies of checked rows (validateShape).
func (m *KernelModel) initTrained() error {
	if err := m.validateShape(); err != nil {
		return err
	}
	return m.prepare()
}

// prepare sets what prediction needs (Init), on a validated model.
func (m *KernelModel) prepare() error {
	l := m.SV.Len()
	pre := &kernelPre{}
	if m.Kernel.Type == RBFKernel {
		pre.sqnorm = make([]float64, l)
		for i := range pre.sqnorm {
			if m.SV.IsDense() {
				x := m.SV.DenseRow(i)
				pre.sqnorm[i] = dotDense32(x, x)
			} else {
				_, v := m.SV.SparseRow(i)
				pre.sqnorm[i] = sqSparse32(v)
			}
		}
	}
	nDec := m.NumDecisionValues()
	pre.scratch = l + nDec
	if m.SVMType.IsSVC() {
		pre.start = make([]int, len(m.Labels)+1)
		for c, n := range m.NumSV {
			pre.start[c+1] = pre.start[c] + int(n)
		}
		pre.scratch += len(m.Labels) // votes
	}
	size := pre.scratch
	pre.pool.New = func() any {
		b := make([]float64, size)
		return &b
	}
	if m.Scale != nil {
		inner := *m
		inner.Scale, inner.pre = nil, nil
		if err := inner.Init(); err != nil {
			return err
		}
		sc, err := rowscale.NewScaled(&inner, m.Scale)
		if err != nil {
			return fmt.Errorf("core: kernel model: %w", err)
		}
		pre.scaled = sc
	}
	m.pre = pre
	return nil
}

// prepared returns the precomputed state, panicking on a model that was not
// initialised: a caller bug, not a data error.
func (m *KernelModel) prepared() *kernelPre {
	if m.pre == nil {
		panic("core: KernelModel used before Init")
	}
	return m.pre
}

// kernelDense sets kv[i] = K(x, sv_i) for every support vector.
func (m *KernelModel) kernelDense(kv []float64, x []float32, pre *kernelPre) {
	var xx float64
	if m.Kernel.Type == RBFKernel {
		xx = dotDense32(x, x)
	}
	m.kernelDenseRange(kv, x, xx, pre, 0, m.SV.Len())
}

// kernelDenseRange is kernelDense for support vectors from..to−1 only
// (kv[from:to]), with ‖x‖² given as xx (RBF), which may count features
// past NumFeatures that x no longer holds.
func (m *KernelModel) kernelDenseRange(kv []float64, x []float32, xx float64, pre *kernelPre, from, to int) {
	k := m.Kernel
	sv := m.SV
	kv = kv[:to]
	for i := from; i < to; i++ {
		var dot float64
		if sv.IsDense() {
			dot = dotDense32(x, sv.DenseRow(i))
		} else {
			si, sx := sv.SparseRow(i)
			dot = dotDenseSparse32(x, si, sx)
		}
		if k.Type == RBFKernel {
			kv[i] = k.rbf(xx, pre.sqnorm[i], dot)
		} else {
			kv[i] = k.ofDot(dot)
		}
	}
}

// kernelSparse sets kv[i] = K(x, sv_i) for the sparse row x.
func (m *KernelModel) kernelSparse(kv []float64, index []int32, value []float32, pre *kernelPre) {
	k := m.Kernel
	sv := m.SV
	kv = kv[:sv.Len()]
	var xx float64
	if k.Type == RBFKernel {
		xx = sqSparse32(value)
	}
	for i := range kv {
		var dot float64
		if sv.IsDense() {
			dot = dotDenseSparse32(sv.DenseRow(i), index, value)
		} else {
			si, sx := sv.SparseRow(i)
			dot = dotMerge32(index, value, si, sx)
		}
		if k.Type == RBFKernel {
			kv[i] = k.rbf(xx, pre.sqnorm[i], dot)
		} else {
			kv[i] = k.ofDot(dot)
		}
	}
}

// dotDenseSparse32 returns Σ x[idx[k]]·val[k] over the entries whose index
// falls inside x; the others meet implicit zeros.
func dotDenseSparse32(x []float32, idx []int32, val []float32) float64 {
	val = val[:len(idx)]
	var s0, s1 float64
	n := uint(len(x))
	k := 0
	for ; k+2 <= len(idx); k += 2 {
		if j := uint(idx[k]); j < n {
			s0 += float64(x[j]) * float64(val[k])
		}
		if j := uint(idx[k+1]); j < n {
			s1 += float64(x[j]) * float64(val[k+1])
		}
	}
	if k < len(idx) {
		if j := uint(idx[k]); j < n {
			s0 += float64(x[j]) * float64(val[k])
		}
	}
	return s0 + s1
}

// decisions turns the kernel values kv into the decision values dec
// (NumDecisionValues of them) by LIBSVM's sv_coef layout (KernelDecisions).
func (m *KernelModel) decisions(dec, kv []float64, pre *kernelPre) {
	KernelDecisions(m.SVMType, dec, kv, m.Coef, m.Rho, pre.start)
}

// label turns decision values into a prediction by LIBSVM's rules
// (KernelPrediction).
func (m *KernelModel) label(dec, votes []float64) float64 {
	return KernelPrediction(m.SVMType, m.Labels, dec, votes)
}

// DecisionDense writes the decision values of the dense row x (len(x) ==
// NumFeatures) to dst[:NumDecisionValues()] and returns that slice. It
// allocates nothing once warm. It panics if len(x) != NumFeatures, if
// dst is too short, or if Init was not called.
func (m *KernelModel) DecisionDense(dst []float64, x []float32) []float64 {
	if sc := m.prepared().scaled; sc != nil {
		return sc.DecisionDense(dst, x)
	}
	return m.decisionDense(dst, x)
}

// decisionDense is DecisionDense without the scaling: dst does not leak through
// the scaled model's interface call, so callers may pass stack arrays.
func (m *KernelModel) decisionDense(dst []float64, x []float32) []float64 {
	pre := m.prepared()
	if len(x) != m.NumFeatures {
		panic(fmt.Sprintf("core: KernelModel.DecisionDense: row has %d features, model %d", len(x), m.NumFeatures))
	}
	dst = dst[:m.NumDecisionValues()]
	l := m.SV.Len()
	if l <= maxStackKernel {
		var buf [maxStackKernel]float64
		m.kernelDense(buf[:l], x, pre)
		m.decisions(dst, buf[:l], pre)
		return dst
	}
	bp := pre.pool.Get().(*[]float64)
	kv := (*bp)[:l]
	m.kernelDense(kv, x, pre)
	m.decisions(dst, kv, pre)
	pre.pool.Put(bp)
	return dst
}

// DecisionSparse writes the decision values of a sparse row (0-based
// indices, strictly increasing, and their values) to
// dst[:NumDecisionValues()] and returns that slice. It allocates nothing
// once warm. It panics if len(index) != len(value), if dst is too short,
// or if Init was not called.
func (m *KernelModel) DecisionSparse(dst []float64, index []int32, value []float32) []float64 {
	if sc := m.prepared().scaled; sc != nil {
		return sc.DecisionSparse(dst, index, value)
	}
	return m.decisionSparse(dst, index, value)
}

// decisionSparse is DecisionSparse without the scaling: dst does not leak through
// the scaled model's interface call, so callers may pass stack arrays.
func (m *KernelModel) decisionSparse(dst []float64, index []int32, value []float32) []float64 {
	pre := m.prepared()
	if len(index) != len(value) {
		panic("core: KernelModel.DecisionSparse: index and value lengths differ")
	}
	dst = dst[:m.NumDecisionValues()]
	l := m.SV.Len()
	if l <= maxStackKernel {
		var buf [maxStackKernel]float64
		m.kernelSparse(buf[:l], index, value, pre)
		m.decisions(dst, buf[:l], pre)
		return dst
	}
	bp := pre.pool.Get().(*[]float64)
	kv := (*bp)[:l]
	m.kernelSparse(kv, index, value, pre)
	m.decisions(dst, kv, pre)
	pre.pool.Put(bp)
	return dst
}

// predictWith runs fill (which sets the kernel values) and the decision
// and voting steps in one scratch buffer of pre.scratch entries.
func (m *KernelModel) predictWith(pre *kernelPre, buf []float64) float64 {
	l := m.SV.Len()
	nDec := m.NumDecisionValues()
	kv, dec, votes := buf[:l], buf[l:l+nDec], buf[l+nDec:pre.scratch]
	m.decisions(dec, kv, pre)
	return m.label(dec, votes)
}

// PredictDense returns the predicted label (C-SVC), value (ε-SVR) or ±1
// (one-class) of the dense row x. It allocates nothing once warm. It
// panics if len(x) != NumFeatures or Init was not called.
//
// The predictors (PredictDense, PredictSparse and the batch calls) take the
// blocked float32 path of kernelblock.go when the model is packed (by the
// first prediction); their decision values then agree with DecisionDense's
// float64 ones to about 2.5e-7 of Σ|coef·K|, and a classifier recomputes
// in float64 each value that close to 0, so its labels are those of the
// float64 decision values.
func (m *KernelModel) PredictDense(x []float32) float64 {
	pre := m.prepared()
	if sc := pre.scaled; sc != nil {
		return sc.PredictDense(x)
	}
	if len(x) != m.NumFeatures {
		panic(fmt.Sprintf("core: KernelModel.PredictDense: row has %d features, model %d", len(x), m.NumFeatures))
	}
	if b := pre.blocks(m); b != nil {
		return m.blockPredict(b, x, nil, nil, false)
	}
	if pre.scratch <= maxStackKernel {
		var buf [maxStackKernel]float64
		m.kernelDense(buf[:m.SV.Len()], x, pre)
		return m.predictWith(pre, buf[:pre.scratch])
	}
	bp := pre.pool.Get().(*[]float64)
	m.kernelDense(*bp, x, pre)
	v := m.predictWith(pre, *bp)
	pre.pool.Put(bp)
	return v
}

// PredictSparse returns the prediction of a sparse row, read as
// DecisionSparse reads it. It allocates nothing once warm.
func (m *KernelModel) PredictSparse(index []int32, value []float32) float64 {
	pre := m.prepared()
	if sc := pre.scaled; sc != nil {
		return sc.PredictSparse(index, value)
	}
	if len(index) != len(value) {
		panic("core: KernelModel.PredictSparse: index and value lengths differ")
	}
	if b := pre.blocks(m); b != nil {
		return m.blockPredict(b, nil, index, value, true)
	}
	if pre.scratch <= maxStackKernel {
		var buf [maxStackKernel]float64
		m.kernelSparse(buf[:m.SV.Len()], index, value, pre)
		return m.predictWith(pre, buf[:pre.scratch])
	}
	bp := pre.pool.Get().(*[]float64)
	m.kernelSparse(*bp, index, value, pre)
	v := m.predictWith(pre, *bp)
	pre.pool.Put(bp)
	return v
}

// PredictDenseBatch writes the predictions of the rows of the row-major
// matrix x (len(x) = rows × NumFeatures) to dst and returns dst[:rows]. It
// allocates nothing once warm. It panics on a size mismatch.
func (m *KernelModel) PredictDenseBatch(dst []float64, x []float32) []float64 {
	n := m.NumFeatures
	dst = BatchRows(dst, x, n, "core: KernelModel.PredictDenseBatch")
	if sc := m.prepared().scaled; sc != nil {
		return sc.PredictDenseBatch(dst, x)
	}
	if b := m.prepared().blocks(m); b != nil {
		m.blockPredictMatrix(b, dst, x)
		return dst
	}
	for i := range dst {
		dst[i] = m.PredictDense(x[i*n : i*n+n])
	}
	return dst
}

// PredictBatch writes the prediction of every row of ds to dst[:ds.Len()]
// and returns that slice. Dense rows of another width than NumFeatures are
// read as sparse rows (missing features zero, extra ones as DecisionSparse
// treats them). It allocates nothing once warm. It panics if len(dst) <
// ds.Len().
func (m *KernelModel) PredictBatch(dst []float64, ds *data.Dataset) []float64 {
	m.prepared()
	dst = dst[:ds.Len()]
	if sc := m.pre.scaled; sc != nil {
		return sc.PredictBatch(dst, ds)
	}
	m.predictRows(dst, ds, 0, len(dst))
	return dst
}

// PredictBatchParallel is PredictBatch with the rows split among workers
// goroutines (0: GOMAXPROCS); the predictions are the same. A kernel model
// predicts a row in time proportional to its support vectors, so a large
// batch is worth the goroutines, which it allocates.
func (m *KernelModel) PredictBatchParallel(dst []float64, ds *data.Dataset, workers int) []float64 {
	pre := m.prepared()
	dst = dst[:ds.Len()]
	if sc := pre.scaled; sc != nil {
		ParallelChunks(len(dst), rowscale.ScalerBatchRows, workers, func(from, to int) { sc.PredictRows(dst[from:to], ds, from) })
		return dst
	}
	chunk := 64 // rows a worker takes at a time
	if b := pre.blocks(m); b != nil {
		chunk = b.rows
	}
	ParallelChunks(len(dst), chunk, workers, func(from, to int) { m.predictRows(dst, ds, from, to) })
	return dst
}

// predictRows predicts rows [from, to) of ds into dst[from:to].
func (m *KernelModel) predictRows(dst []float64, ds *data.Dataset, from, to int) {
	if b := m.prepared().blocks(m); b != nil {
		m.blockPredictRows(b, dst, ds, from, to)
		return
	}
	for i := from; i < to; i++ {
		switch {
		case !ds.IsDense():
			dst[i] = m.PredictSparse(ds.SparseRow(i))
		case ds.NumFeatures() == m.NumFeatures:
			dst[i] = m.PredictDense(ds.DenseRow(i))
		default:
			dst[i] = m.predictDenseAnyWidth(ds.DenseRow(i))
		}
	}
}

// predictDenseAnyWidth predicts a dense row whose width differs from
// NumFeatures: narrower rows are zero-padded in effect, wider ones keep
// their extra features only in RBF's ‖x‖², as for sparse rows.
func (m *KernelModel) predictDenseAnyWidth(x []float32) float64 {
	pre := m.prepared()
	if b := pre.blocks(m); b != nil {
		return m.blockPredict(b, x, nil, nil, false)
	}
	bp := pre.pool.Get().(*[]float64)
	m.kernelDense(*bp, x, pre)
	v := m.predictWith(pre, *bp)
	pre.pool.Put(bp)
	return v
}

// Widen makes m take rows of n features when it has fewer (Widen). Sparse
// support vectors meet no feature past their own, so they stay as they
// are; dense ones (a dense trainer's rows, or rows scaled by --scale) are
// padded with zeros, the value the features past the rows' have in
// training. Its scaling (--scale) drops the features past its ranges.
// Call it before the model is shared or predicts.
func (m *KernelModel) Widen(n int) error {
	if m.NumFeatures >= n {
		return nil
	}
	if m.SV.IsDense() {
		l := m.SV.Len()
		sv := data.NewDense(l, n)
		row := make([]float32, n)
		for i := range l {
			copy(row, m.SV.DenseRow(i)) // the rest of row stays 0
			if err := sv.AppendDense(m.SV.Label(i), row); err != nil {
				return err
			}
		}
		m.SV = sv
	}
	m.NumFeatures = n
	if m.Scale != nil {
		m.Scale = m.Scale.Widen(n)
	}
	return m.Init()
}
