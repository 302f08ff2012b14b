package modelfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
)

// MarshalKernel returns the model file bytes of the kernel model m (format
// 1.1, kind "kernel"; see the package documentation). As with Marshal, the
// output depends only on m's fields: the same model always gives the same
// bytes, whichever layout (dense or sparse) its support vectors are held
// in, and support vector labels, which a kernel model does not use, are
// not stored. It returns an error, and no bytes, when m's fields disagree
// with each other (see UnmarshalKernel for the checks) or exceed the
// format's limits (more than 65536 labels, class weights or subproblem
// results; more than MaxInt32 features, support vectors or stored
// support vector entries; a payload past MaxPayload). It does not modify m
// and is safe for concurrent use.
func MarshalKernel(m *core.KernelModel) ([]byte, error) {
	if m == nil {
		return nil, errors.New("modelfile: marshal kernel: nil model")
	}
	if err := checkKernel(m); err != nil {
		return nil, fmt.Errorf("modelfile: marshal kernel: %w", err)
	}
	bd, err := toKernelBody(m)
	if err == nil {
		err = checkFeaturesBacked(bd)
	}
	if err != nil {
		return nil, fmt.Errorf("modelfile: marshal kernel: %w", err)
	}
	out, err := marshalBody(bd, bd.Kind)
	if err != nil {
		return nil, fmt.Errorf("modelfile: marshal kernel: %w", err)
	}
	return out, nil
}

// checkKernel reports why m cannot be written: the format's limits, then
// core's Validate, then what the encoder relies on beyond it. Decoding
// applies the same checks (the limits, then Init, which validates), so
// whatever MarshalKernel writes, UnmarshalKernel reads back. It does not
// modify m.
func checkKernel(m *core.KernelModel) error {
	if err := checkKernelLimits(m); err != nil {
		return err
	}
	if err := m.Validate(); err != nil {
		return err
	}
	if l := m.SV.Len(); l > math.MaxInt32 {
		return fmt.Errorf("%d support vectors, at most %d allowed", l, math.MaxInt32)
	}
	// Validate lets dense support vectors be narrower than the model; the
	// dense layout of the file holds exactly NumFeatures per row.
	if m.SV.IsDense() && m.SV.NumFeatures() != m.NumFeatures {
		return fmt.Errorf("dense support vectors of %d features, model has %d", m.SV.NumFeatures(), m.NumFeatures)
	}
	return nil
}

// checkKernelLimits reports the format's limits m is past.
func checkKernelLimits(m *core.KernelModel) error {
	switch {
	case m.NumFeatures > math.MaxInt32:
		return fmt.Errorf("%d features, at most %d allowed", m.NumFeatures, math.MaxInt32)
	case int64(m.Kernel.Degree) > math.MaxInt32 || int64(m.Params.Kernel.Degree) > math.MaxInt32:
		return fmt.Errorf("kernel degree %d past %d", max(m.Kernel.Degree, m.Params.Kernel.Degree), math.MaxInt32)
	case len(m.Labels) > maxClasses:
		return fmt.Errorf("%d labels, at most %d allowed", len(m.Labels), maxClasses)
	case len(m.Params.Weights) > maxClasses:
		return fmt.Errorf("%d class weights, at most %d allowed", len(m.Params.Weights), maxClasses)
	case len(m.Result.Subproblems) > maxClasses:
		return fmt.Errorf("%d subproblem results, at most %d allowed", len(m.Result.Subproblems), maxClasses)
	}
	return nil
}

