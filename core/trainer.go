package core

import "github.com/libsvmgo/libsvmgo/core/scale"

// Trainer is the one interface over linear and kernel training (DESIGN.md
// §4): options in (NewTrainer), a model and its dual state out, the dual
// state of the last run in as the warm start of the next. A program that
// trains either kind (the C ABI trainer) holds a Trainer and a *Dual and
// needs no kind-specific path.
type Trainer interface {
	// Syntax is SyntaxLinear for a linear trainer, SyntaxKernel for a
	// kernel one: the kind of model it trains.
	Syntax() Syntax
	// Train trains a model on ds, warm-started from warm when warm is of
	// the trainer's kind (nil, or a dual of the other kind: from α = 0),
	// and returns it with the run's dual state. warm covers the first
	// warm.Rows() rows of ds; Extended fits it to rows added since. ds
	// must fit the capacity the trainer was made for. Train only reads
	// warm.
	Train(ds *Dataset, warm *Dual) (Model, *Dual, error)
}

// NewTrainer returns a trainer for the options o, linear or kernel as
// o.Syntax says, sized for capRows rows of capFeatures features
// (NewLinearTrainer, NewKernelTrainer). It uses the parameters as given:
// a caller that wants LIBLINEAR's incremental defaults sets o.Linear.Params
// to o.Linear.Incremental() first.
func NewTrainer(o TrainOptions, capRows, capFeatures int) (Trainer, error) {
	if o.Scale.Enabled {
		inner := o
		inner.Scale.Enabled = false
		t, err := NewTrainer(inner, capRows, capFeatures)
		if err != nil {
			return nil, err
		}
		return scaledTrainer{t, o.Scale}, nil
	}
	if o.IsKernel() {
		t, err := NewKernelTrainer(o.Kernel.Params, capRows, capFeatures)
		if err != nil {
			return nil, err
		}
		return kernelTrainer{t}, nil
	}
	t, err := NewLinearTrainer(o.Linear.Params, capRows, capFeatures)
	if err != nil {
		return nil, err
	}
	return linearTrainer{t}, nil
}

// Dual is the state a training run leaves for the next to start from:
// the dual variables of a linear or a kernel run, one per row trained on
// (per decision function or class pair), and what spares the next run
// work. Exactly one of Linear and Kernel is set.
type Dual struct {
	// Linear is a linear run's α.
	Linear *LinearDual
	// Primal is a linear run's w, the primal start of the next
	// (LinearTrainer.TrainFrom): exact where α gives w only to the run's
	// tolerance.
	Primal *LinearPrimal
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
// since start at α = 0), the primal start and a kernel gradient kept (the
// gradient covers the rows it was computed on; core checks it). The
// vectors are new; d is not changed. Panics if n < d.Rows().
func (d *Dual) Extended(n int) *Dual {
	if n < d.Rows() {
		panic("core: Dual.Extended: fewer rows than the dual covers")
	}
	ext := func(alpha [][]float64) [][]float64 {
		out := make([][]float64, len(alpha))
		for k, a := range alpha {
			out[k] = append(a[:len(a):len(a)], make([]float64, n-len(a))...)
		}
		return out
	}
	e := &Dual{Primal: d.Primal, Scale: d.Scale}
	if k := d.Kernel; k != nil {
		e.Kernel = &KernelDual{SVMType: k.SVMType, Pairs: k.Pairs, Alpha: ext(k.Alpha), Gradient: k.Gradient}
	}
	if l := d.Linear; l != nil {
		e.Linear = &LinearDual{Labels: l.Labels, Alpha: ext(l.Alpha)}
	}
	return e
}

// DeleteRows removes the rows at the given positions (each < d.Rows())
// from d's α vectors, as LinearDual.DeleteRows and KernelDual.DeleteRows
// do (the latter drops the gradient). The primal start is kept: it is a
// start, not a certificate.
func (d *Dual) DeleteRows(rows []int) error {
	if d.Kernel != nil {
		return d.Kernel.DeleteRows(rows)
	}
	return d.Linear.DeleteRows(rows)
}

// linearTrainer is a LinearTrainer as a Trainer: warm-started from both
// the stored α and the last model's w (TrainFrom).
type linearTrainer struct{ t *LinearTrainer }

func (linearTrainer) Syntax() Syntax { return SyntaxLinear }

func (lt linearTrainer) Train(ds *Dataset, warm *Dual) (Model, *Dual, error) {
	var (
		dual  *LinearDual
		start *LinearPrimal
	)
	if warm != nil {
		dual, start = warm.Linear, warm.Primal
	}
	m, out, err := lt.t.TrainFrom(ds, dual, start)
	if err != nil {
		return nil, nil, err
	}
	return m, &Dual{Linear: out, Primal: PrimalOf(m)}, nil
}

// kernelTrainer is a KernelTrainer as a Trainer.
type kernelTrainer struct{ t *KernelTrainer }

func (kernelTrainer) Syntax() Syntax { return SyntaxKernel }

func (kt kernelTrainer) Train(ds *Dataset, warm *Dual) (Model, *Dual, error) {
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
