package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/scale"
	"github.com/libsvmgo/libsvmgo/quantize"
)

const inspectUsage = `usage: svmgo inspect [-v] model_file

Prints what a libsvmgo model file holds: kind, format version and payload
CRC-32C; the model (solver or SVM type and kernel with its parameters,
labels, features, weights or support vectors, rho, probability model); when
it was created; the training parameters, as train or svm-train options, and
the training result (a quantized file keeps a summary, or nothing for a
linear model); quantization (scheme, bits, scales, and the payload CRC-32C
of the float model a quantized one was made from); and where the file's
bytes go, field by field. Names are LIBSVM's and LIBLINEAR's where they
have one.

-v : every subproblem and every rho, however many, and the training
     parameters' and result's bytes field by field

The file is checked as a model loader checks it: a damaged file prints one
line on standard error and exits with status 1.
`

// kindViews describe the kinds inspect knows in their tools' terms: each
// decodes the file's bytes and adds the model's rows and sections to s,
// ending with the quantization section. Any other registered kind is
// described from its core.ModelInfo (showModel); the header and the byte
// breakdown, whose key names come from the kind's body schema
// (modelfile.Schema), are shared by every kind.
var kindViews = map[string]func(s *sheet, b []byte, verbose bool) error{
	modelfile.KindLinear:  showLinear,
	modelfile.KindKernel:  showKernel,
	modelfile.KindQLinear: showQLinear,
	modelfile.KindQKernel: showQKernel,
}

// inspect is the inspect command.
func inspect(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, inspectUsage)
		return 0
	}
	verbose := false
	if len(args) > 0 && args[0] == "-v" {
		verbose, args = true, args[1:]
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(stderr, inspectUsage)
		return 2
	}
	path := args[0]
	b, err := modelfile.ReadBytes(path)
	if err != nil {
		return fail(stderr, err)
	}
	out, err := describe(path, b, verbose)
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", path, err))
	}
	// Nothing is printed before the whole file has been checked.
	if _, err := stdout.Write(out); err != nil {
		return fail(stderr, err)
	}
	return 0
}

// describe returns inspect's report on the model file bytes b.
func describe(path string, b []byte, verbose bool) ([]byte, error) {
	kind, err := modelfile.Kind(b)
	if err != nil {
		return nil, err
	}
	view, ok := kindViews[kind]
	if !ok {
		view = showModel
	}
	keys, _ := modelfile.Schema(kind)
	lay, err := modelfile.Layout(b)
	if err != nil {
		return nil, err
	}
	s := &sheet{}
	s.row("file", path)
	s.row("kind", kind)
	s.row("format", fmt.Sprintf("%d.%d", lay.Major, lay.Minor))
	// Layout has checked the frame: bytes 20–23 are the payload's CRC, by
	// which a quantized model names the float model it was made from.
	s.row("payload CRC-32C", crcText(binary.LittleEndian.Uint32(b[20:24])))
	if err := view(s, b, verbose); err != nil {
		return nil, err
	}
	showBytes(s, lay, keys, verbose)
	s.flush()
	return s.buf.Bytes(), nil
}

// showBytes adds the byte breakdown: each part of the file, its size and
// its share of the file. The top-level rows add up to the file's size; with
// verbose, the fields of nested maps follow their map as "p.c" rows.
func showBytes(s *sheet, lay modelfile.Breakdown, keys []modelfile.Key, verbose bool) {
	names := make(map[string]string, len(keys))
	for _, k := range keys {
		names[k.Name] = k.Doc
	}
	s.section(fmt.Sprintf("bytes (%s B in all)", commas(lay.Size)))
	share := func(n int) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(lay.Size)) }
	rows := [][]string{
		{"frame", "magic, version, length, CRC-32C", commas(lay.Frame) + " B", share(lay.Frame)},
		{"map", "body map header", commas(lay.Header) + " B", share(lay.Header)},
	}
	for _, f := range lay.Fields {
		name, ok := names[f.Key]
		if !ok {
			name = "(unknown to this reader)"
		}
		rows = append(rows, []string{f.Key, name, commas(f.Size) + " B", share(f.Size)})
		if verbose {
			for _, g := range f.Fields {
				rows = append(rows, []string{f.Key + "." + g.Key, "", commas(g.Size) + " B", share(g.Size)})
			}
		}
	}
	rows = append(rows, []string{"total", "", commas(lay.Size) + " B", share(lay.Size)})
	s.table(nil, rows, 2)
}