// toKernelBody converts m, which checkKernel accepted, to the msgpack body.
func toKernelBody(m *core.KernelModel) (*kbody, error) {
	bd := &kbody{
		Kind:        KindKernel,
		SVMType:     int64(m.SVMType),
		KernelType:  int64(m.Kernel.Type),
		Degree:      int64(m.Kernel.Degree),
		Gamma:       m.Kernel.Gamma,
		Coef0:       m.Kernel.Coef0,
		NumFeatures: int64(m.NumFeatures),
		Labels:      putInt32s(m.Labels),
		NumSV:       putInt32s(m.NumSV),
		SVRows:      int64(m.SV.Len()),
		Coef:        Float64Blob(m.Coef),
		Rho:         Float64Blob(m.Rho),
		ProbA:       Float64Blob(m.ProbA),
		ProbB:       Float64Blob(m.ProbB),
		Params: kparams{
			SVMType:     int64(m.Params.SVMType),
			KernelType:  int64(m.Params.Kernel.Type),
			Degree:      int64(m.Params.Kernel.Degree),
			Gamma:       m.Params.Kernel.Gamma,
			Coef0:       m.Params.Kernel.Coef0,
			C:           m.Params.C,
			Nu:          m.Params.Nu,
			P:           m.Params.P,
			Eps:         m.Params.Eps,
			CacheMB:     m.Params.CacheMB,
			Shrinking:   m.Params.Shrinking,
			Probability: m.Params.Probability,
			Seed:        m.Params.Seed,
			MaxIter:     int64(m.Params.MaxIter),
		},
		Result: kresult{
			Iterations:  int64(m.Result.Iterations),
			KernelEvals: m.Result.KernelEvals,
			Objective:   m.Result.Objective,
			NumSV:       int64(m.Result.NumSV),
			NumBoundSV:  int64(m.Result.NumBoundSV),
			Converged:   m.Result.Converged,
		},
		Created: m.Created,
		Scale:   NewScaleBody(m.Scale),
	}
	bd.Kind = BodyKind(bd.Kind, bd.Scale)
	for i, cw := range m.Params.Weights {
		if i == 0 {
			bd.Params.Weights = make([]classWeight, len(m.Params.Weights))
		}
		bd.Params.Weights[i] = classWeight{Label: cw.Label, Weight: cw.Weight}
	}
	for i, s := range m.Result.Subproblems {
		if i == 0 {
			bd.Result.Subproblems = make([]ksubproblem, len(m.Result.Subproblems))
		}
		bd.Result.Subproblems[i] = ksubproblem{
			Pos:         s.Pos,
			Neg:         s.Neg,
			Rows:        int64(s.Rows),
			Iterations:  int64(s.Iterations),
			Objective:   s.Objective,
			Rho:         s.Rho,
			Gap:         s.Gap,
			KernelEvals: s.KernelEvals,
			NumSV:       int64(s.NumSV),
			NumBoundSV:  int64(s.NumBoundSV),
			Converged:   s.Converged,
		}
	}
	return bd, putSupportVectors(bd, m)
}

// putSupportVectors stores m's support vectors in bd in the smaller
// layout, judged by their nonzeros so that the choice does not depend on
// how m.SV holds them.
func putSupportVectors(bd *kbody, m *core.KernelModel) error {
	l, nf := m.SV.Len(), m.NumFeatures
	if l == 0 {
		bd.SVDense = true
		return nil
	}
	sv := m.SV
	nnz := 0
	for i := range l {
		if sv.IsDense() {
			for _, v := range sv.DenseRow(i) {
				if v != 0 {
					nnz++
				}
			}
		} else {
			_, val := sv.SparseRow(i) // sparse data sets store no zeros
			nnz += len(val)
		}
	}
	denseBytes := 4 * uint64(l) * uint64(nf)
	sparseBytes := 4*uint64(l+1) + 8*uint64(nnz)
	if denseBytes <= sparseBytes {
		if denseBytes > MaxPayload {
			return fmt.Errorf("%d dense support vectors of %d features need more than MaxPayload bytes", l, nf)
		}
		bd.SVDense = true
		bd.SVValues = make([]byte, denseBytes)
		for i := range l {
			row := bd.SVValues[4*i*nf : 4*(i+1)*nf]
			if sv.IsDense() {
				for j, v := range sv.DenseRow(i) {
					binary.LittleEndian.PutUint32(row[4*j:], math.Float32bits(v))
				}
				continue
			}
			idx, val := sv.SparseRow(i)
			for k, j := range idx {
				binary.LittleEndian.PutUint32(row[4*j:], math.Float32bits(val[k]))
			}
		}
		return nil
	}
	if nnz > math.MaxInt32 || sparseBytes > MaxPayload {
		return fmt.Errorf("%d support vector nonzeros need more than MaxPayload bytes", nnz)
	}
	bd.SVStarts = make([]byte, 4*(l+1))
	bd.SVIndex = make([]byte, 4*nnz)
	bd.SVValues = make([]byte, 4*nnz)
	p := 0
	put := func(j int, v float32) {
		binary.LittleEndian.PutUint32(bd.SVIndex[4*p:], uint32(j))
		binary.LittleEndian.PutUint32(bd.SVValues[4*p:], math.Float32bits(v))
		p++
	}
	for i := range l {
		if sv.IsDense() {
			for j, v := range sv.DenseRow(i) {
				if v != 0 {
					put(j, v)
				}
			}
		} else {
			idx, val := sv.SparseRow(i)
			for k, j := range idx {
				put(int(j), val[k])
			}
		}
		binary.LittleEndian.PutUint32(bd.SVStarts[4*(i+1):], uint32(p))
	}
	return nil
}

