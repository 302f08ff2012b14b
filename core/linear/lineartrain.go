package linear

import (
	"fmt"
	"math"
	"runtime"
	"sync/atomic"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
	"github.com/libsvmgo/libsvmgo/core/model"
)

// LinearDual holds the dual variables of a linear training run: one vector
// per decision function, aligned with the rows of the data set trained on.
// It is what a later run is warm-started from.
type LinearDual struct {
	// Labels names each vector's positive class (nil for regression).
	Labels []int32
	// Alpha[k][i] is row i's dual variable in decision function k (β_i for
	// regression, signed).
	Alpha [][]float64
	// Gradient, when not nil, is the primal Newton method's state at the
	// end of the run (-s 0, -s 2, and -s 1 through its primal twin, with a
	// trainer that keeps it: LinearTrainer.KeepGradient), which the next
	// run starts from instead of reading the rows it covers; Train checks
	// it before it uses it, and DeleteRows keeps it for the rows that stay.
	Gradient *LinearGradient
}

// LinearPrimal is a primal warm start: one weight vector per decision
// function, as a previous model holds them (PrimalOf).
type LinearPrimal struct {
	// Labels names each vector's positive class (nil for regression).
	Labels []int32
	// W[k] holds decision function k's feature weights; a vector shorter
	// than the data set's features is extended with zeros, a longer one
	// cut.
	W [][]float64
	// BiasW[k] is decision function k's bias weight (nil: zero).
	BiasW []float64
}

// PrimalOf returns m's weights as a primal warm start.
func PrimalOf(m *LinearModel) *LinearPrimal {
	nrW, n := m.NrW(), m.NumFeatures
	p := &LinearPrimal{W: make([][]float64, nrW)}
	if !m.IsRegression() {
		p.Labels = append([]int32(nil), m.Labels[:nrW]...)
	}
	if m.Bias >= 0 {
		p.BiasW = make([]float64, nrW)
	}
	for k := range nrW {
		w := make([]float64, n)
		for j := range w {
			w[j] = float64(m.W[j*nrW+k])
		}
		p.W[k] = w
		if m.Bias >= 0 {
			p.BiasW[k] = float64(m.W[n*nrW+k])
		}
	}
	return p
}

// LinearTrainer trains linear SVMs: the duals by dual coordinate descent,
// the primals (-s 0, -s 2, -s 11) by the line-search Newton method, which also
// warm-starts the L2-loss duals (see Train). Its work buffers are sized at
// construction for a row and feature capacity, so training allocates
// nothing per pass; Train allocates only its outputs.
//
// A LinearTrainer is not safe for concurrent use; it runs its own
// goroutines (up to Params.Threads) inside Train.
type LinearTrainer struct {
	params      LinearParams
	capRows     int
	capFeatures int
	xnorm       []float64 // per-row Q̄_ii, shared by subproblems of one worker
	workers     []dcdWorker
	cols        columns // -s 5 and -s 6: the column view, built per call
	// cPath marks a -C search's trainer, whose warm starts come from the
	// same rows at half the C: the Newton method runs them as LIBLINEAR
	// 2.50 does, as cold ones (newtonSettings), so the path matches
	// liblinear-train's C by C.
	cPath bool
	// keepGradient: Train fills LinearDual.Gradient (KeepGradient).
	keepGradient bool
	// share lends idle cores to the Newton method's passes (nil with one
	// worker).
	share *solve.Lender
	// mlr is -s 40's solver, its buffers kept between runs.
	mlr multinomialLR
	// progress, when not nil, receives the solvers' ProgressEvents.
	progress model.ProgressFunc
}

// SetProgress makes t's runs report their progress to fn (nil: none):
// each Newton step of the primal solvers (-s 0, 2, 11, 40, and the primal
// twins of -s 1 and 12) and each outer pass of dual coordinate descent for
// SVC (-s 1, 3), per subproblem. fn may be called from several goroutines
// at once (one-vs-rest classes train in parallel). The dual solvers of
// -s 7, 12, 13 and the L1-regularized -s 5, 6 do not report.
func (t *LinearTrainer) SetProgress(fn model.ProgressFunc) { t.progress = fn }