// showModel describes a model of a kind inspect has no view of, from what
// every kind reports (core.ModelInfo).
func showModel(s *sheet, b []byte, verbose bool) error {
	m, err := modelfile.Decode(b)
	if err != nil {
		return err
	}
	info := m.Info()
	s.section("model")
	s.row("task", info.Task.String())
	s.row("nr_feature", commas(info.NumFeatures))
	if info.Labels != nil {
		s.row("labels", joinInt32s(info.Labels))
	}
	s.row("decision values", strconv.Itoa(info.NumDecisionValues))
	s.row("probability", yesNo(info.Probability))
	if info.Bits != 0 {
		s.row("bits", strconv.Itoa(info.Bits))
	}
	s.row("created", createdText(info.Created))
	scaleRows(s, info.Scale, verbose)
	if info.Trained {
		t := info.Summary
		s.section("training")
		s.row("result", fmt.Sprintf("%d iterations, %s %s, objective %s, %s support vectors, converged %s",
			t.Iterations, commas(t.Work), t.WorkUnit, fmtObj(t.Objective), commas(t.NumSV), yesNo(t.Converged)))
	}
	return nil
}

// linearSolverText is LIBLINEAR's description of each solver (train's
// usage text).
var linearSolverText = map[linear.LinearSolver]string{
	linear.L2Logistic:            "L2-regularized logistic regression, primal",
	linear.L2LossSVCDual:         "L2-regularized L2-loss support vector classification, dual",
	linear.L2LossSVCPrimal:       "L2-regularized L2-loss support vector classification, primal",
	linear.L2LossSVRPrimal:       "L2-regularized L2-loss support vector regression, primal",
	linear.L1LossSVCDual:         "L2-regularized L1-loss support vector classification, dual",
	linear.L2LogisticDual:        "L2-regularized logistic regression, dual",
	linear.L2LossSVRDual:         "L2-regularized L2-loss support vector regression, dual",
	linear.L1LossSVRDual:         "L2-regularized L1-loss support vector regression, dual",
	linear.L1L2LossSVC:           "L1-regularized L2-loss support vector classification",
	linear.L1Logistic:            "L1-regularized logistic regression",
	linear.L2LogisticMultinomial: "L2-regularized multinomial logistic regression",
}

// linearRows is what inspect shows of a linear model, float or quantized:
// the two kinds differ only in how their weights are stored.
type linearRows struct {
	solver  linear.LinearSolver
	labels  []int32
	nf      int     // nr_feature
	bias    float64 // < 0: none
	nrW     int     // decision functions
	weights string  // how the weights are stored
	created int64
	// probA, probB: Platt sigmoids of an SVC trained with -b 1, else nil.
	probA, probB []float64
}

// add adds the model's rows: solver, classes, features, bias, decision
// functions, weights and creation time.
func (m linearRows) add(s *sheet) {
	s.row("solver_type", fmt.Sprintf("%v (-s %d: %s)", m.solver, int(m.solver), linearSolverText[m.solver]))
	regression := m.solver.IsRegression()
	if regression {
		s.row("nr_class", "none (regression)")
	} else {
		s.row("nr_class", strconv.Itoa(len(m.labels)))
		s.row("label", joinInt32s(m.labels))
	}
	s.row("nr_feature", commas(m.nf))
	bias := "none (" + fmtG(m.bias) + ")"
	if m.bias >= 0 {
		bias = fmtG(m.bias)
	}
	s.row("bias", bias)
	ovr := ""
	if m.solver.IsMultinomial() {
		ovr = " (multinomial, one per class)"
	} else if !regression && m.nrW > 1 {
		ovr = " (one-vs-rest)"
	}
	s.row("decision functions", strconv.Itoa(m.nrW)+ovr)
	s.row("weights", m.weights)
	switch {
	case regression:
	case m.solver.IsMultinomial():
		s.row("probability", "yes: softmax of the decision values")
	case m.solver.IsLogistic():
		s.row("probability", "yes: logistic, σ of each decision value (normalized one-vs-rest)")
	case len(m.probA) > 0:
		s.row("probability", fmt.Sprintf("yes: Platt, 1/(1+exp(A·d+B)) per decision function; A %s; B %s",
			joinG(m.probA), joinG(m.probB)))
	default:
		s.row("probability", "no (train with -b 1)")
	}
	s.row("created", createdText(m.created))
}

// joinG formats values to 4 significant digits, space-separated; the
// first 4 and a count when there are more.
func joinG(v []float64) string {
	var b strings.Builder
	for i, x := range v {
		if i == 4 {
			fmt.Fprintf(&b, " … (%d)", len(v))
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(x, 'g', 4, 64))
	}
	return b.String()
}

