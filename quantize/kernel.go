package quantize

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/rowscale"
)

// Kernel is a kernel SVM with quantized support vectors and coefficients:
// support vector i's feature j is o_j + a_j·q_ij, with a float32 scale
// a_j ≥ 0 and a float64 offset o_j per feature and int8 or int16 codes
// q_ij (the affine scheme of the package documentation); each row k of
// LIBSVM's sv_coef is σ_k·p_ki with a float32 scale σ_k and int16 codes.
// ρ and the probability parameters stay float64. It predicts as the
// core.KernelModel it was made from does, with core's voting, tie rule and
// probability code, up to the error ErrorBoundDense and ErrorBoundSparse
// bound.
//
// A Kernel is immutable; its methods are safe for concurrent use.
type Kernel struct {
	bits    int
	svmType core.SVMType
	kernel  core.Kernel
	nf      int
	labels  []int32
	numSV   []int32
	l       int
	start   []int // C-SVC: class c's support vectors are start[c]..start[c+1]-1

	fa []float32 // a_j
	fo []float64 // o_j

	// The codes, held by feature (column-major) for the predictors, which
	// add x_j times column j to every support vector's dot product.
	dense bool
	// dense layout: col8 or col16[j*l+i] = q_ij.
	col8  []int8
	col16 []int16
	// sparse layout: column j's entries are colStart[j]..colStart[j+1]-1,
	// support vector colRow[p] with centred code r = q − z_j in colR8
	// (8-bit codes: r in [−255, 255]) or colR16 (16-bit).
	colStart []int
	colRow   []int32
	colR8    []int16
	colR16   []int32
	maxCode  int64 // largest |code| the accumulation multiplies

	coefScale []float32 // σ_k
	coef      []float64 // σ_k·p_ki, exact: LIBSVM's sv_coef layout
	rho       []float64
	probA     []float64
	probB     []float64
	ss        []float64 // RBF: ‖sv'_i‖² of the decoded support vectors
	g         []float64 // Σ_j (a_j/2)·|sv'_ij|, for the error bound

	summary   TrainSummary
	sourceCRC uint32
	created   int64

	scratch int              // float64 scratch entries a prediction needs
	pool    sync.Pool        // *kernelScratch
	blk     *kernelBlocks    // blocked batch prediction (kernelblock.go), or nil
	sc      *rowscale.Scaled // the model's scaling (scaled.go), nil for none
}

// TrainSummary is what a quantized kernel model keeps of its float model's
// training parameters and result: enough for a report, a few dozen bytes
// (the float model's file holds one result per class pair, too much for
// the size a quantized file must keep). Find the float model by
// SourceCRC for the rest.
type TrainSummary struct {
	// C, Nu, P and Eps are core.KernelParams' C, Nu, P and Eps.
	C, Nu, P, Eps float64
	// Iterations, Objective, NumBoundSV and Converged are
	// core.KernelTrainResult's.
	Iterations int
	Objective  float64
	NumBoundSV int
	Converged  bool
}

