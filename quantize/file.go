package quantize

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// Model is a quantized model: a *Linear or a *Kernel. It is a core.Model,
// through which the C ABI, the model directory, the daemon and the command
// serve it as any other kind, plus what only quantized models have (code
// width, error bounds, the float model's CRC); a type switch reaches the
// rest (a kernel's probabilities, a linear model's scales).
type Model interface {
	core.Model
	// Kind is core.KindQLinear or core.KindQKernel.
	Kind() string
	Bits() int
	NumFeatures() int
	NumDecisionValues() int
	IsRegression() bool
	Labels() []int32
	ErrorBoundDense(dst []float64, x []float32) []float64
	ErrorBoundSparse(dst []float64, index []int32, value []float32) []float64
	SourceCRC() uint32
	Created() int64

	// marshal returns the model file bytes; unexported, so that Model has
	// no implementations outside this package.
	marshal() ([]byte, error)
}

// maxBin is the longest msgpack bin (bin32) the bodies' blobs can be.
const maxBin = math.MaxUint32

// Marshal returns the model file bytes of m: modelfile's frame (format
// 1.2) around the msgpack body of its kind (see the package
// documentation for the keys). The output depends only on m: the same
// model always gives the same bytes, and Unmarshal returns a model that
// marshals to them again. It returns an error, and no bytes, for a nil
// model or one past the format's limits (a blob past 4 GiB, a payload
// past modelfile.MaxPayload). It is safe for concurrent use. It is the
// quantized kinds' encoder in modelfile's one codec (modelfile.Encode).
func Marshal(m Model) ([]byte, error) {
	if m == nil || reflect.ValueOf(m).IsNil() {
		return nil, errors.New("quantize: marshal: nil model")
	}
	out, err := m.marshal()
	if err != nil {
		return nil, fmt.Errorf("quantize: marshal: %w", err)
	}
	return out, nil
}

// Unmarshal decodes a quantized model file, returning a *Linear or a
// *Kernel: modelfile.Decode, which reads every kind, refusing a float
// model with ErrKind. It never panics, whatever b holds, allocates in
// proportion to len(b), and refuses anything that is not a valid quantized
// model file with an error wrapping exactly one of modelfile's sentinels:
// ErrNotModel, ErrVersion, ErrTruncated, ErrChecksum (the frame, as
// modelfile.Open checks it), ErrKind (a valid float model file) or
// ErrCorrupt (a body that does not decode, or whose fields disagree: bits
// other than 8 or 16, an unknown solver, SVM type or kernel, blob lengths
// that do not match the sizes, scales that are NaN, infinite or negative,
// codes out of range or not zero under a zero scale, labels repeated or
// inconsistent with the support vector counts, sparse indices out of order
// or past the features, non-finite ρ or probability parameters). The model
// shares no memory with b.
func Unmarshal(b []byte) (Model, error) {
	m, err := modelfile.Decode(b)
	if err != nil {
		return nil, err
	}
	q, ok := m.(Model)
	if !ok {
		return nil, fmt.Errorf("%w: a %s model, want a quantized one", modelfile.ErrKind, m.Info().Kind)
	}
	return q, nil
}

// The quantized kinds' entries in modelfile's one codec: every program
// that imports this package opens and writes them through
// modelfile.Decode, Encode, ReadFile and WriteFile.
func init() {
	encode := func(m core.Model) ([]byte, error) {
		q, ok := m.(Model)
		if !ok {
			return nil, fmt.Errorf("quantize: marshal: a %T is not a quantized model", m)
		}
		return Marshal(q)
	}
	modelfile.Register(modelfile.Codec{
		Kind: core.KindQLinear, Minor: modelfile.MinorQuantized, Body: &modelfile.QLinearBody{}, Encode: encode,
		Decode: func(payload []byte) (core.Model, error) { return modelfile.DecodeAs(payload, fromLinearBody) },
	})
	modelfile.Register(modelfile.Codec{
		Kind: core.KindQKernel, Minor: modelfile.MinorQuantized, Body: &modelfile.QKernelBody{}, Encode: encode,
		Decode: func(payload []byte) (core.Model, error) { return modelfile.DecodeAs(payload, fromKernelBody) },
	})
}

