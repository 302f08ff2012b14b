package textmodel

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// textReader reads a text model file line by line, counting lines for its
// errors, through the data readers' LineReader and so under the same line
// limit (DefaultMaxLineBytes): a stream without line breaks is refused at
// its line, not read into memory.
type textReader struct {
	lr   *data.LineReader
	name string
	line int
}

func newTextReader(r io.Reader, name string) *textReader {
	return &textReader{lr: data.NewLineReader(r, data.DefaultMaxLineBytes), name: name}
}

// next returns the next line without its line ending; ok is false at the
// end of the input.
func (t *textReader) next() (line string, ok bool, err error) {
	b, err := t.lr.Next()
	if err == io.EOF {
		return "", false, nil
	}
	if err != nil {
		return "", false, t.lr.Err(t.name, err)
	}
	t.line = t.lr.Line()
	return string(b), true, nil
}

// headerLine reads the next "key value…" line of a text model's header,
// recording where each key was seen; done reports the line holding endKey
// alone (LIBSVM's SV, LIBLINEAR's w), which ends the header. A blank line,
// a repeated key, a key without a value or the end of the file is an error.
func (t *textReader) headerLine(seen map[string]int, endKey string) (key string, vals []string, done bool, err error) {
	line, ok, err := t.next()
	if err != nil {
		return "", nil, false, err
	}
	if !ok {
		return "", nil, false, t.errorf(data.ErrSyntax, "end of file before the %s line", endKey)
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return "", nil, false, t.errorf(data.ErrSyntax, "blank line in the header")
	}
	key, vals = f[0], f[1:]
	if key == endKey && len(vals) == 0 {
		return key, nil, true, nil
	}
	if at, dup := seen[key]; dup {
		return "", nil, false, t.errorf(data.ErrSyntax, "%s repeated (first on line %d)", key, at)
	}
	seen[key] = t.line
	if len(vals) == 0 {
		return "", nil, false, t.errorf(data.ErrSyntax, "%s without a value", key)
	}
	return key, vals, false, nil
}

