package core

import (
	"github.com/libsvmgo/libsvmgo/core/internal/kexp"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// RBF kernel columns for the SMO trainer: the dot products of a column
// first, then their exponentials in one batch (kexp.go), a chunk at a
// time so the arguments stay in a small stack buffer.
//
// Dense rows of at least simdDotMin features take their dot products (and
// squared norms) from simd.Dot, float32 accumulation in AVX-512: on
// Fashion-MNIST's 784 features the scalar float64 loop was the whole cost
// of a column. Its error, about 2⁻²⁴·√n·Σ|x_k y_k|, is below what the
// float32 kernel cache keeps for these wide rows' kernel values; narrower
// rows (every parity case: heart_scale, breast_cancer, diabetes, digits)
// keep the exact float64 sum, where the vector call would not pay anyway.
// Whichever is used, eval, column and the squared norms use the same one,
// so K(x, x) = 1 exactly and a column agrees with its entries bit for bit.

// simdDotMin is the least row width whose dot products go through simd.
const simdDotMin = 128

// trainDot returns x'y for two dense rows of equal width as the trainer
// computes it (see simdDotMin).
func trainDot(x, y []float32) float64 {
	if len(x) >= simdDotMin && len(x) == len(y) {
		return float64(simd.Dot(x, y))
	}
	return dotDense32(x, y)
}

// rbfChunk is how many kernel values columnRBF computes per batch of
// exponentials.
const rbfChunk = 256

// columnRBF is column for the RBF kernel: dst[t] = float32(K(x_i,
// x_rows[t])), each value bit for bit float32(r.eval(i, rows[t])).
func (r *kernelRows) columnRBF(dst []float32, i int, rows []int32) {
	if r.ds.IsDense() {
		r.columnRBFOf(dst, r.ds.DenseRow(i), nil, nil, r.sqnorm[i], rows)
		return
	}
	xi, xv := r.ds.SparseRow(i)
	r.columnRBFOf(dst, nil, xi, xv, r.sqnorm[i], rows)
}

// columnRBFOf is columnRBF for a row x given by its values, dense (x, as
// wide as the data set's rows) or sparse (xi, xv) as the data set is
// stored, and sqi = x'x: dst[t] = float32(K(x, x_rows[t])). It serves rows
// that are not in the data set (a removed support vector, kernelwarm.go).
func (r *kernelRows) columnRBFOf(dst []float32, x []float32, xi []int32, xv []float32, sqi float64, rows []int32) {
	var arg [rbfChunk]float64
	g := -r.k.Gamma
	sq := r.sqnorm
	dense := r.ds.IsDense()
	w := r.scratch
	if dense {
		if len(w) >= len(x) && len(x) < simdDotMin {
			// x_i widened once: each dot then converts one operand, not two.
			w = w[:len(x)]
			for k, v := range x {
				w[k] = float64(v)
			}
		} else {
			w = nil
		}
	} else {
		for a, j := range xi {
			w[j] = float64(xv[a])
		}
	}
	for lo := 0; lo < len(rows); lo += rbfChunk {
		blk := rows[lo:min(lo+rbfChunk, len(rows))]
		a := arg[:len(blk)]
		if dense && len(x) >= simdDotMin {
			for t, j := range blk {
				a[t] = g * rbfDist(sqi, sq[j], float64(simd.Dot(x, r.ds.DenseRow(int(j)))))
			}
			kexp.ExpBatch32(dst[lo:lo+len(blk)], a)
			continue
		}
		if dense && w != nil {
			if rbfArgsFast {
				simd.RBFArgs(a, w, r.ds.DenseMatrix(), blk, sq, sqi, g)
			} else {
				rbfArgsDense(a, w, r.ds.DenseMatrix(), blk, sq, sqi, g)
			}
			kexp.ExpBatch32(dst[lo:lo+len(blk)], a)
			continue
		}
		for t, j := range blk {
			var dot float64
			switch {
			case dense:
				dot = dotDense32(x, r.ds.DenseRow(int(j)))
			default:
				yi, yv := r.ds.SparseRow(int(j))
				dot = dotGather32(w, yi, yv)
			}
			a[t] = g * rbfDist(sqi, sq[j], dot)
		}
		kexp.ExpBatch32(dst[lo:lo+len(blk)], a)
	}
	// The scratch is all zeros between calls (the sparse scatter needs it).
	if dense {
		clear(w)
	} else {
		for _, j := range xi {
			w[j] = 0
		}
	}
}

// rbfDist returns ‖u−v‖² = u'u + v'v − 2u'v, clamped at 0 as Kernel.rbf
// clamps it.
func rbfDist(uu, vv, uv float64) float64 {
	d := uu + vv - 2*uv
	if d < 0 {
		return 0
	}
	return d
}

// rbfTrain is the RBF kernel value of the trainer, from the same
// arguments as Kernel.rbf: exp through kexp.ExpFast, as columnRBF computes it.
func rbfTrain(gamma, uu, vv, uv float64) float64 {
	return kexp.ExpFast(-gamma * rbfDist(uu, vv, uv))
}

// rbfArgsFast: simd.RBFArgs has a vector path (AVX2 or AVX-512) and it
// rounds as this build's simd.Dot64x4 (kexp.TrainVectorExact).
var rbfArgsFast = kexp.TrainVectorExact && (simd.CurrentLevel() == simd.AVX2 || simd.CurrentLevel() == simd.AVX512)

// rbfArgsDense sets a[t] = g·‖x − x_{rows[t]}‖² for dense rows of len(x)
// features stored back to back in data, x widened to float64, sq the rows'
// squared norms and sqi x's: columnRBF's arguments of exp, the dot product
// summed as simd.Dot64x4 sums it (bit for bit), written out here because the
// compiler inlines neither simd.Dot64x4 nor dotWide32. simd.RBFArgs is the same
// sum, unfused, vectorized on amd64 (rbfArgsFast); elsewhere this loop
// stays, compiled as simd.Dot64x4 is, so that where the compiler fuses a product
// into a sum (arm64, GOAMD64=v3) the two keep agreeing bit for bit.
func rbfArgsDense(a, x []float64, data []float32, rows []int32, sq []float64, sqi, g float64) {
	n := len(x)
	a = a[:len(rows)]
	for t, j := range rows {
		o := int(j) * n
		y := data[o : o+n : o+n]
		y = y[:len(x)] // equal lengths let the compiler drop bounds checks
		var s0, s1, s2, s3 float64
		k := 0
		for ; k+4 <= len(x); k += 4 {
			s0 += x[k] * float64(y[k])
			s1 += x[k+1] * float64(y[k+1])
			s2 += x[k+2] * float64(y[k+2])
			s3 += x[k+3] * float64(y[k+3])
		}
		for ; k < len(x); k++ {
			s0 += x[k] * float64(y[k])
		}
		d := sqi + sq[j] - 2*((s0+s1)+(s2+s3))
		if d < 0 {
			d = 0
		}
		a[t] = g * d
	}
}