// ---- encoding ----

func (m *Linear) marshal() ([]byte, error) {
	bd := &modelfile.QLinearBody{
		Kind:        modelfile.KindQLinear,
		Bits:        int64(m.bits),
		Solver:      int64(m.solver),
		NumFeatures: int64(m.nf),
		Labels:      m.labels,
		Scales:      modelfile.Float32Blob(m.scale),
		SourceCRC:   m.sourceCRC,
		Created:     m.created,
		ProbA:       modelfile.Float64Blob(m.probA),
		ProbB:       modelfile.Float64Blob(m.probB),
		Scale:       modelfile.NewScaleBody(m.Scale()),
	}
	bd.Kind = modelfile.BodyKind(bd.Kind, bd.Scale)
	if m.bias >= 0 {
		bias := m.bias
		bd.Bias = &bias
		bd.BiasW = modelfile.Float32Blob(m.biasW)
	}
	n := m.nf * m.nrW
	if uint64(n)*uint64(m.bits/8) > maxBin {
		return nil, fmt.Errorf("%d weights need a blob past 4 GiB", n)
	}
	cb := m.bits / 8
	nonzero := func(j, k int) bool { return m.code(j, k) != 0 }
	if wi, nnz := modelfile.SparseIndex(m.nf, m.nrW, nonzero); len(wi)+nnz*cb < n*cb &&
		4*n <= modelfile.MaxSparseExpansion*(len(wi)+nnz*cb) {
		// Sparse codes (an L1-regularized model's): the listed codes in
		// the index stream's order, function by function.
		bd.WI, bd.W = wi, make([]byte, nnz*cb)
		p := 0
		for k := range m.nrW {
			for j := range m.nf {
				if c := m.code(j, k); c != 0 {
					putCode(bd.W, p, m.bits, c)
					p++
				}
			}
		}
		return modelfile.MarshalQLinear(bd)
	}
	bd.W = make([]byte, n*cb)
	for p := range n {
		putCode(bd.W, p, m.bits, m.code(p/m.nrW, p%m.nrW))
	}
	return modelfile.MarshalQLinear(bd)
}

