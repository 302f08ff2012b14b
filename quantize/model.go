package quantize

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core"
)

// The quantized kinds are core.Models: the C ABI, the model directory, the
// daemon and the command serve them through that interface as they serve
// float models.
var (
	_ core.ProbabilityModel = (*Linear)(nil)
	_ core.ProbabilityModel = (*Kernel)(nil)
)

// Info describes the model (core.Model) as the float model it was made
// from, with its code width in Bits. Labels aliases the model's labels and
// must not be modified (Labels returns a copy).
func (m *Linear) Info() core.ModelInfo {
	task := core.TaskClassification
	if m.IsRegression() {
		task = core.TaskRegression
	}
	return core.ModelInfo{
		Kind: core.KindQLinear, Task: task, Bits: m.bits, NumFeatures: m.nf,
		Labels: m.labels, NumDecisionValues: m.nrW, Probability: m.HasProbability(),
	}
}

// Info describes the model (core.Model) as the float model it was made
// from, with its code width in Bits. Labels is nil for ε-SVR and one-class
// models and otherwise aliases the model's labels, which must not be
// modified.
func (m *Kernel) Info() core.ModelInfo {
	info := core.ModelInfo{
		Kind: core.KindQKernel, Task: core.TaskOf(m.svmType), Kernel: true, Bits: m.bits,
		NumFeatures: m.nf, NumDecisionValues: m.NumDecisionValues(),
		Probability: m.svmType.IsSVC() && m.HasProbability(),
	}
	switch m.svmType {
	case core.CSVC, core.NuSVC:
		info.Labels = m.labels
	case core.EpsSVR, core.NuSVR:
		if len(m.probA) > 0 {
			info.LaplaceScale = m.probA[0]
		}
	}
	return info
}

// Quantize returns the float model m (a *core.LinearModel or
// *core.KernelModel) quantized to bits-bit codes: QuantizeLinear or
// QuantizeKernel, for a caller that holds either kind as a core.Model.
// Any other kind (a model quantized already) is an error.
func Quantize(m core.Model, bits int) (Model, error) {
	var (
		q   Model
		err error
	)
	switch m := m.(type) {
	case *core.LinearModel:
		q, err = QuantizeLinear(m, bits)
	case *core.KernelModel:
		q, err = QuantizeKernel(m, bits)
	default:
		return nil, fmt.Errorf("quantize: cannot quantize a %s model: only float linear and kernel models", m.Info().Kind)
	}
	if err != nil {
		return nil, err // not a typed nil pointer in the interface
	}
	return q, nil
}