// QuantizeKernel returns m with its support vectors quantized to bits-bit
// codes (8 or 16) by the per-feature affine scheme, and its sv_coef to
// int16 codes with one symmetric scale per row:
//
//	a_j = (hi_j − lo_j)/(2^bits − 1),  q_ij = round((sv_ij − o_j)/a_j),
//	σ_k = max_i |c_ki| / 32767,        p_ki = round(c_ki/σ_k),
//
// where [lo_j, hi_j] is the range of feature j over the support vectors,
// widened to include 0, with o_j = −a_j·z_j for an integer zero point z_j,
// when the feature has a zero (so zeros stay exact), and o_j = lo_j +
// 2^(bits−1)·a_j otherwise. Every support vector value is then within a_j/2
// of its decoded value and every coefficient within σ_k/2. The support
// vectors are stored dense, or sparse when that is smaller (in which case
// every feature's range includes 0). The result records m's SVM type,
// kernel, features, labels, support vector counts, ρ, probability
// parameters, a TrainSummary, the CRC-32C of m's model file payload and
// m's creation time. It returns an error for bits other than 8 and 16 and
// for a model modelfile.MarshalKernel refuses. It does not modify m.
func QuantizeKernel(m *core.KernelModel, bits int) (*Kernel, error) {
	if err := checkBits(bits); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("quantize: nil kernel model")
	}
	file, err := modelfile.MarshalKernel(m) // validates m; its CRC is the provenance
	if err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	l, nf := m.SV.Len(), m.NumFeatures
	src := transpose(m.SV, nf)

	// Per feature: the range of the nonzeros, and whether a zero occurs.
	lo := make([]float64, nf)
	hi := make([]float64, nf)
	for j := range nf {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
		for _, v := range src.val[src.start[j]:src.start[j+1]] {
			lo[j], hi[j] = min(lo[j], float64(v)), max(hi[j], float64(v))
		}
		if src.start[j] == src.start[j+1] {
			lo[j], hi[j] = 0, 0
		}
	}
	dense := denseIsSmaller(m.SV, nf, bits)

	p := kernelParts{
		bits: bits, svmType: m.SVMType, kernel: m.Kernel, nf: nf, l: l,
		labels: cloneInt32(m.Labels), numSV: cloneInt32(m.NumSV),
		fa: make([]float32, nf), fo: make([]float64, nf), dense: dense,
		rho: cloneFloat64(m.Rho), probA: cloneFloat64(m.ProbA), probB: cloneFloat64(m.ProbB),
	}
	// The entries of column j as (row, code) pairs: dense holds every
	// code, sparse the nonzero ones.
	if dense {
		p.codes = make([]int32, nf*l)
	} else {
		p.colStart = make([]int, nf+1)
	}
	for j := range nf {
		hasZero := src.start[j+1]-src.start[j] < l || !dense
		rows := src.row[src.start[j]:src.start[j+1]]
		vals := src.val[src.start[j]:src.start[j+1]]
		a, o, codes := quantizeFeature(lo[j], hi[j], hasZero, vals, bits)
		p.fa[j], p.fo[j] = a, o
		if dense {
			z, _ := zeroPoint(a, o, bits) // every row not listed is a zero
			col := p.codes[j*l : j*l+l]
			if !hasZero {
				z = 0 // no zeros to fill
			}
			for i := range col {
				col[i] = z
			}
			for k, i := range rows {
				col[i] = codes[k]
			}
		} else {
			z, ok := zeroPoint(a, o, bits)
			if !ok {
				panic("quantize: sparse feature without a zero point") // affineFeature made one
			}
			for k, i := range rows {
				if codes[k] != z { // a value that rounds to zero is not stored
					p.colRow = append(p.colRow, i)
					p.codes = append(p.codes, codes[k]-z)
				}
			}
			p.colStart[j+1] = len(p.colRow)
		}
	}

	rows := m.NumClasses() - 1 // of sv_coef
	p.coefScale = make([]float32, rows)
	p.coefCodes = make([]int32, len(m.Coef))
	for k := range rows {
		row := m.Coef[k*l : k*l+l]
		maxAbs := 0.0
		for _, c := range row {
			maxAbs = max(maxAbs, math.Abs(c))
		}
		s := symmetricScale(maxAbs, math.MaxInt16)
		p.coefScale[k] = s
		for i, c := range row {
			p.coefCodes[k*l+i] = symmetricCode(c, s, math.MaxInt16)
		}
	}
	p.summary = TrainSummary{
		C: m.Params.C, Nu: m.Params.Nu, P: m.Params.P, Eps: m.Params.Eps,
		Iterations: m.Result.Iterations, Objective: m.Result.Objective,
		NumBoundSV: m.Result.NumBoundSV, Converged: m.Result.Converged,
	}
	p.sourceCRC = binary.LittleEndian.Uint32(file[20:24])
	p.created = m.Created
	return newKernel(&p).withScale(m.Scale)
}

// quantizeFeature returns the scale, offset and codes of one feature whose
// nonzero values are vals (range [lo, hi]). Should a value miss its code's
// a/2 (a rounding at the edge of the range), the scale grows by one float32
// step and the feature starts again; it never does on real data.
func quantizeFeature(lo, hi float64, hasZero bool, vals []float32, bits int) (float32, float64, []int32) {
	a, o := affineFeature(lo, hi, hasZero, bits)
	codes := make([]int32, len(vals))
	for {
		ok := true
		for k, v := range vals {
			if codes[k], ok = affineCode(float64(v), a, o, bits); !ok {
				break
			}
		}
		if ok {
			return a, o, codes
		}
		a = math.Nextafter32(max(a, math.SmallestNonzeroFloat32), float32(math.Inf(1)))
		if hasZero {
			qmin, qmax := codeRange(bits)
			z := max(float64(qmin), min(float64(qmax), math.Round(float64(qmin)-min(lo, 0)/float64(a))))
			o = -float64(a) * z
		} else {
			_, qmax := codeRange(bits)
			o = lo + float64(a)*(float64(qmax)+1)
		}
	}
}