// kernelRows is what inspect shows of a kernel model, float or quantized:
// the two kinds differ only in how their support vectors are stored.
type kernelRows struct {
	svmType     core.SVMType
	kernel      core.Kernel
	labels      []int32 // C-SVC only
	numSV       []int32 // C-SVC only
	total       int     // total_sv
	nf          int     // nr_feature
	storage     string  // how the support vectors are stored
	rho         []float64
	probability bool
	probA       []float64
	created     int64
}

// add adds the model's rows: SVM type, kernel and the parameters it uses,
// classes, support vectors, rho, probability model and creation time.
func (m kernelRows) add(s *sheet, verbose bool) {
	s.row("svm_type", fmt.Sprintf("%v (-s %d)", m.svmType, int(m.svmType)))
	k := m.kernel
	s.row("kernel_type", fmt.Sprintf("%v (-t %d)", k.Type, int(k.Type)))
	degree, gamma, coef0 := kernelUses(k.Type)
	if degree {
		s.row("degree", strconv.Itoa(k.Degree))
	}
	if gamma {
		s.row("gamma", fmtG(k.Gamma))
	}
	if coef0 {
		s.row("coef0", fmtG(k.Coef0))
	}
	if m.svmType.IsSVC() {
		classRows(s, m.labels, m.numSV)
	}
	s.row("total_sv", commas(m.total))
	s.row("nr_feature", commas(m.nf))
	s.row("SV storage", m.storage)
	s.values("rho", m.rho, verbose)
	s.row("probability", probabilityText(m.probability, m.svmType, m.probA))
	s.row("created", createdText(m.created))
}

// kernelUses reports which of degree, gamma and coef0 a kernel of type t
// uses: the parameters LIBSVM's svm_save_model writes.
func kernelUses(t core.KernelType) (degree, gamma, coef0 bool) {
	return t == core.PolyKernel, t != core.LinearKernel, t == core.PolyKernel || t == core.SigmoidKernel
}

// costRows adds the options of SVM formulation t that a kernel model's
// training parameters and a quantized one's summary both keep: -c cost
// but for one-class and ν-SVC; -n nu for the ν formulations; -p epsilon
// for ε-SVR; -e epsilon.
func costRows(s *sheet, t core.SVMType, c, nu, p, eps float64) {
	if t != core.OneClass && t != core.NuSVC {
		s.row("-c cost", fmtG(c))
	}
	if t == core.OneClass || t == core.NuSVC || t == core.NuSVR {
		s.row("-n nu", fmtG(nu))
	}
	if t == core.EpsSVR {
		s.row("-p epsilon", fmtG(p))
	}
	s.row("-e epsilon", fmtG(eps))
}

