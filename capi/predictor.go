package main

import (
	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// Model kinds, svmgo.h's enum svmgo_model_kind.
const (
	kindLinearSVC = 1
	kindLinearSVR = 2
	kindKernelSVC = 3
	kindKernelSVR = 4
	kindOneClass  = 5
)

// predictor is what the predict paths and the property calls need of a
// model, whatever its kind: one handle type and one set of exports serve
// linear and kernel models, float or quantized, alike. The implementations
// are pointer types converted from the core and quantize models, so making
// a predictor from a model (once per call, for a watched handle) allocates
// nothing.
type predictor interface {
	// kind is the svmgo_model_kind value: a quantized model has the kind
	// of the float model it was made from.
	kind() int
	// bits is the width of a quantized model's codes, 8 or 16; 0 for a
	// float model (SVMGO_MODEL_QUANTIZED).
	bits() int
	numFeatures() int
	// numClasses is the number of labels, 0 for regression and one-class.
	numClasses() int
	numDecisionValues() int
	labels() []int32
	// hasProbability reports whether SVMGO_OUTPUT_PROBABILITY works.
	hasProbability() bool
	// scansInputs reports whether the predict paths must check every input
	// for finiteness before predicting. A linear model's decision values
	// turn any non-finite input into a non-finite value, so the linear
	// paths check inputs only after a bad value shows; an RBF kernel maps
	// an infinite distance to 0, and a label or probability shows nothing,
	// so kernel inputs are checked first.
	scansInputs() bool
	// noProbability says why SVMGO_OUTPUT_PROBABILITY does not work.
	noProbability() string
	decisionDense(dst []float64, x []float32) []float64
	decisionSparse(dst []float64, index []int32, value []float32) []float64
	// predictDense and predictSparse return the label output, or ok=false
	// when the label is to be derived from decision values by labelOf
	// (which lets the linear paths detect non-finite inputs cheaply).
	predictDense(x []float32) (v float64, ok bool)
	predictSparse(index []int32, value []float32) (v float64, ok bool)
	labelOf(dec []float64) float64
	probabilityDense(dst []float64, x []float32) []float64
	probabilitySparse(dst []float64, index []int32, value []float32) []float64
	// save writes the model file at path; publish publishes it in dir.
	save(path string) error
	publish(dir string) (uint64, error)
}

// linearPredictor adapts a core.LinearModel.
type linearPredictor core.LinearModel

func (p *linearPredictor) m() *core.LinearModel { return (*core.LinearModel)(p) }

func (p *linearPredictor) kind() int {
	if p.m().IsRegression() {
		return kindLinearSVR
	}
	return kindLinearSVC
}

func (p *linearPredictor) bits() int              { return 0 }
func (p *linearPredictor) numFeatures() int       { return p.NumFeatures }
func (p *linearPredictor) numClasses() int        { return len(p.Labels) }
func (p *linearPredictor) numDecisionValues() int { return p.m().NumDecisionValues() }
func (p *linearPredictor) labels() []int32        { return p.Labels }
func (p *linearPredictor) hasProbability() bool   { return false }
func (p *linearPredictor) scansInputs() bool      { return false }
func (p *linearPredictor) noProbability() string  { return "linear models give no probabilities" }

func (p *linearPredictor) decisionDense(dst []float64, x []float32) []float64 {
	return p.m().DecisionDense(dst, x)
}

func (p *linearPredictor) decisionSparse(dst []float64, index []int32, value []float32) []float64 {
	return p.m().DecisionSparse(dst, index, value)
}

func (p *linearPredictor) predictDense([]float32) (float64, bool)           { return 0, false }
func (p *linearPredictor) predictSparse([]int32, []float32) (float64, bool) { return 0, false }

// labelOf turns decision values into a prediction as core's linear
// predictors do: the value for regression, the sign's class for two
// classes, the first class of largest value otherwise. The parity test
// holds it to core.LinearModel.PredictDense bit for bit.
func (p *linearPredictor) labelOf(dec []float64) float64 {
	switch {
	case p.m().IsRegression():
		return dec[0]
	case len(dec) == 1:
		if dec[0] > 0 {
			return float64(p.Labels[0])
		}
		return float64(p.Labels[1])
	}
	best := 0
	for k, v := range dec {
		if v > dec[best] {
			best = k
		}
	}
	return float64(p.Labels[best])
}

func (p *linearPredictor) save(path string) error { return modelfile.WriteFile(path, p.m()) }

func (p *linearPredictor) publish(dir string) (uint64, error) { return modeldir.Publish(dir, p.m()) }

// The probability methods are never called: hasProbability is false.
func (p *linearPredictor) probabilityDense(dst []float64, _ []float32) []float64 { return dst[:0] }
func (p *linearPredictor) probabilitySparse(dst []float64, _ []int32, _ []float32) []float64 {
	return dst[:0]
}

// kernelPredictor adapts a core.KernelModel, which must be initialised
// (every loader and trainer does so).
type kernelPredictor core.KernelModel

func (p *kernelPredictor) m() *core.KernelModel { return (*core.KernelModel)(p) }

func (p *kernelPredictor) kind() int {
	switch p.SVMType {
	case core.EpsSVR:
		return kindKernelSVR
	case core.OneClass:
		return kindOneClass
	}
	return kindKernelSVC
}

func (p *kernelPredictor) bits() int              { return 0 }
func (p *kernelPredictor) numFeatures() int       { return p.NumFeatures }
func (p *kernelPredictor) numClasses() int        { return len(p.Labels) }
func (p *kernelPredictor) numDecisionValues() int { return p.m().NumDecisionValues() }
func (p *kernelPredictor) labels() []int32        { return p.Labels }
func (p *kernelPredictor) scansInputs() bool      { return true }

// hasProbability is true for C-SVC models with Platt parameters only: an
// ε-SVR model's Laplace scale gives no class probabilities.
func (p *kernelPredictor) hasProbability() bool {
	return p.SVMType == core.CSVC && p.m().HasProbability()
}

func (p *kernelPredictor) noProbability() string {
	if p.SVMType != core.CSVC {
		return "only kernel C-SVC models give class probabilities"
	}
	return "the model was trained without probability estimates (-b 1)"
}

func (p *kernelPredictor) decisionDense(dst []float64, x []float32) []float64 {
	return p.m().DecisionDense(dst, x)
}

func (p *kernelPredictor) decisionSparse(dst []float64, index []int32, value []float32) []float64 {
	return p.m().DecisionSparse(dst, index, value)
}

// The label of a kernel model comes from core's predictor itself: its
// one-vs-one voting and tie rule are LIBSVM's, and are not repeated here.
func (p *kernelPredictor) predictDense(x []float32) (float64, bool) {
	return p.m().PredictDense(x), true
}

func (p *kernelPredictor) predictSparse(index []int32, value []float32) (float64, bool) {
	return p.m().PredictSparse(index, value), true
}

// labelOf is never called: predictDense and predictSparse always answer.
func (p *kernelPredictor) labelOf(dec []float64) float64 { return dec[0] }

func (p *kernelPredictor) probabilityDense(dst []float64, x []float32) []float64 {
	return p.m().ProbabilityDense(dst, x)
}

func (p *kernelPredictor) probabilitySparse(dst []float64, index []int32, value []float32) []float64 {
	return p.m().ProbabilitySparse(dst, index, value)
}

func (p *kernelPredictor) save(path string) error { return modelfile.WriteKernelFile(path, p.m()) }

func (p *kernelPredictor) publish(dir string) (uint64, error) {
	return modeldir.PublishKernel(dir, p.m())
}

// qlinearPredictor adapts a quantize.Linear: int8 or int16 weights with
// the float model's decision functions, labels and kind.
type qlinearPredictor quantize.Linear

func (p *qlinearPredictor) m() *quantize.Linear { return (*quantize.Linear)(p) }

func (p *qlinearPredictor) kind() int {
	if p.m().IsRegression() {
		return kindLinearSVR
	}
	return kindLinearSVC
}

func (p *qlinearPredictor) bits() int              { return p.m().Bits() }
func (p *qlinearPredictor) numFeatures() int       { return p.m().NumFeatures() }
func (p *qlinearPredictor) numDecisionValues() int { return p.m().NumDecisionValues() }
func (p *qlinearPredictor) hasProbability() bool   { return false }
func (p *qlinearPredictor) noProbability() string  { return "linear models give no probabilities" }

// numClasses and labels copy the labels (quantize hands out copies): they
// serve the property and label calls only, never a predict path, since a
// linear model has no probability output.
func (p *qlinearPredictor) numClasses() int { return len(p.m().Labels()) }
func (p *qlinearPredictor) labels() []int32 { return p.m().Labels() }

// scansInputs is false for the reason it is for float linear models: the
// dequantized dot product s_k·Σ x_j·q_jk, in float64 with the input as it
// is, turns a NaN or infinite input into a non-finite decision value
// (0·Inf is NaN), so the inputs are scanned only when one shows.
func (p *qlinearPredictor) scansInputs() bool { return false }

func (p *qlinearPredictor) decisionDense(dst []float64, x []float32) []float64 {
	return p.m().DecisionDense(dst, x)
}

func (p *qlinearPredictor) decisionSparse(dst []float64, index []int32, value []float32) []float64 {
	return p.m().DecisionSparse(dst, index, value)
}

func (p *qlinearPredictor) predictDense([]float32) (float64, bool)           { return 0, false }
func (p *qlinearPredictor) predictSparse([]int32, []float32) (float64, bool) { return 0, false }

// labelOf is quantize's, core.LinearPrediction: the parity tests hold it
// to quantize.Linear.PredictDense bit for bit.
func (p *qlinearPredictor) labelOf(dec []float64) float64 { return p.m().LabelOf(dec) }

// The probability methods are never called: hasProbability is false.
func (p *qlinearPredictor) probabilityDense(dst []float64, _ []float32) []float64 { return dst[:0] }
func (p *qlinearPredictor) probabilitySparse(dst []float64, _ []int32, _ []float32) []float64 {
	return dst[:0]
}

func (p *qlinearPredictor) save(path string) error { return quantize.WriteFile(path, p.m()) }

func (p *qlinearPredictor) publish(dir string) (uint64, error) {
	return modeldir.PublishQuantized(dir, p.m())
}

// qkernelPredictor adapts a quantize.Kernel: support vectors as int8 or
// int16 codes, with the float model's SVM type, labels and probability
// parameters.
type qkernelPredictor quantize.Kernel

func (p *qkernelPredictor) m() *quantize.Kernel { return (*quantize.Kernel)(p) }

func (p *qkernelPredictor) kind() int {
	switch p.m().SVMType() {
	case core.EpsSVR:
		return kindKernelSVR
	case core.OneClass:
		return kindOneClass
	}
	return kindKernelSVC
}

func (p *qkernelPredictor) bits() int              { return p.m().Bits() }
func (p *qkernelPredictor) numFeatures() int       { return p.m().NumFeatures() }
func (p *qkernelPredictor) numDecisionValues() int { return p.m().NumDecisionValues() }
func (p *qkernelPredictor) labels() []int32        { return p.m().Labels() }

// numClasses is on the probability path, so it does not copy the labels:
// NumClasses is LIBSVM's nr_class (2 for ε-SVR and one-class, which have no
// labels here).
func (p *qkernelPredictor) numClasses() int {
	if p.m().SVMType() != core.CSVC {
		return 0
	}
	return p.m().NumClasses()
}

// scansInputs is true as for float kernel models, and for one more reason:
// the input row is itself quantized against its largest value, which an
// infinite value makes meaningless (quantize leaves the result
// unspecified).
func (p *qkernelPredictor) scansInputs() bool { return true }

// hasProbability is true for C-SVC models with Platt parameters only, as
// for float kernel models.
func (p *qkernelPredictor) hasProbability() bool {
	return p.m().SVMType() == core.CSVC && p.m().HasProbability()
}

func (p *qkernelPredictor) noProbability() string {
	if p.m().SVMType() != core.CSVC {
		return "only kernel C-SVC models give class probabilities"
	}
	return "the model was trained without probability estimates (-b 1)"
}

func (p *qkernelPredictor) decisionDense(dst []float64, x []float32) []float64 {
	return p.m().DecisionDense(dst, x)
}

func (p *qkernelPredictor) decisionSparse(dst []float64, index []int32, value []float32) []float64 {
	return p.m().DecisionSparse(dst, index, value)
}

// The label comes from quantize's predictor, which applies core's voting
// and tie rule to the quantized decision values.
func (p *qkernelPredictor) predictDense(x []float32) (float64, bool) {
	return p.m().PredictDense(x), true
}

func (p *qkernelPredictor) predictSparse(index []int32, value []float32) (float64, bool) {
	return p.m().PredictSparse(index, value), true
}

// labelOf is never called: predictDense and predictSparse always answer.
func (p *qkernelPredictor) labelOf(dec []float64) float64 { return dec[0] }

func (p *qkernelPredictor) probabilityDense(dst []float64, x []float32) []float64 {
	return p.m().ProbabilityDense(dst, x)
}

func (p *qkernelPredictor) probabilitySparse(dst []float64, index []int32, value []float32) []float64 {
	return p.m().ProbabilitySparse(dst, index, value)
}

func (p *qkernelPredictor) save(path string) error { return quantize.WriteFile(path, p.m()) }

func (p *qkernelPredictor) publish(dir string) (uint64, error) {
	return modeldir.PublishQuantized(dir, p.m())
}

// predictorOf returns the predictor of a loaded model of any kind. The
// type switch converts pointers and allocates nothing.
func predictorOf(l *modeldir.Loaded) predictor {
	switch {
	case l.Kernel != nil:
		return (*kernelPredictor)(l.Kernel)
	case l.Quantized != nil:
		return quantizedPredictor(l.Quantized)
	}
	return (*linearPredictor)(l.Model)
}

// quantizedPredictor returns the predictor of a quantized model. quantize.Model
// has an unexported method, so *quantize.Linear and *quantize.Kernel are
// its only implementations; another type is a bug here.
func quantizedPredictor(q quantize.Model) predictor {
	switch q := q.(type) {
	case *quantize.Linear:
		return (*qlinearPredictor)(q)
	case *quantize.Kernel:
		return (*qkernelPredictor)(q)
	}
	panic("capi: quantized model of unknown type " + q.Kind())
}
