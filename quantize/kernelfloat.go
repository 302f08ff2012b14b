package quantize

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// The float32 prefilter of few-feature RBF models (issue 30: a quantized
// model should never be the slow choice; ε-SVR batch values are its own,
// within floatRegressionBound of the exact ones). Below preMinFeatures
// features the exact sums' product is a small part of a row's time, and
// the row's encoding, the int64 sums' conversion and the second limb made
// int8 batches 1.4–1.8× and int16 ones 1.8–1.9× the float model's on
// digits and breast_cancer. So these models keep their decoded support
// vectors sv32_i = float32(o_j + a_j·q_ij) packed as the float model
// packs its own (simd.Pack), and a block of rows takes the float model's
// path: one float32 product X·SV32ᵀ (simd.Gemm), the RBF values
// K̂_i = exp(min(0, 2γ·x·sv32_i − γ‖sv'_i‖² − γ‖x‖²)) in float32
// (simd.ExpRBF) and the float32 decision values (below). No row is
// encoded unless it is in doubt.
//
// A label is still the exact sums': the exponent â_i of K̂_i is within ε
// of the exact path's, a_i = −γ·max(0, ‖x‖² + ‖sv'_i‖² − 2(c0 + t·S_i)),
// with u = 2⁻²⁴ and ‖x‖·‖sv'_i‖ ≤ (‖x‖² + ‖sv'_i‖²)/2,
//
//	ε/γ ≤ (3n + 18)·u·(X + max_i ‖sv'_i‖²) + t_B·n·maxCode,
//
// from the product's n sequential float32 multiply-adds (at most two
// roundings each, γ_2n·‖x‖‖sv32_i‖), the decoded values' rounding to
// float32 (u·‖x‖‖sv'_i‖), ‖x‖² taken as a float32 simd.Dot (within
// γ_n·‖x‖² in any order; X = (1 + (n + 2)u)·that sum ≥ ‖x‖², floatNorm),
// the exponent's float32 assembly (2γ, −γ‖sv'‖² and −γ‖x‖² rounded to
// float32, then two additions: under 10u·(‖x‖² + ‖sv'_i‖²)), and the
// exact sums' input rounding, |c0 + t·S_i − x·sv'_i| ≤
// (t/2)(1 + 2⁻²⁰)·Σ_j |q_ij| (package doc, Δ_x,i), taken twice with t ≤ t_B
// = ‖x‖·max_j a_j / Q_min; the float64 roundings of the exact path are
// far below the margin of 2⁻¹⁰ the bound is widened by. Then |K_i − K̃_i| ≤
// g·K̃_i for K̃_i = e^âi ≤ 1, g = e^ε − 1, and a decision value moves by at
// most g·A_p, A_p = Σ_i |c_pi| over its support vectors; fastLabel's bound
// E_p covers the rest (the exp's error, the float32 sums), as it does for
// the one-limb prefilter (blockPredictPre). A row with a decision value
// within E_p + g·(A_p + E_p) of 0 is encoded and takes the exact sums
// (simd.GemmS8Limbs, simd.GemmS16Limbs), as every row did before.
//
// The decision values' class sums: C-SVC models of three classes or more
// take them as one float32 product a class and block of rows, K_c·C_cᵀ
// (simd.Gemm: the block's kernel values on class c's support vectors
// times the class's k − 1 coefficient rows), where core's blocked path
// (KernelDecisions32) makes a simd.Dot call per class and coefficient row
// of every row: k(k − 1) calls a row, which were half of shuttle's batch
// time (7 classes, 614 support vectors) and a quarter of digits' (10
// classes). Models of one decision value (two classes, one-class, ε-SVR)
// take a simd.Dot a class (KernelDecisions32's sums on AVX2 and AVX-512,
// without its general loops, a tenth of heart_scale's row). A sum of n_c
// float32 products in any order is within γ_{n_c} of its value, so the
// bound's depth term for class c is (n_c + 12)·u, for every order the
// products and simd.Dot's paths take.
//
// Memory: the decoded panels take 4·PaddedCols(l)·n bytes (breast_cancer
// 15 KB, digits 254 KB: four times the int8 codes), which is why wide
// models (Fashion-MNIST: 17 MB) keep to the integer products; there the
// bound, with n = 784, would also leave most rows in doubt. Tried on the
// int16 Fashion-MNIST 10k model (2026-11-28) with A_p replaced by the
// row's W_p = Σ_i |c_pi|·K̂_i (as blockPredictPre weighs its slack): 29%
// of 2,000 test rows in doubt (the bound about 1,000× the largest error
// seen: the product's worst-case rounding over 784 terms), batches 2.7×
// the float model's CPU time against 2.0–2.2× for the exact sums alone. The
// class coefficient panels take 4·PaddedCols(k − 1)·l bytes (digits 106 KB).