// reporter returns the solvers' callback reporting the subproblem over
// classes (ProgressEvent.Classes: 0, or 1 with positive class pos), or nil
// without a progress function.
func (t *LinearTrainer) reporter(classes int, pos int32) func(int, float64, float64) {
	fn := t.progress
	if fn == nil {
		return nil
	}
	return func(iter int, objective, violation float64) {
		fn(model.ProgressEvent{Classes: classes, Subproblem: pos, Iteration: iter, Objective: objective, Violation: violation})
	}
}

// KeepGradient makes t's runs of -s 0 and -s 2 (and of -s 1 through its
// primal twin) return the primal Newton method's state with their dual
// (LinearDual.Gradient), from which a warm run on the same rows and more,
// or fewer (LinearDual.DeleteRows), starts without reading the rows it
// covers. It is for trainers that retrain as rows arrive (NewTrainer's,
// behind the daemon and the C ABI): keeping it costs each run a hash of
// its rows, four weight-sized vectors per decision function, and a copy
// of the rows added since the run it started from (the state keeps its
// rows, shared along a stream of runs: gradientrows.go).
func (t *LinearTrainer) KeepGradient() { t.keepGradient = true }

// dcdWorker is one goroutine's buffers.
type dcdWorker struct {
	svc dcdSVC
	svr dcdSVR
	lr  dcdLR
	y   []int8
	QD  []float64
	// alphaC holds C_i − α_i for -s 7 (dcd_lr.go); nil otherwise.
	alphaC []float64
	primalWorker
	l1 l1Worker // -s 5 and -s 6
}

// primalWorker is the Newton part of a worker, allocated for the L2-loss
// formulations and logistic regression only: the solver's vectors, w, and
// per row the margins z, their step u, and the index set I of the L2
// losses or the Hessian weights D of logistic regression (the costs C_i go
// in the worker's QD, which only DCD uses otherwise).
type primalWorker struct {
	newton newton
	w      []float64
	z, u   []float64
	I      []int32
	D      []float64
	fsvc   l2svcFun
	// stiff: rebuilding an L2-loss SVC start from α (primal_rebuild.go).
	stiff stiffBlock
	fsvr  l2svrFun
	flr   lrFun
}

// LinearTrainerBytes returns the memory, in bytes, that NewLinearTrainer
// allocates for these parameters and capacities (outputs not included): the
// size query for budgeting an edge device. The L1-regularized solvers
// (-s 5, -s 6) also build a column view of the data at each training call,
// ColumnViewBytes more.
func LinearTrainerBytes(p LinearParams, capRows, capFeatures int) int {
	perWorker := capRows*(4+1+8) + (capFeatures+1)*8 // index, y, QD; w
	if p.Solver == L2LogisticDual {
		perWorker += capRows * (8 + 8 + 1) // alphaC; logRatio, logSide
	}
	if p.Solver.hasL2Loss() {
		perWorker += capRows*(8+8+8+4) + (newtonBuffers+1)*(capFeatures+1)*8 // z, u, the products' dots, I; the Newton method's vectors, w
		if p.Solver == L2Logistic {
			perWorker += capRows * (8 - 4) // D instead of I
		}
		if p.Solver.isL2LossSVC() {
			perWorker += stiffBlockBytes(capFeatures + 1)
		}
	}
	if p.Solver.IsL1() {
		perWorker += (capFeatures+1)*8 + l1Bytes(p.Solver, capRows, capFeatures+1) // start w; the solver
	}
	// -s 40 sizes its solver by the classes at the first run: here for
	// two, and multinomialBytes(rows, K, features+1) for K.
	if p.Solver.IsMultinomial() {
		return perWorker*p.workerCount() + multinomialBytes(capRows, 2, capFeatures+1)
	}
	return perWorker * p.workerCount()
}

func (p *LinearParams) workerCount() int {
	if p.Solver.IsRegression() {
		return 1
	}
	if p.Threads > 0 {
		return p.Threads
	}
	return runtime.GOMAXPROCS(0)
}