// showLinear describes a linear model.
func showLinear(s *sheet, b []byte, verbose bool) error {
	m, err := modelfile.Unmarshal(b)
	if err != nil {
		return err
	}
	nrW, rows := m.NrW(), m.NumFeatures
	if m.Bias >= 0 {
		rows++
	}
	weights := fmt.Sprintf("%s float32 (%s rows × %d), %s B",
		commas(len(m.W)), commas(rows), nrW, commas(4*len(m.W)))
	if lay, err := modelfile.Layout(b); err == nil {
		stored := 0 // bytes of the sparse fields, when the file has them
		for _, f := range lay.Fields {
			if f.Key == "wi" || f.Key == "wx" {
				stored += f.Size
			}
		}
		if stored > 0 {
			nnz := 0
			for _, w := range m.W {
				if w != 0 {
					nnz++
				}
			}
			weights = fmt.Sprintf("%s float32 (%s rows × %d), %s nonzero (%.1f%%) stored sparse in %s B",
				commas(len(m.W)), commas(rows), nrW, commas(nnz), 100*float64(nnz)/float64(max(len(m.W), 1)), commas(stored))
		}
	}
	linearRows{
		solver: m.Solver, labels: m.Labels, nf: m.NumFeatures, bias: m.Bias, nrW: nrW,
		weights: weights, created: m.Created, probA: m.ProbA, probB: m.ProbB,
	}.add(s)
	scaleRows(s, m.Scale, verbose)

	p := m.Params
	s.section("training parameters")
	s.row("-s type", strconv.Itoa(int(p.Solver)))
	s.row("-c cost", fmtG(p.C))
	if p.Solver.IsRegression() {
		s.row("-p epsilon", fmtG(p.P))
		mode := " (relative to the gradient at 0)"
		if p.AbsoluteEps {
			mode = " (absolute)"
		}
		s.row("-e epsilon", fmtG(p.Eps)+mode)
	} else {
		s.row("-e epsilon", fmtG(p.Eps))
	}
	s.row("-B bias", fmtG(p.Bias))
	s.row("-wi weight", classWeightsText(p.Weights))
	if !p.Solver.IsRegression() {
		s.row("-b probability_estimates", boolDigit(p.Probability))
	}
	s.row("-seed", strconv.FormatUint(p.Seed, 10))
	s.row("-iter", strconv.Itoa(p.MaxIter))

	r := m.Result
	s.section("training result")
	if len(r.Subproblems) == 0 {
		s.row("result", "not recorded (imported models have none)")
	} else {
		s.row("iterations", strconv.Itoa(r.Iterations)+" (most outer passes of a subproblem)")
		s.row("updates", commas(r.Updates))
		s.row("dual objective", fmtObj(r.DualObjective))
		s.row("primal objective", fmtObj(r.PrimalObjective))
		s.row("duality gap", fmtGap(r.DualityGap))
		s.row("nSV", commas(r.NumSV))
		if len(r.Subproblems) == 1 {
			s.row("nBSV", commas(r.Subproblems[0].NumBoundSV))
		}
		s.row("converged", yesNo(r.Converged))
		if len(r.Subproblems) > 1 {
			cols := []column{
				{name: "iter", f: func(i int) float64 { return float64(r.Subproblems[i].Iterations) }, format: fmtCount},
				{name: "updates", f: func(i int) float64 { return float64(r.Subproblems[i].Updates) }, format: fmtCount},
				{name: "dual obj", f: func(i int) float64 { return r.Subproblems[i].DualObjective }, format: fmtObj},
				{name: "primal obj", f: func(i int) float64 { return r.Subproblems[i].PrimalObjective }, format: fmtObj},
				{name: "gap", f: func(i int) float64 { return r.Subproblems[i].DualityGap }, format: fmtGap},
				{name: "nSV", f: func(i int) float64 { return float64(r.Subproblems[i].NumSV) }, format: fmtCount},
				{name: "nBSV", f: func(i int) float64 { return float64(r.Subproblems[i].NumBoundSV) }, format: fmtCount},
			}
			s.subproblems("per class (one-vs-rest)", "label", len(r.Subproblems),
				func(i int) string { return strconv.Itoa(int(r.Subproblems[i].Label)) },
				func(i int) bool { return r.Subproblems[i].Converged }, cols, verbose)
		}
	}
	s.section("quantization")
	s.row("scheme", "none (float32 weights)")
	return nil
}

// showKernel describes a kernel model.
func showKernel(s *sheet, b []byte, verbose bool) error {
	m, err := modelfile.UnmarshalKernel(b)
	if err != nil {
		return err
	}
	kernelRows{
		svmType: m.SVMType, kernel: m.Kernel, labels: m.Labels, numSV: m.NumSV,
		total: m.SV.Len(), nf: m.NumFeatures, storage: svStorageText(m.SV, m.NumFeatures),
		rho: m.Rho, probability: m.HasProbability(), probA: m.ProbA, created: m.Created,
	}.add(s, verbose)
	scaleRows(s, m.Scale, verbose)

	p := m.Params
	s.section("training parameters")
	s.row("-s svm_type", strconv.Itoa(int(p.SVMType)))
	s.row("-t kernel_type", strconv.Itoa(int(p.Kernel.Type)))
	degree, gamma, coef0 := kernelUses(p.Kernel.Type)
	if degree {
		s.row("-d degree", strconv.Itoa(p.Kernel.Degree))
	}
	if gamma {
		g := fmtG(p.Kernel.Gamma)
		if p.Kernel.Gamma == 0 {
			g = "0 (default: 1/num_features)"
		}
		s.row("-g gamma", g)
	}
	if coef0 {
		s.row("-r coef0", fmtG(p.Kernel.Coef0))
	}
	costRows(s, p.SVMType, p.C, p.Nu, p.P, p.Eps)
	s.row("-m cachesize", fmtG(p.CacheMB)+" MB")
	s.row("-h shrinking", boolDigit(p.Shrinking))
	s.row("-b probability_estimates", boolDigit(p.Probability))
	if p.SVMType == core.CSVC {
		s.row("-wi weight", classWeightsText(p.Weights))
	}
	s.row("-seed", strconv.FormatUint(p.Seed, 10))
	iter := strconv.Itoa(p.MaxIter)
	if p.MaxIter == 0 {
		iter = "0 (LIBSVM's cap: max(10000000, 100·rows))"
	}
	s.row("-iter", iter)

	r := m.Result
	s.section("training result")
	if len(r.Subproblems) == 0 {
		s.row("result", "not recorded (imported models have none)")
	} else {
		s.row("iterations", commas(r.Iterations)+" (all subproblems)")
		s.row("kernel evaluations", commas(r.KernelEvals))
		s.row("objective", fmtObj(r.Objective)+" (summed)")
		s.row("nSV", commas(r.NumSV))
		s.row("nBSV", commas(r.NumBoundSV)+" (summed)")
		s.row("converged", yesNo(r.Converged))
		sub := r.Subproblems
		cols := []column{
			{name: "rows", f: func(i int) float64 { return float64(sub[i].Rows) }, format: fmtCount},
			{name: "iter", f: func(i int) float64 { return float64(sub[i].Iterations) }, format: fmtCount},
			{name: "kernel evals", f: func(i int) float64 { return float64(sub[i].KernelEvals) }, format: fmtCount},
			{name: "obj", f: func(i int) float64 { return sub[i].Objective }, format: fmtObj},
			{name: "rho", f: func(i int) float64 { return sub[i].Rho }, format: fmtRho},
			{name: "gap", f: func(i int) float64 { return sub[i].Gap }, format: fmtGap},
			{name: "nSV", f: func(i int) float64 { return float64(sub[i].NumSV) }, format: fmtCount},
			{name: "nBSV", f: func(i int) float64 { return float64(sub[i].NumBoundSV) }, format: fmtCount},
		}
		title, key := "per subproblem", "subproblem"
		name := func(int) string { return m.SVMType.String() }
		if m.SVMType.IsSVC() {
			title, key = "per class pair (one-vs-one)", "pair"
			name = func(i int) string { return fmt.Sprintf("%d vs %d", sub[i].Pos, sub[i].Neg) }
		}
		s.subproblems(title, key, len(sub), name, func(i int) bool { return sub[i].Converged }, cols, verbose)
	}
	s.section("quantization")
	s.row("scheme", "none (float32 support vectors, float64 coefficients)")
	return nil
}