// floatSlackScale multiplies ε (1: the bound above); the tests raise it to
// send every row to the exact sums.
var floatSlackScale = 1.0

// floatPre is what the float32 prefilter keeps.
type floatPre struct {
	panels []float32 // sv32, simd.Pack layout, PaddedCols(l) × nf
	base   []float32 // −γ‖sv'_i‖² as float32, PaddedCols(l)
	scale  float32   // 2γ
	absA   []float64 // A_p per decision value, rounded up
	// Per decision value, bound(s, p, g, absA) = e_p + g·f_p with every
	// M_c = 1, computed once (a row then pays one multiply-add a value):
	// e_p = E_p, f_p = A_p + E_p, both rounded up.
	e, f []float64
	// ε/γ = epsU·(‖x‖² + ssMax) + tB·‖x‖ (see above).
	epsU, ssMax, tB float64
	// C-SVC of 3+ classes: class c's coefficient rows over its support
	// vectors, packed for simd.Gemm at classAt[c] (PackedLen(k − 1, n_c)
	// values), the block's class sums a row every partW·k values; nil
	// otherwise.
	classPanels []float32
	classAt     []int
	partW       int
}

// newFloatPre prepares the float32 prefilter of m, or returns nil where it
// does not apply (see above): RBF models of fewer than preMinFeatures
// features, whose codes b's exact product has no one-limb prefilter for.
func newFloatPre(m *Kernel, b *kernelBlocks) *floatPre {
	if b.pre || m.kernel.Type != core.RBFKernel || m.nf >= preMinFeatures {
		return nil
	}
	nf, l := m.nf, m.l
	f := &floatPre{
		panels: make([]float32, simd.PackedLen(l, nf)),
		base:   make([]float32, b.lp),
		scale:  float32(2 * m.kernel.Gamma),
		absA:   make([]float64, len(b.pairs)),
		epsU:   float64(3*nf+18) * 0x1p-24,
	}
	sv := make([]float32, l*nf)
	row := make([]float64, nf)
	for i := range l {
		for j, v := range m.SupportVector(row, i) {
			sv[i*nf+j] = float32(v)
		}
	}
	simd.Pack(f.panels, sv, l, nf, nf, 1)
	for i, v := range m.ss {
		f.base[i] = float32(-m.kernel.Gamma * v)
		f.ssMax = max(f.ssMax, v)
	}
	nc := len(b.ranges) - 1
	depth := make([]float64, nc)
	for c := range nc {
		depth[c] = float64(b.ranges[c+1]-b.ranges[c]+12) * 0x1p-24
	}
	if m.svmType.IsSVC() && nc >= 3 {
		f.partW = simd.PaddedCols(nc - 1)
		f.classAt = make([]int, nc+1)
		for c := range nc {
			f.classAt[c+1] = f.classAt[c] + simd.PackedLen(nc-1, b.ranges[c+1]-b.ranges[c])
		}
		f.classPanels = make([]float32, f.classAt[nc])
		for c := range nc {
			if from := b.ranges[c]; b.ranges[c+1] > from {
				simd.Pack(f.classPanels[f.classAt[c]:f.classAt[c+1]], b.coef32[from:], nc-1, b.ranges[c+1]-from, l, 1)
			}
		}
	}
	f.e, f.f = make([]float64, len(b.pairs)), make([]float64, len(b.pairs))
	for p, pr := range b.pairs {
		f.absA[p] = (pr.ai + pr.aj) * (1 + 0x1p-20)
		del := func(c int) float64 { return b.relK + depth[c] + b.absK }
		f.e[p] = (pr.ai*del(pr.ci) + pr.aj*del(pr.cj)) * (1 + 0x1p-20)
		f.f[p] = (f.absA[p] + f.e[p]) * (1 + 0x1p-20)
	}
	var aMax float64
	for _, a := range m.fa {
		aMax = max(aMax, float64(a))
	}
	qMin := float64(maxInputScale)
	if lim := (1 << 62) / (m.maxCode * int64(nf)); lim < maxInputScale {
		qMin = float64(max(lim, 1))
	}
	f.tB = aMax / qMin * float64(nf) * float64(m.maxCode) * (1 + 0x1p-20)
	return f
}