// columns is a matrix held by column: column j's nonzeros are rows
// row[start[j]:start[j+1]] with values val[...].
type columns struct {
	start []int
	row   []int32
	val   []float32
}

// transpose returns the nonzeros of the support vectors sv by feature.
func transpose(sv *data.Dataset, nf int) columns {
	l := sv.Len()
	count := make([]int, nf+1)
	each := func(f func(i int, j int32, v float32)) {
		for i := range l {
			if sv.IsDense() {
				for j, v := range sv.DenseRow(i) {
					if v != 0 {
						f(i, int32(j), v)
					}
				}
				continue
			}
			idx, val := sv.SparseRow(i)
			for k, j := range idx {
				if val[k] != 0 {
					f(i, j, val[k])
				}
			}
		}
	}
	each(func(_ int, j int32, _ float32) { count[j+1]++ })
	for j := range nf {
		count[j+1] += count[j]
	}
	c := columns{start: count, row: make([]int32, count[nf]), val: make([]float32, count[nf])}
	next := append([]int(nil), count[:nf]...)
	each(func(i int, j int32, v float32) {
		c.row[next[j]], c.val[next[j]] = int32(i), v
		next[j]++
	})
	return c
}

// denseIsSmaller reports whether the dense layout of the support vectors
// takes no more bytes than the sparse one. The sparse size is counted from
// the nonzeros before quantization: values that round to zero are not
// stored, which only shortens the sparse layout (a merged gap never takes
// more bytes than the two it replaces), so the choice errs towards dense
// by at most those values.
func denseIsSmaller(sv *data.Dataset, nf, bits int) bool {
	cb := uint64(bits / 8)
	var sparse uint64
	var buf [binary.MaxVarintLen64]byte
	for i := range sv.Len() {
		n, prev := uint64(0), int64(-1)
		var gaps uint64
		put := func(j int64) {
			n++
			gaps += uint64(binary.PutUvarint(buf[:], uint64(j-prev)))
			prev = j
		}
		if sv.IsDense() {
			for j, v := range sv.DenseRow(i) {
				if v != 0 {
					put(int64(j))
				}
			}
		} else {
			idx, val := sv.SparseRow(i)
			for k, j := range idx {
				if val[k] != 0 {
					put(int64(j))
				}
			}
		}
		sparse += uint64(binary.PutUvarint(buf[:], n)) + gaps + n*cb
	}
	return uint64(sv.Len())*uint64(nf)*cb <= sparse
}

// kernelParts are the checked parts a Kernel is assembled from, by
// QuantizeKernel and by the decoder.
type kernelParts struct {
	bits    int
	svmType core.SVMType
	kernel  core.Kernel
	nf, l   int
	labels  []int32
	numSV   []int32
	fa      []float32
	fo      []float64
	dense   bool
	// dense: codes[j*l+i] = q_ij; sparse: the entries of column j are
	// colStart[j]..colStart[j+1]-1, support vector colRow[p] with centred
	// code codes[p] = q − z_j ≠ 0.
	codes     []int32
	colStart  []int
	colRow    []int32
	coefScale []float32
	coefCodes []int32
	rho       []float64
	probA     []float64
	probB     []float64
	summary   TrainSummary
	sourceCRC uint32
	created   int64
}

