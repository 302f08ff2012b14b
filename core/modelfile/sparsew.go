package modelfile

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core"
)

// Sparse weights (the body's wi and wx, format 1.0 plus two optional
// fields): the models of the L1-regularized solvers (-s 5, -s 6) have most
// weights zero, and a file listing the nonzero ones is a few percent of
// the dense one — 4 bytes a value and about 1 an index gap, against 4
// bytes every weight. The writer picks the smaller layout.

// maxSparseExpansion bounds how many bytes of dense weights a reader
// builds from a byte of sparse weights (wi and wx together), so that a
// small hostile file cannot make it allocate gigabytes: the package's
// promise that decoding allocates in proportion to the input. The writer
// keeps to it by writing weights sparser than that (fewer than one
// nonzero in about 1280 weights) dense.
const maxSparseExpansion = 1024

// sparseWeights returns m's weights as the wi and wx blobs, and whether
// they are smaller than the dense blob (and within maxSparseExpansion).
func sparseWeights(m *core.LinearModel) (wi, wx []byte, ok bool) {
	nrW := m.NrW()
	if nrW == 0 || len(m.W) == 0 {
		return nil, nil, false
	}
	rows := len(m.W) / nrW
	nnz := 0
	for _, w := range m.W {
		if w != 0 {
			nnz++
		}
	}
	// Without building them: values 4 bytes, at least 1 byte a gap and a
	// count.
	dense := 4 * len(m.W)
	if 5*nnz+nrW >= dense {
		return nil, nil, false
	}
	wx = make([]byte, 0, 4*nnz)
	for k := range nrW {
		n := 0
		for j := range rows {
			if m.W[j*nrW+k] != 0 {
				n++
			}
		}
		wi = binary.AppendUvarint(wi, uint64(n))
		prev := -1
		for j := range rows {
			if w := m.W[j*nrW+k]; w != 0 {
				wi = binary.AppendUvarint(wi, uint64(j-prev))
				wx = binary.LittleEndian.AppendUint32(wx, math.Float32bits(w))
				prev = j
			}
		}
	}
	sparse := len(wi) + len(wx)
	if sparse >= dense || dense > maxSparseExpansion*sparse {
		return nil, nil, false
	}
	return wi, wx, true
}

// denseWeights decodes the sparse weights of bd into m's dense,
// feature-major layout (m's solver, labels, features and bias already
// set from bd), refusing a stream that is malformed, lists a row twice or
// out of range, disagrees with the values, or expands past
// maxSparseExpansion.
func denseWeights(bd *body, m *core.LinearModel) ([]float32, error) {
	if len(bd.W) != 0 {
		return nil, fmt.Errorf("weights stored both dense (%d bytes) and sparse", len(bd.W))
	}
	if len(bd.WX)%4 != 0 {
		return nil, fmt.Errorf("sparse weights blob of %d bytes is not a whole number of float32", len(bd.WX))
	}
	if !m.Solver.IsRegression() && len(m.Labels) < 2 {
		return nil, fmt.Errorf("sparse weights for %d labels", len(m.Labels))
	}
	nrW := m.NrW()
	rows := uint64(m.NumFeatures)
	if m.Bias >= 0 {
		rows++
	}
	size := rows * uint64(nrW) * 4
	if size > maxSparseExpansion*uint64(len(bd.WI)+len(bd.WX)) {
		return nil, fmt.Errorf("sparse weights of %d bytes expand to %d, more than %d times as many",
			len(bd.WI)+len(bd.WX), size, maxSparseExpansion)
	}
	w := make([]float32, rows*uint64(nrW))
	b, x := bd.WI, bd.WX
	for k := range nrW {
		n, c := binary.Uvarint(b)
		if c <= 0 || n > rows || n > uint64(len(x)/4) {
			return nil, fmt.Errorf("sparse weights of function %d: bad entry count", k)
		}
		b = b[c:]
		j := int64(-1)
		for range n {
			gap, c := binary.Uvarint(b)
			if c <= 0 || gap == 0 || gap > uint64(int64(rows)-1-j) { // j + gap < rows
				return nil, fmt.Errorf("sparse weights of function %d: bad gap after row %d", k, j)
			}
			b = b[c:]
			j += int64(gap)
			w[j*int64(nrW)+int64(k)] = math.Float32frombits(binary.LittleEndian.Uint32(x))
			x = x[4:]
		}
	}
	if len(b) != 0 || len(x) != 0 {
		return nil, fmt.Errorf("sparse weights: %d index bytes and %d values left over", len(b), len(x)/4)
	}
	return w, nil
}
