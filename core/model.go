package core

// Model is the one interface every model kind implements (DESIGN.md §4½):
// float linear and kernel models here, and the quantized ones of package
// quantize. The C ABI, the model directory, the daemon and the command
// predict and describe models through it alone, so a new kind or a faster
// path is added in one place.

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

// Formulation names the kernel model's SVM type and kernel.
func (m *KernelModel) Formulation() string { return m.SVMType.String() + ", " + m.Kernel.Type.String() }

// WithCreated returns the kernel model with its creation time set to t:
// a shallow copy sharing m's support vectors and prediction tables, read
// only.
func (m *KernelModel) WithCreated(t int64) Model {
	c := *m
	c.Created = t
	return &c
}

// Every float kind is a Model that can give probabilities.
var (
	_ ProbabilityModel = (*KernelModel)(nil)
)
