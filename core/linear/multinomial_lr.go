package linear

import (
	"math"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/model"
)

// Multinomial (softmax) logistic regression, L2-regularized, in the primal,
// by a line-search truncated Newton method: scikit-learn's default
// LogisticRegression (multinomial loss, L2, unpenalized intercept), which
// LIBLINEAR has no solver for.
//
// Problem: K ≥ 2 classes, one weight vector w_k per class (features, then
// the bias pseudo-feature's weight b_k when Bias ≥ 0); with
// z_ik = w_kᵀx_i + b_k·B and p_ik = exp(z_ik) / Σ_l exp(z_il),
//
//	min_W f(W) = ½ Σ_k ‖w_k‖² + Σ_i C_i (log Σ_l exp(z_il) − z_{i,y_i})
//
// where ‖w_k‖ leaves out the bias weight (scikit-learn does not penalize
// the intercept), C_i is C times the class weight of y_i times the row's
// instance weight. No constraints. Its derivatives:
//
//	∇_{w_k} f = w_k + Σ_i C_i (p_ik − [y_i = k]) x_i
//	(∇²f D)_k = d_k + Σ_i C_i p_ik (u_ik − Σ_l p_il u_il) x_i,  u_il = d_lᵀx_i
//
// (the bias parts without the first term). f is convex; the softmax is
// invariant to adding one vector to every w_k, a direction the penalty
// removes except along the biases, where ∇f is orthogonal to it, so CG
// stays out of the Hessian's null space.
//
// Method: Newton's direction by diagonally preconditioned conjugate
// gradient, stopped when ‖r‖ ≤ 0.1·‖∇f‖ (truncated Newton: R. S. Dembo,
// T. Steihaug, "Truncated-Newton algorithms for large-scale unconstrained
// optimization", Math. Programming 26 (1983)), then a backtracking
// (Armijo) line search f(W + tS) ≤ f(W) + η t ∇fᵀS, η = 0.01, t halved,
// whose trial values reuse the products XS computed once (as LIBLINEAR
// 2.50's line-search Newton does for the binary losses: C.-P. Lee,
// P.-W. Wang, C.-J. Lin, "Limited-memory Common-directions Method for
// Large-scale Optimization", 2018, and C.-Y. Hsia, Y. Zhu, C.-J. Lin, "A
// Study on Trust Region Update Rules in Newton Methods for Large-scale
// Linear Classification", ACML 2017, Section 4). The preconditioner is
// diag(∇²f). Multinomial logistic regression itself: C. M. Bishop,
// "Pattern Recognition and Machine Learning", 2006, Section 4.3.4.
//
// Stopping: ‖∇f(W)‖ ≤ eps·‖∇f(0)‖ (LIBLINEAR's primal rule without its
// class ratio), the gradient at W = 0 whatever the start, so a warm start
// (LinearTrainer.TrainFrom with a primal start) is held to the cold test.
//
// Buffers: the trainer's multinomialLR holds them, sized by
// multinomialBytes for the rows, classes and features of a run and kept for
// the next run that fits; an iteration allocates nothing.

// multinomialLR is the solver and its buffers. W, G, S, R, Dir, Hd and M
// are K·d long, class-major (class k's vector is [k·d, (k+1)·d)); Z, P and
// U are l·K long, row-major (row i's values are [i·K, (i+1)·K)).
type multinomialLR struct {
	primalRows
	K, d int
	cls  []int32   // class index of each row
	c    []float64 // C_i
	W    []float64
	G    []float64 // ∇f(W)
	S    []float64 // Newton step
	R    []float64 // CG residual
	Dir  []float64 // CG direction
	Hd   []float64 // ∇²f·Dir
	M    []float64 // preconditioner diag(∇²f)
	Z    []float64 // z_ik at W
	P    []float64 // p_ik at W
	U    []float64 // u_ik = d_kᵀx_i of the vector last multiplied
	// progress, when not nil, is told of each Newton iteration.
	progress model.ProgressFunc
}

// multinomialBytes returns the memory, in bytes, the solver's buffers take
// for l rows, k classes and d primal variables per class (the size query
// behind LinearTrainerBytes).
func multinomialBytes(l, k, d int) int {
	return 7*k*d*8 + 3*l*k*8 + l*(4+8)
}

