package core

import (
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// Kernel functions K(u, v) of the SMO solvers and kernel predictors, with
// LIBSVM's parameter meanings (its -t, -d, -g and -r options).
//
// Every kernel here is a function of u'v (and, for RBF, of u'u and v'v):
// RBF is evaluated as exp(−γ(u'u + v'v − 2u'v)) with the squared norms
// computed once per row, so a kernel column costs one dot product per
// entry whatever the kernel. The difference can cancel to a tiny negative
// number when u ≈ v; it is clamped at 0 so K ≤ 1 holds exactly.
//
// Dot products accumulate float32 products in float64 (each product is
// exact) in a fixed order, so a value does not depend on which path
// computed it: Kernel.Dense and kernelRows agree bit for bit on dense
// rows, and Kernel.Sparse and kernelRows on sparse rows.

// KernelType names a kernel function. The values are LIBSVM's -t numbers.
type KernelType int

// The kernels of LIBSVM (its precomputed kernel, -t 4, is not supported).
const (
	LinearKernel  KernelType = 0 // u'v
	PolyKernel    KernelType = 1 // (γ·u'v + coef0)^degree
	RBFKernel     KernelType = 2 // exp(−γ·‖u−v‖²)
	SigmoidKernel KernelType = 3 // tanh(γ·u'v + coef0)
)

// String returns LIBSVM's name for the kernel, as written in its model
// files: "linear", "polynomial", "rbf" or "sigmoid".
func (t KernelType) String() string {
	switch t {
	case LinearKernel:
		return "linear"
	case PolyKernel:
		return "polynomial"
	case RBFKernel:
		return "rbf"
	case SigmoidKernel:
		return "sigmoid"
	}
	return fmt.Sprintf("KernelType(%d)", int(t))
}

// Kernel is a kernel function with its parameters, meaning what they mean
// in LIBSVM:
//
//	linear:      K(u, v) = u'v
//	polynomial:  K(u, v) = (Gamma·u'v + Coef0)^Degree
//	rbf:         K(u, v) = exp(−Gamma·‖u − v‖²)
//	sigmoid:     K(u, v) = tanh(Gamma·u'v + Coef0)
//
// Parameters a kernel does not use are ignored. Gamma is used as given:
// LIBSVM's default of 1/num_features is the option parser's business
// (a Gamma of 0 here means γ = 0, not "default"). The zero value is the
// linear kernel.
type Kernel struct {
	Type   KernelType
	Degree int     // polynomial degree (-d), >= 0
	Gamma  float64 // γ (-g), >= 0
	Coef0  float64 // coef0 (-r)
}

// Validate reports a kernel LIBSVM would refuse, or one whose parameters
// are not finite, with an error wrapping ErrParams.
func (k Kernel) Validate() error {
	switch k.Type {
	case LinearKernel, PolyKernel, RBFKernel, SigmoidKernel:
	default:
		return fmt.Errorf("%w: unknown kernel type -t %d (want 0, 1, 2 or 3)", ErrParams, int(k.Type))
	}
	if k.Type == LinearKernel {
		return nil
	}
	if !(k.Gamma >= 0) || math.IsInf(k.Gamma, 0) {
		return fmt.Errorf("%w: gamma = %v, want a finite gamma >= 0", ErrParams, k.Gamma)
	}
	if k.Type == PolyKernel && k.Degree < 0 {
		return fmt.Errorf("%w: polynomial degree %d, want >= 0", ErrParams, k.Degree)
	}
	if math.IsNaN(k.Coef0) || math.IsInf(k.Coef0, 0) {
		return fmt.Errorf("%w: coef0 = %v is not finite", ErrParams, k.Coef0)
	}
	return nil
}

// Dense returns K(x, y) for two dense rows. Entries past the shorter row
// count as zeros. It allocates nothing.
func (k Kernel) Dense(x, y []float32) float64 {
	dot := dotDense32(x, y)
	if k.Type == RBFKernel {
		return k.rbf(dotDense32(x, x), dotDense32(y, y), dot)
	}
	return k.ofDot(dot)
}

// Sparse returns K(x, y) for two sparse rows given by 0-based indices,
// strictly increasing, and their values. It allocates nothing; it panics
// if a row's index and value lengths differ.
func (k Kernel) Sparse(xi []int32, xv []float32, yi []int32, yv []float32) float64 {
	if len(xi) != len(xv) || len(yi) != len(yv) {
		panic("core: Kernel.Sparse: index and value lengths differ")
	}
	dot := dotMerge32(xi, xv, yi, yv)
	if k.Type == RBFKernel {
		return k.rbf(sqSparse32(xv), sqSparse32(yv), dot)
	}
	return k.ofDot(dot)
}

// ofDot returns K for every kernel but RBF, given u'v.
func (k Kernel) ofDot(dot float64) float64 {
	switch k.Type {
	case PolyKernel:
		return powi(k.Gamma*dot+k.Coef0, k.Degree)
	case SigmoidKernel:
		return math.Tanh(k.Gamma*dot + k.Coef0)
	}
	return dot
}

// rbf returns exp(−γ‖u−v‖²) from u'u, v'v and u'v.
func (k Kernel) rbf(uu, vv, uv float64) float64 {
	d := uu + vv - 2*uv
	if d < 0 { // cancellation when u ≈ v; ‖u−v‖² is never negative
		d = 0
	}
	return math.Exp(-k.Gamma * d)
}

// powi returns b^n for n >= 0 by repeated squaring: for the small integer
// degrees of polynomial kernels it is faster than math.Pow and at least as
// accurate.
func powi(b float64, n int) float64 {
	r := 1.0
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			r *= b
		}
		b *= b
	}
	return r
}