// slack returns g ≥ e^ε − 1 for rows of squared norm (floatNorm) at most
// xx: ε/(1 − ε) (e^ε ≤ 1/(1 − ε) for ε < 1; +Inf from ε = 1, where the
// bound settles nothing anyway). ε grows with xx, so a block takes the g
// of its largest norm: one square root and division a block, not a row.
func (f *floatPre) slack(gamma, xx float64) float64 {
	eps := gamma * (f.epsU*(xx+f.ssMax) + f.tB*math.Sqrt(xx)) * (1 + 0x1p-10) * floatSlackScale
	if !(eps < 1) {
		return math.Inf(1)
	}
	return eps / (1 - eps) * (1 + 0x1p-20)
}

// floatNorm returns ‖x‖² as the exponents take it, a float32 simd.Dot of
// x with itself (a call instead of Dot64x4's scalar loop, which was a
// tenth of breast_cancer's row), and X ≥ ‖x‖², that sum widened by its
// rounding (see the top of the file), which slack takes.
func floatNorm(x []float32) (xx, up float64) {
	xx = float64(simd.Dot(x, x))
	return xx, xx * (1 + float64(len(x)+2)*0x1p-24)
}

// floatStage puts the n rows of ds from r0 on where simd.Gemm reads them,
// nf features a row (ds's own matrix when it has that width), sets s.fxx
// to their floatNorm over every feature, and returns the rows and the
// largest X (NaN when a norm is).
func (b *kernelBlocks) floatStage(s *qblockScratch, ds *data.Dataset, r0, n int) ([]float32, float64) {
	nf := b.nf
	up := 0.0
	if ds.IsDense() && ds.NumFeatures() == nf {
		a := ds.DenseMatrix()[r0*nf : (r0+n)*nf]
		for r := range n {
			xx, xu := floatNorm(a[r*nf:][:nf])
			s.fxx[r], up = xx, max(up, xu)
		}
		return a, up
	}
	for r := range n {
		dst := s.fx[r*nf:][:nf]
		if ds.IsDense() {
			x := ds.DenseRow(r0 + r)
			clear(dst[copy(dst, x):])
			xx, xu := floatNorm(x)
			s.fxx[r], up = xx, max(up, xu)
			continue
		}
		idx, val := ds.SparseRow(r0 + r)
		clear(dst)
		for p, j := range idx {
			if uint(j) < uint(nf) {
				dst[j] = val[p]
			}
		}
		xx, xu := floatNorm(val)
		s.fxx[r], up = xx, max(up, xu)
	}
	return s.fx[:n*nf], up
}

// floatKernel sets the kernel values of the n rows of a (nf features a
// row, squared norms in s.fxx) in s.fk, a row every lp values, and for
// models with class panels their class sums in s.fpart.
func (m *Kernel) floatKernel(b *kernelBlocks, s *qblockScratch, a []float32, n int) {
	f := b.fl
	simd.Gemm(s.fk, b.lp, a, b.nf, n, f.panels, b.l, b.nf)
	for r := range n {
		kv := s.fk[r*b.lp:][:b.l]
		simd.ExpRBF(kv, kv, f.base, f.scale, float32(-m.kernel.Gamma*s.fxx[r]))
	}
	if f.classPanels == nil {
		return
	}
	nc := len(b.ranges) - 1
	ldc := f.partW * nc
	for c := range nc {
		from, to := b.ranges[c], b.ranges[c+1]
		if to == from { // no support vectors: sums of nothing
			for r := range n {
				clear(s.fpart[r*ldc+c*f.partW:][:f.partW])
			}
			continue
		}
		simd.Gemm(s.fpart[c*f.partW:], ldc, s.fk[from:], b.lp, n, f.classPanels[f.classAt[c]:f.classAt[c+1]], nc-1, to-from)
	}
}

