package quantize

import (
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core"
)

// inputSlack is 1 + η, the relative margin on the input's rounding: xq_j
// is the nearest integer to x̃_j·inv, and inv = Q/max|x̃| and the product
// are rounded once each, so |x̃_j − t·xq_j| ≤ (t/2)(1 + 4uQ) with
// Q ≤ 2^24, under (t/2)(1 + 2^-20).
const inputSlack = 1 + 1.0/(1<<20)

// ErrorBoundDense writes to dst[:NumDecisionValues()], and returns, a bound
// on |dec_p − f_p(x)| for each decision value dec_p DecisionDense gives for
// the dense row x, where f_p(x) is what core.KernelModel.DecisionDense
// gives under the float model this one was made from. The bound covers the
// rounding of the support vectors (e_j = a_j/2 a feature), of sv_coef
// (σ_k/2), of the input row (t/2), and the float64 roundings of both
// computations; the package documentation derives it. It costs about two
// predictions (each nonzero feature of the row is visited for every
// support vector) and allocates nothing once warm. It panics as
// DecisionDense does.
func (m *Kernel) ErrorBoundDense(dst []float64, x []float32) []float64 {
	if s := m.sc; s != nil {
		return s.ApplyDense(dst, x, m.unscaled().ErrorBoundDense)
	}
	if len(x) != m.nf {
		panic(fmt.Sprintf("quantize: Kernel.ErrorBoundDense: row has %d features, model %d", len(x), m.nf))
	}
	s := m.getScratch()
	r := m.scanDense(x)
	m.sumsDense(s, x, &r)
	m.kernelValues(s.kv, s.acc, &r)
	xd, xqd := m.boundInput(s)
	for j, v := range x {
		xd[j] = float64(v)
		if v != 0 && r.t > 0 {
			xqd[j] = float64(m.inputCode(v, j, &r))
		}
	}
	dst = m.bound(dst, s, &r, 2*len(x)+16)
	m.pool.Put(s)
	return dst
}

// ErrorBoundSparse is ErrorBoundDense for a sparse row, read as
// DecisionSparse reads it.
func (m *Kernel) ErrorBoundSparse(dst []float64, index []int32, value []float32) []float64 {
	if s := m.sc; s != nil {
		return s.ApplySparse(dst, index, value, m.unscaled().ErrorBoundDense)
	}
	if len(index) != len(value) {
		panic("quantize: Kernel.ErrorBoundSparse: index and value lengths differ")
	}
	s := m.getScratch()
	r := m.scanSparse(index, value)
	m.sumsSparse(s, index, value, &r)
	m.kernelValues(s.kv, s.acc, &r)
	xd, xqd := m.boundInput(s)
	for p, j := range index {
		if uint(j) < uint(m.nf) {
			xd[j] = float64(value[p])
			if value[p] != 0 && r.t > 0 {
				xqd[j] = float64(m.inputCode(value[p], int(j), &r))
			}
		}
	}
	dst = m.bound(dst, s, &r, 2*(len(index)+m.nf)+16)
	m.pool.Put(s)
	return dst
}

// boundInput returns the scratch's row of input values and input codes
// by feature, zeroed, and makes the bound's scratch on first use.
func (m *Kernel) boundInput(s *kernelScratch) (xd, xqd []float64) {
	if s.bnd == nil {
		s.bnd = make([]float64, 4*m.l+2*m.nf)
	}
	in := s.bnd[4*m.l:]
	clear(in)
	return in[:m.nf], in[m.nf:]
}

