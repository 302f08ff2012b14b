package onnx

import (
	"errors"
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// ErrUnsupported is wrapped by Decode's errors for a well-formed ONNX
// model this package does not import: an operator other than those the
// package documentation lists, an attribute value it cannot map (string
// class labels, an unknown kernel or post_transform), a graph that is not
// one chain from one input. The message names the operator or attribute.
var ErrUnsupported = errors.New("onnx: unsupported model")

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)
}

// MaxFeatures bounds the number of input features an imported model may
// declare or imply, as the model files' readers bound theirs.
const MaxFeatures = math.MaxInt32

// Sniff reports whether b starts as an ONNX ModelProto does (protobuf's
// serializers write fields in number order, so the first is ir_version,
// field 1, a small varint) and cannot be a libsvmgo model file, whose
// first byte is 0x89. It reads at most the first 11 bytes.
func Sniff(b []byte) bool {
	num, typ, n := consumeTag(b)
	if n < 0 || num != fModelIRVersion || typ != varintType {
		return false
	}
	v, m := consumeVarint(b[n:])
	return m > 0 && v >= 3 && v <= 64
}

// Decode reads b, an ONNX model file, and returns the model its graph
// holds (a *linear.LinearModel or *core.KernelModel, validated and
// initialized as the model file decoders give them). The graph is an
// optional Scaler and one LinearClassifier, LinearRegressor,
// SVMClassifier or SVMRegressor in the layouts skl2onnx, onnxmltools and
// Encode write; Cast, Identity and ZipMap nodes are output plumbing and
// ignored, as is a Normalizer (L1) after a LinearClassifier with
// post_transform LOGISTIC (its probabilities are LIBLINEAR's). Errors
// wrap ErrMalformed or ErrUnsupported and never panic; the memory used is
// bounded by len(b): every array is checked against the shape the graph
// declares before it is allocated.
func Decode(b []byte) (core.Model, error) {
	md, err := decodeModel(b)
	if err != nil {
		return nil, err
	}
	g := &md.graph
	var sc, op *node
	for i := range g.nodes {
		n := &g.nodes[i]
		switch n.opType {
		case "Scaler":
			if sc != nil || op != nil {
				return nil, unsupported("a Scaler after the first operator (node %q)", n.name)
			}
			sc = n
		case "LinearClassifier", "LinearRegressor", "SVMClassifier", "SVMRegressor":
			if op != nil {
				return nil, unsupported("two operators, %s and %s (node %q)", op.opType, n.opType, n.name)
			}
			op = n
		case "Cast", "Identity", "ZipMap":
		case "Normalizer":
			if err := checkNormalizer(n, op); err != nil {
				return nil, err
			}
		default:
			return nil, unsupported("operator %s (node %q): this package imports Scaler, LinearClassifier, LinearRegressor, SVMClassifier and SVMRegressor", n.opType, n.name)
		}
		if err := checkDomain(n); err != nil {
			return nil, err
		}
	}
	if op == nil {
		return nil, unsupported("no LinearClassifier, LinearRegressor, SVMClassifier or SVMRegressor in the graph")
	}
	nf, err := inputFeatures(g, sc, op)
	if err != nil {
		return nil, err
	}
	var r *scale.Ranges
	if sc != nil {
		if r, err = importScaler(sc, &nf); err != nil {
			return nil, err
		}
	}
	var m core.Model
	switch op.opType {
	case "LinearClassifier", "LinearRegressor":
		m, err = importLinear(op, nf, r)
	default:
		m, err = importKernel(op, nf, r)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// checkDomain refuses a node of the wrong domain: the ML operators are
// ai.onnx.ml's, Cast and Identity the default domain's.
func checkDomain(n *node) error {
	want := mlDomain
	if n.opType == "Cast" || n.opType == "Identity" {
		want = ""
	}
	if n.domain != want && !(want == "" && n.domain == "ai.onnx") {
		return unsupported("operator %s in domain %q, want %q", n.opType, n.domain, want)
	}
	return nil
}

// checkNormalizer accepts only the Normalizer skl2onnx puts after a
// one-vs-rest logistic regression: norm L1 on its scores.
func checkNormalizer(n, op *node) error {
	a := find(n, "norm")
	if op == nil || op.opType != "LinearClassifier" || a == nil || string(a.s) != "L1" || postTransform(op) != "LOGISTIC" {
		return unsupported("operator Normalizer (node %q) other than norm L1 after a LinearClassifier with post_transform LOGISTIC", n.name)
	}
	if len(n.inputs) != 1 || len(op.outputs) < 2 || n.inputs[0] != op.outputs[1] {
		return unsupported("Normalizer (node %q) not on the LinearClassifier's scores", n.name)
	}
	return nil
}

// inputFeatures returns the number of features of the graph's one input,
// checked to feed the first node: -1 when its shape does not say.
func inputFeatures(g *graph, sc, op *node) (int, error) {
	if len(g.inputs) != 1 {
		return 0, unsupported("%d graph inputs, want one [N, features] float tensor", len(g.inputs))
	}
	in := &g.inputs[0]
	if in.elemType != elemFloat {
		return 0, unsupported("input %q of element type %d, want float (1)", in.name, in.elemType)
	}
	first := op
	if sc != nil {
		first = sc
		if len(op.inputs) != 1 || len(sc.outputs) != 1 || op.inputs[0] != sc.outputs[0] {
			return 0, unsupported("%s (node %q) does not read the Scaler's output", op.opType, op.name)
		}
	}
	if len(first.inputs) != 1 || first.inputs[0] != in.name {
		return 0, unsupported("%s (node %q) does not read the graph input %q", first.opType, first.name, in.name)
	}
	if len(in.dims) != 2 {
		if len(in.dims) == 0 {
			return -1, nil
		}
		return 0, unsupported("input %q of %d dimensions, want [N, features]", in.name, len(in.dims))
	}
	nf := in.dims[1]
	if nf < 0 {
		return -1, nil
	}
	// The operator's array holds at least a value per feature: a declared
	// width past it is refused before anything is sized by it.
	name := "support_vectors"
	if op.opType == "LinearClassifier" || op.opType == "LinearRegressor" {
		name = "coefficients"
	}
	if a := find(op, name); nf > MaxFeatures || a == nil || nf > int64(a.nFloats) {
		return 0, unsupported("input %q declares %d features, more than %s (node %q) has values in %s", in.name, nf, op.opType, op.name, name)
	}
	return int(nf), nil
}

// find returns the attribute name of n, nil when absent.
func find(n *node, name string) *attr {
	for i := range n.attrs {
		if n.attrs[i].name == name {
			return &n.attrs[i]
		}
	}
	return nil
}

// postTransform is n's post_transform, "NONE" when absent.
func postTransform(n *node) string {
	if a := find(n, "post_transform"); a != nil {
		return string(a.s)
	}
	return "NONE"
}

// floatsOf returns n's float attribute name, which must hold want values
// (want < 0: any number, the caller checks, and absent is nil); the count
// is checked before anything is allocated. Every value must be finite.
func floatsOf(n *node, name string, want int) ([]float32, error) {
	a := find(n, name)
	if a == nil {
		if want <= 0 {
			return nil, nil // an optional attribute (want < 0), or none wanted
		}
		return nil, unsupported("%s (node %q) has no attribute %s", n.opType, n.name, name)
	}
	if want >= 0 && a.nFloats != want {
		return nil, unsupported("%s (node %q): attribute %s holds %d values, want %d", n.opType, n.name, name, a.nFloats, want)
	}
	v := a.floats()
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, unsupported("%s (node %q): attribute %s[%d] = %g is not finite", n.opType, n.name, name, i, x)
		}
	}
	return v, nil
}