// NewLinearTrainer validates p and allocates the buffers for data sets of up
// to capRows rows and capFeatures features. It refuses (ErrTooLarge)
// capacities whose buffers, LinearTrainerBytes, exceed the machine's memory.
func NewLinearTrainer(p LinearParams, capRows, capFeatures int) (*LinearTrainer, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if capRows < 0 || capFeatures < 0 {
		return nil, fmt.Errorf("%w: negative capacity", model.ErrParams)
	}
	// LinearTrainerBytes counts in int, every term below 256 bytes a row
	// or a feature a worker: capacities whose count could wrap (on a
	// 32-bit platform, millions of features) are refused before it runs.
	if uint64(capRows)+uint64(capFeatures)+1 > math.MaxInt/256/uint64(p.workerCount()) {
		return nil, fmt.Errorf("%w: a linear trainer of %d rows and %d features: past this platform's address space",
			model.ErrTooLarge, capRows, capFeatures)
	}
	if err := model.CheckMemory("linear trainer", int64(LinearTrainerBytes(p, capRows, capFeatures))); err != nil {
		return nil, err
	}
	p.Weights = append([]model.ClassWeight(nil), p.Weights...)
	t := &LinearTrainer{params: p, capRows: capRows, capFeatures: capFeatures}
	t.workers = make([]dcdWorker, p.workerCount())
	if len(t.workers) > 1 && p.Solver.hasL2Loss() {
		t.share = solve.NewLender(len(t.workers) - 1)
	}
	for k := range t.workers {
		wk := &t.workers[k]
		index := make([]int32, capRows)
		w := make([]float64, capFeatures+1)
		wk.QD = make([]float64, capRows)
		if p.Solver.IsRegression() {
			wk.svr.index, wk.svr.w = index, w
		} else {
			wk.y = make([]int8, capRows)
			wk.svc.index, wk.svc.w = index, w
		}
		if p.Solver == L2LogisticDual {
			wk.lr.index, wk.lr.w = index, w
			wk.alphaC = make([]float64, capRows)
			wk.lr.logRatio, wk.lr.logSide = make([]float64, capRows), make([]int8, capRows)
		}
		if p.Solver.hasL2Loss() {
			wk.newton = newNewton(capFeatures + 1)
			wk.w = make([]float64, capFeatures+1)
			wk.z, wk.u = make([]float64, capRows), make([]float64, capRows)
			if p.Solver == L2Logistic {
				wk.D = make([]float64, capRows)
			} else {
				wk.I = make([]int32, capRows)
			}
			if p.Solver.isL2LossSVC() {
				wk.stiff = newStiffBlock(capFeatures + 1)
			}
			dots := make([]float64, capRows) // one objective runs at a time
			for _, r := range []*primalRows{&wk.fsvc.primalRows, &wk.flr.primalRows, &wk.fsvr.primalRows} {
				r.share, r.part, r.done, r.t = t.share, wk.newton.part, make(chan struct{}, 1), dots
			}
		}
		if p.Solver.IsL1() {
			wk.w = make([]float64, capFeatures+1)
			wk.l1 = newL1Worker(p.Solver, capRows, capFeatures+1)
		}
	}
	return t, nil
}

// Params returns the trainer's parameters.
func (t *LinearTrainer) Params() LinearParams { return t.params }

// TrainLinear trains a model on ds with a trainer sized for it: the
// one-call form of NewLinearTrainer and Train.
func TrainLinear(ds *data.Dataset, p LinearParams) (*LinearModel, *LinearDual, error) {
	t, err := NewLinearTrainer(p, ds.Len(), ds.NumFeatures())
	if err != nil {
		return nil, nil, err
	}
	return t.Train(ds, nil)
}

// Train trains on every row of ds, warm-started from warm when it is not
// nil: TrainFrom(ds, warm, nil).
func (t *LinearTrainer) Train(ds *data.Dataset, warm *LinearDual) (*LinearModel, *LinearDual, error) {
	return t.TrainFrom(ds, warm, nil)
}