// reserve sizes the buffers for l rows, k classes and d variables per
// class, reusing the previous run's when they are large enough.
func (s *multinomialLR) reserve(l, k, d int) {
	grow := func(b []float64, n int) []float64 {
		if cap(b) < n {
			return make([]float64, n)
		}
		return b[:n]
	}
	kd, lk := k*d, l*k
	s.W, s.G, s.S, s.R = grow(s.W, kd), grow(s.G, kd), grow(s.S, kd), grow(s.R, kd)
	s.Dir, s.Hd, s.M = grow(s.Dir, kd), grow(s.Hd, kd), grow(s.M, kd)
	s.Z, s.P, s.U = grow(s.Z, lk), grow(s.P, lk), grow(s.U, lk)
	s.c = grow(s.c, l)
	if cap(s.cls) < l {
		s.cls = make([]int32, l)
	}
	s.cls = s.cls[:l]
	s.K, s.d = k, d
}

// init sets the problem: ds's rows with classes index[i] into labels, C
// per class (Ck[k]), and W's start (zero unless starts[k] is given).
func (s *multinomialLR) init(ds *data.Dataset, labels []int32, Ck []float64, bias float64, starts []*startW) {
	l, K := ds.Len(), len(labels)
	d := ds.NumFeatures()
	if bias >= 0 {
		d++
	}
	s.reserve(l, K, d)
	// primalRows' per-row buffers: C_i (set below, per class), and two of
	// l entries it would use for binary margins, which no method of this
	// solver calls for.
	s.setRows(ds, bias, nil, 0, 0, s.c, s.Z[:l], s.U[:l])
	for i, v := range ds.Labels() {
		for k, lab := range labels {
			if int32(v) == lab {
				s.cls[i] = int32(k)
				break
			}
		}
		s.c[i] = s.weigh(Ck[s.cls[i]], i)
	}
	clear(s.W)
	for k, st := range starts {
		if st != nil {
			st.fill(s.W[k*s.d:(k+1)*s.d], s.n, bias)
		}
	}
}

// regNorm2 returns Σ_k ‖v_k‖² without the bias weights.
func (s *multinomialLR) regNorm2(v []float64) float64 {
	var t float64
	for k := range s.K {
		t += dot64(v[k*s.d:k*s.d+s.n], v[k*s.d:k*s.d+s.n])
	}
	return t
}

// products writes U_ik = v_kᵀx_i for every row (one read of each row per
// class).
func (s *multinomialLR) products(dst, v []float64) {
	K, d := s.K, s.d
	for i := range s.cls {
		u := dst[i*K : i*K+K]
		for k := range u {
			u[k] = s.dot(i, v[k*d:k*d+d])
		}
	}
	s.reads += int64(len(s.cls))
}

// loss returns Σ_i C_i (log Σ_l exp(z_il + t·u_il) − (z + t·u)_{i,y_i}),
// with u = nil for t = 0, and fills P with the probabilities there when
// fill is set.
func (s *multinomialLR) loss(t float64, u []float64, fill bool) float64 {
	K := s.K
	var v float64
	for i, y := range s.cls {
		z := s.Z[i*K : i*K+K]
		zmax := math.Inf(-1)
		for k, zk := range z {
			if u != nil {
				zk += t * u[i*K+k]
			}
			zmax = max(zmax, zk)
		}
		var sum float64
		for k, zk := range z {
			if u != nil {
				zk += t * u[i*K+k]
			}
			e := math.Exp(zk - zmax)
			if fill {
				s.P[i*K+k] = e
			}
			sum += e
		}
		zy := z[y]
		if u != nil {
			zy += t * u[i*K+int(y)]
		}
		v += s.c[i] * (zmax + math.Log(sum) - zy)
		if fill {
			p := s.P[i*K : i*K+K]
			for k := range p {
				p[k] /= sum
			}
		}
	}
	return v
}

// gradient writes ∇f(W) to G and diag(∇²f(W)) to M from P.
func (s *multinomialLR) gradient() {
	K, d, n := s.K, s.d, s.n
	copy(s.G, s.W)
	for k := range K {
		for j := range n {
			s.M[k*d+j] = 1
		}
		if d > n {
			s.G[k*d+n] = 0
			s.M[k*d+n] = 0
		}
	}
	for i, y := range s.cls {
		p, ci := s.P[i*K:i*K+K], s.c[i]
		for k, pk := range p {
			a := pk
			if int32(k) == y {
				a--
			}
			s.addRowSquares(s.G[k*d:k*d+d], ci*a, s.M[k*d:k*d+d], ci*pk*(1-pk), i)
		}
	}
	s.reads += int64(len(s.cls))
	// A bias (or feature) no row moves keeps the identity's 1, so M is
	// invertible.
	for j, m := range s.M {
		if m <= 0 {
			s.M[j] = 1
		}
	}
}