func (m *Kernel) marshal() ([]byte, error) {
	l, nf := m.l, m.nf
	bd := &modelfile.QKernelBody{
		Kind:        modelfile.KindQKernel,
		Bits:        int64(m.bits),
		SVMType:     int64(m.svmType),
		KernelType:  int64(m.kernel.Type),
		Degree:      int64(m.kernel.Degree),
		Gamma:       m.kernel.Gamma,
		Coef0:       m.kernel.Coef0,
		NumFeatures: int64(nf),
		Labels:      m.labels,
		NumSV:       m.numSV,
		SVRows:      int64(l),
		FScale:      modelfile.Float32Blob(m.fa),
		FOffset:     modelfile.Float64Blob(m.fo),
		SVDense:     m.dense,
		CoefScale:   modelfile.Float32Blob(m.coefScale),
		Rho:         modelfile.Float64Blob(m.rho),
		ProbA:       modelfile.Float64Blob(m.probA),
		ProbB:       modelfile.Float64Blob(m.probB),
		Summary: modelfile.QKernelSummary{
			C: m.summary.C, Nu: m.summary.Nu, P: m.summary.P, Eps: m.summary.Eps,
			Iterations: int64(m.summary.Iterations), Objective: m.summary.Objective,
			NumBoundSV: int64(m.summary.NumBoundSV), Converged: m.summary.Converged,
		},
		SourceCRC: m.sourceCRC,
		Created:   m.created,
		Scale:     modelfile.NewScaleBody(m.Scale()),
	}
	bd.Kind = modelfile.BodyKind(bd.Kind, bd.Scale)
	cb := m.bits / 8
	if uint64(len(m.coef))*2 > maxBin || uint64(len(m.rho))*8 > maxBin || uint64(nf)*8 > maxBin {
		return nil, fmt.Errorf("%d coefficients or %d features need a blob past 4 GiB", len(m.coef), nf)
	}
	bd.Coef = make([]byte, 2*len(m.coef))
	for p, c := range m.coef {
		var code int32
		if s := m.coefScale[p/l]; s != 0 {
			code = int32(math.Round(c / float64(s))) // exact: c is s·code
		}
		putCode(bd.Coef, p, 16, code)
	}
	if m.dense {
		if uint64(l)*uint64(nf)*uint64(cb) > maxBin {
			return nil, fmt.Errorf("%d support vectors of %d features need a blob past 4 GiB", l, nf)
		}
		bd.SVCodes = make([]byte, l*nf*cb)
		for j := range nf {
			for i := range l {
				putCode(bd.SVCodes, i*nf+j, m.bits, m.denseCode(j*l+i))
			}
		}
		return modelfile.MarshalQKernel(bd)
	}
	// Sparse: the columns' entries by row, indices increasing.
	entries := len(m.colRow)
	if uint64(entries)*uint64(cb) > maxBin {
		return nil, fmt.Errorf("%d support vector entries need a blob past 4 GiB", entries)
	}
	rowStart := make([]int, l+1)
	for _, i := range m.colRow {
		rowStart[i+1]++
	}
	for i := range l {
		rowStart[i+1] += rowStart[i]
	}
	next := append([]int(nil), rowStart[:l]...)
	feature := make([]int32, entries)
	codes := make([]int32, entries)
	for j := range nf {
		z, _ := zeroPoint(m.fa[j], m.fo[j], m.bits)
		for p := m.colStart[j]; p < m.colStart[j+1]; p++ {
			i := m.colRow[p]
			feature[next[i]], codes[next[i]] = int32(j), m.sparseCode(p)+z
			next[i]++
		}
	}
	bd.SVCodes = make([]byte, entries*cb)
	for p, c := range codes {
		putCode(bd.SVCodes, p, m.bits, c)
	}
	idx := make([]byte, 0, l+entries)
	for i := range l {
		idx = binary.AppendUvarint(idx, uint64(rowStart[i+1]-rowStart[i]))
		prev := int64(-1)
		for _, j := range feature[rowStart[i]:rowStart[i+1]] {
			idx = binary.AppendUvarint(idx, uint64(int64(j)-prev))
			prev = int64(j)
		}
	}
	if uint64(len(idx)) > maxBin {
		return nil, fmt.Errorf("sparse index of %d bytes needs a blob past 4 GiB", len(idx))
	}
	bd.SVIndex = idx
	return modelfile.MarshalQKernel(bd)
}

// putCode writes code p of a blob of bits-bit little-endian codes.
func putCode(b []byte, p, bits int, c int32) {
	if bits == 8 {
		b[p] = byte(int8(c))
		return
	}
	binary.LittleEndian.PutUint16(b[2*p:], uint16(int16(c)))
}

// getCode reads code p of a blob of bits-bit little-endian codes.
func getCode(b []byte, p, bits int) int32 {
	if bits == 8 {
		return int32(int8(b[p]))
	}
	return int32(int16(binary.LittleEndian.Uint16(b[2*p:])))
}

// ---- decoding ----

// float32s decodes want float32 from b, refusing another length and, with
// scale set, values that are not finite and ≥ 0.
func float32s(name string, b []byte, want int, scale bool) ([]float32, error) {
	if uint64(len(b)) != 4*uint64(want) {
		return nil, fmt.Errorf("%s blob of %d bytes, want %d float32", name, len(b), want)
	}
	v := make([]float32, want)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		f := float64(v[i])
		if math.IsNaN(f) || math.IsInf(f, 0) || (scale && f < 0) {
			return nil, fmt.Errorf("%s %d is %v, want a finite value%s", name, i, v[i], map[bool]string{true: " >= 0"}[scale])
		}
	}
	return v, nil
}