// TrainFrom trains on every row of ds. warm, when not nil, holds dual
// variables aligned with ds's rows (a previous run's, with rows kept in
// place and new rows at zero); each decision function starts from the
// vector of the same positive class, or from zero when there is none.
// start, when not nil, is a primal starting point (for example
// PrimalOf(previous model)), matched to the decision functions by positive
// class in the same way.
//
// What a run does with them depends on the formulation:
//   - L1-regularized (-s 5, -s 6): coordinate descent over the features
//     from start, else from 0 (their w does not follow from α); the α
//     they return are the loss's derivatives at w (2C_i·max(0, 1 −
//     y_i wᵀx_i) for -s 5, C_i σ(−y_i wᵀx_i) for -s 6), which no later
//     run uses. A warm start from w scales the stopping test at w = 0,
//     as a cold start's is (see cd_l1svc.go).
//   - L1-loss duals (-s 3, -s 13): DCD from warm, clipped to the new
//     bounds; start is not used (w does not determine their α).
//   - Dual logistic regression (-s 7): DCD from warm (Yu, Huang & Lin
//     2011), values outside (0, C_i) moved inside; start is not used.
//   - Primals (-s 2, -s 11), and the L2-loss duals trained through their
//     primal twins (Params.PrimalTwin): the Newton method from start, else from
//     w = Σ y_i α_i x_i (Σ β_i x_i) rebuilt from warm, else from 0. A
//     warm-started primal Newton method stops after few iterations when
//     rows are added (Tsai, Lin & Lin 2014). start is the better point when
//     the previous run was a primal one: the α a primal run returns are
//     exact only at the optimum, and Σ y_i α_i x_i misses its w by its last
//     gradient, most along the bias and common features; for the L2-loss
//     SVC the rebuild restores those from the margins α records
//     (primal_rebuild.go), so a start from α alone costs at most about a
//     cold run (debdesc_bin -s 2 -B 1: half its Hessian products).
//   - L2-loss duals (-s 1, -s 12) otherwise: DCD from warm; or, given
//     start and no warm vector, the Newton method from start until the
//     dual's own stopping test holds at the α its w determines (DCD
//     finishes if it cannot get there). A DCD warm start is the cheaper of the two under
//     the dual's test, which is why the incremental trainers use
//     PrimalTwin instead.
//
// Every run returns dual variables consistent with its model's w (for an
// L2-loss formulation α_i = 2C_i·max(0, 1 − y_i wᵀx_i), β likewise), so
// any later run can be warm-started from them. Errors: ErrLabels wrapped
// for unusable labels; a panic if ds exceeds the trainer's capacity or
// warm's vectors are not ds.Len() long.
func (t *LinearTrainer) TrainFrom(ds *data.Dataset, warm *LinearDual, start *LinearPrimal) (*LinearModel, *LinearDual, error) {
	if !t.params.Solver.hasL2Loss() && !t.params.Solver.IsL1() && !t.params.Solver.IsMultinomial() {
		start = nil
	}
	return t.train(ds, warm, start)
}

func (t *LinearTrainer) train(ds *data.Dataset, warm *LinearDual, warmW *LinearPrimal) (*LinearModel, *LinearDual, error) {
	if err := t.checkRun(ds, warm); err != nil {
		return nil, nil, err
	}
	p := &t.params
	m := &LinearModel{Solver: p.Solver, NumFeatures: ds.NumFeatures(), Bias: p.Bias, Params: *p}
	m.Params.Weights = append([]model.ClassWeight(nil), p.Weights...)
	if p.Solver.IsRegression() {
		return t.trainSVR(ds, m, warm, warmW)
	}
	labels, err := solve.GroupClasses(ds)
	if err != nil {
		return nil, nil, err
	}
	m.Labels = labels
	if p.Solver.IsMultinomial() {
		return t.trainMultinomial(ds, m, warmW)
	}
	r := t.newOVRRun(ds, m, warm, warmW)
	// Each class on one worker, taken in order as workers free; a worker
	// with no class left lends its core to the others' passes, when they
	// run in halves (a helper goroutine's start and stop cost a small
	// set's two-core run more than its passes take).
	W := len(t.workers)
	var taken atomic.Int32
	share := t.share
	if ds.Nonzeros() < splitNonzeros {
		share = nil
	}
	if share != nil {
		share.Start(W-1, W-min(W, r.nrW))
		defer share.Stop(W - 1)
	}
	solve.Parallel(r.nrW, W, func(g, k int) {
		taken.Add(1)
		t.solveClass(&t.workers[g], r, k)
		if share != nil && taken.Load() >= int32(r.nrW) {
			share.Free()
		}
	})
	if r.keep != nil {
		r.keep.Check = hashLinearAlpha(r.hAll, r.dual.Alpha, ds.Len())
		var from *keptRows
		if r.from != nil {
			from = r.from.rows
		}
		r.keep.rows = keptRowsOf(ds, from)
		r.dual.Gradient = r.keep
	}
	m.Result = summarize(r.results, r.dual.Alpha)
	if p.Solver.IsL1() {
		m.IndexNonzeroRows()
	}
	if p.Probability && !p.Solver.IsLogistic() {
		if err := t.fitProbability(ds, m); err != nil {
			return nil, nil, err
		}
	}
	return m, r.dual, nil
}