// bound computes ErrorBoundDense's bound from the kernel values in s and
// the row (by feature in the bound scratch); n bounds the number of
// roundings of a dot product or a squared norm.
//
// Per support vector i it gathers, over the features j < nf,
//
//	S_i = Σ_j e_j·|x_j − sv'_ij|    (SV rounding, RBF)
//	X_i = Σ_{x_j≠0} |u_ij|          (input rounding: t/2 each)
//	P_i = Σ_j |x_j|·|sv'_ij|        (size of the dot product, for roundings)
//	Q_i = Σ_j |xq_j|·|u_ij|         (size of the integer sum, ditto)
//
// with u_ij the code the sums multiply (q_ij, or q_ij − z_j when sparse),
// then bounds |K(x, sv_i) − K̂_i| by κ_i and sums the decision values'
// bounds.
func (m *Kernel) bound(dst []float64, s *kernelScratch, r *rowInput, n int) []float64 {
	l, nf := m.l, m.nf
	S, X, P, Q := s.bnd[:l], s.bnd[l:2*l], s.bnd[2*l:3*l], s.bnd[3*l:4*l]
	in := s.bnd[4*l:]
	xd, xqd := in[:nf], in[nf:2*nf]

	var eSV, ee, c0abs float64 // Σ|x_j|e_j, Σe_j², Σ|x_j o_j|
	for j, x := range xd {
		e := float64(m.fa[j]) / 2
		eSV += math.Abs(x) * e
		ee += e * e
		if m.dense {
			c0abs += math.Abs(x * m.fo[j])
		}
	}
	// S starts from G_i = Σ_j e_j·|sv'_ij| (precomputed), the value for a
	// zero row, and takes the nonzero features' corrections: the bound
	// costs what a prediction does, not l × nf.
	copy(S, m.g)
	clear(X)
	clear(P)
	clear(Q)
	if !m.dense {
		// A support vector without an entry in column j has sv'_ij = 0:
		// its term e_j·|x_j| is in eSV, corrected below where it has one.
		for i := range S {
			S[i] += eSV
		}
	}
	for j, x := range xd {
		if x == 0 {
			continue
		}
		xq, ax := math.Abs(xqd[j]), math.Abs(x)
		a, o, e := float64(m.fa[j]), m.fo[j], float64(m.fa[j])/2
		if m.dense {
			col := j * l
			for i := range l {
				q := float64(m.denseCode(col + i))
				sv := o + a*q
				asv := math.Abs(sv)
				S[i] += e * (math.Abs(x-sv) - asv)
				P[i] += ax * asv
				X[i] += math.Abs(q)
				Q[i] += xq * math.Abs(q)
			}
			continue
		}
		for p := m.colStart[j]; p < m.colStart[j+1]; p++ {
			i := m.colRow[p]
			rc := float64(m.sparseCode(p))
			sv := a * rc
			asv := math.Abs(sv)
			S[i] += e * (math.Abs(x-sv) - asv - ax)
			P[i] += ax * asv
			X[i] += math.Abs(rc)
			Q[i] += xq * math.Abs(rc)
		}
	}

	// κ_i, stored over S.
	g := gamma(n)
	k := m.kernel
	norme := math.Sqrt(ee)
	for i := range l {
		K := s.kv[i]
		d := r.c0 + r.t*float64(s.acc[i]) // the dot product the predictor used
		dx := r.t / 2 * inputSlack * X[i]
		fld := 2 * g * (P[i] + eSV + c0abs + r.t*Q[i])
		var kappa float64
		switch k.Type {
		case core.RBFKernel:
			ss := m.ss[i]
			dD := (2*S[i]+ee)*boundSlack + 2*dx +
				2*g*(r.xx+sq(math.Sqrt(ss)+norme)+2*(P[i]+eSV)+2*c0abs+2*r.t*Q[i])
			D := max(0, r.xx+ss-2*d)
			kappa = max(math.Exp(-k.Gamma*max(0, D-dD))-K, K-math.Exp(-k.Gamma*(D+dD))) + 8*u
		case core.PolyKernel:
			delta := eSV*boundSlack + dx + fld
			y := math.Abs(k.Gamma*d + k.Coef0)
			h := k.Gamma*delta + 4*u*(math.Abs(k.Gamma*d)+math.Abs(k.Coef0))
			top := powAbs(y+h, k.Degree)
			kappa = top - powAbs(y, k.Degree) + 8*float64(k.Degree+1)*u*top
		case core.SigmoidKernel:
			delta := eSV*boundSlack + dx + fld
			kappa = min(2, k.Gamma*delta+4*u*(math.Abs(k.Gamma*d)+math.Abs(k.Coef0))) + 8*u
		default: // linear: K = x·sv
			kappa = eSV*boundSlack + dx + fld
		}
		S[i] = kappa
	}
	return m.decisionBound(dst, s.kv, S)
}

// decisionBound sums the decision values' bounds from the kernel values
// kv and their bounds kappa: for each support vector t of a decision
// function with coefficient c'_t = σ·p_t,
//
//	|c'_t|·κ_t + (σ/2)·(|K̂_t| + κ_t),
//
// plus γ_{l+4}·(2·Σ_t (|c'_t| + σ/2)(|K̂_t| + κ_t) + 2|ρ|) for the float64
// sums of both models.
func (m *Kernel) decisionBound(dst, kv, kappa []float64) []float64 {
	l := m.l
	dst = dst[:m.NumDecisionValues()]
	g := gamma(l + 4)
	term := func(row, from, to int, sum, size *float64) {
		half := float64(m.coefScale[row]) / 2
		for t := from; t < to; t++ {
			c := math.Abs(m.coef[row*l+t])
			K := math.Abs(kv[t]) + kappa[t]
			*sum += c*kappa[t] + half*K
			*size += (c + half) * K
		}
	}
	if !m.svmType.IsSVC() {
		var sum, size float64
		term(0, 0, l, &sum, &size)
		dst[0] = (sum + g*(2*size+2*math.Abs(m.rho[0]))) * boundSlack
		return dst
	}
	nr := len(m.labels)
	p := 0
	for i := 0; i < nr; i++ {
		for j := i + 1; j < nr; j++ {
			var sum, size float64
			term(j-1, m.start[i], m.start[i+1], &sum, &size)
			term(i, m.start[j], m.start[j+1], &sum, &size)
			dst[p] = (sum + g*(2*size+2*math.Abs(m.rho[p]))) * boundSlack
			p++
		}
	}
	return dst
}

func sq(v float64) float64 { return v * v }

// powAbs returns v^n for v ≥ 0 and n ≥ 0 (the polynomial kernel's degree).
func powAbs(v float64, n int) float64 {
	r := 1.0
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			r *= v
		}
		v *= v
	}
	return r
}