// putInt32s returns v as little-endian bytes; nil for an empty v.
func putInt32s(v []int32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

// int32s decodes a blob of little-endian int32; nil for an empty blob.
func int32s(name string, b []byte) ([]int32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("%s blob of %d bytes is not a whole number of int32", name, len(b))
	}
	if len(b) == 0 {
		return nil, nil
	}
	v := make([]int32, len(b)/4)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// float64s decodes a blob of little-endian float64; nil for an empty blob.
func float64s(name string, b []byte) ([]float64, error) {
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("%s blob of %d bytes is not a whole number of float64", name, len(b))
	}
	if len(b) == 0 {
		return nil, nil
	}
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v, nil
}

// UnmarshalKernel decodes a kernel model file. Like Unmarshal it never
// panics and allocates in proportion to its input; it refuses anything that
// is not a valid kernel model file with an error wrapping exactly one of
// ErrNotModel, ErrVersion, ErrTruncated, ErrChecksum, ErrCorrupt or ErrKind
// (a valid file of another kind, such as a linear model: use Kind to tell).
// ErrCorrupt covers, beyond Unmarshal's cases, a model whose sizes disagree:
// coefficients other than (nrClass−1) × support vectors, ρ values other
// than one per class pair, support vector counts that do not add up, labels
// repeated, support vector indices out of order or past NumFeatures,
// non-finite values, probability parameters of the wrong count, or a model
// core's Init refuses.
//
// The returned model shares no memory with b and is ready for prediction
// (Init has run). Its support vectors come back in the layout the file
// stores (the smaller one), with labels 0; empty slices decode as nil. It
// is safe for concurrent use.
func UnmarshalKernel(b []byte) (*core.KernelModel, error) {
	return unmarshalModel(b, KindKernel, fromKernelBody)
}

// The kernel kind's entry in the one codec (registry.go).
func init() {
	Register(Codec{
		Kind: KindKernel, Minor: minorKernel, Body: &kbody{},
		Encode: func(m core.Model) ([]byte, error) { return EncodeAs(m, MarshalKernel) },
		Decode: func(payload []byte) (core.Model, error) { return DecodeAs(payload, fromKernelBody) },
	})
}

// fromKernelBody converts a decoded body to a model and checks it as
// MarshalKernel does. Every allocation is bounded by a blob's length,
// checked against the sizes the body states before the allocation.
func fromKernelBody(bd *kbody) (*core.KernelModel, error) {
	if err := checkKernelCounts(bd); err != nil {
		return nil, err
	}
	var ints fieldErrs
	m := &core.KernelModel{
		SVMType: core.SVMType(ints.get("SVM type", bd.SVMType)),
		Kernel: core.Kernel{
			Type:   core.KernelType(ints.get("kernel type", bd.KernelType)),
			Degree: int(bd.Degree),
			Gamma:  bd.Gamma,
			Coef0:  bd.Coef0,
		},
		NumFeatures: int(bd.NumFeatures),
		Params:      kernelParamsOf(&bd.Params, &ints),
		Result:      kernelResultOf(&bd.Result, &ints),
		Created:     bd.Created,
	}
	if err := ints.err(); err != nil {
		return nil, err
	}
	if err := kernelArrays(m, bd); err != nil {
		return nil, err
	}
	switch m.SVMType {
	case core.CSVC, core.NuSVC, core.OneClass, core.EpsSVR, core.NuSVR:
	default: // NumClasses below would not mean anything
		return nil, fmt.Errorf("unknown SVM type %d", bd.SVMType)
	}
	// Every model has at least one row of coefficients, 8 bytes a support
	// vector, so checking their count first bounds the support vector
	// count by the input's size before the data set is allocated.
	l := int(bd.SVRows)
	if k := m.NumClasses(); k < 2 || len(m.Coef) != (k-1)*l {
		return nil, fmt.Errorf("%d coefficients for %d classes and %d support vectors", len(m.Coef), k, l)
	}
	var err error
	if m.SV, err = supportVectors(bd, l, m.NumFeatures); err != nil {
		return nil, err
	}
	if m.Scale, err = ScaleRanges(bd.Kind, bd.Scale, m.NumFeatures); err != nil {
		return nil, err
	}
	// checkKernel's checks but Validate's once, in Init (a scan of every
	// support vector value: a 10 MB model's start-up paid it twice). The
	// support vectors' count and dense width hold by construction above.
	if err := checkKernelLimits(m); err != nil {
		return nil, err
	}
	if err := m.Init(); err != nil {
		return nil, err
	}
	return m, nil
}