// checkRun refuses a run on ds the trainer cannot make: no rows, or costs
// the solvers cannot use (errors); rows beyond its capacity or a warm
// start of another row count (panics: the caller's bug).
func (t *LinearTrainer) checkRun(ds *data.Dataset, warm *LinearDual) error {
	l, n := ds.Len(), ds.NumFeatures()
	if l > t.capRows || n > t.capFeatures {
		panic(fmt.Sprintf("core: LinearTrainer.Train: %d rows × %d features exceed the capacity %d × %d",
			l, n, t.capRows, t.capFeatures))
	}
	if l == 0 {
		return fmt.Errorf("%w: no training rows", data.ErrLabels)
	}
	p := &t.params
	if err := solve.CheckCosts(ds, p.C, p.Weights); err != nil {
		return err
	}
	if warm != nil {
		for _, a := range warm.Alpha {
			if len(a) != l {
				panic(fmt.Sprintf("core: LinearTrainer.Train: warm start has %d values for %d rows", len(a), l))
			}
		}
	}
	return nil
}

// trainSVR fits a regression solver (-s 11, 12, 13) on ds into m, warm
// from the dual warm or the primal start warmW when they are a
// regression run's.
func (t *LinearTrainer) trainSVR(ds *data.Dataset, m *LinearModel, warm *LinearDual, warmW *LinearPrimal) (*LinearModel, *LinearDual, error) {
	p := &t.params
	dual := &LinearDual{Alpha: [][]float64{make([]float64, ds.Len())}}
	warmed := false // a dual warm start
	if warm != nil && len(warm.Alpha) == 1 && warm.Labels == nil {
		copy(dual.Alpha[0], warm.Alpha[0])
		warmed = true
	}
	wk := &t.workers[0]
	wk.newton.progress = t.reporter(0, 0)
	var start *startW
	if warmW != nil && len(warmW.W) == 1 && warmW.Labels == nil {
		start = &startW{w: warmW.W[0]}
		if warmW.BiasW != nil {
			start.b = warmW.BiasW[0]
		}
	}
	var res SolveResult
	var w []float64
	if p.usesNewton(start != nil && !warmed) {
		res, w = t.primalSVR(wk, ds, dual.Alpha[0], start, warmed || start != nil)
	} else {
		s := &wk.svr
		s.init(ds, dual.Alpha[0], wk.QD, p.C, p.P, p.Solver == L1LossSVRDual, p.Bias, p.Eps, p.AbsoluteEps, solve.SubSeed(p.Seed, 0))
		res = s.solve(p.MaxIter, p.C, p.Solver == L1LossSVRDual)
		w = s.w
	}
	m.W = make([]float32, len(w))
	for j, v := range w {
		m.W[j] = float32(v)
	}
	m.Result = summarize([]SolveResult{res}, dual.Alpha)
	return m, dual, nil
}

// ovrRun is the state of a one-vs-rest run (or a binary one, nrW = 1)
// its subproblems share: each solveClass writes its own class's column
// of the model's W, its dual vector and its result.
type ovrRun struct {
	ds      *data.Dataset
	m       *LinearModel
	dual    *LinearDual
	nrW     int
	rows    int          // rows of W: the features and the bias row
	warmed  []bool       // class k starts from the dual warm start
	starts  []*startW    // class k's primal start, nil for none
	box     [][2]float64 // class k's costs of its positive and negative rows
	results []SolveResult
	// The primal Newton state: from, the previous run's, if it fits; keep,
	// this run's; hAll, the hash of the rows it is checked against.
	from, keep *LinearGradient
	hAll       [4]uint64
}