// labelsOf returns n's classlabels_ints, which must fit int32 and be
// distinct; classlabels_strings is refused.
func labelsOf(n *node) ([]int32, error) {
	if a := find(n, "classlabels_strings"); a != nil && a.nStr > 0 {
		return nil, unsupported("%s (node %q): attribute classlabels_strings: class labels must be integers (classlabels_ints)", n.opType, n.name)
	}
	a := find(n, "classlabels_ints")
	if a == nil || a.nInts < 2 {
		return nil, unsupported("%s (node %q): attribute classlabels_ints: want two or more labels", n.opType, n.name)
	}
	if a.nInts > 65536 {
		return nil, unsupported("%s (node %q): attribute classlabels_ints: %d labels, at most 65536", n.opType, n.name, a.nInts)
	}
	v := a.ints()
	out := make([]int32, len(v))
	for i, x := range v {
		if x < math.MinInt32 || x > math.MaxInt32 {
			return nil, unsupported("%s (node %q): attribute classlabels_ints: label %d does not fit int32", n.opType, n.name, x)
		}
		out[i] = int32(x)
	}
	return out, nil
}

// features returns the number of features an operator's array of total
// values in rows rows implies, checked against nf, the input's (-1:
// unknown).
func features(n *node, name string, total, rows, nf int) (int, error) {
	if rows <= 0 || total%rows != 0 {
		return 0, unsupported("%s (node %q): attribute %s holds %d values, not a multiple of %d rows", n.opType, n.name, name, total, rows)
	}
	got := total / rows
	if nf >= 0 && got != nf {
		return 0, unsupported("%s (node %q): attribute %s gives %d features, the input declares %d", n.opType, n.name, name, got, nf)
	}
	return got, nil
}

