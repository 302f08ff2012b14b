package core

// Model is the one interface every model kind implements (DESIGN.md §4½):
// float linear and kernel models here, and the quantized ones of package
// quantize. The C ABI, the model directory, the daemon and the command
// predict and describe models through it alone, so a new kind or a faster
// path is added in one place.

import (
	"fmt"
	"math"
)

// Info describes the linear model (Model).
func (m *LinearModel) Info() ModelInfo {
	task := TaskClassification
	if m.IsRegression() {
		task = TaskRegression
	}
	return ModelInfo{
		Kind: KindLinear, Task: task, NumFeatures: m.NumFeatures,
		Labels: m.Labels, NumDecisionValues: m.NrW(), Probability: m.HasProbability(),
		Created: m.Created, Scale: m.Scale, Trained: true, Summary: m.Result.Summary(),
	}
}

// LabelOf turns decision values into the prediction, by LinearPrediction.
func (m *LinearModel) LabelOf(dec []float64) float64 {
	return LinearPrediction(dec, m.Labels, m.IsRegression())
}

// TaskOf returns the task of an SVM type.
func TaskOf(t SVMType) Task {
	switch t {
	case EpsSVR, NuSVR:
		return TaskRegression
	case OneClass:
		return TaskOneClass
	}
	return TaskClassification
}

// Info describes the kernel model (Model). Labels is nil for ε-SVR and
// one-class models.
func (m *KernelModel) Info() ModelInfo {
	info := ModelInfo{
		Kind: KindKernel, Task: TaskOf(m.SVMType), Kernel: true, NumFeatures: m.NumFeatures,
		NumDecisionValues: m.NumDecisionValues(),
		Probability:       m.SVMType.IsSVC() && m.HasProbability(),
		Created:           m.Created, Scale: m.Scale, Trained: true, Summary: m.Result.Summary(),
	}
	switch m.SVMType {
	case CSVC, NuSVC:
		info.Labels = m.Labels
	case EpsSVR, NuSVR:
		if len(m.ProbA) > 0 {
			info.LaplaceScale = m.ProbA[0]
		}
	}
	return info
}

// LabelOf turns decision values into the prediction, by KernelPrediction.
// It allocates nothing for up to 256 classes.
func (m *KernelModel) LabelOf(dec []float64) float64 {
	var buf [256]float64
	votes := buf[:]
	if len(m.Labels) > len(buf) {
		votes = make([]float64, len(m.Labels))
	}
	return KernelPrediction(m.SVMType, m.Labels, dec, votes)
}

// Formulation names what the linear model solves: its solver, as
// LIBLINEAR's -s names it.
func (m *LinearModel) Formulation() string { return m.Solver.String() }

// Formulation names the kernel model's SVM type and kernel.
func (m *KernelModel) Formulation() string { return m.SVMType.String() + ", " + m.Kernel.Type.String() }

// WithCreated returns the linear model with its creation time set to t:
// a shallow copy sharing m's slices, read only.
func (m *LinearModel) WithCreated(t int64) Model {
	c := *m
	c.Created = t
	return &c
}

// WithCreated returns the kernel model with its creation time set to t:
// a shallow copy sharing m's support vectors and prediction tables, read
// only.
func (m *KernelModel) WithCreated(t int64) Model {
	c := *m
	c.Created = t
	return &c
}

// checkFinite refuses a non-finite bias or weight: the file format can
// carry them, no training produces them, and every prediction from them
// would be refused as non-finite (issue 10, fault 2).
func (m *LinearModel) checkFinite() error {
	if math.IsNaN(m.Bias) || math.IsInf(m.Bias, 0) {
		return fmt.Errorf("core: linear model: bias %v is not finite", m.Bias)
	}
	for i, w := range m.W {
		if f := float64(w); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("core: linear model: weight %d is %v", i, f)
		}
	}
	return nil
}

// Every float kind is a Model that can give probabilities.
var (
	_ ProbabilityModel = (*LinearModel)(nil)
	_ ProbabilityModel = (*KernelModel)(nil)
)
