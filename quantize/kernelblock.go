package quantize

import (
	"math"
	"sync"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// Blocked int8 kernel prediction, for batches of rows against a model of
// 8-bit codes in the dense layout, on CPUs whose int8 matrix product is
// fast (simd.FastInt8: AVX-512 VNNI, 64 multiply-adds an instruction, four
// times a float32 FMA's 16). For a block of rows the exact sums
//
//	S_ri = Σ_j xq_rj·q_ij
//
// are the matrix product of the rows' input codes and the support vectors'
// codes (packed once, when the model is made, by simd.PackS8). VPDPBUSD
// multiplies unsigned by signed bytes, so a row is quantized to codes
// |xq| ≤ Qb with its own scale t (x̃_j = x_j·a_j ≈ t·xq_j), shifted to
// u = xq + 32768 = 256·hi + lo with hi, lo unsigned bytes, and
//
//	S_ri = Σ_j (256·hi_rj + lo_rj)·q_ij − 32768·Σ_j q_ij,
//
// one simd.GemmU16S8 product (both byte planes against each load of the
// codes) and a per-support-vector constant. Qb = min(32767, (2³¹−1) /
// (128·nf)) keeps |S_ri| below 2³¹, so the int32 sums, which wrap, give
// S_ri exactly (for Fashion-MNIST's 784 features Qb = 21,399: 2¹⁴·³ steps,
// far finer than the support vectors' 2⁸). Then x·sv'_i = c0 + t·S_i and the kernel, the decision
// values (core.KernelDecisions32) and votes follow in float32 as in core's
// blocked path. PredictDense and PredictSparse of C-SVC and one-class
// models take it too, as a block of one row: the packing gains a row
// nothing, but VNNI does (once core's float32 single-row calls were
// blocked, the exact column sums ran at 0.08–0.14× their speed), and a row
// then gets the same label, bit for bit, alone or in a batch. ε-SVR
// single rows, DecisionDense, DecisionSparse, LabelOf and the
// probabilities keep the exact column sums of kernelpredict.go, the
// reference the error bounds are stated for (see rowBlocks).
//
// Memory: the packed codes take PaddedCols(l)·Round4(nf) bytes (as much as
// the codes themselves), plus 12 bytes a support vector; a batch keeps
// about 4·PaddedCols(l) + 2·Round4(nf) bytes a row of its block (at most 64
// rows) per goroutine.

// inputCodeMax is the largest |xq| of a blocked row, for short rows.
const inputCodeMax = 32767

// qblockScratchBytes bounds a block's int32 sums and kernel values.
const qblockScratchBytes = 2 << 20

// kernelBlocks is what newKernel prepares for blocked prediction.
type kernelBlocks struct {
	nf, nf4, l, lp int
	rows           int       // rows a block takes
	panels         []int8    // codes, simd.PackS8 layout
	codeMax        float64   // Qb
	qoff           []int32   // 32768·Σ_j q_ij (mod 2³²): the shift of the input codes
	base           []float32 // RBF: −γ‖sv'_i‖²
	coef           []float32
	pool           sync.Pool // *qblockScratch
}

type qblockScratch struct {
	hi, lo    []uint8 // rows × nf4 input bytes
	h         []int32 // rows × lp products
	kv        []float32
	xx, c0, t []float64 // rows
	dec       []float64
	votes     []float64
	part      []float32
}

// newKernelBlocks packs m's codes, or returns nil when the blocked path
// does not apply (16-bit codes, sparse layout, no fast int8 product).
func newKernelBlocks(m *Kernel) *kernelBlocks {
	if m.col8 == nil || !simd.FastInt8() {
		return nil
	}
	nf, l := m.nf, m.l
	b := &kernelBlocks{nf: nf, nf4: simd.Round4(nf), l: l, lp: simd.PaddedCols(l)}
	b.rows = min(64, max(4, qblockScratchBytes/(8*max(b.lp, 1))&^3))
	b.codeMax = float64(min(inputCodeMax, (1<<31-1)/(128*max(nf, 1))))
	b.panels = make([]int8, simd.PackedLenS8(l, nf))
	simd.PackS8(b.panels, m.col8, l, nf, 1, l)
	b.qoff = make([]int32, l)
	for j := range nf {
		col := m.col8[j*l : j*l+l]
		for i, q := range col {
			b.qoff[i] += 32768 * int32(q) // wraps, as the products do
		}
	}
	if m.ss != nil {
		b.base = make([]float32, b.lp)
		for i, v := range m.ss {
			b.base[i] = float32(-m.kernel.Gamma * v)
		}
	}
	b.coef = make([]float32, len(m.coef))
	for i, c := range m.coef {
		b.coef[i] = float32(c)
	}
	nDec, nr := m.NumDecisionValues(), len(m.labels)
	b.pool.New = func() any {
		return &qblockScratch{
			hi: make([]uint8, b.rows*b.nf4), lo: make([]uint8, b.rows*b.nf4),
			h:  make([]int32, b.rows*b.lp),
			kv: make([]float32, b.lp),
			xx: make([]float64, b.rows), c0: make([]float64, b.rows), t: make([]float64, b.rows),
			dec: make([]float64, nDec), votes: make([]float64, nr), part: make([]float32, nr*max(nr-1, 0)),
		}
	}
	return b
}

// encodeStart sets row r's input bytes to code 0 (u = 32768) everywhere.
func (b *kernelBlocks) encodeStart(s *qblockScratch, r int) (hi, lo []uint8) {
	hi, lo = s.hi[r*b.nf4:][:b.nf4], s.lo[r*b.nf4:][:b.nf4]
	for j := range hi {
		hi[j], lo[j] = 128, 0
	}
	return hi, lo
}

// setScale sets row r's scale from mx = max |x_j·a_j| and returns the
// multiplier that makes the codes (0 for a zero or non-finite row).
func (b *kernelBlocks) setScale(s *qblockScratch, r int, mx float64) float64 {
	s.t[r] = 0
	if !(mx > 0) || math.IsInf(mx, 0) {
		return 0
	}
	s.t[r] = mx / b.codeMax
	return b.codeMax / mx
}

// encodeOne stores the code of x̃ = v at j: u = round(v·inv) + 32768, as
// the truncation of a positive number (|v·inv| ≤ Qb), rounding halves up,
// cheaper than math.Round.
func encodeOne(hi, lo []uint8, j int, v float64, inv float64) {
	u := uint32(v*inv + 32768.5)
	hi[j], lo[j] = uint8(u>>8), uint8(u)
}

// encodeDense quantizes the dense row x (any width) into row r.
func (m *Kernel) encodeDense(b *kernelBlocks, s *qblockScratch, r int, x []float32) {
	hi, lo := b.encodeStart(s, r)
	n := min(len(x), b.nf)
	xs := x[:n]
	fa, fo := m.fa[:n], m.fo[:n]
	// Two accumulators each halve the add latency chains; a plain
	// comparison, not max (whose NaN rules cost a branch), finds mx (a NaN
	// input then leaves mx short, giving unspecified values as documented).
	var xx0, xx1, c00, c01, mx float64
	j := 0
	for ; j+1 < len(xs); j += 2 {
		f0, f1 := float64(xs[j]), float64(xs[j+1])
		xx0 += f0 * f0
		xx1 += f1 * f1
		c00 += f0 * fo[j]
		c01 += f1 * fo[j+1]
		if a := math.Abs(f0 * float64(fa[j])); a > mx {
			mx = a
		}
		if a := math.Abs(f1 * float64(fa[j+1])); a > mx {
			mx = a
		}
	}
	if j < len(xs) {
		f := float64(xs[j])
		xx0 += f * f
		c00 += f * fo[j]
		if a := math.Abs(f * float64(fa[j])); a > mx {
			mx = a
		}
	}
	xx, c0 := xx0+xx1, c00+c01
	for _, v := range x[n:] {
		xx += float64(v) * float64(v)
	}
	s.xx[r], s.c0[r] = xx, c0
	inv := b.setScale(s, r, mx)
	if inv == 0 {
		return
	}
	for j, v := range xs {
		if v != 0 {
			encodeOne(hi, lo, j, float64(v)*float64(fa[j]), inv)
		}
	}
}

// encodeSparse quantizes a sparse row into row r.
func (m *Kernel) encodeSparse(b *kernelBlocks, s *qblockScratch, r int, index []int32, value []float32) {
	hi, lo := b.encodeStart(s, r)
	value = value[:len(index)]
	var xx, c0, mx float64
	for p, j := range index {
		f := float64(value[p])
		xx += f * f
		if uint(j) < uint(b.nf) {
			c0 += f * m.fo[j]
			if a := math.Abs(f * float64(m.fa[j])); a > mx {
				mx = a
			}
		}
	}
	s.xx[r], s.c0[r] = xx, c0
	inv := b.setScale(s, r, mx)
	if inv == 0 {
		return
	}
	for p, j := range index {
		if uint(j) < uint(b.nf) && value[p] != 0 {
			encodeOne(hi, lo, int(j), float64(value[p])*float64(m.fa[j]), inv)
		}
	}
}

// blockLabels predicts the n encoded rows of s into dst.
func (m *Kernel) blockLabels(b *kernelBlocks, s *qblockScratch, dst []float64, n int) {
	simd.GemmU16S8(s.h, b.lp, s.hi, s.lo, b.nf4, n, b.panels, b.l, b.nf)
	k := m.kernel
	for r := range n {
		h := s.h[r*b.lp:][:b.l]
		kv, qoff := s.kv[:len(h)], b.qoff[:len(h)]
		t, c0 := s.t[r], s.c0[r]
		for i, v := range h {
			kv[i] = float32(c0 + t*float64(v-qoff[i])) // v − qoff wraps to S exactly
		}
		switch k.Type {
		case core.RBFKernel:
			simd.ExpRBF(kv, kv, b.base, float32(2*k.Gamma), float32(-k.Gamma*s.xx[r]))
		case core.PolyKernel, core.SigmoidKernel:
			for i, v := range kv {
				kv[i] = float32(k.FromDot(0, 0, float64(v)))
			}
		}
		core.KernelDecisions32(m.svmType, s.dec, kv, b.coef, m.rho, m.start, s.part)
		dst[r] = core.KernelPrediction(m.svmType, m.labels, s.dec, s.votes)
	}
}

// blockPredictRows predicts rows [from, to) of ds into dst[from:to].
func (m *Kernel) blockPredictRows(b *kernelBlocks, dst []float64, ds *data.Dataset, from, to int) {
	s := b.pool.Get().(*qblockScratch)
	for r0 := from; r0 < to; r0 += b.rows {
		n := min(b.rows, to-r0)
		for r := range n {
			if ds.IsDense() {
				m.encodeDense(b, s, r, ds.DenseRow(r0+r))
			} else {
				idx, val := ds.SparseRow(r0 + r)
				m.encodeSparse(b, s, r, idx, val)
			}
		}
		m.blockLabels(b, s, dst[r0:r0+n], n)
	}
	b.pool.Put(s)
}

// blockPredictMatrix predicts the rows of the row-major matrix x.
func (m *Kernel) blockPredictMatrix(b *kernelBlocks, dst []float64, x []float32) {
	s := b.pool.Get().(*qblockScratch)
	for r0 := 0; r0 < len(dst); r0 += b.rows {
		n := min(b.rows, len(dst)-r0)
		for r := range n {
			m.encodeDense(b, s, r, x[(r0+r)*m.nf:][:m.nf])
		}
		m.blockLabels(b, s, dst[r0:r0+n], n)
	}
	b.pool.Put(s)
}
