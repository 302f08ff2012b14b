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
	t := newTextReader(r, name)
	m := &core.KernelModel{Params: core.DefaultKernelParams()}
	seen := map[string]int{} // header key → line
	var nrClass, totalSV int
	var err error
	syntax := func(format string, args ...any) error { return t.errorf(data.ErrSyntax, format, args...) }
	// syntaxAt reports a header line whose values disagree with others.
	syntaxAt := func(key, format string, args ...any) error {
		return &data.ParseError{File: name, Line: seen[key], Msg: fmt.Sprintf(format, args...), Err: data.ErrSyntax}
	}
	for {
		key, vals, done, err := t.headerLine(seen, "SV")
		if err != nil {
			return nil, err
		}
		if done {
			break
		}
		one := func() (string, error) {
			if len(vals) != 1 {
				return "", syntax("%s wants one value, has %d", key, len(vals))
			}
			return vals[0], nil
		}
		var v string
		switch key {
		case "svm_type":
			if v, err = one(); err != nil {
				return nil, err
			}
			switch v {
			case "c_svc":
				m.SVMType = core.CSVC
			case "nu_svc":
				m.SVMType = core.NuSVC
			case "one_class":
				m.SVMType = core.OneClass
			case "epsilon_svr":
				m.SVMType = core.EpsSVR
			case "nu_svr":
				m.SVMType = core.NuSVR
			default:
				return nil, syntax("unknown svm_type %q", v)
			}
		case "kernel_type":
			if v, err = one(); err != nil {
				return nil, err
			}
			switch v {
			case "linear":
				m.Kernel.Type = core.LinearKernel
			case "polynomial":
				m.Kernel.Type = core.PolyKernel
			case "rbf":
				m.Kernel.Type = core.RBFKernel
			case "sigmoid":
				m.Kernel.Type = core.SigmoidKernel
			case "precomputed":
				return nil, t.errorf(core.ErrParams, "kernel_type precomputed is not supported")
			default:
				return nil, syntax("unknown kernel_type %q", v)
			}
		case "degree", "nr_class", "total_sv":
			if v, err = one(); err != nil {
				return nil, err
			}
			n, perr := strconv.ParseInt(v, 10, 32)
			if perr != nil || n < 0 {
				return nil, syntax("%s %q is not a count", key, v)
			}
			switch key {
			case "degree":
				m.Kernel.Degree = int(n)
			case "nr_class":
				nrClass = int(n)
			default:
				totalSV = int(n)
			}
		case "gamma", "coef0":
			if v, err = one(); err != nil {
				return nil, err
			}
			x, perr := finite(v)
			if perr != nil {
				return nil, syntax("%s: %v", key, perr)
			}
			if key == "gamma" {
				m.Kernel.Gamma = x
			} else {
				m.Kernel.Coef0 = x
			}
		case "rho", "probA", "probB":
			x, perr := parseFloats(vals)
			if perr != nil {
				return nil, syntax("%s: %v", key, perr)
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
				return nil, syntax("%s: %v", key, perr)
			}
			if key == "label" {
				m.Labels = x
			} else {
				m.NumSV = x
			}
		case "prob_density_marks":
		default:
			return nil, syntax("unknown header line %q", key)
		}
	}
	header := func(key string) error {
		if _, ok := seen[key]; !ok {
			return syntax("header has no %s line", key)
		}
		return nil
	}
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
		if err := header(k); err != nil {
			return nil, err
		}
	}
	// svm_save_model writes nr_class 2 for one-class and ε-SVR models,
	// which have one row of coefficients and one ρ.
	pairs := nrClass * (nrClass - 1) / 2
	switch {
	case nrClass < 2:
		return nil, syntaxAt("nr_class", "nr_class %d, want at least 2", nrClass)
	case !m.SVMType.IsSVC() && nrClass != 2:
		return nil, syntaxAt("nr_class", "nr_class %d for %v, want 2", nrClass, m.SVMType)
	case len(m.Rho) != pairs:
		return nil, syntaxAt("rho", "%d rho values, want %d for %d classes", len(m.Rho), pairs, nrClass)
	case m.SVMType.IsSVC() && len(m.Labels) != nrClass:
		return nil, syntaxAt("label", "%d labels, want %d", len(m.Labels), nrClass)
	case m.SVMType.IsSVC() && len(m.NumSV) != nrClass:
		return nil, syntaxAt("nr_sv", "%d nr_sv values, want %d", len(m.NumSV), nrClass)
	case !m.SVMType.IsSVC() && m.Labels != nil:
		return nil, syntaxAt("label", "label line in a %v model", m.SVMType)
	case !m.SVMType.IsSVC() && m.NumSV != nil:
		return nil, syntaxAt("nr_sv", "nr_sv line in a %v model", m.SVMType)
	case m.ProbA != nil && len(m.ProbA) != pairs:
		return nil, syntaxAt("probA", "%d probA values, want %d", len(m.ProbA), pairs)
	case m.ProbB != nil && len(m.ProbB) != pairs:
		return nil, syntaxAt("probB", "%d probB values, want %d", len(m.ProbB), pairs)
	}
	if m.SVMType.IsSVC() {
		sum := 0
		for _, n := range m.NumSV {
			if n < 0 {
				return nil, syntaxAt("nr_sv", "negative nr_sv %d", n)
			}
			sum += int(n)
		}
		if sum != totalSV {
			return nil, syntaxAt("nr_sv", "nr_sv adds up to %d, total_sv is %d", sum, totalSV)
		}
	}
	m.Params.SVMType = m.SVMType
	m.Params.Kernel = m.Kernel
	m.Params.Probability = m.ProbA != nil

	// The support vectors, gathered first (total_sv comes from the file,
	// so it does not size an allocation) and stored once counted.
	ncoef := nrClass - 1
	var coefByRow []float64 // row-major by support vector, transposed below
	var rowStart []int
	var index []int32
	var value []float32
	numFeatures := 0
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
		if len(rowStart) == totalSV {
			return nil, syntax("more support vectors than total_sv %d", totalSV)
		}
		if len(f) < ncoef {
			return nil, syntax("support vector with %d fields, want %d coefficients first", len(f), ncoef)
		}
		c, perr := parseFloats(f[:ncoef])
		if perr != nil {
			return nil, syntax("coefficient: %v", perr)
		}
		coefByRow = append(coefByRow, c...)
		rowStart = append(rowStart, len(index))
		prev := int64(0)
		for _, kv := range f[ncoef:] {
			is, vs, ok := strings.Cut(kv, ":")
			if !ok {
				return nil, syntax("missing ':' in %q", kv)
			}
			j, perr := strconv.ParseInt(is, 10, 32)
			if perr != nil || j < 1 {
				return nil, syntax("feature index %q is not an integer from 1 to %d", is, math.MaxInt32)
			}
			if j <= prev {
				return nil, syntax("feature index %d after %d: indices must increase", j, prev)
			}
			prev = j
			x, perr := finite(vs)
			if perr != nil {
				return nil, syntax("feature %d: %v", j, perr)
			}
			if math.IsInf(float64(float32(x)), 0) {
				return nil, syntax("feature %d: %s overflows float32", j, vs)
			}
			index = append(index, int32(j-1))
			value = append(value, float32(x))
			numFeatures = max(numFeatures, int(j))
		}
	}
	if len(rowStart) != totalSV {
		return nil, syntax("%d support vectors, total_sv says %d", len(rowStart), totalSV)
	}
	rowStart = append(rowStart, len(index))
	l := totalSV
	m.NumFeatures = numFeatures
	if data.PreferDense(l, numFeatures, len(index)) {
		m.SV = data.NewDense(l, numFeatures)
	} else {
		m.SV = data.NewSparse(l, len(index), numFeatures)
	}
	for i := range l {
		s, e := rowStart[i], rowStart[i+1]
		if err := m.SV.AppendSparse(0, index[s:e], value[s:e]); err != nil {
			return nil, fmt.Errorf("%s: support vector %d: %w", name, i+1, err)
		}
	}
	m.Coef = make([]float64, ncoef*l)
	for i := range l {
		for k := range ncoef {
			m.Coef[k*l+i] = coefByRow[i*ncoef+k]
		}
	}
	if err = m.Init(); err != nil {
		return nil, inconsistent(name, err)
	}
	return m, nil
}