// importScaler reads a Scaler as ranges onto [0, 1]: x' = (x − offset)·scale
// is the scaling of Min = offset, Max = offset + 1/scale (a scale of 0 drops
// the feature). A negative scale has no such range and is refused. A
// one-value offset or scale applies to every feature, as in ONNX.
func importScaler(n *node, nf *int) (*scale.Ranges, error) {
	ao, as := find(n, "offset"), find(n, "scale")
	if ao == nil || as == nil {
		return nil, unsupported("Scaler (node %q) without offset or scale", n.name)
	}
	if *nf < 0 {
		*nf = max(ao.nFloats, as.nFloats)
	}
	for _, a := range []*attr{ao, as} {
		if a.nFloats != 1 && a.nFloats != *nf {
			return nil, unsupported("Scaler (node %q): attribute %s holds %d values for %d features", n.name, a.name, a.nFloats, *nf)
		}
	}
	off, err := floatsOf(n, "offset", -1)
	if err != nil {
		return nil, err
	}
	sc, err := floatsOf(n, "scale", -1)
	if err != nil {
		return nil, err
	}
	r := &scale.Ranges{Lower: 0, Upper: 1, Min: make([]float64, *nf), Max: make([]float64, *nf)}
	for j := range *nf {
		o, s := float64(off[min(j, len(off)-1)]), float64(sc[min(j, len(sc)-1)])
		switch {
		case s < 0:
			return nil, unsupported("Scaler (node %q): attribute scale[%d] = %g is negative", n.name, j, s)
		case s == 0:
			r.Min[j], r.Max[j] = o, o
		default:
			r.Min[j], r.Max[j] = o, o+1/s
			if r.Max[j] == r.Min[j] || math.IsInf(r.Max[j], 0) {
				return nil, unsupported("Scaler (node %q): feature %d's scale %g and offset %g have no finite range", n.name, j+1, s, o)
			}
		}
	}
	if err := r.Validate(); err != nil {
		return nil, unsupported("Scaler (node %q): %v", n.name, err)
	}
	return r, nil
}