// newKernel assembles a Kernel from p and precomputes what prediction
// needs: class offsets, decoded coefficients, ‖sv'_i‖² for RBF, the
// scratch pool.
func newKernel(p *kernelParts) *Kernel {
	m := &Kernel{
		bits: p.bits, svmType: p.svmType, kernel: p.kernel, nf: p.nf, l: p.l,
		labels: p.labels, numSV: p.numSV, fa: p.fa, fo: p.fo, dense: p.dense,
		colStart: p.colStart, colRow: p.colRow, coefScale: p.coefScale,
		rho: p.rho, probA: p.probA, probB: p.probB, summary: p.summary,
		sourceCRC: p.sourceCRC, created: p.created,
	}
	switch {
	case p.dense && p.bits == 8:
		m.col8 = make([]int8, len(p.codes))
		for i, c := range p.codes {
			m.col8[i] = int8(c)
		}
		m.maxCode = 1 << 7
	case p.dense:
		m.col16 = make([]int16, len(p.codes))
		for i, c := range p.codes {
			m.col16[i] = int16(c)
		}
		m.maxCode = 1 << 15
	case p.bits == 8:
		m.colR8 = make([]int16, len(p.codes))
		for i, c := range p.codes {
			m.colR8[i] = int16(c)
		}
		m.maxCode = 1<<8 - 1
	default:
		m.colR16 = append([]int32(nil), p.codes...)
		m.maxCode = 1<<16 - 1
	}
	l := m.l
	m.coef = make([]float64, len(p.coefCodes))
	for i, c := range p.coefCodes {
		m.coef[i] = float64(m.coefScale[i/max(l, 1)]) * float64(c)
	}
	if m.svmType.IsSVC() {
		m.start = make([]int, len(m.labels)+1)
		for c, n := range m.numSV {
			m.start[c+1] = m.start[c] + int(n)
		}
	}
	// ‖sv'_i‖² (RBF) and G_i = Σ_j e_j·|sv'_ij| (the error bound's value
	// for a zero row).
	if m.kernel.Type == core.RBFKernel {
		m.ss = make([]float64, l)
	}
	m.g = make([]float64, l)
	m.eachColumn(func(j int, rows []int32, sv func(k int) float64) {
		e := float64(m.fa[j]) / 2
		for k, i := range rows {
			v := sv(k)
			if m.ss != nil {
				m.ss[i] += v * v
			}
			m.g[i] += e * math.Abs(v)
		}
	}, nil)
	nDec := m.NumDecisionValues()
	nr := len(m.labels)
	m.scratch = nDec + nr
	if m.HasProbability() && m.svmType.IsSVC() {
		m.scratch += core.ProbabilityScratch(nr)
	}
	m.pool.New = func() any { return m.newScratch() }
	m.blk = newKernelBlocks(m)
	return m
}

// allRows lists 0..l-1, for the columns of the dense layout.
func allRows(l int) []int32 {
	r := make([]int32, l)
	for i := range r {
		r[i] = int32(i)
	}
	return r
}

// eachColumn calls f for each feature j with the support vectors that have
// an entry in column j (all of them in the dense layout) and a function
// giving entry k's decoded value sv'_ij = o_j + a_j·q_ij (a_j·r in the
// sparse layout). rows, when not nil, is allRows(l), reused.
func (m *Kernel) eachColumn(f func(j int, rows []int32, sv func(k int) float64), rows []int32) {
	if m.dense && rows == nil {
		rows = allRows(m.l)
	}
	for j := range m.nf {
		a, o := float64(m.fa[j]), m.fo[j]
		switch {
		case m.dense:
			base := j * m.l
			f(j, rows, func(k int) float64 { return o + a*float64(m.denseCode(base+k)) })
		default:
			s, e := m.colStart[j], m.colStart[j+1]
			f(j, m.colRow[s:e], func(k int) float64 { return a * float64(m.sparseCode(s+k)) })
		}
	}
}

// denseCode returns the dense layout's code at p = j*l+i.
func (m *Kernel) denseCode(p int) int32 {
	if m.col8 != nil {
		return int32(m.col8[p])
	}
	return int32(m.col16[p])
}

// sparseCode returns the sparse layout's centred code of entry p.
func (m *Kernel) sparseCode(p int) int32 {
	if m.colR8 != nil {
		return int32(m.colR8[p])
	}
	return m.colR16[p]
}

func cloneInt32(v []int32) []int32 {
	if len(v) == 0 {
		return nil
	}
	return append([]int32(nil), v...)
}

func cloneFloat64(v []float64) []float64 {
	if len(v) == 0 {
		return nil
	}
	return append([]float64(nil), v...)
}

// Bits returns the width of the support vector codes, 8 or 16 (sv_coef
// codes are int16 in both).
func (m *Kernel) Bits() int { return m.bits }

// SVMType returns the formulation: C-SVC, one-class or ε-SVR.
func (m *Kernel) SVMType() core.SVMType { return m.svmType }

// KernelFunc returns the kernel and its parameters, Gamma resolved.
func (m *Kernel) KernelFunc() core.Kernel { return m.kernel }

// IsRegression reports whether the model predicts real values (ε-SVR).
func (m *Kernel) IsRegression() bool { return m.svmType.IsRegression() }

// NumFeatures returns the number of input features: dense rows have this
// many; a sparse row's features past it meet no support vector feature,
// and RBF counts them in ‖x − sv‖², as core does.
func (m *Kernel) NumFeatures() int { return m.nf }

// Labels returns a copy of the C-SVC classes in LIBSVM's order; nil for
// ε-SVR and one-class.
func (m *Kernel) Labels() []int32 { return cloneInt32(m.labels) }