// errorf returns a ParseError at the current line wrapping cause.
func (t *textReader) errorf(cause error, format string, args ...any) error {
	return &data.ParseError{File: t.name, Line: t.line, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// finite parses a float64, refusing NaN and infinities.
func finite(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not finite", s)
	}
	return v, nil
}

// parseFloats parses every field of f as a finite float64.
func parseFloats(f []string) ([]float64, error) {
	v := make([]float64, len(f))
	for i, s := range f {
		var err error
		if v[i], err = finite(s); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// parseInt32s parses every field of f as an int32.
func parseInt32s(f []string) ([]int32, error) {
	v := make([]int32, len(f))
	for i, s := range f {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not a 32-bit integer", s)
		}
		v[i] = int32(n)
	}
	return v, nil
}

// ReadLIBSVMModel reads a LIBSVM text model file (as svm-train and
// svm_save_model write it; name is used in errors) and returns the model,
// initialised and ready to predict: same labels as svm-predict, decision
// values equal to svm_predict_values' up to the rounding of the support
// vectors to float32.
//
// It reads C-SVC (c_svc), ν-SVC (nu_svc), one-class (one_class), ε-SVR
// (epsilon_svr) and ν-SVR (nu_svr) models with the linear, polynomial, RBF
// and sigmoid kernels. The precomputed kernel is refused with an error
// wrapping ErrParams; malformed text, missing or repeated header lines and counts
// that disagree with an error wrapping ErrSyntax; both are *ParseError,
// "file:line: what". A one-class model's prob_density_marks (LIBSVM 3.25+)
// are skipped: they serve its probability output only, which this library
// does not offer.
//
// LIBSVM does not record the number of features: NumFeatures is the
// largest feature index of the support vectors, so dense rows given to the
// model must have that many. Sparse rows may have more: the features past
// it meet zeros in every support vector, and for the RBF kernel they still
// count in ‖x‖², as in LIBSVM. The support vectors are stored sparse or
// dense, whichever PreferDense picks. Params holds svm-train's defaults
// with the file's SVM type and kernel, and Probability set when the file
// has probA.
func ReadLIBSVMModel(r io.Reader, name string) (*core.KernelModel, error) {
	h := &libsvmHeader{t: newTextReader(r, name), seen: map[string]int{}}
	h.m = &core.KernelModel{Params: core.DefaultKernelParams()}
	if err := h.read(); err != nil {
		return nil, err
	}
	if err := h.check(); err != nil {
		return nil, err
	}
	m := h.m
	m.Params.SVMType = m.SVMType
	m.Params.Kernel = m.Kernel
	m.Params.Probability = m.ProbA != nil
	sv, err := readSupportVectors(h.t, h.nrClass-1, h.totalSV)
	if err != nil {
		return nil, err
	}
	if err := sv.store(m, name); err != nil {
		return nil, err
	}
	if err = m.Init(); err != nil {
		return nil, inconsistent(name, err)
	}
	return m, nil
}

// libsvmHeader is the header of a LIBSVM text model being read: the model
// its lines fill, where each key was seen (for errors that point at it),
// and the two counts the support vectors must meet.
type libsvmHeader struct {
	t                *textReader
	m                *core.KernelModel
	seen             map[string]int // header key → line
	nrClass, totalSV int
}

// syntax is an error at the current line wrapping data.ErrSyntax.
func (h *libsvmHeader) syntax(format string, args ...any) error {
	return h.t.errorf(data.ErrSyntax, format, args...)
}

// syntaxAt reports a header line whose values disagree with others.
func (h *libsvmHeader) syntaxAt(key, format string, args ...any) error {
	return &data.ParseError{File: h.t.name, Line: h.seen[key], Msg: fmt.Sprintf(format, args...), Err: data.ErrSyntax}
}

// read reads the header lines up to the line "SV".
func (h *libsvmHeader) read() error {
	for {
		key, vals, done, err := h.t.headerLine(h.seen, "SV")
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if err := h.set(key, vals); err != nil {
			return err
		}
	}
}

// one returns the single value of key's line.
func (h *libsvmHeader) one(key string, vals []string) (string, error) {
	if len(vals) != 1 {
		return "", h.syntax("%s wants one value, has %d", key, len(vals))
	}
	return vals[0], nil
}

// libsvmType and libsvmKernel map svm_type and kernel_type names to core's
// values; "precomputed" is refused apart. Switches, not maps: a map
// literal is built at every start of every program linking this package.
func libsvmType(name string) (core.SVMType, bool) {
	switch name {
	case "c_svc":
		return core.CSVC, true
	case "nu_svc":
		return core.NuSVC, true
	case "one_class":
		return core.OneClass, true
	case "epsilon_svr":
		return core.EpsSVR, true
	case "nu_svr":
		return core.NuSVR, true
	}
	return 0, false
}

func libsvmKernel(name string) (core.KernelType, bool) {
	switch name {
	case "linear":
		return core.LinearKernel, true
	case "polynomial":
		return core.PolyKernel, true
	case "rbf":
		return core.RBFKernel, true
	case "sigmoid":
		return core.SigmoidKernel, true
	}
	return 0, false
}

// set applies one header line, key and its values, to the model.
func (h *libsvmHeader) set(key string, vals []string) error {
	m := h.m
	switch key {
	case "svm_type", "kernel_type":
		v, err := h.one(key, vals)
		if err != nil {
			return err
		}
		return h.setType(key, v)
	case "degree", "nr_class", "total_sv":
		v, err := h.one(key, vals)
		if err != nil {
			return err
		}
		n, perr := strconv.ParseInt(v, 10, 32)
		if perr != nil || n < 0 {
			return h.syntax("%s %q is not a count", key, v)
		}
		switch key {
		case "degree":
			m.Kernel.Degree = int(n)
		case "nr_class":
			h.nrClass = int(n)
		default:
			h.totalSV = int(n)
		}
	case "gamma", "coef0":
		v, err := h.one(key, vals)
		if err != nil {
			return err
		}
		x, perr := finite(v)
		if perr != nil {
			return h.syntax("%s: %v", key, perr)
		}
		if key == "gamma" {
			m.Kernel.Gamma = x
		} else {
			m.Kernel.Coef0 = x
		}
	case "rho", "probA", "probB":
		x, perr := parseFloats(vals)
		if perr != nil {
			return h.syntax("%s: %v", key, perr)
		}
		switch key {
		case "rho":
			m.Rho = x
		case "probA":
			m.ProbA = x
		default:
			m.ProbB = x
		}
	case "label", "nr_sv":
		x, perr := parseInt32s(vals)
		if perr != nil {
			return h.syntax("%s: %v", key, perr)
		}
		if key == "label" {
			m.Labels = x
		} else {
			m.NumSV = x
		}
	case "prob_density_marks":
	default:
		return h.syntax("unknown header line %q", key)
	}
	return nil
}

// setType applies an svm_type or kernel_type line of value v.
func (h *libsvmHeader) setType(key, v string) error {
	if key == "svm_type" {
		t, ok := libsvmType(v)
		if !ok {
			return h.syntax("unknown svm_type %q", v)
		}
		h.m.SVMType = t
		return nil
	}
	if v == "precomputed" {
		return h.t.errorf(core.ErrParams, "kernel_type precomputed is not supported")
	}
	k, ok := libsvmKernel(v)
	if !ok {
		return h.syntax("unknown kernel_type %q", v)
	}
	h.m.Kernel.Type = k
	return nil
}

// check checks that the header has the lines its SVM type and kernel need
// and that their counts agree.
func (h *libsvmHeader) check() error {
	m := h.m
	required := []string{"svm_type", "kernel_type", "nr_class", "total_sv", "rho"}
	switch m.Kernel.Type {
	case core.PolyKernel:
		required = append(required, "degree", "gamma", "coef0")
	case core.RBFKernel:
		required = append(required, "gamma")
	case core.SigmoidKernel:
		required = append(required, "gamma", "coef0")
	}
	if m.SVMType.IsSVC() {
		required = append(required, "label", "nr_sv")
	}
	for _, k := range required {
		if _, ok := h.seen[k]; !ok {
			return h.syntax("header has no %s line", k)
		}
	}
	if err := h.checkCounts(); err != nil {
		return err
	}
	if m.SVMType.IsSVC() {
		sum := 0
		for _, n := range m.NumSV {
			if n < 0 {
				return h.syntaxAt("nr_sv", "negative nr_sv %d", n)
			}
			sum += int(n)
		}
		if sum != h.totalSV {
			return h.syntaxAt("nr_sv", "nr_sv adds up to %d, total_sv is %d", sum, h.totalSV)
		}
	}
	return nil
}

// checkCounts checks the lengths of the per-class and per-pair lines
// against nr_class. svm_save_model writes nr_class 2 for one-class and
// ε-SVR models, which have one row of coefficients and one ρ.
func (h *libsvmHeader) checkCounts() error {
	m, nrClass := h.m, h.nrClass
	pairs := nrClass * (nrClass - 1) / 2
	svc := m.SVMType.IsSVC()
	switch {
	case nrClass < 2:
		return h.syntaxAt("nr_class", "nr_class %d, want at least 2", nrClass)
	case !svc && nrClass != 2:
		return h.syntaxAt("nr_class", "nr_class %d for %v, want 2", nrClass, m.SVMType)
	case len(m.Rho) != pairs:
		return h.syntaxAt("rho", "%d rho values, want %d for %d classes", len(m.Rho), pairs, nrClass)
	case svc && len(m.Labels) != nrClass:
		return h.syntaxAt("label", "%d labels, want %d", len(m.Labels), nrClass)
	case svc && len(m.NumSV) != nrClass:
		return h.syntaxAt("nr_sv", "%d nr_sv values, want %d", len(m.NumSV), nrClass)
	case !svc && m.Labels != nil:
		return h.syntaxAt("label", "label line in a %v model", m.SVMType)
	case !svc && m.NumSV != nil:
		return h.syntaxAt("nr_sv", "nr_sv line in a %v model", m.SVMType)
	case m.ProbA != nil && len(m.ProbA) != pairs:
		return h.syntaxAt("probA", "%d probA values, want %d", len(m.ProbA), pairs)
	case m.ProbB != nil && len(m.ProbB) != pairs:
		return h.syntaxAt("probB", "%d probB values, want %d", len(m.ProbB), pairs)
	}
	return nil
}

// supportVectors are the lines after "SV", gathered before they are
// stored (total_sv comes from the file, so it does not size an
// allocation): ncoef coefficients a row, row-major, and the rows' sparse
// features.
type supportVectors struct {
	ncoef       int
	coefByRow   []float64 // row-major by support vector, transposed by store
	rowStart    []int     // row i's features are index[rowStart[i]:rowStart[i+1]]
	index       []int32
	value       []float32
	numFeatures int
}

// readSupportVectors reads the support vector lines, totalSV of them (and
// trailing blank lines), each ncoef coefficients then index:value pairs.
func readSupportVectors(t *textReader, ncoef, totalSV int) (*supportVectors, error) {
	sv := &supportVectors{ncoef: ncoef}
	syntax := func(format string, args ...any) error { return t.errorf(data.ErrSyntax, format, args...) }
	for {
		line, ok, err := t.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue // svm_load_model stops at a blank line too; trailing blanks are harmless
		}
		if len(sv.rowStart) == totalSV {
			return nil, syntax("more support vectors than total_sv %d", totalSV)
		}
		if len(f) < ncoef {
			return nil, syntax("support vector with %d fields, want %d coefficients first", len(f), ncoef)
		}
		c, perr := parseFloats(f[:ncoef])
		if perr != nil {
			return nil, syntax("coefficient: %v", perr)
		}
		sv.coefByRow = append(sv.coefByRow, c...)
		sv.rowStart = append(sv.rowStart, len(sv.index))
		if err := sv.appendFeatures(f[ncoef:], syntax); err != nil {
			return nil, err
		}
	}
	if len(sv.rowStart) != totalSV {
		return nil, syntax("%d support vectors, total_sv says %d", len(sv.rowStart), totalSV)
	}
	sv.rowStart = append(sv.rowStart, len(sv.index))
	return sv, nil
}

// appendFeatures appends a support vector's index:value pairs, indices
// 1-based and increasing, values finite float32.
func (sv *supportVectors) appendFeatures(pairs []string, syntax func(string, ...any) error) error {
	prev := int64(0)
	for _, kv := range pairs {
		is, vs, ok := strings.Cut(kv, ":")
		if !ok {
			return syntax("missing ':' in %q", kv)
		}
		j, perr := strconv.ParseInt(is, 10, 32)
		if perr != nil || j < 1 {
			return syntax("feature index %q is not an integer from 1 to %d", is, math.MaxInt32)
		}
		if j <= prev {
			return syntax("feature index %d after %d: indices must increase", j, prev)
		}
		prev = j
		x, perr := finite(vs)
		if perr != nil {
			return syntax("feature %d: %v", j, perr)
		}
		if math.IsInf(float64(float32(x)), 0) {
			return syntax("feature %d: %s overflows float32", j, vs)
		}
		sv.index = append(sv.index, int32(j-1))
		sv.value = append(sv.value, float32(x))
		sv.numFeatures = max(sv.numFeatures, int(j))
	}
	return nil
}

// store sets m's support vectors (dense or sparse, as data.PreferDense
// says), its coefficients (transposed to one row per decision function)
// and NumFeatures, the largest index seen.
func (sv *supportVectors) store(m *core.KernelModel, name string) error {
	l := len(sv.rowStart) - 1
	m.NumFeatures = sv.numFeatures
	if data.PreferDense(l, sv.numFeatures, len(sv.index)) {
		m.SV = data.NewDense(l, sv.numFeatures)
	} else {
		m.SV = data.NewSparse(l, len(sv.index), sv.numFeatures)
	}
	for i := range l {
		s, e := sv.rowStart[i], sv.rowStart[i+1]
		if err := m.SV.AppendSparse(0, sv.index[s:e], sv.value[s:e]); err != nil {
			return fmt.Errorf("%s: support vector %d: %w", name, i+1, err)
		}
	}
	m.Coef = make([]float64, sv.ncoef*l)
	for i := range l {
		for k := range sv.ncoef {
			m.Coef[k*l+i] = sv.coefByRow[i*sv.ncoef+k]
		}
	}
	return nil
}

// liblinearSolver maps LIBLINEAR's solver_type names to the formulation
// recorded for an imported model. Prediction needs only w, whether the
// model classifies or regresses, and whether it is logistic regression
// (whose decision values give probabilities, liblinear-predict -b 1): so
// logistic regression is recorded as itself (linear.L2Logistic,
// linear.L2LogisticDual, linear.L1Logistic), the L1-regularized SVC as
// linear.L1L2LossSVC, every other LIBLINEAR classifier as an SVC (its
// L1-loss dual as L1LossSVCDual, the rest as L2LossSVCDual) and every
// regressor as an SVR.
// ok is false for a name LIBLINEAR does not write.
func liblinearSolver(name string) (s linear.LinearSolver, ok bool) {
	switch name {
	case "L2R_LR":
		return linear.L2Logistic, true
	case "L2R_L2LOSS_SVC_DUAL", "L2R_L2LOSS_SVC", "MCSVM_CS":
		return linear.L2LossSVCDual, true
	case "L2R_L1LOSS_SVC_DUAL":
		return linear.L1LossSVCDual, true
	case "L1R_L2LOSS_SVC":
		return linear.L1L2LossSVC, true
	case "L1R_LR":
		return linear.L1Logistic, true
	case "L2R_LR_DUAL":
		return linear.L2LogisticDual, true
	case "L2R_L2LOSS_SVR", "L2R_L2LOSS_SVR_DUAL":
		return linear.L2LossSVRDual, true
	case "L2R_L1LOSS_SVR_DUAL":
		return linear.L1LossSVRDual, true
	}
	return 0, false
}

// ReadLIBLINEARModel reads a LIBLINEAR text model file (as train and
// save_model write it; name is used in errors) and returns the model: same
// labels as liblinear-predict and decision values equal to predict_values'
// up to the rounding of the weights to float32.
//
// Every LIBLINEAR classifier and regressor is read (see liblinearSolver
// for the Solver recorded); the one-class SVM of LIBLINEAR 2.4+
// (ONECLASS_SVM) is refused with an error wrapping ErrParams. A two-class
// Crammer–Singer model (MCSVM_CS) stores a weight vector per class, but
// LIBLINEAR predicts with the first alone (label[0] when w₀·x > 0), so the
// import keeps w₀ only. Errors are *ParseError, "file:line: what", wrapping ErrSyntax or
// ErrParams. Params holds LIBLINEAR's defaults with the recorded Solver and
// the file's bias.
func ReadLIBLINEARModel(r io.Reader, name string) (*linear.LinearModel, error) {
	t := newTextReader(r, name)
	syntax := func(format string, args ...any) error { return t.errorf(data.ErrSyntax, format, args...) }
	h, err := readLIBLINEARHeader(t)
	if err != nil {
		return nil, err
	}
	solver, _ := liblinearSolver(h.solverName) // known: readLIBLINEARHeader refused the rest
	m := &linear.LinearModel{
		Solver:      solver,
		NumFeatures: h.nrFeature,
		Bias:        h.bias,
		Params:      linear.DefaultLinearParams(),
	}
	m.Params.Solver = solver
	m.Params.Bias = h.bias
	// LIBLINEAR keeps one weight vector when two classes or regression,
	// except for Crammer–Singer, which keeps one per class.
	nrW := h.nrClass
	if solver.IsRegression() {
		if h.labels != nil {
			return nil, syntax("label line in a regression model")
		}
		nrW = 1
	} else {
		if _, ok := h.seen["label"]; !ok {
			return nil, syntax("header has no label line")
		}
		if len(h.labels) != h.nrClass || h.nrClass < 2 {
			return nil, syntax("%d labels for nr_class %d, want nr_class >= 2 labels", len(h.labels), h.nrClass)
		}
		if h.nrClass == 2 && h.solverName != "MCSVM_CS" {
			nrW = 1
		}
		m.Labels = h.labels
	}
	rows := h.nrFeature
	if h.bias >= 0 {
		rows++
	}
	w, err := readWeights(t, rows, nrW)
	if err != nil {
		return nil, err
	}
	outW := m.NrW() // 1 for two-class Crammer–Singer: w₀ of each row
	m.W = make([]float32, rows*outW)
	for j := range rows {
		for k := range outW {
			m.W[j*outW+k] = float32(w[j*nrW+k])
		}
	}
	if err := m.Validate(); err != nil {
		return nil, inconsistent(name, err)
	}
	if m.Solver.IsL1() {
		m.IndexNonzeroRows()
	}
	return m, nil
}

// liblinearHeader is the header of a LIBLINEAR text model: its lines up
// to "w" and where each key was seen.
type liblinearHeader struct {
	seen               map[string]int
	solverName         string
	nrClass, nrFeature int
	labels             []int32
	bias               float64
}

// readLIBLINEARHeader reads the header lines up to the line "w" and checks
// that the ones every model has are there.
func readLIBLINEARHeader(t *textReader) (*liblinearHeader, error) {
	syntax := func(format string, args ...any) error { return t.errorf(data.ErrSyntax, format, args...) }
	h := &liblinearHeader{seen: map[string]int{}, bias: -1}
	for {
		key, vals, done, err := t.headerLine(h.seen, "w")
		if err != nil {
			return nil, err
		}
		if done {
			break
		}
		if key != "label" && len(vals) != 1 {
			return nil, syntax("%s wants one value, has %d", key, len(vals))
		}
		switch key {
		case "solver_type":
			h.solverName = vals[0]
			if h.solverName == "ONECLASS_SVM" {
				return nil, t.errorf(core.ErrParams, "solver_type ONECLASS_SVM is not supported")
			}
			if _, ok := liblinearSolver(h.solverName); !ok {
				return nil, syntax("unknown solver_type %q", h.solverName)
			}
		case "nr_class", "nr_feature":
			n, err := strconv.ParseInt(vals[0], 10, 32)
			if err != nil || n < 0 {
				return nil, syntax("%s %q is not a count", key, vals[0])
			}
			if key == "nr_class" {
				h.nrClass = int(n)
			} else {
				h.nrFeature = int(n)
			}
		case "label":
			var err error
			if h.labels, err = parseInt32s(vals); err != nil {
				return nil, syntax("label: %v", err)
			}
		case "bias":
			var err error
			if h.bias, err = finite(vals[0]); err != nil {
				return nil, syntax("bias: %v", err)
			}
		default:
			return nil, syntax("unknown header line %q", key)
		}
	}
	for _, k := range []string{"solver_type", "nr_class", "nr_feature", "bias"} {
		if _, ok := h.seen[k]; !ok {
			return nil, syntax("header has no %s line", k)
		}
	}
	return h, nil
}

// readWeights reads the rows × nrW weights after "w", whitespace-separated
// (LIBLINEAR reads them with fscanf, so line breaks are not significant),
// each finite as a float32.
func readWeights(t *textReader, rows, nrW int) ([]float64, error) {
	syntax := func(format string, args ...any) error { return t.errorf(data.ErrSyntax, format, args...) }
	want := rows * nrW
	w := make([]float64, 0, min(want, 1<<20))
	for {
		line, ok, err := t.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		for _, s := range strings.Fields(line) {
			if len(w) == want {
				return nil, syntax("more than the %d weights of %d rows × %d", want, rows, nrW)
			}
			x, err := finite(s)
			if err != nil {
				return nil, syntax("weight: %v", err)
			}
			if math.IsInf(float64(float32(x)), 0) {
				return nil, syntax("weight %s overflows float32", s)
			}
			w = append(w, x)
		}
	}
	if len(w) != want {
		return nil, syntax("%d weights, want %d (%d rows × %d)", len(w), want, rows, nrW)
	}
	return w, nil
}

// ErrNotTextModel is wrapped by DetectTextModel's error for input that
// starts like neither a LIBSVM nor a LIBLINEAR text model.
var ErrNotTextModel = errors.New("core: not a LIBSVM or LIBLINEAR text model")

// TextModelKind names the text model formats DetectTextModel tells apart.
type TextModelKind int

// The text model formats.
const (
	LIBSVMText    TextModelKind = iota + 1 // svm-train's model files: first line "svm_type ..."
	LIBLINEARText                          // LIBLINEAR train's model files: first line "solver_type ..."
)

// DetectTextModel tells a LIBSVM text model from a LIBLINEAR one by the
// first word of its first line (svm_type or solver_type), as both tools
// write them. It returns an error for anything else.
func DetectTextModel(firstLine []byte) (TextModelKind, error) {
	var word string
	if f := strings.Fields(string(firstLine)); len(f) > 0 {
		word = f[0]
	}
	switch word {
	case "svm_type":
		return LIBSVMText, nil
	case "solver_type":
		return LIBLINEARText, nil
	}
	return 0, fmt.Errorf("%w: first line starts %q, want svm_type or solver_type", ErrNotTextModel, clipText(word))
}

// inconsistent is the error for a file whose lines each parse but whose
// model the core refuses (err, from Validate: a repeated label, say): the
// file is malformed, so it wraps data.ErrSyntax as well as err.
func inconsistent(name string, err error) error {
	return fmt.Errorf("%s: %w: %w", name, data.ErrSyntax, err)
}

// clipText shortens text quoted in an error.
func clipText(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