// importLinear reads a LinearClassifier or LinearRegressor as a linear
// model with a bias of 1 holding the intercepts. Its solver records what
// the graph computes: logistic regression for post_transform LOGISTIC
// (multinomial for SOFTMAX), an SVC for NONE, an SVR for a regressor.
func importLinear(n *node, nf int, r *scale.Ranges) (core.Model, error) {
	ai := find(n, "intercepts")
	ac := find(n, "coefficients")
	if ac == nil {
		return nil, unsupported("%s (node %q) has no attribute coefficients", n.opType, n.name)
	}
	rows := 1
	if ai != nil {
		rows = max(ai.nFloats, 1)
	}
	nf, err := features(n, "coefficients", ac.nFloats, rows, nf)
	if err != nil {
		return nil, err
	}
	coef, err := floatsOf(n, "coefficients", rows*nf)
	if err != nil {
		return nil, err
	}
	inter, err := floatsOf(n, "intercepts", -1)
	if err != nil {
		return nil, err
	}
	if len(inter) == 0 {
		inter = make([]float32, rows)
	}
	m := &linear.LinearModel{NumFeatures: nf, Bias: 1, Params: linear.DefaultLinearParams()}
	post := postTransform(n)
	if n.opType == "LinearRegressor" {
		if a := find(n, "targets"); a != nil && a.i != 1 {
			return nil, unsupported("LinearRegressor (node %q): attribute targets = %d, want 1", n.name, a.i)
		}
		if post != "NONE" {
			return nil, unsupported("LinearRegressor (node %q): attribute post_transform %s, want NONE", n.name, post)
		}
		m.Solver = linear.L2LossSVRDual
		m.W = appendRows(nil, coef, inter, nf, []int{0}, nil)
		return finishLinear(m, r)
	}
	labels, err := labelsOf(n)
	if err != nil {
		return nil, err
	}
	switch post {
	case "NONE":
		m.Solver = linear.L2LossSVCDual
	case "LOGISTIC":
		m.Solver = linear.L2Logistic
	case "SOFTMAX":
		m.Solver = linear.L2LogisticMultinomial
	default:
		return nil, unsupported("LinearClassifier (node %q): attribute post_transform %s", n.name, post)
	}
	switch {
	case rows == 1 && len(labels) == 2:
		// One row scores the second label positive: ours the first.
		if m.Solver.IsMultinomial() {
			return nil, unsupported("LinearClassifier (node %q): one row with post_transform SOFTMAX", n.name)
		}
		m.Labels = []int32{labels[1], labels[0]}
		m.W = appendRows(nil, coef, inter, nf, []int{0}, nil)
	case rows == 2 && len(labels) == 2 && !m.Solver.IsMultinomial():
		m.Labels = labels
		if antisymmetric(coef, inter) {
			// d and −d, as Encode writes a binary model: d.
			m.W = appendRows(nil, coef, inter, nf, []int{0}, nil)
			break
		}
		// Two rows, the arg-max: the one decision function row 0 − row 1,
		// whose sigmoid is not the graph's probability.
		m.Solver = linear.L2LossSVCDual
		m.W = appendRows(nil, coef, inter, nf, []int{0}, []int{1})
	case rows == len(labels):
		m.Labels = labels
		all := make([]int, rows)
		for k := range all {
			all[k] = k
		}
		m.W = appendRows(nil, coef, inter, nf, all, nil)
	default:
		return nil, unsupported("LinearClassifier (node %q): %d rows of coefficients for %d labels", n.name, rows, len(labels))
	}
	return finishLinear(m, r)
}

// antisymmetric reports whether the second of two rows (coefficients and
// intercept) is exactly the negated first.
func antisymmetric(coef, inter []float32) bool {
	nf := len(coef) / 2
	for j := range nf {
		if coef[nf+j] != -coef[j] {
			return false
		}
	}
	return inter[1] == -inter[0]
}