// nativeLittleEndian reports whether this machine stores a float32 as the
// little-endian bytes model files hold (a variable so that tests can take
// the other path).
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// checkKernelCounts refuses a body whose feature count, support vector
// count or kernel degree is outside what a model can have.
func checkKernelCounts(bd *kbody) error {
	if bd.NumFeatures < 0 || bd.NumFeatures > math.MaxInt32 {
		return fmt.Errorf("feature count %d outside 0..%d", bd.NumFeatures, math.MaxInt32)
	}
	if bd.SVRows < 0 || bd.SVRows > math.MaxInt32 {
		return fmt.Errorf("support vector count %d outside 0..%d", bd.SVRows, math.MaxInt32)
	}
	if bd.Degree < 0 || bd.Degree > math.MaxInt32 {
		return fmt.Errorf("kernel degree %d outside 0..%d", bd.Degree, math.MaxInt32)
	}
	return nil
}

// kernelParamsOf converts the stored training parameters.
func kernelParamsOf(bp *kparams, ints *fieldErrs) core.KernelParams {
	p := core.KernelParams{
		SVMType: core.SVMType(ints.get("params SVM type", bp.SVMType)),
		Kernel: core.Kernel{
			Type:   core.KernelType(ints.get("params kernel type", bp.KernelType)),
			Degree: ints.get("params kernel degree", bp.Degree),
			Gamma:  bp.Gamma,
			Coef0:  bp.Coef0,
		},
		C:           bp.C,
		Nu:          bp.Nu,
		P:           bp.P,
		Eps:         bp.Eps,
		CacheMB:     bp.CacheMB,
		Shrinking:   bp.Shrinking,
		Probability: bp.Probability,
		Seed:        bp.Seed,
		MaxIter:     ints.get("max iterations", bp.MaxIter),
	}
	for i, cw := range bp.Weights {
		if i == 0 {
			p.Weights = make([]core.ClassWeight, len(bp.Weights))
		}
		p.Weights[i] = core.ClassWeight{Label: cw.Label, Weight: cw.Weight}
	}
	return p
}

// kernelResultOf converts the stored training result.
func kernelResultOf(br *kresult, ints *fieldErrs) core.KernelTrainResult {
	r := core.KernelTrainResult{
		Iterations:  ints.get("iterations", br.Iterations),
		KernelEvals: br.KernelEvals,
		Objective:   br.Objective,
		NumSV:       ints.get("support vector count", br.NumSV),
		NumBoundSV:  ints.get("bound support vector count", br.NumBoundSV),
		Converged:   br.Converged,
	}
	for i, s := range br.Subproblems {
		if i == 0 {
			r.Subproblems = make([]core.KernelSubproblem, len(br.Subproblems))
		}
		r.Subproblems[i] = core.KernelSubproblem{
			Pos:         s.Pos,
			Neg:         s.Neg,
			Rows:        ints.get("subproblem rows", s.Rows),
			Iterations:  ints.get("subproblem iterations", s.Iterations),
			Objective:   s.Objective,
			Rho:         s.Rho,
			Gap:         s.Gap,
			KernelEvals: s.KernelEvals,
			NumSV:       ints.get("subproblem support vector count", s.NumSV),
			NumBoundSV:  ints.get("subproblem bound support vector count", s.NumBoundSV),
			Converged:   s.Converged,
		}
	}
	return r
}

// kernelArrays reads the body's blobs of labels, support vector counts,
// coefficients, ρ and the probability parameters into m.
func kernelArrays(m *core.KernelModel, bd *kbody) error {
	var err error
	if m.Labels, err = int32s("labels", bd.Labels); err != nil {
		return err
	}
	if m.NumSV, err = int32s("support vector counts", bd.NumSV); err != nil {
		return err
	}
	if m.Coef, err = float64s("coefficients", bd.Coef); err != nil {
		return err
	}
	if m.Rho, err = float64s("rho", bd.Rho); err != nil {
		return err
	}
	if m.ProbA, err = float64s("probA", bd.ProbA); err != nil {
		return err
	}
	m.ProbB, err = float64s("probB", bd.ProbB)
	return err
}

// fieldErrs collects the errors of a body's fields, so that a reader
// reports them all at once: each stored integer that does not fit an int
// (a 32-bit build reading a 64-bit value, get) and any other (add).
type fieldErrs struct{ errs []error }

// add records err.
func (c *fieldErrs) add(err error) { c.errs = append(c.errs, err) }

// get returns v as an int, recording an error naming the field when it
// does not fit.
func (c *fieldErrs) get(name string, v int64) int {
	if int64(int(v)) != v {
		c.errs = append(c.errs, fmt.Errorf("%s %d does not fit an int", name, v))
	}
	return int(v)
}

