package onnx

import (
	"errors"
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// ErrNotExportable is wrapped by Encode's errors for a model ONNX-ML's
// operators cannot hold: the quantized kinds (export their float model),
// a number past float32's range.
var ErrNotExportable = errors.New("onnx: not exportable")

// What an exported graph names and declares.
const (
	// InputName is the graph's one input, a float tensor [N, NumFeatures].
	InputName = "X"
	// LabelName is a classifier's label output, int64 [N].
	LabelName = "label"
	// ScoresName is a classifier's score output, float [N, E]: decision
	// values, or probabilities when the graph's post_transform or
	// prob_a/prob_b give them.
	ScoresName = "probabilities"
	// ValueName is a regressor's (and one-class model's) output, float
	// [N, 1].
	ValueName = "variable"

	scaledName = "scaled"
	mlDomain   = "ai.onnx.ml"
	// The versions written: IR 8 and ai.onnx.ml 3 are what ONNX Runtime
	// 1.14 and later read (the operators used are unchanged since
	// ai.onnx.ml 1); the default domain is declared for the checker.
	irVersion     = 8
	mlOpsetWrite  = 3
	onnxOpset     = 17
	producer      = "libsvmgo"
	producerVer   = "1"
	graphName     = "libsvmgo"
	dimSymbolic   = -1
	maxExportable = math.MaxFloat32
	// rawScoresName is a one-vs-rest logistic regression's sigmoids,
	// before the Normalizer that divides them by their sum.
	rawScoresName = "sigmoids"
)

// Encode returns the ONNX-ML model file of m, a float linear or kernel
// model of any task, as Caveats and the package documentation describe:
// a Scaler node in front when m scales its input, then one
// LinearClassifier, LinearRegressor, SVMClassifier or SVMRegressor. The
// same model gives the same bytes. Errors wrap ErrNotExportable.
func Encode(m core.Model) ([]byte, error) {
	g, err := exportGraph(m)
	if err != nil {
		return nil, err
	}
	md := &model{
		irVersion:       irVersion,
		producerName:    producer,
		producerVersion: producerVer,
		opsets:          []opset{{domain: "", version: onnxOpset}, {domain: mlDomain, version: mlOpsetWrite}},
		graph:           *g,
	}
	return md.append(nil), nil
}

// Caveats lists what of m an exported graph does not carry, in words for
// the user (svmgo export prints them): nil when the export is complete.
func Caveats(m core.Model) []string {
	info := m.Info()
	var out []string
	if lm, ok := m.(*linear.LinearModel); ok && len(lm.ProbA) > 0 {
		out = append(out, "the Platt probabilities of this linear SVC (-b 1) have no LinearClassifier post_transform: the graph's scores are decision values")
	}
	if info.LaplaceScale != 0 {
		out = append(out, "the Laplace noise scale of this SVR (-b 1) has no place in SVMRegressor: it is left out")
	}
	if info.Task == core.TaskOneClass {
		out = append(out, "SVMRegressor with one_class outputs ±1 only: the decision values are not exported")
	}
	out = append(out, "ONNX-ML attributes are float32: coefficients and rho are rounded to float32")
	return out
}

// exportGraph builds the graph of m.
func exportGraph(m core.Model) (*graph, error) {
	info := m.Info()
	if info.Bits != 0 {
		return nil, fmt.Errorf("%w: a %s model (%d-bit quantized): export its float model; quantized codes have no ONNX-ML operator, and dequantized float32 values would be neither the quantized model's predictions nor the float model's", ErrNotExportable, info.Kind, info.Bits)
	}
	g := &graph{name: graphName}
	nf := int64(info.NumFeatures)
	g.inputs = []valueInfo{{name: InputName, elemType: elemFloat, dims: []int64{dimSymbolic, nf}}}
	in := InputName
	if info.Scale != nil {
		n, err := scalerNode(info.Scale, info.NumFeatures)
		if err != nil {
			return nil, err
		}
		g.nodes = append(g.nodes, n)
		in = scaledName
	}
	var ops []node
	var err error
	if km, ok := m.(*core.KernelModel); ok {
		ops, err = kernelNode(km)
	} else if lm, ok := m.(*linear.LinearModel); ok {
		ops, err = linearNode(lm)
	} else {
		return nil, fmt.Errorf("%w: a %s model (%T) has no ONNX-ML form", ErrNotExportable, info.Kind, m)
	}
	if err != nil {
		return nil, err
	}
	ops[0].inputs = []string{in}
	for i := range ops {
		ops[i].domain = mlDomain
		ops[i].name = ops[i].opType
	}
	g.nodes = append(g.nodes, ops...)
	if len(ops[0].outputs) == 2 {
		e := int64(scoreColumns(m))
		g.outputs = []valueInfo{
			{name: LabelName, elemType: elemInt64, dims: []int64{dimSymbolic}},
			{name: ScoresName, elemType: elemFloat, dims: []int64{dimSymbolic, e}},
		}
	} else {
		g.outputs = []valueInfo{{name: ValueName, elemType: elemFloat, dims: []int64{dimSymbolic, 1}}}
	}
	return g, nil
}

// scoreColumns is the width of a classifier's score output as ONNX
// Runtime writes it: a column per class, except for a kernel model
// without probabilities, which has a column per class pair (two for two
// classes: −d and d).
func scoreColumns(m core.Model) int {
	info := m.Info()
	k := len(info.Labels)
	if info.Kernel && !info.Probability {
		return max(k*(k-1)/2, 2)
	}
	return k
}

// scalerNode is the Scaler of r: ONNX's y = (x − offset)·scale is the
// model's x' = Offset + Factor·x with scale = Factor and offset =
// −Offset/Factor (0 and 0 for a dropped feature).
func scalerNode(r *scale.Ranges, nf int) (node, error) {
	off := make([]float32, nf)
	sc := make([]float32, nf)
	for j := range nf {
		factor, offset := r.Affine(j)
		if factor == 0 {
			continue
		}
		o := -offset / factor
		if math.Abs(factor) > maxExportable || math.Abs(o) > maxExportable {
			return node{}, fmt.Errorf("%w: feature %d's scaling (factor %g, offset %g) overflows float32", ErrNotExportable, j+1, factor, o)
		}
		sc[j], off[j] = float32(factor), float32(o)
	}
	return node{
		inputs: []string{InputName}, outputs: []string{scaledName},
		name: "Scaler", opType: "Scaler", domain: mlDomain,
		attrs: []attr{floatsAttr("offset", off), floatsAttr("scale", sc)},
	}, nil
}

// toFloat32 rounds v to float32, refusing what overflows.
func toFloat32(what string, v []float64) ([]float32, error) {
	out := make([]float32, len(v))
	for i, x := range v {
		if math.Abs(x) > maxExportable {
			return nil, fmt.Errorf("%w: %s[%d] = %g overflows float32", ErrNotExportable, what, i, x)
		}
		out[i] = float32(x)
	}
	return out, nil
}

// kernelTypeName is ONNX's kernel_type value of core's kernel type t. A
// switch, not a map: a map literal is built at every start of every
// program linking this package.
func kernelTypeName(t core.KernelType) (string, bool) {
	switch t {
	case core.LinearKernel:
		return "LINEAR", true
	case core.PolyKernel:
		return "POLY", true
	case core.RBFKernel:
		return "RBF", true
	case core.SigmoidKernel:
		return "SIGMOID", true
	}
	return "", false
}

// kernelNode is the SVMClassifier (C-SVC, ν-SVC) or SVMRegressor (ε-SVR,
// ν-SVR, one-class) of m. ONNX's rho is −ρ: both add it to Σ coef·K.
func kernelNode(m *core.KernelModel) ([]node, error) {
	kt, ok := kernelTypeName(m.Kernel.Type)
	if !ok {
		return nil, fmt.Errorf("%w: kernel type %d", ErrNotExportable, m.Kernel.Type)
	}
	l, nf := m.SV.Len(), m.NumFeatures
	sv := make([]float32, l*nf)
	for i := range l {
		row := sv[i*nf : (i+1)*nf]
		if m.SV.IsDense() {
			copy(row, m.SV.DenseRow(i))
		} else {
			idx, val := m.SV.SparseRow(i)
			for q, j := range idx {
				row[j] = val[q]
			}
		}
	}
	coef, err := toFloat32("coefficients", m.Coef)
	if err != nil {
		return nil, err
	}
	rho := make([]float64, len(m.Rho))
	for i, r := range m.Rho {
		rho[i] = -r
	}
	rho32, err := toFloat32("rho", rho)
	if err != nil {
		return nil, err
	}
	attrs := []attr{
		floatsAttr("coefficients", coef),
		floatsAttr("kernel_params", []float32{float32(m.Kernel.Gamma), float32(m.Kernel.Coef0), float32(m.Kernel.Degree)}),
		stringAttr("kernel_type", kt),
	}
	if !m.SVMType.IsSVC() {
		attrs = append(attrs, intAttr("n_supports", int64(l)))
		if m.SVMType == core.OneClass {
			attrs = append(attrs, intAttr("one_class", 1))
		}
		attrs = append(attrs, stringAttr("post_transform", "NONE"), floatsAttr("rho", rho32), floatsAttr("support_vectors", sv))
		return []node{{outputs: []string{ValueName}, opType: "SVMRegressor", attrs: attrs}}, nil
	}
	labels := make([]int64, len(m.Labels))
	for i, c := range m.Labels {
		labels[i] = int64(c)
	}
	perClass := make([]int64, len(m.NumSV))
	for i, n := range m.NumSV {
		perClass[i] = int64(n)
	}
	attrs = append([]attr{intsAttr("classlabels_ints", labels)}, attrs...)
	attrs = append(attrs, stringAttr("post_transform", "NONE"))
	if m.HasProbability() {
		pa, err := toFloat32("prob_a", m.ProbA)
		if err != nil {
			return nil, err
		}
		pb, err := toFloat32("prob_b", m.ProbB)
		if err != nil {
			return nil, err
		}
		attrs = append(attrs, floatsAttr("prob_a", pa), floatsAttr("prob_b", pb))
	}
	attrs = append(attrs, floatsAttr("rho", rho32), floatsAttr("support_vectors", sv), intsAttr("vectors_per_class", perClass))
	return []node{{outputs: []string{LabelName, ScoresName}, opType: "SVMClassifier", attrs: attrs}}, nil
}

// linearNode is the LinearClassifier or LinearRegressor of m: one row of
// coefficients per decision function (ONNX's class-major layout of core's
// feature-major W), the bias row times Bias as the intercepts. A binary
// model's one function d is written as two rows, d and −d: their arg-max
// is our label, with post_transform LOGISTIC their sigmoids σ(d) and
// 1 − σ(d) are LIBLINEAR's probabilities, and ONNX Runtime's one-row
// layout would give neither (its scores are 1 − d and d, without the
// sigmoid).
func linearNode(m *linear.LinearModel) ([]node, error) {
	nrW, nf := m.NrW(), m.NumFeatures
	rows := nrW
	if nrW == 1 && !m.IsRegression() {
		rows = 2
	}
	coef := make([]float32, rows*nf)
	inter := make([]float64, rows)
	for k := range rows {
		sign := float32(1)
		if k >= nrW {
			sign = -1 // the binary model's second row, −d
		}
		for j := range nf {
			coef[k*nf+j] = sign * m.W[j*nrW+k%nrW]
		}
		if m.Bias >= 0 {
			inter[k] = float64(sign*m.W[nf*nrW+k%nrW]) * m.Bias
		}
	}
	inter32, err := toFloat32("intercepts", inter)
	if err != nil {
		return nil, err
	}
	if m.IsRegression() {
		return []node{{outputs: []string{ValueName}, opType: "LinearRegressor", attrs: []attr{
			floatsAttr("coefficients", coef), floatsAttr("intercepts", inter32),
			stringAttr("post_transform", "NONE"), intAttr("targets", 1),
		}}}, nil
	}
	labels := make([]int64, len(m.Labels))
	for i, c := range m.Labels {
		labels[i] = int64(c)
	}
	post := "NONE"
	switch {
	case m.Solver.IsMultinomial():
		post = "SOFTMAX"
	case m.Solver.IsLogistic():
		post = "LOGISTIC"
	}
	n := node{outputs: []string{LabelName, ScoresName}, opType: "LinearClassifier", attrs: []attr{
		intsAttr("classlabels_ints", labels), floatsAttr("coefficients", coef), floatsAttr("intercepts", inter32),
		intAttr("multi_class", 0), stringAttr("post_transform", post),
	}}
	if post != "LOGISTIC" || rows == 2 {
		return []node{n}, nil
	}
	// One-vs-rest logistic regression: LIBLINEAR's probabilities are the
	// sigmoids divided by their sum, as skl2onnx writes them.
	n.outputs[1] = rawScoresName
	norm := node{inputs: []string{rawScoresName}, outputs: []string{ScoresName}, opType: "Normalizer",
		attrs: []attr{stringAttr("norm", "L1")}}
	return []node{n, norm}, nil
}