// appendRows appends to w the feature-major weights (then the bias row)
// of the decision functions pos (class-major rows of coef with their
// intercepts), each less row neg[k] when neg is not nil.
func appendRows(w, coef, inter []float32, nf int, pos, neg []int) []float32 {
	at := func(k, j int) float32 {
		if j == nf {
			return inter[k]
		}
		return coef[k*nf+j]
	}
	for j := range nf + 1 {
		for q, k := range pos {
			v := at(k, j)
			if neg != nil {
				v = float32(float64(v) - float64(at(neg[q], j)))
			}
			w = append(w, v)
		}
	}
	return w
}

// finishLinear sets the parameters an imported linear model records,
// its scaling, and checks it.
func finishLinear(m *linear.LinearModel, r *scale.Ranges) (core.Model, error) {
	m.Params.Solver, m.Params.Bias = m.Solver, m.Bias
	if err := m.Validate(); err != nil {
		return nil, unsupported("%v", err)
	}
	if r != nil {
		if err := m.SetScale(r); err != nil {
			return nil, unsupported("Scaler: %v", err)
		}
	}
	return m, nil
}

// onnxKernel is core's kernel type of ONNX's kernel_type name (a switch,
// as kernelTypeName).
func onnxKernel(name string) (core.KernelType, bool) {
	switch name {
	case "LINEAR":
		return core.LinearKernel, true
	case "POLY":
		return core.PolyKernel, true
	case "RBF":
		return core.RBFKernel, true
	case "SIGMOID":
		return core.SigmoidKernel, true
	}
	return 0, false
}

// importKernel reads an SVMClassifier (as C-SVC) or SVMRegressor (as
// ε-SVR, or one-class with one_class = 1): LIBSVM's ρ is −rho.
func importKernel(n *node, nf int, r *scale.Ranges) (core.Model, error) {
	m := &core.KernelModel{Params: core.DefaultKernelParams()}
	var err error
	if m.Kernel, err = kernelOf(n); err != nil {
		return nil, err
	}
	if post := postTransform(n); post != "NONE" {
		return nil, unsupported("%s (node %q): attribute post_transform %s, want NONE", n.opType, n.name, post)
	}
	var l, nDec, nCoefRows int
	if n.opType == "SVMRegressor" {
		a := find(n, "n_supports")
		if a == nil || a.i <= 0 || a.i > math.MaxInt32 {
			return nil, unsupported("SVMRegressor (node %q): attribute n_supports absent or not positive (the linear mode has no LIBSVM model)", n.name)
		}
		l, nDec, nCoefRows = int(a.i), 1, 1
		m.SVMType = core.EpsSVR
		if a := find(n, "one_class"); a != nil && a.i != 0 {
			m.SVMType = core.OneClass
		}
	} else {
		m.SVMType = core.CSVC
		if m.Labels, err = labelsOf(n); err != nil {
			return nil, err
		}
		a := find(n, "vectors_per_class")
		if a == nil || a.nInts != len(m.Labels) {
			return nil, unsupported("SVMClassifier (node %q): attribute vectors_per_class must give one count per label (the linear mode has no LIBSVM model)", n.name)
		}
		m.NumSV = make([]int32, len(m.Labels))
		for i, c := range a.ints() {
			if c < 0 || c > math.MaxInt32 || int64(l)+c > math.MaxInt32 {
				return nil, unsupported("SVMClassifier (node %q): attribute vectors_per_class[%d] = %d", n.name, i, c)
			}
			m.NumSV[i] = int32(c)
			l += int(c)
		}
		k := len(m.Labels)
		nDec, nCoefRows = k*(k-1)/2, k-1
	}
	if l == 0 {
		return nil, unsupported("%s (node %q): no support vectors", n.opType, n.name)
	}
	asv := find(n, "support_vectors")
	if asv == nil {
		return nil, unsupported("%s (node %q) has no attribute support_vectors", n.opType, n.name)
	}
	if nf, err = features(n, "support_vectors", asv.nFloats, l, nf); err != nil {
		return nil, err
	}
	coef, err := floatsOf(n, "coefficients", nCoefRows*l)
	if err != nil {
		return nil, err
	}
	rho, err := floatsOf(n, "rho", nDec)
	if err != nil {
		return nil, err
	}
	m.NumFeatures = nf
	m.Coef = widen(coef, false)
	m.Rho = widen(rho, true)
	if m.SVMType == core.CSVC {
		pa, pb := find(n, "prob_a"), find(n, "prob_b")
		if (pa != nil && pa.nFloats > 0) || (pb != nil && pb.nFloats > 0) {
			a, err := floatsOf(n, "prob_a", nDec)
			if err != nil {
				return nil, err
			}
			b, err := floatsOf(n, "prob_b", nDec)
			if err != nil {
				return nil, err
			}
			m.ProbA, m.ProbB = widen(a, false), widen(b, false)
		}
	}
	sv, err := floatsOf(n, "support_vectors", l*nf)
	if err != nil {
		return nil, err
	}
	if m.SV, err = supportVectors(sv, l, nf); err != nil {
		return nil, err
	}
	m.Scale = r
	m.Params.SVMType, m.Params.Kernel, m.Params.Probability = m.SVMType, m.Kernel, m.ProbA != nil
	if err := m.Init(); err != nil {
		return nil, unsupported("%v", err)
	}
	return m, nil
}