// liblinearSolvers maps LIBLINEAR's solver_type names to the formulation
// recorded for an imported model. Prediction needs only w, whether the
// model classifies or regresses, and whether it is logistic regression
// (whose decision values give probabilities, liblinear-predict -b 1): so
// logistic regression is recorded as itself (core.L2Logistic,
// core.L2LogisticDual, core.L1Logistic), the L1-regularized SVC as
// core.L1L2LossSVC, every other LIBLINEAR classifier as an SVC (its
// L1-loss dual as L1LossSVCDual, the rest as L2LossSVCDual) and every
// regressor as an SVR.
var liblinearSolvers = map[string]core.LinearSolver{
	"L2R_LR":              core.L2Logistic,
	"L2R_L2LOSS_SVC_DUAL": core.L2LossSVCDual,
	"L2R_L2LOSS_SVC":      core.L2LossSVCDual,
	"L2R_L1LOSS_SVC_DUAL": core.L1LossSVCDual,
	"MCSVM_CS":            core.L2LossSVCDual,
	"L1R_L2LOSS_SVC":      core.L1L2LossSVC,
	"L1R_LR":              core.L1Logistic,
	"L2R_LR_DUAL":         core.L2LogisticDual,
	"L2R_L2LOSS_SVR":      core.L2LossSVRDual,
	"L2R_L2LOSS_SVR_DUAL": core.L2LossSVRDual,
	"L2R_L1LOSS_SVR_DUAL": core.L1LossSVRDual,
}