// hessVec writes ∇²f(W)·v to dst, using U for v's products.
func (s *multinomialLR) hessVec(dst, v []float64) {
	K, d, n := s.K, s.d, s.n
	s.products(s.U, v)
	for k := range K {
		copy(dst[k*d:k*d+n], v[k*d:k*d+n])
		if d > n {
			dst[k*d+n] = 0
		}
	}
	for i := range s.cls {
		p, u := s.P[i*K:i*K+K], s.U[i*K:i*K+K]
		var pu float64
		for k, pk := range p {
			pu += pk * u[k]
		}
		for k, pk := range p {
			if a := s.c[i] * pk * (u[k] - pu); a != 0 {
				s.addRow(dst[k*d:k*d+d], a, i)
			}
		}
	}
	s.reads += int64(len(s.cls))
}

// cg solves ∇²f S = −G approximately by preconditioned conjugate gradient
// (at most maxCG steps) and returns the steps taken.
func (s *multinomialLR) cg(gnorm float64, maxCG int) int {
	clear(s.S)
	for j, g := range s.G {
		s.R[j] = -g
		s.Dir[j] = -g / s.M[j]
	}
	zr := dotMinv(s.R, s.R, s.M)
	tol := 0.1 * gnorm
	for it := 1; it <= maxCG; it++ {
		s.hessVec(s.Hd, s.Dir)
		alpha := zr / dot64(s.Dir, s.Hd)
		axpy(s.S, alpha, s.Dir)
		axpy(s.R, -alpha, s.Hd)
		if norm2(s.R) <= tol {
			return it
		}
		zrNew := dotMinv(s.R, s.R, s.M)
		beta := zrNew / zr
		for j := range s.Dir {
			s.Dir[j] = s.R[j]/s.M[j] + beta*s.Dir[j]
		}
		zr = zrNew
	}
	return maxCG
}

// solve minimizes f from the W init set, for at most maxIter Newton
// iterations, to ‖∇f‖ ≤ eps·‖∇f(0)‖.
func (s *multinomialLR) solve(eps float64, maxIter int) SolveResult {
	const eta, maxHalvings = 0.01, 30
	res := SolveResult{}
	// ‖∇f(0)‖: every p_ik = 1/K.
	clear(s.Z)
	s.loss(0, nil, true)
	saved := s.W
	s.W = s.S // W = 0 for the gradient at 0, without touching the start
	clear(s.W)
	s.gradient()
	g0 := norm2(s.G)
	s.W = saved

	s.products(s.Z, s.W)
	f := 0.5*s.regNorm2(s.W) + s.loss(0, nil, true)
	s.gradient()
	gnorm := norm2(s.G)
	for res.Iterations < maxIter {
		if gnorm <= eps*g0 {
			res.Converged = true
			break
		}
		res.Iterations++
		res.HessianProducts += s.cg(gnorm, len(s.W))
		gs := dot64(s.G, s.S)
		s.products(s.U, s.S)
		// f(W + tS) = ½‖W‖² + t·WᵀS + ½t²‖S‖² + loss(t).
		wS, sS := s.regDot(s.W, s.S), s.regNorm2(s.S)
		w2 := s.regNorm2(s.W)
		t, fNew := 1.0, 0.0
		accepted := false
		for range maxHalvings {
			fNew = 0.5*w2 + t*wS + 0.5*t*t*sS + s.loss(t, s.U, false)
			if fNew <= f+eta*t*gs {
				accepted = true
				break
			}
			t /= 2
		}
		if !accepted {
			break // no descent at the precision of f: as good as it gets
		}
		axpy(s.W, t, s.S)
		axpy(s.Z, t, s.U)
		f = 0.5*s.regNorm2(s.W) + s.loss(0, nil, true)
		s.gradient()
		gnorm = norm2(s.G)
		if s.progress != nil {
			s.progress(model.ProgressEvent{Iteration: res.Iterations, Objective: f, Violation: gnorm / g0})
		}
	}
	if !res.Converged && gnorm <= eps*g0 {
		res.Converged = true
	}
	res.NewtonIterations = res.Iterations
	res.PrimalObjective = f
	res.Updates = s.reads
	return res
}

// regDot returns Σ_k u_kᵀv_k without the bias weights.
func (s *multinomialLR) regDot(u, v []float64) float64 {
	var t float64
	for k := range s.K {
		t += dot64(u[k*s.d:k*s.d+s.n], v[k*s.d:k*s.d+s.n])
	}
	return t
}

// dual writes α_ik = C_i([y_i = k] − p_ik) at the solution: the
// coefficients of w_k = Σ_i α_ik x_i (the optimality condition ∇f = 0),
// which a model's dual variables report; no warm start reads them.
func (s *multinomialLR) dual(alpha [][]float64) {
	K := s.K
	for k, a := range alpha {
		for i, y := range s.cls {
			v := -s.P[i*K+k]
			if int32(k) == y {
				v++
			}
			a[i] = s.c[i] * v
		}
	}
}