// unmarshalQuantized decodes the quantized model file b, of the given
// kind, into the model type T that kind decodes to.
func unmarshalQuantized[T quantize.Model](b []byte, kind string) (T, error) {
	var m T
	q, err := quantize.Unmarshal(b)
	if err != nil {
		return m, err
	}
	m, ok := q.(T)
	if !ok {
		return m, fmt.Errorf("%w: a %s file decoded as %T", modelfile.ErrCorrupt, kind, q)
	}
	return m, nil
}

// sourceCRCRow adds a quantized model's last row: the float model it was
// made from.
func sourceCRCRow(s *sheet, crc uint32) {
	s.row("source CRC-32C", crcText(crc)+" (the float model file's payload CRC-32C)")
}

// showQLinear describes a quantized linear model.
func showQLinear(s *sheet, b []byte, verbose bool) error {
	m, err := unmarshalQuantized[*quantize.Linear](b, modelfile.KindQLinear)
	if err != nil {
		return err
	}
	nf, nrW := m.NumFeatures(), m.NumDecisionValues()
	weights := fmt.Sprintf("%s int%d codes (%s features × %d), %s B", commas(nf*nrW), m.Bits(),
		commas(nf), nrW, commas(nf*nrW*m.Bits()/8))
	if m.Bias() >= 0 {
		weights += fmt.Sprintf("; bias row: %d float32", nrW)
	}
	linearRows{
		solver: m.Solver(), labels: m.Labels(), nf: nf, bias: m.Bias(), nrW: nrW,
		weights: weights, created: m.Created(), probA: m.ProbA(), probB: m.ProbB(),
	}.add(s)
	scaleRows(s, m.Scale(), verbose)

	s.section("training")
	s.row("parameters, result", "not kept in a quantized linear file: the float model (payload CRC-32C "+
		crcText(m.SourceCRC())+") has them")

	s.section("quantization")
	qmax := 1<<(m.Bits()-1) - 1
	s.row("scheme", fmt.Sprintf("symmetric, one scale per decision function: w_jk ≈ s_k·q_jk, q_jk ∈ [%d, %d]", -qmax, qmax))
	s.row("bits", fmt.Sprintf("%d (int%d weight codes; the bias row stays float32)", m.Bits(), m.Bits()))
	scales := float32sTo64(m.Scales())
	s.values("scales s_k", scales, verbose)
	s.row("weight error", "at most s_k/2: "+fmtRho(slices.Max(scales)/2)+" for the largest scale")
	sourceCRCRow(s, m.SourceCRC())
	return nil
}