// floatDecisions sets s.dec from the float32 kernel values of row r of
// the block: from its class sums in s.fpart (pair (i, j): class i's sum on
// coefficient row j − 1 plus class j's on row i, minus ρ, as
// KernelDecisions32 adds them), or for one decision value its classes'
// sums on the one coefficient row, minus ρ.
func (m *Kernel) floatDecisions(b *kernelBlocks, s *qblockScratch, r int) {
	f := b.fl
	if f.classPanels == nil {
		kv, d := s.fk[r*b.lp:][:b.l], -m.rho[0]
		for c := 0; c+1 < len(b.ranges); c++ {
			from, to := b.ranges[c], b.ranges[c+1]
			d += float64(simd.Dot(kv[from:to], b.coef32[from:to]))
		}
		s.dec[0] = d
		return
	}
	nc := len(b.ranges) - 1
	part := s.fpart[r*f.partW*nc:][:f.partW*nc]
	p := 0
	for i := range nc {
		for j := i + 1; j < nc; j++ {
			s.dec[p] = float64(part[i*f.partW+j-1]) + float64(part[j*f.partW+i]) - m.rho[p]
			p++
		}
	}
}

// floatRegressionBound returns the bound on the distance of an ε-SVR
// model's float32 batch value (floatPredict) from the exact sums' value,
// for rows of floatNorm at most xx: floatDecide's E_p + g·(A_p + E_p) with
// every M_c = 1.
func (m *Kernel) floatRegressionBound(xx float64) float64 {
	f := m.blk.fl
	return f.e[0] + f.slack(m.kernel.Gamma, xx)*f.f[0]
}

// floatDecide sets s.dec from the float32 kernel values of row r of the
// block (floatDecisions) and reports whether its label is the exact sums':
// as clear decides, with its bound for M_c = 1 (|K| ≤ 1) precomputed and
// g the slack of the row's norm or more.
func (m *Kernel) floatDecide(b *kernelBlocks, s *qblockScratch, r int, g float64) bool {
	m.floatDecisions(b, s, r)
	f := b.fl
	e, fw := f.e[:len(s.dec)], f.f[:len(s.dec)]
	all := true
	for p, d := range s.dec {
		s.sure[p] = math.Abs(d) > e[p]+g*fw[p]
		all = all && s.sure[p]
	}
	return all || len(b.ranges) > 3 && b.votesSure(s) // C-SVC of 3+ classes
}

// floatPredict predicts the n rows of a (staged by floatStage, the largest
// X up) into dst:
// the float32 prefilter's labels, and for the rows it leaves in doubt the
// exact sums' (encode(i, r) encodes row r of the block as row i of s).
// ε-SVR (and ν-SVR) values are the float32 path's, as a float model's
// batch values are core's blocked path's: within floatRegressionBound of
// the exact sums' (DecisionDense), which single rows return.
func (m *Kernel) floatPredict(b *kernelBlocks, s *qblockScratch, dst []float64, a []float32, n int, up float64, encode func(i, r int)) {
	m.floatKernel(b, s, a, n)
	if m.svmType.IsRegression() {
		for r := range n {
			m.floatDecisions(b, s, r)
			dst[r] = s.dec[0]
		}
		return
	}
	g := b.fl.slack(m.kernel.Gamma, up) // NaN: +Inf, no row of the block is settled
	// One decision value (two classes, one-class): its sign is the label
	// (KernelPrediction's), once it is farther than its bound from 0.
	one, thr := len(s.dec) == 1, b.fl.e[0]+g*b.fl.f[0]
	pos, neg := 1.0, -1.0
	if one && m.svmType.IsSVC() {
		pos, neg = float64(m.labels[0]), float64(m.labels[1])
	}
	nd := 0
	for r := range n {
		if one {
			m.floatDecisions(b, s, r)
			if d := s.dec[0]; math.Abs(d) > thr {
				dst[r] = neg
				if d > 0 {
					dst[r] = pos
				}
				continue
			}
		} else if m.floatDecide(b, s, r, g) {
			dst[r] = core.KernelPrediction(m.svmType, m.labels, s.dec, s.votes)
			continue
		}
		s.doubt[nd] = r
		nd++
	}
	if nd == 0 {
		return
	}
	for i, r := range s.doubt[:nd] {
		encode(i, r)
	}
	b.blockSums(s, nd)
	lab := s.lab[:nd]
	m.labelRows(b, s, lab, b.iota[:nd])
	for i, r := range s.doubt[:nd] {
		dst[r] = lab[i]
	}
}