// float64s decodes want finite float64 from b (nil for want = 0).
func float64s(name string, b []byte, want int) ([]float64, error) {
	if uint64(len(b)) != 8*uint64(want) {
		return nil, fmt.Errorf("%s blob of %d bytes, want %d float64", name, len(b), want)
	}
	if want == 0 {
		return nil, nil
	}
	v := make([]float64, want)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		if math.IsNaN(v[i]) || math.IsInf(v[i], 0) {
			return nil, fmt.Errorf("%s %d is %v, want a finite value", name, i, v[i])
		}
	}
	return v, nil
}

// checkCounts reports sizes outside the format's ranges.
func checkCounts(bits, nf int64) error {
	switch {
	case bits != 8 && bits != 16:
		return fmt.Errorf("%d bits, want 8 or 16", bits)
	case nf < 0 || nf > math.MaxInt32:
		return fmt.Errorf("feature count %d outside 0..%d", nf, math.MaxInt32)
	}
	return nil
}

// uniqueLabels reports a repeated label; it sorts a copy, so a file's
// 65536 labels cost n·log n, not n².
func uniqueLabels(labels []int32) error {
	s := slices.Clone(labels)
	slices.Sort(s)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return fmt.Errorf("label %d repeated", s[i])
		}
	}
	return nil
}

func fromLinearBody(bd *modelfile.QLinearBody) (*Linear, error) {
	if err := checkCounts(bd.Bits, bd.NumFeatures); err != nil {
		return nil, err
	}
	if bd.Solver < 0 || bd.Solver > math.MaxInt32 {
		return nil, fmt.Errorf("unknown solver %d", bd.Solver)
	}
	bits, nf := int(bd.Bits), int(bd.NumFeatures)
	labels := cloneInt32(bd.Labels)
	// A weightless model tells core's checks of the solver and labels
	// without allocating weights.
	skeleton := &linear.LinearModel{Solver: linear.LinearSolver(bd.Solver), Labels: labels, Bias: -1}
	if err := skeleton.Validate(); err != nil {
		return nil, err
	}
	nrW := skeleton.NrW()
	scale, err := float32s("scale", bd.Scales, nrW, true)
	if err != nil {
		return nil, err
	}
	cb := uint64(bits / 8)
	_, qmax := codeRange(bits)
	var codes []int32
	if len(bd.WI) > 0 {
		if codes, err = sparseWeightCodes(bd, nf, nrW, scale); err != nil {
			return nil, err
		}
	} else {
		if uint64(len(bd.W)) != uint64(nf)*uint64(nrW)*cb {
			return nil, fmt.Errorf("weight blob of %d bytes, want %d features × %d functions × %d bytes",
				len(bd.W), nf, nrW, cb)
		}
		codes = make([]int32, nf*nrW)
		for p := range codes {
			c := getCode(bd.W, p, bits)
			k := p % nrW
			if c < -qmax || (scale[k] == 0 && c != 0) {
				return nil, fmt.Errorf("weight code %d of feature %d, function %d, with scale %v", c, p/nrW, k, scale[k])
			}
			codes[p] = c
		}
	}
	bias := -1.0
	var biasW []float32
	switch {
	case bd.Bias == nil && len(bd.BiasW) != 0:
		return nil, fmt.Errorf("bias weights without a bias")
	case bd.Bias != nil:
		if b := *bd.Bias; !(b >= 0) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("bias %v, want a finite value >= 0 (none is written as no b)", b)
		}
		bias = *bd.Bias
		if biasW, err = float32s("bias weight", bd.BiasW, nrW, false); err != nil {
			return nil, err
		}
	}
	ranges, err := modelfile.ScaleRanges(bd.Kind, bd.Scale, nf)
	if err != nil {
		return nil, err
	}
	var probA, probB []float64
	if len(bd.ProbA) != 0 || len(bd.ProbB) != 0 {
		if probA, err = float64s("Platt A", bd.ProbA, nrW); err != nil {
			return nil, err
		}
		if probB, err = float64s("Platt B", bd.ProbB, nrW); err != nil {
			return nil, err
		}
		if err := linear.CheckLinearPlatt(skeleton.Solver, nrW, probA, probB); err != nil {
			return nil, err
		}
	}
	m := newLinear(bits, skeleton.Solver, labels, nf, bias, scale, codes, biasW)
	m.sourceCRC, m.created = bd.SourceCRC, bd.Created
	m.probA, m.probB = probA, probB
	return m.withScale(ranges)
}