// showQKernel describes a quantized kernel model.
func showQKernel(s *sheet, b []byte, verbose bool) error {
	m, err := unmarshalQuantized[*quantize.Kernel](b, modelfile.KindQKernel)
	if err != nil {
		return err
	}
	t := m.SVMType()
	l, nf, bits := m.NumSupportVectors(), m.NumFeatures(), m.Bits()
	// Stored codes: every one in the dense layout; in the sparse layout
	// the nonzero ones, which are exactly the entries that decode to a
	// nonzero (quantize refuses a stored code that decodes to 0).
	codes := l * nf
	if !m.DenseLayout() {
		codes = 0
		sv := make([]float64, nf)
		for i := range l {
			for _, v := range m.SupportVector(sv, i) {
				if v != 0 {
					codes++
				}
			}
		}
	}
	storage := fmt.Sprintf("sparse, %s int%d codes with varint indices%s", commas(codes), bits, shareText(codes, l, nf))
	if m.DenseLayout() {
		storage = fmt.Sprintf("dense, %s int%d codes%s", commas(codes), bits, shareText(codes, l, nf))
	}
	kernelRows{
		svmType: t, kernel: m.KernelFunc(), labels: m.Labels(), numSV: m.NumSV(),
		total: l, nf: nf, storage: storage,
		rho: m.Rho(), probability: m.HasProbability(), probA: m.ProbA(), created: m.Created(),
	}.add(s, verbose)
	scaleRows(s, m.Scale(), verbose)

	sum := m.Summary()
	s.section("training summary")
	costRows(s, t, sum.C, sum.Nu, sum.P, sum.Eps)
	s.row("iterations", commas(sum.Iterations)+" (all subproblems)")
	s.row("objective", fmtObj(sum.Objective)+" (summed)")
	s.row("nBSV", commas(sum.NumBoundSV)+" (summed)")
	s.row("converged", yesNo(sum.Converged))
	s.row("other parameters", "the float model (payload CRC-32C "+crcText(m.SourceCRC())+") has every parameter and subproblem")

	s.section("quantization")
	lo, hi := -(1 << (bits - 1)), 1<<(bits-1)-1
	s.row("scheme", fmt.Sprintf("per-feature affine: sv_ij ≈ o_j + a_j·q_ij, q_ij ∈ [%d, %d]; zeros exact", lo, hi))
	s.row("bits", fmt.Sprintf("%d (int%d support vector codes; sv_coef int16)", bits, bits))
	a, o := make([]float64, nf), make([]float64, nf)
	constant := 0
	for j := range nf {
		aj, oj := m.FeatureScale(j)
		a[j], o[j] = float64(aj), oj
		if aj == 0 {
			constant++
		}
	}
	if nf > 0 {
		s.row("feature scales a_j", fmt.Sprintf("from %s to %s; %d of %s features constant (a_j = 0)",
			fmtRho(slices.Min(a)), fmtRho(slices.Max(a)), constant, commas(nf)))
		s.row("feature offsets o_j", fmt.Sprintf("from %s to %s", fmtRho(slices.Min(o)), fmtRho(slices.Max(o))))
		s.row("SV error", "at most a_j/2: "+fmtRho(slices.Max(a)/2)+" for the largest scale")
	}
	s.values("sv_coef scales σ_k", float32sTo64(m.CoefScales()), verbose)
	sourceCRCRow(s, m.SourceCRC())
	return nil
}

// float32sTo64 returns v converted to float64, exactly.
func float32sTo64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// probabilityText describes a kernel model's probability estimates.
func probabilityText(has bool, t core.SVMType, probA []float64) string {
	switch {
	case !has:
		return "no"
	case t.IsRegression():
		return "yes: Laplace noise, sigma = " + fmtG(probA[0])
	}
	return fmt.Sprintf("yes: Platt's sigmoid per class pair (probA, probB: %d each)", len(probA))
}

// classRows adds a C-SVC model's nr_class, label and nr_sv rows, label
// and nr_sv in columns so that each count sits under its label.
func classRows(s *sheet, labels, numSV []int32) {
	s.row("nr_class", strconv.Itoa(len(labels)))
	l, n := make([]string, len(labels)), make([]string, len(numSV))
	for i := range l {
		l[i], n[i] = strconv.Itoa(int(labels[i])), strconv.Itoa(int(numSV[i]))
		w := max(len(l[i]), len(n[i]))
		l[i], n[i] = pad(l[i], w), pad(n[i], w)
	}
	s.row("label", strings.Join(l, " "))
	s.row("nr_sv", strings.Join(n, " "))
}