// newOVRRun sets up the subproblems of a one-vs-rest run on ds into m
// (labels set), warm from the dual warm and the primal start warmW matched
// by class.
func (t *LinearTrainer) newOVRRun(ds *data.Dataset, m *LinearModel, warm *LinearDual, warmW *LinearPrimal) *ovrRun {
	p := &t.params
	l, labels := ds.Len(), m.Labels
	nrW := m.NrW()
	r := &ovrRun{ds: ds, m: m, nrW: nrW, dual: &LinearDual{Labels: make([]int32, nrW), Alpha: make([][]float64, nrW)},
		warmed: make([]bool, nrW), starts: make([]*startW, nrW)}
	for k := range r.dual.Alpha {
		r.dual.Labels[k] = labels[k]
		a := warmVector(warm, labels, labels[k])
		alpha := make([]float64, l) // with the copy next, only the part past a is zeroed
		copy(alpha, a)
		r.dual.Alpha[k], r.warmed[k] = alpha, a != nil
		r.starts[k] = primalVector(warmW, labels, labels[k])
	}
	r.rows = m.weightRows()
	m.W = make([]float32, r.rows*nrW)
	r.results = make([]SolveResult, nrW)
	if p.Solver.IsL1() {
		t.cols.build(ds, p.Bias)
	}
	// One-vs-rest costs as LIBLINEAR: the positive class's weighted C,
	// plain C for the rest; a binary problem weights both classes.
	r.box = make([][2]float64, nrW)
	for k := range r.box {
		r.box[k] = [2]float64{p.C * p.weightOf(labels[k]), p.C}
		if nrW == 1 {
			r.box[k][1] = p.C * p.weightOf(labels[1])
		}
	}
	if t.keepsGradient() {
		var hMid [4]uint64
		hMid, r.hAll = t.hashTrainRows(ds, warm)
		r.from = t.usableGradient(warm, labels, r.box, ds.NumFeatures(), hMid, l)
		r.keep = newLinearGradient(nrW, l, ds.NumFeatures(), p.Bias)
		r.keep.logistic = p.Solver == L2Logistic
	}
	return r
}

// solveClass solves subproblem k of r (class labels[k] against the rest)
// on worker wk with the solver the parameters name.
func (t *LinearTrainer) solveClass(wk *dcdWorker, r *ovrRun, k int) {
	p := &t.params
	ds, pos := r.ds, r.m.Labels[k]
	y := wk.y[:ds.Len()]
	for i, v := range ds.Labels() {
		// +1 for the positive class, else −1, without a branch (a
		// binary problem's labels alternate at random): d is 0 only for
		// pos, and only then does d − 1 wrap past 2⁶³.
		d := uint64(uint32(int32(v) ^ pos))
		y[i] = int8((d-1)>>63)*2 - 1
	}
	Cp, Cn := r.box[k][0], r.box[k][1]
	alpha, start, warm := r.dual.Alpha[k], r.starts[k], r.warmed[k] || r.starts[k] != nil
	wk.newton.progress, wk.svc.progress = t.reporter(1, pos), t.reporter(1, pos)
	var res SolveResult
	var w []float64
	switch {
	case p.Solver.IsL1():
		res, w = t.solveL1(wk, y, solve.RowWeights(ds), alpha, start, Cp, Cn, k)
	case p.Solver == L2LogisticDual:
		s := &wk.lr
		s.init(ds, y, alpha, wk.alphaC, wk.QD, Cp, Cn, p.Bias, p.Eps, solve.SubSeed(p.Seed, k))
		res = s.solve(p.MaxIter)
		w = s.w
	case p.Solver == L2Logistic:
		res, w = t.primalLR(wk, ds, y, alpha, start, Cp, Cn, warm, k, r.from, r.keep)
	case p.usesNewton(start != nil && !r.warmed[k]):
		res, w = t.primalSVC(wk, ds, y, alpha, start, Cp, Cn, warm, k, r.from, r.keep)
	default:
		l1 := p.Solver == L1LossSVCDual
		s := &wk.svc
		s.init(ds, y, alpha, wk.QD, Cp, Cn, l1, p.Bias, p.Eps, solve.SubSeed(p.Seed, k))
		res = s.solve(p.MaxIter, Cp, Cn, l1)
		w = s.w
	}
	res.Label = pos
	r.results[k] = res
	for j := range r.rows {
		r.m.W[j*r.nrW+k] = float32(w[j])
	}
}