// sparseWeightCodes expands the sparse codes of bd (WI listing the codes W
// holds) to the dense feature-major codes, refusing what fromLinearBody
// refuses of dense ones, a malformed index stream, a zero code listed, and
// an expansion past modelfile.MaxSparseExpansion.
func sparseWeightCodes(bd *modelfile.QLinearBody, nf, nrW int, scale []float32) ([]int32, error) {
	bits := int(bd.Bits)
	cb := bits / 8
	if len(bd.W)%cb != 0 {
		return nil, fmt.Errorf("sparse code blob of %d bytes is not a whole number of codes", len(bd.W))
	}
	if uint64(nf)*uint64(nrW)*4 > modelfile.MaxSparseExpansion*uint64(len(bd.WI)+len(bd.W)) {
		return nil, fmt.Errorf("sparse codes of %d bytes expand past %d times as many", len(bd.WI)+len(bd.W), modelfile.MaxSparseExpansion)
	}
	_, qmax := codeRange(bits)
	codes := make([]int32, nf*nrW)
	p := 0
	var bad error
	n, err := modelfile.WalkSparseIndex(bd.WI, nf, nrW, len(bd.W)/cb, func(j, k int) {
		c := getCode(bd.W, p, bits)
		p++
		if bad == nil && (c < -qmax || c == 0 || scale[k] == 0) {
			bad = fmt.Errorf("weight code %d of feature %d, function %d, with scale %v", c, j, k, scale[k])
		}
		codes[j*nrW+k] = c
	})
	switch {
	case err != nil:
		return nil, err
	case bad != nil:
		return nil, bad
	case n != len(bd.W)/cb:
		return nil, fmt.Errorf("sparse codes: %d listed, %d stored", n, len(bd.W)/cb)
	}
	return codes, nil
}