// NumSV returns a copy of the number of support vectors of each class, in
// Labels order (C-SVC); nil otherwise.
func (m *Kernel) NumSV() []int32 { return cloneInt32(m.numSV) }

// NumSupportVectors returns the total number of support vectors.
func (m *Kernel) NumSupportVectors() int { return m.l }

// NumClasses returns the number of classes of a C-SVC model, 2 for
// one-class and ε-SVR (LIBSVM's nr_class), as core.KernelModel does.
func (m *Kernel) NumClasses() int {
	if m.svmType.IsSVC() {
		return len(m.labels)
	}
	return 2
}

// NumDecisionValues returns how many decision values DecisionDense and
// DecisionSparse write: one per class pair for C-SVC, else one.
func (m *Kernel) NumDecisionValues() int {
	if m.svmType.IsSVC() {
		n := len(m.labels)
		return n * (n - 1) / 2
	}
	return 1
}

// Rho returns a copy of ρ of each decision function, in pair order.
func (m *Kernel) Rho() []float64 { return cloneFloat64(m.rho) }

// ProbA returns a copy of the Platt parameters A per pair (C-SVC) or the
// Laplace scale (ε-SVR); nil without probability estimates.
func (m *Kernel) ProbA() []float64 { return cloneFloat64(m.probA) }

// ProbB returns a copy of the Platt parameters B per pair; nil without.
func (m *Kernel) ProbB() []float64 { return cloneFloat64(m.probB) }

// HasProbability reports whether the model carries probability estimates,
// as core.KernelModel.HasProbability does: Platt parameters for C-SVC,
// which ProbabilityDense and ProbabilitySparse need, or the Laplace scale
// for ε-SVR.
func (m *Kernel) HasProbability() bool {
	return m.svmType != core.OneClass && len(m.probA) > 0
}

// DenseLayout reports whether the support vector codes are stored dense
// (every code) rather than sparse (the nonzero ones with their indices).
func (m *Kernel) DenseLayout() bool { return m.dense }

// FeatureScale returns a_j and o_j of feature j: support vector values of
// the feature decode as o_j + a_j·q. It panics if j is out of range.
func (m *Kernel) FeatureScale(j int) (a float32, o float64) { return m.fa[j], m.fo[j] }

// CoefScales returns a copy of σ_k, the scale of each row of sv_coef.
func (m *Kernel) CoefScales() []float32 { return append([]float32(nil), m.coefScale...) }

// Summary returns what the model keeps of its float model's training.
func (m *Kernel) Summary() TrainSummary { return m.summary }

// SourceCRC returns the CRC-32C of the payload of the float model's file
// (modelfile.MarshalKernel's output, bytes 20–23 of its frame).
func (m *Kernel) SourceCRC() uint32 { return m.sourceCRC }

// Created returns the float model's creation time in Unix seconds, 0 when
// it was not recorded.
func (m *Kernel) Created() int64 { return m.created }

// Kind returns modelfile.KindQKernel.
func (m *Kernel) Kind() string { return modelfile.KindQKernel }

// SupportVector writes support vector i as the model decodes it,
// sv'_ij = o_j + a_j·q_ij, to dst[:NumFeatures()] and returns that slice.
// It panics if i is out of range or dst is too short.
func (m *Kernel) SupportVector(dst []float64, i int) []float64 {
	if uint(i) >= uint(m.l) {
		panic(fmt.Sprintf("quantize: Kernel.SupportVector(%d) of %d", i, m.l))
	}
	dst = dst[:m.nf]
	for j := range dst {
		a, o := float64(m.fa[j]), m.fo[j]
		if m.dense {
			dst[j] = o + a*float64(m.denseCode(j*m.l+i))
			continue
		}
		dst[j] = 0
		s := m.colStart[j]
		if p, ok := slices.BinarySearch(m.colRow[s:m.colStart[j+1]], int32(i)); ok { // rows increase down a column
			dst[j] = a * float64(m.sparseCode(s+p))
		}
	}
	return dst
}

// Coef returns the decoded coefficient σ_k·p_ki of support vector i in row
// k of sv_coef (LIBSVM's layout, as core.KernelModel.Coef), exactly. It
// panics if k or i is out of range.
func (m *Kernel) Coef(k, i int) float64 {
	if uint(i) >= uint(m.l) || uint(k) >= uint(len(m.coefScale)) {
		panic(fmt.Sprintf("quantize: Kernel.Coef(%d, %d) of %d × %d", k, i, len(m.coefScale), m.l))
	}
	return m.coef[k*m.l+i]
}
