package modelfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core/linear"
)

// Sparse weights (the linear body's wi and wx, format 1.0 plus two
// optional fields; the quantized linear body's wi): the models of the
// L1-regularized solvers (-s 5, -s 6) have most weights zero, and a file
// listing the nonzero ones is a few percent of the dense one — 4 bytes a
// value and about 1 an index gap, against 4 bytes every weight. The
// writers pick the smaller layout.
//
// The index stream lists the nonzero entries of a feature-major matrix of
// rows × functions: for each function in turn, a uvarint count n, then n
// uvarint gaps (row minus the previous row, the first counted from −1, so
// every gap is ≥ 1 and rows strictly increase).

// MaxSparseExpansion bounds how many bytes of dense weights (4 a weight) a
// reader builds from a byte of a sparse layout (index stream and values
// together), so that a small hostile file cannot make it allocate
// gigabytes: the package's promise that decoding allocates in proportion
// to the input. Writers keep to it by writing weights sparser than that
// (fewer than one nonzero in about 1280 float weights) dense.
const MaxSparseExpansion = 1024

// SparseIndex returns the index stream of the entries of a rows ×
// functions matrix for which nonzero(j, k) is true, and their count.
func SparseIndex(rows, functions int, nonzero func(j, k int) bool) (stream []byte, entries int) {
	for k := range functions {
		n := 0
		for j := range rows {
			if nonzero(j, k) {
				n++
			}
		}
		stream = binary.AppendUvarint(stream, uint64(n))
		prev := -1
		for j := range rows {
			if nonzero(j, k) {
				stream = binary.AppendUvarint(stream, uint64(j-prev))
				prev = j
			}
		}
		entries += n
	}
	return stream, entries
}

// errSparse is wrapped by WalkSparseIndex's errors.
var errSparse = errors.New("sparse weights")

// WalkSparseIndex decodes an index stream for a rows × functions matrix
// with at most maxEntries entries, calling visit(j, k) for each entry in
// stream order, and returns the entry count. It refuses, before visiting
// past them, a count beyond rows or maxEntries, a zero gap, a row at or
// past rows, and bytes left over; it never panics.
func WalkSparseIndex(stream []byte, rows, functions, maxEntries int, visit func(j, k int)) (int, error) {
	b := stream
	total := 0
	for k := range functions {
		n, c := binary.Uvarint(b)
		if c <= 0 || n > uint64(rows) || n > uint64(maxEntries-total) {
			return 0, fmt.Errorf("%w: function %d: bad entry count", errSparse, k)
		}
		b = b[c:]
		j := -1
		for range n {
			gap, c := binary.Uvarint(b)
			if c <= 0 || gap == 0 || gap > uint64(rows-1-j) { // j + gap < rows
				return 0, fmt.Errorf("%w: function %d: bad gap after row %d", errSparse, k, j)
			}
			b = b[c:]
			j += int(gap)
			visit(j, k)
		}
		total += int(n)
	}
	if len(b) != 0 {
		return 0, fmt.Errorf("%w: %d index bytes left over", errSparse, len(b))
	}
	return total, nil
}

// sparseWeights returns m's weights as the wi and wx blobs, and whether
// they are smaller than the dense blob (and within MaxSparseExpansion).
func sparseWeights(m *linear.LinearModel) (wi, wx []byte, ok bool) {
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
	wi, _ = SparseIndex(rows, nrW, func(j, k int) bool { return m.W[j*nrW+k] != 0 })
	wx = make([]byte, 0, 4*nnz)
	for k := range nrW {
		for j := range rows {
			if w := m.W[j*nrW+k]; w != 0 {
				wx = binary.LittleEndian.AppendUint32(wx, math.Float32bits(w))
			}
		}
	}
	sparse := len(wi) + len(wx)
	if sparse >= dense || dense > MaxSparseExpansion*sparse {
		return nil, nil, false
	}
	return wi, wx, true
}

// denseWeights decodes the sparse weights of bd into m's dense,
// feature-major layout (m's solver, labels, features and bias already
// set from bd), refusing a stream that is malformed, disagrees with the
// values, or expands past MaxSparseExpansion.
func denseWeights(bd *body, m *linear.LinearModel) ([]float32, error) {
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
	rows := m.NumFeatures
	if m.Bias >= 0 {
		rows++
	}
	size := uint64(rows) * uint64(nrW) * 4
	if size > MaxSparseExpansion*uint64(len(bd.WI)+len(bd.WX)) {
		return nil, fmt.Errorf("sparse weights of %d bytes expand to %d, more than %d times as many",
			len(bd.WI)+len(bd.WX), size, MaxSparseExpansion)
	}
	w := make([]float32, rows*nrW)
	x := bd.WX
	n, err := WalkSparseIndex(bd.WI, rows, nrW, len(x)/4, func(j, k int) {
		w[j*nrW+k] = math.Float32frombits(binary.LittleEndian.Uint32(x))
		x = x[4:]
	})
	if err != nil {
		return nil, err
	}
	if len(x) != 0 {
		return nil, fmt.Errorf("sparse weights: %d values listed, %d stored", n, len(bd.WX)/4)
	}
	return w, nil
}