func fromKernelBody(bd *modelfile.QKernelBody) (*Kernel, error) {
	if err := checkCounts(bd.Bits, bd.NumFeatures); err != nil {
		return nil, err
	}
	switch {
	case bd.SVRows < 0 || bd.SVRows > math.MaxInt32:
		return nil, fmt.Errorf("support vector count %d outside 0..%d", bd.SVRows, math.MaxInt32)
	case bd.Degree < 0 || bd.Degree > math.MaxInt32:
		return nil, fmt.Errorf("kernel degree %d outside 0..%d", bd.Degree, math.MaxInt32)
	case bd.KernelType < 0 || bd.KernelType > math.MaxInt32:
		return nil, fmt.Errorf("unknown kernel type %d", bd.KernelType)
	}
	p := &kernelParts{
		bits: int(bd.Bits), nf: int(bd.NumFeatures), l: int(bd.SVRows), dense: bd.SVDense,
		kernel: core.Kernel{Type: core.KernelType(bd.KernelType), Degree: int(bd.Degree),
			Gamma: bd.Gamma, Coef0: bd.Coef0},
		labels: cloneInt32(bd.Labels), numSV: cloneInt32(bd.NumSV),
		summary: TrainSummary{C: bd.Summary.C, Nu: bd.Summary.Nu, P: bd.Summary.P, Eps: bd.Summary.Eps,
			Iterations: int(bd.Summary.Iterations), Objective: bd.Summary.Objective,
			NumBoundSV: int(bd.Summary.NumBoundSV), Converged: bd.Summary.Converged},
		sourceCRC: bd.SourceCRC, created: bd.Created,
	}
	if int64(p.summary.Iterations) != bd.Summary.Iterations || int64(p.summary.NumBoundSV) != bd.Summary.NumBoundSV {
		return nil, fmt.Errorf("summary counts %d, %d do not fit an int", bd.Summary.Iterations, bd.Summary.NumBoundSV)
	}
	if err := p.kernel.Validate(); err != nil {
		return nil, err
	}
	switch t := core.SVMType(bd.SVMType); {
	case bd.SVMType == int64(t) && (t.IsSVC() || t == core.OneClass || t.IsRegression()):
		p.svmType = t
	default:
		return nil, fmt.Errorf("unknown SVM type %d", bd.SVMType)
	}
	l, nf := p.l, p.nf
	nr, nDec := 2, 1
	if p.svmType.IsSVC() {
		nr = len(p.labels)
		if nr < 2 {
			return nil, fmt.Errorf("%v model with %d classes, want at least 2", p.svmType, nr)
		}
		if err := uniqueLabels(p.labels); err != nil {
			return nil, err
		}
		if len(p.numSV) != nr {
			return nil, fmt.Errorf("%d support vector counts for %d classes", len(p.numSV), nr)
		}
		var total int64
		for c, n := range p.numSV {
			if n < 0 {
				return nil, fmt.Errorf("negative support vector count %d of class %d", n, p.labels[c])
			}
			total += int64(n)
		}
		if total != int64(l) {
			return nil, fmt.Errorf("support vector counts add up to %d, the model has %d", total, l)
		}
		nDec = nr * (nr - 1) / 2
	} else if len(p.labels) != 0 || len(p.numSV) != 0 {
		return nil, fmt.Errorf("%v model with %d labels and %d class counts, want none", p.svmType, len(p.labels), len(p.numSV))
	}
	var err error
	// ρ takes 8 bytes a pair, so checking it first bounds the pair count
	// (and the scratch it sizes) by the input.
	if p.rho, err = float64s("rho", bd.Rho, nDec); err != nil {
		return nil, err
	}
	rows := nr - 1
	if p.coefScale, err = float32s("coefficient scale", bd.CoefScale, rows, true); err != nil {
		return nil, err
	}
	if uint64(len(bd.Coef)) != 2*uint64(rows)*uint64(l) {
		return nil, fmt.Errorf("coefficient blob of %d bytes, want %d rows × %d support vectors × 2 bytes", len(bd.Coef), rows, l)
	}
	p.coefCodes = make([]int32, rows*l)
	for q := range p.coefCodes {
		c := getCode(bd.Coef, q, 16)
		if c < -math.MaxInt16 || (p.coefScale[q/l] == 0 && c != 0) {
			return nil, fmt.Errorf("coefficient code %d in row %d with scale %v", c, q/l, p.coefScale[q/l])
		}
		p.coefCodes[q] = c
	}
	if err := probability(p, bd, nDec); err != nil {
		return nil, err
	}
	if p.fa, err = float32s("feature scale", bd.FScale, nf, true); err != nil {
		return nil, err
	}
	if p.fo, err = float64s("feature offset", bd.FOffset, nf); err != nil {
		return nil, err
	}
	if p.fo == nil {
		p.fo = []float64{}
	}
	if p.dense {
		err = denseCodes(p, bd)
	} else {
		err = sparseCodes(p, bd)
	}
	if err != nil {
		return nil, err
	}
	ranges, err := modelfile.ScaleRanges(bd.Kind, bd.Scale, nf)
	if err != nil {
		return nil, err
	}
	return newKernel(p).withScale(ranges)
}