// ReadLIBLINEARModel reads a LIBLINEAR text model file (as train and
// save_model write it; name is used in errors) and returns the model: same
// labels as liblinear-predict and decision values equal to predict_values'
// up to the rounding of the weights to float32.
//
// Every LIBLINEAR classifier and regressor is read (see liblinearSolvers
// for the Solver recorded); the one-class SVM of LIBLINEAR 2.4+
// (ONECLASS_SVM) is refused with an error wrapping ErrParams. A two-class
// Crammer–Singer model (MCSVM_CS) stores a weight vector per class, but
// LIBLINEAR predicts with the first alone (label[0] when w₀·x > 0), so the
// import keeps w₀ only. Errors are *ParseError, "file:line: what", wrapping ErrSyntax or
// ErrParams. Params holds LIBLINEAR's defaults with the recorded Solver and
// the file's bias.
func ReadLIBLINEARModel(r io.Reader, name string) (*core.LinearModel, error) {
	t := newTextReader(r, name)
	syntax := func(format string, args ...any) error { return t.errorf(data.ErrSyntax, format, args...) }
	seen := map[string]int{}
	var solverName string
	var nrClass, nrFeature int
	var labels []int32
	bias := -1.0
	for {
		key, vals, done, err := t.headerLine(seen, "w")
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
			solverName = vals[0]
			if solverName == "ONECLASS_SVM" {
				return nil, t.errorf(core.ErrParams, "solver_type ONECLASS_SVM is not supported")
			}
			if _, ok := liblinearSolvers[solverName]; !ok {
				return nil, syntax("unknown solver_type %q", solverName)
			}
		case "nr_class", "nr_feature":
			n, err := strconv.ParseInt(vals[0], 10, 32)
			if err != nil || n < 0 {
				return nil, syntax("%s %q is not a count", key, vals[0])
			}
			if key == "nr_class" {
				nrClass = int(n)
			} else {
				nrFeature = int(n)
			}
		case "label":
			var err error
			if labels, err = parseInt32s(vals); err != nil {
				return nil, syntax("label: %v", err)
			}
		case "bias":
			var err error
			if bias, err = finite(vals[0]); err != nil {
				return nil, syntax("bias: %v", err)
			}
		default:
			return nil, syntax("unknown header line %q", key)
		}
	}
	for _, k := range []string{"solver_type", "nr_class", "nr_feature", "bias"} {
		if _, ok := seen[k]; !ok {
			return nil, syntax("header has no %s line", k)
		}
	}
	solver := liblinearSolvers[solverName]
	m := &core.LinearModel{
		Solver:      solver,
		NumFeatures: nrFeature,
		Bias:        bias,
		Params:      core.DefaultLinearParams(),
	}
	m.Params.Solver = solver
	m.Params.Bias = bias
	// LIBLINEAR keeps one weight vector when two classes or regression,
	// except for Crammer–Singer, which keeps one per class.
	nrW := nrClass
	if solver.IsRegression() {
		if labels != nil {
			return nil, syntax("label line in a regression model")
		}
		nrW = 1
	} else {
		if _, ok := seen["label"]; !ok {
			return nil, syntax("header has no label line")
		}
		if len(labels) != nrClass || nrClass < 2 {
			return nil, syntax("%d labels for nr_class %d, want nr_class >= 2 labels", len(labels), nrClass)
		}
		if nrClass == 2 && solverName != "MCSVM_CS" {
			nrW = 1
		}
		m.Labels = labels
	}
	rows := nrFeature
	if bias >= 0 {
		rows++
	}
	// The weights follow, whitespace-separated (LIBLINEAR reads them with
	// fscanf, so line breaks are not significant).
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