// kernelOf reads n's kernel_type (LINEAR when absent) and kernel_params
// [gamma, coef0, degree] (zeros when absent).
func kernelOf(n *node) (core.Kernel, error) {
	var k core.Kernel
	kt := "LINEAR"
	if a := find(n, "kernel_type"); a != nil {
		kt = string(a.s)
	}
	t, ok := onnxKernel(kt)
	if !ok {
		return k, unsupported("%s (node %q): attribute kernel_type %q", n.opType, n.name, kt)
	}
	k.Type = t
	kp, err := floatsOf(n, "kernel_params", -1)
	if err != nil {
		return k, err
	}
	if len(kp) > 3 {
		return k, unsupported("%s (node %q): attribute kernel_params holds %d values, at most 3 (gamma, coef0, degree)", n.opType, n.name, len(kp))
	}
	kp = append(kp, make([]float32, 3-len(kp))...)
	k.Gamma, k.Coef0 = float64(kp[0]), float64(kp[1])
	if d := kp[2]; d != float32(int32(d)) || d < 0 {
		return k, unsupported("%s (node %q): attribute kernel_params: degree %g is not a non-negative integer", n.opType, n.name, d)
	}
	k.Degree = int(kp[2])
	return k, nil
}

// supportVectors stores the l dense rows of nf features in sv as a data
// set, dense or sparse as data.PreferDense picks.
func supportVectors(sv []float32, l, nf int) (*data.Dataset, error) {
	nnz := 0
	for _, x := range sv {
		if x != 0 {
			nnz++
		}
	}
	if data.PreferDense(l, nf, nnz) {
		ds := data.NewDense(l, nf)
		for i := range l {
			if err := ds.AppendDense(0, sv[i*nf:(i+1)*nf]); err != nil {
				return nil, unsupported("support vector %d: %v", i, err)
			}
		}
		return ds, nil
	}
	ds := data.NewSparse(l, nnz, nf)
	var idx []int32
	var val []float32
	for i := range l {
		idx, val = idx[:0], val[:0]
		for j, x := range sv[i*nf : (i+1)*nf] {
			if x != 0 {
				idx, val = append(idx, int32(j)), append(val, x)
			}
		}
		if err := ds.AppendSparse(0, idx, val); err != nil {
			return nil, unsupported("support vector %d: %v", i, err)
		}
	}
	return ds, nil
}

// widen returns v as float64, negated when neg.
func widen(v []float32, neg bool) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
		if neg {
			out[i] = -out[i]
		}
	}
	return out
}
