package model

import (
	"fmt"
	"io"
	"slices"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// The model kinds a Model reports in ModelInfo.Kind; they are also the
// kinds the model file's body names (package modelfile).
const (
	// KindLinear is a LinearModel.
	KindLinear = "linear"
	// KindKernel is a KernelModel.
	KindKernel = "kernel"
	// KindQLinear is a linear model with int8 or int16 weights
	// (package quantize).
	KindQLinear = "qlinear"
	// KindQKernel is a kernel model with int8 or int16 support vectors
	// (package quantize).
	KindQKernel = "qkernel"
)

// Task is what a model predicts.
type Task int

// The tasks.
const (
	// TaskClassification predicts a label (C-SVC, LIBLINEAR's SVC solvers).
	TaskClassification Task = iota + 1
	// TaskRegression predicts a real value (ε-SVR, LIBLINEAR's SVR solvers).
	TaskRegression
	// TaskOneClass predicts +1 inside the estimated support and −1 outside.
	TaskOneClass
)

// String names the task.
func (t Task) String() string {
	switch t {
	case TaskClassification:
		return "classification"
	case TaskRegression:
		return "regression"
	case TaskOneClass:
		return "one-class"
	}
	return fmt.Sprintf("Task(%d)", int(t))
}

// ModelInfo describes a model: what a caller needs to size its buffers,
// choose an output and report the model, whatever its kind. Info returns
// it by value without allocating; Labels aliases the model's own labels and
// must not be modified.
type ModelInfo struct {
	// Kind is KindLinear, KindKernel, KindQLinear or KindQKernel.
	Kind string
	// Task is what the model predicts.
	Task Task
	// Kernel is true for the kernel kinds (support vectors): their decision
	// values can be finite for non-finite inputs (an RBF kernel maps an
	// infinite distance to 0), so a caller that must refuse such inputs
	// checks them first; a linear model's decision values carry a
	// non-finite input through.
	Kernel bool
	// Bits is the width of a quantized model's codes, 8 or 16; 0 for a
	// float model.
	Bits int
	// NumFeatures is the number of input features a dense row has.
	NumFeatures int
	// Labels are the class labels, in the order of the probabilities and
	// of the decision functions; nil for regression and one-class models.
	Labels []int32
	// NumDecisionValues is the number of decision values of a row:
	// NrW for a linear model, one per class pair for a kernel C-SVC model,
	// 1 for regression and one-class.
	NumDecisionValues int
	// Probability reports whether the model gives class probabilities
	// (a C-SVC kernel model trained with -b 1, a logistic regression
	// model, a linear SVC model trained with -b 1): then it implements
	// ProbabilityModel.
	Probability bool
	// LaplaceScale is σ of the Laplace noise model of an ε-SVR kernel
	// model trained with -b 1 (LIBSVM's probA), 0 for any other model.
	LaplaceScale float64
	// Created is the creation time in Unix seconds, 0 when not recorded;
	// a quantized model's is its float model's.
	Created int64
	// Scale is the scaling the model takes raw rows through (train
	// --scale), nil for none; it aliases the model's and must not be
	// modified.
	Scale *scale.Ranges
	// Trained reports whether the model carries a training report:
	// Summary is valid. A float model (trained, or read from a file, which
	// keeps the report) does; a quantized one does not.
	Trained bool
	// Summary is the training run's report in the terms every kind shares.
	Summary FitSummary
}

// Model is what every model kind offers: a description, and decision
// values and predictions for dense rows (len(x) == NumFeatures) and sparse
// rows (0-based strictly increasing indices with their values), one at a
// time or in batches. Implementations are immutable and safe for
// concurrent use; the predicting methods allocate nothing once warm, and
// panic only for a caller's bug (a row of the wrong width, dst too short),
// as each kind documents.
type Model interface {
	// Info describes the model.
	Info() ModelInfo
	// DecisionDense writes the decision values of the dense row x to
	// dst[:NumDecisionValues] and returns that slice.
	DecisionDense(dst []float64, x []float32) []float64
	// DecisionSparse is DecisionDense for a sparse row.
	DecisionSparse(dst []float64, index []int32, value []float32) []float64
	// LabelOf turns decision values, as DecisionDense writes them, into the
	// prediction PredictDense would give.
	LabelOf(dec []float64) float64
	// PredictDense returns the label (classification), value (regression)
	// or ±1 (one-class) of the dense row x.
	PredictDense(x []float32) float64
	// PredictSparse is PredictDense for a sparse row.
	PredictSparse(index []int32, value []float32) float64
	// PredictDenseBatch writes the predictions of the rows of the
	// row-major matrix x (len(x) = rows × NumFeatures) to dst[:rows] and
	// returns that slice.
	PredictDenseBatch(dst []float64, x []float32) []float64
	// PredictBatch writes the prediction of every row of ds to
	// dst[:ds.Len()] and returns that slice.
	PredictBatch(dst []float64, ds *data.Dataset) []float64
}

// ProbabilityModel is implemented by the kinds that can give class
// probabilities. A caller checks ModelInfo.Probability first: a model
// without them (a kernel model trained without -b 1, a linear SVC model
// trained without -b 1) implements the methods but panics in them, as for
// a caller bug.
type ProbabilityModel interface {
	Model
	// ProbabilityDense writes the class probabilities of the dense row x,
	// in Labels order, to dst[:len(Labels)] and returns that slice.
	ProbabilityDense(dst []float64, x []float32) []float64
	// ProbabilitySparse is ProbabilityDense for a sparse row.
	ProbabilitySparse(dst []float64, index []int32, value []float32) []float64
}

// WithCreated returns m with its creation time set to t (Unix seconds),
// for the kinds that record one after training (the float kinds, by their
// WithCreated method: a shallow copy, m unchanged), and m itself for any
// other kind (a quantized model records its float model's, which cannot
// change after quantizing).
func WithCreated(m Model, t int64) Model {
	if d, ok := m.(interface{ WithCreated(t int64) Model }); ok {
		return d.WithCreated(t)
	}
	return m
}

// Widen makes m, a model a Trainer just returned, take rows of n
// features when it was trained on fewer (a sparse data set is as wide as
// its largest index), for the kinds that can (the float kinds, by their
// Widen method): what training gives the features no row held, so that
// the model accepts the dense rows of the width its trainer was made for.
// It changes m in place, before it is shared; a model of n features or
// more, or of a kind without the method, is left as it is.
func Widen(m Model, n int) error {
	if w, ok := m.(interface{ Widen(n int) error }); ok {
		return w.Widen(n)
	}
	return nil
}

// WriteTrainingReport writes the report the reference tool prints after
// the training run that made m (svm-train's, LIBLINEAR train's), for the
// kinds that keep one (the float kinds, by their WriteTrainingReport
// method); any other kind writes nothing.
func WriteTrainingReport(w io.Writer, m Model) {
	if r, ok := m.(interface{ WriteTrainingReport(w io.Writer) }); ok {
		r.WriteTrainingReport(w)
	}
}

// RepeatedLabel returns a label that occurs more than once, in n·log n
// (a file may hold 65536 labels).
func RepeatedLabel(labels []int32) (int32, bool) {
	s := slices.Clone(labels)
	slices.Sort(s)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return s[i], true
		}
	}
	return 0, false
}

// BatchRows is the first step of every kind's PredictDenseBatch: it checks
// that x is a row-major matrix of rows of nf values and returns dst cut to
// the row count. A matrix of another size is a caller's bug: it panics
// with a message naming fn, the method it checks for.
func BatchRows(dst []float64, x []float32, nf int, fn string) []float64 {
	if nf == 0 || len(x)%nf != 0 {
		panic(fn + ": matrix size is not a multiple of NumFeatures")
	}
	return dst[:len(x)/nf]
}