// dotDense32 returns Σ x[j]·y[j] over j < min(len(x), len(y)), summed as
// simd.Dot64x4 sums.
func dotDense32(x, y []float32) float64 {
	n := min(len(x), len(y))
	return simd.Dot64x4(x[:n], y[:n])
}

// sqSparse32 returns Σ v[k]², accumulated as dotGather32 would accumulate
// the row against itself scattered (the same rule as simd.Dot64x4's).
func sqSparse32(v []float32) float64 { return simd.Dot64x4(v, v) }

// dotGather32 returns Σ w[idx[k]]·val[k] where w is a row scattered into a
// dense buffer (every idx[k] < len(w)). Term k goes to accumulator k mod 4,
// except the last len(idx) mod 4 terms, which go to the first: dotMerge32
// follows the same rule, so the two agree bit for bit (terms of features
// absent from w are ±0 and change no sum).
func dotGather32(w []float64, idx []int32, val []float32) float64 {
	val = val[:len(idx)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		s0 += w[idx[k]] * float64(val[k])
		s1 += w[idx[k+1]] * float64(val[k+1])
		s2 += w[idx[k+2]] * float64(val[k+2])
		s3 += w[idx[k+3]] * float64(val[k+3])
	}
	for ; k < len(idx); k++ {
		s0 += w[idx[k]] * float64(val[k])
	}
	return (s0 + s1) + (s2 + s3)
}

