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
		Created: m.created, Scale: m.Scale(),
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
		Created:     m.created, Scale: m.Scale(),
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

// Quantize returns the float model m (a *linear.LinearModel or
// *core.KernelModel) quantized to bits-bit codes: QuantizeLinear or
// QuantizeKernel, as m's kind says, for a caller that holds either kind as
// a core.Model. Any other kind (a model quantized already) is an error.
func Quantize(m core.Model, bits int) (Model, error) {
	kind := m.Info().Kind
	q, ok := quantizers[kind]
	if !ok {
		return nil, fmt.Errorf("quantize: cannot quantize a %s model: only float linear and kernel models", kind)
	}
	return q(m, bits)
}

// quantizers are the quantization algorithms, by the kind of float model
// each takes.
var quantizers = map[string]func(m core.Model, bits int) (Model, error){
	core.KindLinear: func(m core.Model, bits int) (Model, error) { return quantizeAs(m, bits, QuantizeLinear) },
	core.KindKernel: func(m core.Model, bits int) (Model, error) { return quantizeAs(m, bits, QuantizeKernel) },
}

// quantizeAs quantizes m, an F by its kind, with quantize; an error gives
// an untyped nil Model.
func quantizeAs[F core.Model, Q Model](m core.Model, bits int, quantize func(F, int) (Q, error)) (Model, error) {
	f, ok := m.(F)
	if !ok {
		return nil, fmt.Errorf("quantize: a %T claims the kind %q of %T", m, m.Info().Kind, f)
	}
	q, err := quantize(f, bits)
	if err != nil {
		return nil, err
	}
	return q, nil
}