// err returns the errors recorded, joined; nil for none.
func (c *fieldErrs) err() error { return errors.Join(c.errs...) }

// checkFeaturesBacked refuses a body whose feature count its blobs do not
// back. Predicting sizes buffers by the feature count (a dense row of a
// block of rows, quantize's per-feature scales), but only dense support
// vectors store a value per feature: a body of a few bytes could declare
// 2³¹−1 features and no support vectors, load, and make the first sparse
// batch predict allocate 512 GiB. So, as for sparse linear weights, the
// feature count may be at most MaxSparseExpansion times the bytes of the
// body's blobs: a sparse model of a million features needs 1 KiB of them
// (about 40 support vector nonzeros); dense support vectors always pass.
func checkFeaturesBacked(bd *kbody) error {
	backing := uint64(len(bd.Labels) + len(bd.NumSV) + len(bd.SVStarts) + len(bd.SVIndex) + len(bd.SVValues) +
		len(bd.Coef) + len(bd.Rho) + len(bd.ProbA) + len(bd.ProbB))
	if bd.Scale != nil {
		backing += uint64(len(bd.Scale.Min) + len(bd.Scale.Max))
	}
	if bd.NumFeatures > 0 && uint64(bd.NumFeatures) > MaxSparseExpansion*backing {
		return fmt.Errorf("%d features backed by %d bytes of support vectors and coefficients, at most %d times as many allowed",
			bd.NumFeatures, backing, MaxSparseExpansion)
	}
	return nil
}

// supportVectors decodes the l support vectors of bd.
func supportVectors(bd *kbody, l, nf int) (*data.Dataset, error) {
	if bd.SVDense {
		if len(bd.SVStarts) != 0 || len(bd.SVIndex) != 0 {
			return nil, errors.New("dense support vectors with row starts or indices")
		}
		if uint64(len(bd.SVValues)) != 4*uint64(l)*uint64(nf) {
			return nil, fmt.Errorf("dense support vector blob of %d bytes, want %d × %d float32",
				len(bd.SVValues), l, nf)
		}
		if err := checkFeaturesBacked(bd); err != nil { // no support vectors
			return nil, err
		}
		sv := data.NewDense(l, nf)
		row := make([]float32, nf)
		for i := range l {
			b := bd.SVValues[4*i*nf : 4*(i+1)*nf]
			if nativeLittleEndian && nf > 0 {
				// The blob's bytes are the row's float32 values: one move
				// (a 10 MB model's start-up decoded them one at a time).
				copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(row))), 4*nf), b)
			} else {
				for j := range row {
					row[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
				}
			}
			if err := sv.AppendDense(0, row); err != nil {
				return nil, fmt.Errorf("support vector %d: %w", i, err)
			}
		}
		return sv, nil
	}
	if err := checkFeaturesBacked(bd); err != nil {
		return nil, err
	}
	if uint64(len(bd.SVStarts)) != 4*(uint64(l)+1) {
		return nil, fmt.Errorf("row starts blob of %d bytes, want %d int32", len(bd.SVStarts), l+1)
	}
	starts, err := int32s("row starts", bd.SVStarts)
	if err != nil {
		return nil, err
	}
	index, err := int32s("indices", bd.SVIndex)
	if err != nil {
		return nil, err
	}
	if len(bd.SVValues) != len(bd.SVIndex) {
		return nil, fmt.Errorf("%d bytes of indices, %d of values", len(bd.SVIndex), len(bd.SVValues))
	}
	nnz := len(index)
	if starts[0] != 0 || int(starts[l]) != nnz {
		return nil, fmt.Errorf("row starts run from %d to %d, want 0 to %d", starts[0], starts[l], nnz)
	}
	for i := range l {
		if starts[i+1] < starts[i] {
			return nil, fmt.Errorf("row start %d after %d", starts[i+1], starts[i])
		}
	}
	value := make([]float32, nnz)
	for p := range value {
		value[p] = math.Float32frombits(binary.LittleEndian.Uint32(bd.SVValues[4*p:]))
	}
	// A zero maxFeatures would accept any index; with no features, no
	// index is valid, and the loop below says so.
	sv := data.NewSparse(l, nnz, nf)
	for i := range l {
		s, e := starts[i], starts[i+1]
		if e > s && int(index[e-1]) >= nf {
			return nil, fmt.Errorf("support vector %d: index %d past the %d features", i, index[e-1], nf)
		}
		if err := sv.AppendSparse(0, index[s:e], value[s:e]); err != nil {
			return nil, fmt.Errorf("support vector %d: %w", i, err)
		}
	}
	return sv, nil
}