// dotMerge32 returns x'y for two sparse rows by merging their indices. A
// common feature at position k of y goes to accumulator k mod 4 as in
// dotGather32 (y playing the gathered row).
func dotMerge32(xi []int32, xv []float32, yi []int32, yv []float32) float64 {
	var s [4]float64
	n4 := len(yi) &^ 3
	a, b := 0, 0
	for a < len(xi) && b < len(yi) {
		switch {
		case xi[a] == yi[b]:
			acc := b & 3
			if b >= n4 {
				acc = 0
			}
			s[acc] += float64(xv[a]) * float64(yv[b])
			a++
			b++
		case xi[a] < yi[b]:
			a++
		default:
			b++
		}
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}

// kernelRows evaluates the kernel between rows of one data set: the dense
// layout over contiguous float32 rows, the sparse one by scattering the
// column's row into a dense buffer and gathering each other row against it
// (no data-dependent branches, unlike a merge). RBF uses the squared norms
// precomputed at construction and the trainer's exp (kexp.go, kcolumn.go):
// within a few float64 ulps of Kernel.rbf's.
//
// A kernelRows is used by one goroutine at a time (the sparse scratch is
// shared by its calls); the data set must not change while it is in use.
type kernelRows struct {
	ds      *data.Dataset
	k       Kernel
	sqnorm  []float64 // x_i'x_i for every row (RBF only)
	scratch []float64 // sparse: one row scattered, all zeros between calls
}

// newKernelRows returns the kernel of k over the rows of ds. sqnorm is a
// caller-owned buffer of at least ds.Len() entries (filled here, used for
// RBF; nil is fine for the other kernels). A sparse data set also gets a
// scratch buffer of NumFeatures float64, allocated here. It panics if
// sqnorm is too short for an RBF kernel.
func newKernelRows(ds *data.Dataset, k Kernel, sqnorm []float64) *kernelRows {
	r := &kernelRows{ds: ds, k: k}
	if k.Type == RBFKernel {
		if len(sqnorm) < ds.Len() {
			panic("core: newKernelRows: sqnorm shorter than the data set")
		}
		r.sqnorm = sqnorm[:ds.Len()]
		for i := range r.sqnorm {
			if ds.IsDense() {
				x := ds.DenseRow(i)
				r.sqnorm[i] = trainDot(x, x)
			} else {
				_, v := ds.SparseRow(i)
				r.sqnorm[i] = sqSparse32(v)
			}
		}
	}
	if !ds.IsDense() {
		r.scratch = make([]float64, ds.NumFeatures())
	}
	return r
}

// eval returns K(x_i, x_j) for rows i and j of the data set.
func (r *kernelRows) eval(i, j int) float64 {
	var dot float64
	if r.ds.IsDense() {
		dot = trainDot(r.ds.DenseRow(i), r.ds.DenseRow(j)) // as column computes it
	} else {
		xi, xv := r.ds.SparseRow(i)
		yi, yv := r.ds.SparseRow(j)
		dot = dotMerge32(xi, xv, yi, yv)
	}
	if r.k.Type == RBFKernel {
		return rbfTrain(r.k.Gamma, r.sqnorm[i], r.sqnorm[j], dot) // columnRBF's exp
	}
	return r.k.ofDot(dot)
}

// diag returns K(x_i, x_i), eval(i, i) bit for bit. For RBF that is
// exp(−γ·0) = 1 with no dot product: the squared norms are summed as the
// dot products are, so a row's distance to itself is exactly 0. A
// trainer's Q diagonal takes one per row of every subproblem; on shuttle's
// 21 pairs the dot products and exps were 6% of a warm retrain.
func (r *kernelRows) diag(i int) float64 {
	if r.k.Type == RBFKernel {
		return rbfTrain(r.k.Gamma, 0, 0, 0)
	}
	return r.eval(i, i)
}

// column sets dst[t] = float32(K(x_i, x_rows[t])) for t < len(rows), each
// value bit for bit eval(i, rows[t]) rounded to float32. It allocates
// nothing; it panics if dst is shorter than rows.
func (r *kernelRows) column(dst []float32, i int, rows []int32) {
	dst = dst[:len(rows)]
	k := r.k
	if k.Type == RBFKernel {
		r.columnRBF(dst, i, rows)
		return
	}
	if r.ds.IsDense() {
		x := r.ds.DenseRow(i)
		for t, j := range rows {
			dst[t] = float32(k.ofDot(trainDot(x, r.ds.DenseRow(int(j)))))
		}
		return
	}
	xi, xv := r.ds.SparseRow(i)
	w := r.scratch
	for a, j := range xi {
		w[j] = float64(xv[a])
	}
	for t, j := range rows {
		yi, yv := r.ds.SparseRow(int(j))
		dst[t] = float32(k.ofDot(dotGather32(w, yi, yv)))
	}
	for _, j := range xi {
		w[j] = 0
	}
}