// trainMultinomial fits -s 40 on ds into m, whose labels are set, from
// the primal start warmW matched by class when given.
func (t *LinearTrainer) trainMultinomial(ds *data.Dataset, m *LinearModel, warmW *LinearPrimal) (*LinearModel, *LinearDual, error) {
	p := &t.params
	K, l := len(m.Labels), ds.Len()
	Ck := make([]float64, K)
	starts := make([]*startW, K)
	for k, lab := range m.Labels {
		Ck[k] = p.C * p.weightOf(lab)
		if warmW != nil && len(warmW.W) == K {
			// A multinomial start: the vector of the same class.
			for q, wl := range warmW.Labels {
				if wl == lab {
					starts[k] = &startW{w: warmW.W[q]}
					if warmW.BiasW != nil {
						starts[k].b = warmW.BiasW[q]
					}
				}
			}
		}
	}
	s := &t.mlr
	s.progress = t.progress
	s.init(ds, m.Labels, Ck, p.Bias, starts)
	res := s.solve(p.Eps, p.MaxIter)
	d := s.d
	m.W = make([]float32, d*K)
	for k := range K {
		for j := range d {
			m.W[j*K+k] = float32(s.W[k*d+j])
		}
	}
	dual := &LinearDual{Labels: append([]int32(nil), m.Labels...), Alpha: make([][]float64, K)}
	for k := range dual.Alpha {
		dual.Alpha[k] = make([]float64, l)
	}
	s.dual(dual.Alpha)
	m.Result = summarize([]SolveResult{res}, dual.Alpha)
	return m, dual, nil
}

// warmVector returns the warm-start vector for the subproblem whose positive
// class is pos: the one of the same positive class, or, when the previous
// run and this one are binary over the same classes, its single vector even
// if the other class now comes first (α does not depend on which of two
// classes is called positive; a binary dual names only its positive class).
func warmVector(warm *LinearDual, labels []int32, pos int32) []float64 {
	if warm == nil {
		return nil
	}
	for k, l := range warm.Labels {
		if l == pos && k < len(warm.Alpha) {
			return warm.Alpha[k]
		}
	}
	if len(warm.Alpha) == 1 && len(warm.Labels) >= 1 && len(labels) == 2 &&
		(warm.Labels[0] == labels[0] || warm.Labels[0] == labels[1]) {
		return warm.Alpha[0]
	}
	return nil
}

// summarize totals the subproblems' results.
func summarize(results []SolveResult, alpha [][]float64) TrainResult {
	r := TrainResult{Subproblems: results, Converged: true}
	for _, s := range results {
		r.Iterations = max(r.Iterations, s.Iterations)
		r.Updates += s.Updates
		r.NewtonIterations += s.NewtonIterations
		r.HessianProducts += s.HessianProducts
		r.DualObjective += s.DualObjective
		r.PrimalObjective += s.PrimalObjective
		r.DualityGap += s.DualityGap
		r.Converged = r.Converged && s.Converged
	}
	if len(alpha) == 1 { // one pass over one vector: a warm run's share
		r.NumSV = countNonzero(alpha[0])
		return r
	}
	for i := range alpha[0] {
		for _, a := range alpha {
			if a[i] != 0 {
				r.NumSV++
				break
			}
		}
	}
	return r
}

// countNonzero returns the number of nonzero entries of v, counted without a
// branch: about half the rows are support vectors, in no order (perf on
// debdesc_bin's warm retrains: the count's share 2.4% → 0.7%).
func countNonzero(v []float64) int {
	n := 0
	for _, a := range v {
		if a != 0 {
			n++
		}
	}
	return n
}