// rhoPerLine is the most values (ρ, scales) printed on one line; without
// -v, a model with more prints their range.
const rhoPerLine = 9

// values adds the row name listing v with six significant digits: on one
// line when they fit, on as many as they need with verbose, else their
// number and range.
func (s *sheet) values(name string, v []float64, verbose bool) {
	switch {
	case len(v) <= rhoPerLine:
		s.row(name, joinFloats(v, fmtRho))
	case verbose:
		for i := 0; i < len(v); i += rhoPerLine {
			n := ""
			if i == 0 {
				n = name
			}
			s.row(n, joinFloats(v[i:min(i+rhoPerLine, len(v))], fmtRho))
		}
	default:
		s.row(name, fmt.Sprintf("%d values from %s to %s (-v lists them)",
			len(v), fmtRho(slices.Min(v)), fmtRho(slices.Max(v))))
	}
}

// svStorageText describes how the support vectors are stored: the layout
// the file holds, which the decoder keeps, and how many nonzeros there are.
func svStorageText(sv *data.Dataset, nf int) string {
	l := sv.Len()
	if l == 0 {
		return "none"
	}
	nnz := 0
	if sv.IsDense() {
		for i := range l {
			for _, v := range sv.DenseRow(i) {
				if v != 0 {
					nnz++
				}
			}
		}
	} else {
		nnz = sv.Nonzeros()
	}
	if sv.IsDense() {
		return fmt.Sprintf("dense, %s float32; %s nonzeros%s", commas(l*nf), commas(nnz), shareText(nnz, l, nf))
	}
	return fmt.Sprintf("sparse (CSR), %s nonzeros%s", commas(nnz), shareText(nnz, l, nf))
}

// shareText prints n stored values as a share of the l × nf matrix of
// support vectors (", 50.6% of 729 × 64"), or nothing for an empty one.
func shareText(n, l, nf int) string {
	cells := float64(l) * float64(nf)
	if cells == 0 {
		return ""
	}
	return fmt.Sprintf(", %.1f%% of %s × %s", 100*float64(n)/cells, commas(l), commas(nf))
}

// maxTableRows is the most subproblems listed one per row without -v; more
// (a 10-class one-vs-one model has 45) are summarised.
const maxTableRows = 12

// column is one numeric column of a subproblem table: its heading, its
// value in row i, and how to print a value.
type column struct {
	name   string
	f      func(i int) float64
	format func(float64) string
}

// subproblems adds a table of n subproblems, named by name(i) under the
// heading key: one row each when there are at most maxTableRows or with
// verbose, otherwise the minimum, median and maximum of each column, and
// the subproblems that did not converge.
func (s *sheet) subproblems(title, key string, n int, name func(int) string, converged func(int) bool, cols []column, verbose bool) {
	s.flush()
	s.line("")
	if n <= maxTableRows || verbose {
		s.line(title + ":")
		head := []string{key}
		for _, c := range cols {
			head = append(head, c.name)
		}
		head = append(head, "converged")
		rows := make([][]string, n)
		for i := range n {
			rows[i] = []string{name(i)}
			for _, c := range cols {
				rows[i] = append(rows[i], c.format(c.f(i)))
			}
			rows[i] = append(rows[i], yesNo(converged(i)))
		}
		s.table(head, rows, 1)
		return
	}
	s.line(fmt.Sprintf("%s, %d subproblems (-v lists them):", title, n))
	rows := make([][]string, len(cols))
	v := make([]float64, n)
	for j, c := range cols {
		for i := range v {
			v[i] = c.f(i)
		}
		slices.Sort(v)
		rows[j] = []string{c.name, c.format(v[0]), c.format(median(v)), c.format(v[n-1])}
	}
	s.table([]string{"", "min", "median", "max"}, rows, 1)
	var not []string
	for i := range n {
		if !converged(i) {
			not = append(not, name(i))
		}
	}
	if len(not) == 0 {
		s.row("not converged", "none")
	} else {
		s.row("not converged", strings.Join(not, ", "))
	}
}

