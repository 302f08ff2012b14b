package core

import (
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// Trainer is the one interface over linear and kernel training (DESIGN.md
// §4): options in (NewTrainer), a model and its dual state out, the dual
// state of the last run in as the warm start of the next. A program that
// trains either kind (the C ABI trainer) holds a Trainer and a *Dual and
// needs no kind-specific path.
type Trainer interface {
	// Family is the kind of model it trains.
	Family() Family
	// Train trains a model on ds, warm-started from warm when warm is of
	// the trainer's kind (nil, or a dual of the other kind: from α = 0),
	// and returns it with the run's dual state. warm covers the first
	// warm.Rows() rows of ds; Extended fits it to rows added since. ds
	// must fit the capacity the trainer was made for. Train only reads
	// warm.
	Train(ds *data.Dataset, warm *Dual) (Model, *Dual, error)
	// SetProgress makes later Train calls report their solvers' progress
	// to fn (nil: none), as LinearTrainer.SetProgress and
	// KernelTrainer.SetProgress say; fn may be called from several
	// goroutines at once.
	SetProgress(fn ProgressFunc)
	// WarmStart returns the warm start of a run on the first rows rows of
	// a keeper's data, from stored, the state the keeper kept for its
	// rows (no primal start, gradient or scaling: Dual.CopyInto), cut to
	// rows, and last, the state the trainer's previous run left (its
	// primal start, gradients and scaling; core checks a gradient against
	// the rows before it uses it). It is nil when there is nothing to
	// start from, and nil with a *StateMismatch when stored is of another
	// kind or formulation than the trainer's, whose variables Train would
	// ignore.
	WarmStart(stored, last *Dual, rows int) (*Dual, error)
	// KeptBytes returns the bytes the trainer keeps between Train calls
	// besides the duals it returns (a kernel trainer's kept columns,
	// KernelParams.KeepMB) and the budget the user set for them: kept ≤
	// budget after every Train. 0, 0 for a trainer that keeps none.
	KeptBytes() (kept, budget int64)
	// DenseCopyBytes returns the bytes of a kernel trainer's dense copy
	// of sparse rows wider than 64 features (NewSparseTrainer), which
	// the first Train that needs it makes: held now, and most, what it
	// may take. 0, 0 for a trainer that keeps none (KernelTrainerBytes
	// counts a copy of narrower rows).
	DenseCopyBytes() (held, most int64)
}

// NewTrainer returns a trainer for the parameters p, linear or kernel as
// p.Family says, sized for capRows rows of capFeatures features
// (NewLinearTrainer, NewKernelTrainer). It uses the parameters as given:
// a caller that wants LIBLINEAR's incremental defaults sets p.Linear to
// them first (options.LinearOptions.Incremental).
func NewTrainer(p TrainParams, capRows, capFeatures int) (Trainer, error) {
	return newTrainer(p, capRows, capFeatures, capFeatures <= denseViewMaxFeatures)
}

// NewDenseTrainer is NewTrainer for a caller whose data sets are always
// stored dense (data.NewDense, as the C ABI trainer's without a nonzero
// capacity): its kernel trainer keeps no dense copy of sparse rows
// (NewKernelTrainer keeps one for 64 features or fewer), which such data
// never reads, and so takes capRows × (4·capFeatures + 8) bytes less. A
// sparse data set still trains, through the sparse kernels.
func NewDenseTrainer(p TrainParams, capRows, capFeatures int) (Trainer, error) {
	return newTrainer(p, capRows, capFeatures, false)
}

// NewSparseTrainer is NewTrainer for a caller whose sparse data sets hold
// at most capNonzeros values (0: capRows × capFeatures), such as the
// daemon's store and the C ABI's sparse trainer: its kernel trainer also
// keeps the dense copy for rows wider than 64 features when capNonzeros
// says they may be mostly nonzero (data.PreferDense), made by the first
// Train whose rows are (kdenseview.go), for the rows it holds: at most
// 1.25 times their own storage, and not reserved or counted here
// (Trainer.DenseCopyBytes reports it). Its kernels then read such rows
// dense, as a data set read dense is read: on Fashion-MNIST (784
// features, half of them nonzero) the sparse kernels cost the daemon's
// cold solves 6 times the CPU of the dense ones.
func NewSparseTrainer(p TrainParams, capRows, capFeatures, capNonzeros int) (Trainer, error) {
	if capNonzeros <= 0 {
		capNonzeros = capRows * capFeatures
	}
	return newTrainer(p, capRows, capFeatures, capFeatures <= denseViewMaxFeatures || data.PreferDense(capRows, capFeatures, capNonzeros))
}

// newTrainer is NewTrainer with a kernel trainer that keeps the dense copy
// of sparse rows when view is set (newKernelTrainer).
func newTrainer(p TrainParams, capRows, capFeatures int, view bool) (Trainer, error) {
	if p.Scale.Enabled {
		inner := p
		inner.Scale.Enabled = false
		t, err := newTrainer(inner, capRows, capFeatures, view)
		if err != nil {
			return nil, err
		}
		return scaledTrainer{t, p.Scale}, nil
	}
	if p.IsKernel() {
		kp := p.Kernel
		t, err := newKernelTrainer(kp, capRows, capFeatures, kernelWorkerCount(&kp), capRows, view)
		if err != nil {
			return nil, err
		}
		return kernelTrainer{t}, nil
	}
	t, err := linear.NewLinearTrainer(p.Linear, capRows, capFeatures)
	if err != nil {
		return nil, err
	}
	t.KeepGradient()
	return linearTrainer{t}, nil
}

// Dual is the state a training run leaves for the next to start from:
// the dual variables of a linear or a kernel run, one per row trained on
// (per decision function or class pair), and what spares the next run
// work. Exactly one of Linear and Kernel is set.
type Dual struct {
	// Linear is a linear run's α.
	Linear *linear.LinearDual
	// Primal is a linear run's w, the primal start of the next
	// (LinearTrainer.TrainFrom): exact where α gives w only to the run's
	// tolerance.
	Primal *linear.LinearPrimal
	// Kernel is a kernel run's α with its gradient (KernelDual.Gradient),
	// which core checks before it uses it.
	Kernel *KernelDual
	// Scale is the scaling of the rows the run trained on (--scale), nil
	// without: a trainer with --scale starts warm only from a Dual of the
	// same ranges.
	Scale *scale.Ranges
}

// alpha returns d's α vectors, whichever kind d is.
func (d *Dual) alpha() [][]float64 {
	switch {
	case d == nil:
		return nil
	case d.Kernel != nil:
		return d.Kernel.Alpha
	case d.Linear != nil:
		return d.Linear.Alpha
	}
	return nil
}

// Rows returns the number of rows d covers; 0 for a nil Dual.
func (d *Dual) Rows() int {
	if a := d.alpha(); len(a) > 0 {
		return len(a[0])
	}
	return 0
}

// Extended returns the warm start for a run on n ≥ d.Rows() rows whose
// first d.Rows() are d's: each α vector extended with zeros (rows added
// since start at α = 0), the primal start and a kernel or linear gradient
// kept (a gradient covers the rows it was computed on; core checks it). The
// vectors are new; d is not changed. Panics if n < d.Rows().
func (d *Dual) Extended(n int) *Dual {
	if n < d.Rows() {
		panic("core: Dual.Extended: fewer rows than the dual covers")
	}
	return d.withAlpha(func(a []float64) []float64 {
		out := make([]float64, n)
		copy(out, a)
		return out
	})
}

// ExtendInPlace is Extended for a caller that owns d and needs its α
// vectors no more as they were (the C ABI trainer with its last dual, a
// stream that cut removed rows out of it with DeleteRows): when every
// vector has room for n values, each is extended with zeros within its
// capacity and d itself is returned; else d.Extended(n). Extended copies
// every vector each Train: on digits (45 pairs of about 1,400 rows) half a
// megabyte. Panics if n < d.Rows().
func (d *Dual) ExtendInPlace(n int) *Dual {
	if n < d.Rows() {
		panic("core: Dual.ExtendInPlace: fewer rows than the dual covers")
	}
	alpha := d.alpha()
	for _, a := range alpha {
		if cap(a) < n {
			return d.Extended(n)
		}
	}
	for k, a := range alpha {
		old := len(a)
		alpha[k] = a[:n]
		clear(alpha[k][old:])
	}
	return d
}

// withAlpha returns a Dual of d's kind with each α vector a replaced by
// f(a), keeping everything else (labels, pairs, the primal start, the
// kernel or linear gradient).
func (d *Dual) withAlpha(f func(a []float64) []float64) *Dual {
	each := func(alpha [][]float64) [][]float64 {
		out := make([][]float64, len(alpha))
		for k, a := range alpha {
			out[k] = f(a)
		}
		return out
	}
	e := &Dual{Primal: d.Primal, Scale: d.Scale}
	if k := d.Kernel; k != nil {
		e.Kernel = &KernelDual{SVMType: k.SVMType, Pairs: k.Pairs, Alpha: each(k.Alpha), Gradient: k.Gradient}
	}
	if l := d.Linear; l != nil {
		e.Linear = &linear.LinearDual{Labels: l.Labels, Alpha: each(l.Alpha), Gradient: l.Gradient}
	}
	return e
}

// Prefix returns the warm start for a run on the first m ≤ d.Rows() rows
// of d's: each α vector cut to m values, aliasing d's (Train only reads a
// warm start), with d's primal start and kernel or linear gradient (core
// checks a gradient against the rows it covers and ignores it when they
// differ). A
// nil d gives nil. Panics if m > d.Rows().
func (d *Dual) Prefix(m int) *Dual {
	if d == nil {
		return nil
	}
	if m > d.Rows() {
		panic("core: Dual.Prefix: more rows than the dual covers")
	}
	return d.withAlpha(func(a []float64) []float64 { return a[:m:m] })
}

// DeleteRows removes the rows at the given positions (each < d.Rows())
// from d's α vectors, as LinearDual.DeleteRows and KernelDual.DeleteRows
// do (both drop their gradient). The primal start is kept: it is a
// start, not a certificate.
func (d *Dual) DeleteRows(rows []int) error {
	if d.Kernel != nil {
		return d.Kernel.DeleteRows(rows)
	}
	return d.Linear.DeleteRows(rows)
}

// linearTrainer is a LinearTrainer as a Trainer: warm-started from both
// the stored α and the last model's w (TrainFrom).
type linearTrainer struct{ t *linear.LinearTrainer }

func (linearTrainer) Family() Family { return LinearFamily }

func (lt linearTrainer) SetProgress(fn ProgressFunc) { lt.t.SetProgress(fn) }

func (linearTrainer) KeptBytes() (kept, budget int64) { return 0, 0 }

func (linearTrainer) DenseCopyBytes() (held, most int64) { return 0, 0 }

func (linearTrainer) WarmStart(stored, last *Dual, rows int) (*Dual, error) {
	return warmStart(false, 0, stored, last, rows)
}

func (lt linearTrainer) Train(ds *data.Dataset, warm *Dual) (Model, *Dual, error) {
	var (
		dual  *linear.LinearDual
		start *linear.LinearPrimal
	)
	if warm != nil {
		dual, start = warm.Linear, warm.Primal
	}
	m, out, err := lt.t.TrainFrom(ds, dual, start)
	if err != nil {
		return nil, nil, err
	}
	return m, &Dual{Linear: out, Primal: linear.PrimalOf(m)}, nil
}

// kernelTrainer is a KernelTrainer as a Trainer.
type kernelTrainer struct{ t *KernelTrainer }

func (kernelTrainer) Family() Family { return KernelFamily }

func (kt kernelTrainer) SetProgress(fn ProgressFunc) { kt.t.SetProgress(fn) }

func (kt kernelTrainer) KeptBytes() (kept, budget int64) { return kt.t.KeptBytes() }

// DenseCopyBytes is KernelTrainer.DenseCopyBytes for a copy of rows wider
// than denseViewMaxFeatures; a narrower one is counted by
// KernelTrainerBytes.
func (kt kernelTrainer) DenseCopyBytes() (held, most int64) {
	if kt.t.capFeatures <= denseViewMaxFeatures {
		return 0, 0
	}
	return kt.t.DenseCopyBytes()
}

func (kt kernelTrainer) WarmStart(stored, last *Dual, rows int) (*Dual, error) {
	return warmStart(true, kt.t.params.SVMType, stored, last, rows)
}

func (kt kernelTrainer) Train(ds *data.Dataset, warm *Dual) (Model, *Dual, error) {
	var dual *KernelDual
	if warm != nil {
		dual = warm.Kernel
	}
	m, out, err := kt.t.Train(ds, dual)
	if err != nil {
		return nil, nil, err
	}
	return m, &Dual{Kernel: out}, nil
}

// TrainModel trains a model of the family p names on all of ds, cold,
// with no trainer kept: TrainKernelModel or TrainLinear, for a program
// that trains once (svmgo train, svmgo train-linear). With --scale
// (p.Scale) it fits the ranges on ds, trains on the scaled rows and stores
// the ranges in the model (SetModelScale), which then takes raw rows.
func TrainModel(ds *data.Dataset, p TrainParams) (Model, error) {
	return TrainModelReporting(ds, p, nil)
}

// TrainModelReporting is TrainModel with the solvers' progress reported to
// progress (nil: none), as Trainer.SetProgress says.
func TrainModelReporting(ds *data.Dataset, p TrainParams, progress ProgressFunc) (Model, error) {
	if p.Scale.Enabled {
		// --scale: train on the scaled rows, keep the ranges in the model.
		r, sds, err := ScaleTrainingRows(ds, p.Scale)
		if err != nil {
			return nil, err
		}
		p.Scale.Enabled = false
		m, err := TrainModelReporting(sds, p, progress)
		if err != nil {
			return nil, err
		}
		if err := SetModelScale(m, r); err != nil {
			return nil, err
		}
		return m, nil
	}
	if p.IsKernel() {
		m, err := trainKernelModel(ds, p.Kernel, progress)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
	t, err := linear.NewLinearTrainer(p.Linear, ds.Len(), ds.NumFeatures())
	if err != nil {
		return nil, err
	}
	t.SetProgress(progress)
	m, _, err := t.Train(ds, nil)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// CrossValidate returns the folds-fold cross-validation predictions of
// p's model on ds (CrossValidateKernel or CrossValidateLinear).
//
// With --scale (p.Scale) the rows are scaled once by the ranges of all of
// them, as cross-validating an svm-scale'd file does, not per fold.
func CrossValidate(ds *data.Dataset, p TrainParams, folds int) ([]float64, error) {
	if p.Scale.Enabled {
		_, sds, err := ScaleTrainingRows(ds, p.Scale)
		if err != nil {
			return nil, err
		}
		ds = sds
	}
	if p.IsKernel() {
		return CrossValidateKernel(ds, p.Kernel, folds)
	}
	return linear.CrossValidateLinear(ds, p.Linear, folds)
}