// probability decodes the probability parameters, with core's rules:
// C-SVC none or one A and B per pair, ε-SVR none or one A, one-class none.
func probability(p *kernelParts, bd *modelfile.QKernelBody, nDec int) error {
	na, nb := 0, 0 // the counts the blobs must hold
	switch {
	case p.svmType.IsSVC() && (len(bd.ProbA) != 0 || len(bd.ProbB) != 0):
		na, nb = nDec, nDec
	case p.svmType.IsRegression() && len(bd.ProbA) != 0:
		na = 1
	}
	var err error
	if p.probA, err = float64s("probA", bd.ProbA, na); err != nil {
		return err
	}
	p.probB, err = float64s("probB", bd.ProbB, nb)
	return err
}

// denseCodes decodes the dense layout into columns.
func denseCodes(p *kernelParts, bd *modelfile.QKernelBody) error {
	l, nf, bits := p.l, p.nf, p.bits
	if len(bd.SVIndex) != 0 {
		return errors.New("dense support vectors with a sparse index")
	}
	if uint64(len(bd.SVCodes)) != uint64(l)*uint64(nf)*uint64(bits/8) {
		return fmt.Errorf("support vector blob of %d bytes, want %d × %d codes of %d bits", len(bd.SVCodes), l, nf, bits)
	}
	p.codes = make([]int32, l*nf)
	for i := range l {
		for j := range nf {
			c := getCode(bd.SVCodes, i*nf+j, bits)
			if p.fa[j] == 0 && c != 0 {
				return fmt.Errorf("support vector %d: code %d of feature %d, whose scale is 0", i, c, j)
			}
			p.codes[j*l+i] = c
		}
	}
	return nil
}

// sparseCodes decodes the sparse layout into columns of centred codes.
func sparseCodes(p *kernelParts, bd *modelfile.QKernelBody) error {
	l, nf, bits := p.l, p.nf, p.bits
	cb := bits / 8
	if len(bd.SVCodes)%cb != 0 {
		return fmt.Errorf("support vector blob of %d bytes is not a whole number of %d-bit codes", len(bd.SVCodes), bits)
	}
	entries := len(bd.SVCodes) / cb
	zero := make([]int32, nf)
	for j := range nf {
		z, ok := zeroPoint(p.fa[j], p.fo[j], bits)
		if !ok {
			return fmt.Errorf("feature %d: offset %v is not −%v times an integer zero point", j, p.fo[j], p.fa[j])
		}
		zero[j] = z
	}
	feature := make([]int32, entries)
	rowOf := make([]int32, entries)
	count := make([]int, nf+1)
	b := bd.SVIndex
	e := 0
	for i := range l {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(entries-e) {
			return fmt.Errorf("support vector %d: bad entry count in the sparse index", i)
		}
		b = b[k:]
		prev := int64(-1)
		for range n {
			gap, k := binary.Uvarint(b)
			if k <= 0 || gap == 0 || gap > uint64(nf) || prev+int64(gap) >= int64(nf) {
				return fmt.Errorf("support vector %d: sparse index gap after feature %d is zero, malformed or past the %d features", i, prev, nf)
			}
			b = b[k:]
			prev += int64(gap)
			j := int32(prev)
			c := getCode(bd.SVCodes, e, bits)
			if c == zero[j] || p.fa[j] == 0 {
				return fmt.Errorf("support vector %d: stored code %d of feature %d decodes to 0", i, c, j)
			}
			feature[e], rowOf[e] = j, int32(i)
			count[j+1]++
			e++
		}
	}
	if len(b) != 0 || e != entries {
		return fmt.Errorf("sparse index lists %d entries and leaves %d bytes, the blob holds %d codes", e, len(b), entries)
	}
	for j := range nf {
		count[j+1] += count[j]
	}
	p.colStart = count
	p.colRow = make([]int32, entries)
	p.codes = make([]int32, entries)
	next := append([]int(nil), count[:nf]...)
	for q, j := range feature {
		p.colRow[next[j]] = rowOf[q]
		p.codes[next[j]] = getCode(bd.SVCodes, q, bits) - zero[j]
		next[j]++
	}
	return nil
}