// median returns the median of the sorted, non-empty v.
func median(v []float64) float64 {
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// sheet builds inspect's output: blocks of name/value rows whose values line
// up, section headings, and tables. The rows of a block are held until the
// block ends, so that the longest name sets the column.
type sheet struct {
	buf    bytes.Buffer
	rows   [][2]string
	indent string
}

// row adds a name/value row to the current block.
func (s *sheet) row(name, value string) { s.rows = append(s.rows, [2]string{name, value}) }

// flush prints the current block.
func (s *sheet) flush() {
	w := 0
	for _, r := range s.rows {
		w = max(w, len([]rune(r[0])))
	}
	for _, r := range s.rows {
		fmt.Fprintf(&s.buf, "%s%s  %s\n", s.indent, pad(r[0], -w), r[1])
	}
	s.rows = s.rows[:0]
}

// line prints text as one line at the current indent.
func (s *sheet) line(text string) {
	if text == "" {
		s.buf.WriteByte('\n')
		return
	}
	s.buf.WriteString(s.indent + text + "\n")
}

// section ends the current block and starts an indented one under title.
func (s *sheet) section(title string) {
	s.flush()
	s.indent = ""
	s.line("")
	s.line(title)
	s.indent = "  "
}

// table prints head (nil for none) and rows with aligned columns: the first
// left columns flush left, the others (numbers) flush right.
func (s *sheet) table(head []string, rows [][]string, left int) {
	s.flush()
	all := rows
	if head != nil {
		all = append([][]string{head}, rows...)
	}
	var width []int
	for _, r := range all {
		for j, c := range r {
			if j == len(width) {
				width = append(width, 0)
			}
			width[j] = max(width[j], len([]rune(c)))
		}
	}
	for _, r := range all {
		cells := make([]string, len(r))
		for j, c := range r {
			if j < left {
				cells[j] = pad(c, -width[j])
			} else {
				cells[j] = pad(c, width[j])
			}
		}
		s.line(strings.TrimRight(strings.Join(cells, "  "), " "))
	}
}

// pad pads text with spaces to w runes: on the left for w > 0, on the right
// for w < 0.
func pad(text string, w int) string {
	n := len([]rune(text))
	if w < 0 {
		return text + strings.Repeat(" ", max(0, -w-n))
	}
	return strings.Repeat(" ", max(0, w-n)) + text
}

// commas prints an integer with thousands separators: 1,234,567.
func commas[T int | int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, d := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// fmtG prints a parameter exactly, in the shortest form that reads back as
// the same float64.
func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// fmtObj prints an objective as svm-train and train do ("%f").
func fmtObj(v float64) string { return fmt.Sprintf("%f", v) }

// fmtRho prints ρ with six significant digits.
func fmtRho(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// fmtGap prints a duality gap or KKT violation with three significant
// digits: its order of magnitude is what matters.
func fmtGap(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// fmtCount prints a count held in a float64 column.
func fmtCount(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return commas(int64(v))
	}
	return strconv.FormatFloat(v, 'f', 1, 64) // a median between two counts
}

// joinInt32s prints v separated by spaces.
func joinInt32s(v []int32) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(int(x))
	}
	return strings.Join(s, " ")
}

// joinFloats prints v separated by spaces.
func joinFloats(v []float64, format func(float64) string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = format(x)
	}
	return strings.Join(s, " ")
}

// classWeightsText prints -wi weights as "label: weight" pairs.
func classWeightsText(w []core.ClassWeight) string {
	if len(w) == 0 {
		return "none"
	}
	s := make([]string, len(w))
	for i, cw := range w {
		s[i] = fmt.Sprintf("%d: %s", cw.Label, fmtG(cw.Weight))
	}
	return strings.Join(s, ", ")
}

// createdText prints a creation time in UTC, RFC 3339.
func createdText(unix int64) string {
	if unix == 0 {
		return "not recorded"
	}
	return time.Unix(unix, 0).UTC().Format(time.RFC3339)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// boolDigit prints a flag as svm-train's options take it.
func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// scaleRows adds the scaling section of a model trained with --scale: the
// ranges it applies to raw rows. A model without has no such section.
func scaleRows(s *sheet, r *scale.Ranges, verbose bool) {
	if r == nil {
		return
	}
	s.section("scaling")
	dropped := 0
	for j := range r.NumFeatures() {
		if r.Dropped(j) {
			dropped++
		}
	}
	s.row("scaling", fmt.Sprintf("features to [%s, %s] from their training ranges (train --scale)", fmtG(r.Lower), fmtG(r.Upper)))
	s.row("features", fmt.Sprintf("%s scaled, %s constant in training (scaled to 0)",
		commas(r.NumFeatures()-dropped), commas(dropped)))
	if !verbose {
		s.row("ranges", "-v lists them (as svm-scale's range file)")
		return
	}
	var rows [][]string
	for j := range r.NumFeatures() {
		if !r.Dropped(j) {
			rows = append(rows, []string{strconv.Itoa(j + 1), fmtG(r.Min[j]), fmtG(r.Max[j])})
		}
	}
	s.table([]string{"index", "min", "max"}, rows, 0)
}
