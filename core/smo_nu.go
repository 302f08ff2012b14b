package core

import "math"

// The ν variant of the SMO solver (smo.go): working sets, stopping test,
// shrinking and ρ for the duals of ν-SVC and ν-SVR, whose two equality
// constraints pin each class's sum of α separately.
//
// Problem (B. Schölkopf, A. J. Smola, R. C. Williamson, P. L. Bartlett,
// "New Support Vector Algorithms", Neural Computation 12, 2000; in the
// scaled form of C.-C. Chang, C.-J. Lin, "Training ν-Support Vector
// Classifiers: Theory and Algorithms", Neural Computation 13, 2001):
//
//	min_α  f(α) = ½ αᵀQα + pᵀα
//	subject to  yᵀα = Δ₁,  eᵀα = Δ₂,  0 ≤ α_t ≤ C_t,
//
// equivalently Σ_{y_t=+1} α_t and Σ_{y_t=−1} α_t both fixed at their
// starting values.
//
//	ν-SVC (one class pair): Q_ij = y_i y_j K(x_i, x_j), p = 0, C_t = 1,
//	    each class's α summing to νl/2 (the C-scaled problem: C·l times
//	    Schölkopf's α, so the box is [0, 1]).
//	ν-SVR: 2l variables (α, α*), Q as ε-SVR's, p = (−z, z), C_t = C,
//	    Σα = Σα* = Cνl/2.
//
// With v_t = −y_t G_t (G = ∇f(α) = Qα + p) and, for each class c of y,
//
//	m_c(α) = max_{t ∈ I_up, y_t = c} v_t,   M_c(α) = min_{t ∈ I_low, y_t = c} v_t
//
// (I_up, I_low as in smo.go), α is optimal iff m_c ≤ M_c for both
// classes: the KKT conditions carry a multiplier per equality, b and r
// (Chang & Lin 2001, Section 4), so the two classes' gradients are
// compared among themselves only. The solver stops when max_c (m_c − M_c)
// ≤ eps. The working set is WSS 2 of R.-E. Fan, P.-H. Chen, C.-J. Lin
// ("Working Set Selection Using Second Order Information for Training
// Support Vector Machines", JMLR 6, 2005, Section 6 on ν-SVM) restricted
// to pairs of one class:
//
//	i_c ∈ argmax_{t ∈ I_up, y_t = c} v_t          for c = +1, −1
//	j ∈ argmin_{t ∈ I_low, v_t < m_{y_t}} −b_t² / ā_t,
//	b_t = m_{y_t} − v_t,  a_t = Q_ii + Q_tt − 2 Q_it with i = i_{y_t},
//
// and i = i_{y_j}. The pair moves along d_i = y_i, d_j = −y_j as in smo.go,
// which for y_i = y_j keeps both sums. Shrinking sets aside a bounded
// variable that cannot enter a violating pair of its own class, by the
// same rule as smo.go with m_c, M_c of the variable's class; the one
// unshrink happens when max_c (m_c − M_c) first falls under 10·eps.
//
// ρ and r come from the two classes' KKT intervals (Chang & Lin 2001,
// Section 4): r_c is the mean of G_t over free variables of class c, or
// the midpoint of [max G_t over α_t = C_t, min G_t over α_t = 0] without
// one; ρ = (r₊ − r₋)/2, r = (r₊ + r₋)/2. The trainer turns them into a
// model: ν-SVC divides α, ρ and the objective by r, r, r² (its decision
// function is that of C-SVC with C = 1/r); ν-SVR keeps them and its tube
// width is ε = −r. Nothing here copies LIBSVM's Solver_NU; names follow
// the papers.
//
// The differing parts hook into smo.go's loop through smo.nu (selectPair,
// shrink, gap and the result's ρ); α updates, the gradient, Gbar, the
// kernel cache and the warm start's gradient update are shared.

// selectPairNu returns the working set of the ν problem over the active
// set and Q's column i (length activeSize), as selectPair does: j < 0 when
// max_c (m_c − M_c) ≤ eps.
func (s *smo) selectPairNu() (i, j int, Qi []float32) {
	s.nextI = noNext // update's fused scan finds smo.go's i, not i₊ and i₋
	n := s.activeSize
	G, ny, y, sets := s.G[:n], s.ny[:n], s.y[:n], s.sets[:n]
	mp, ip := math.Inf(-1), -1
	mn, in := math.Inf(-1), -1
	for t, g := range G {
		if sets[t]&inUpSet == 0 {
			continue
		}
		// Last index on ties, as smo.go's maxUp.
		v := ny[t] * g
		if y[t] > 0 {
			if v >= mp {
				mp, ip = v, t
			}
		} else if v >= mn {
			mn, in = v, t
		}
	}
	var Qp, Qn []float32
	if ip >= 0 {
		Qp = s.getQ(ip, n)[:n]
	}
	if in >= 0 {
		Qn = s.getQ(in, n)[:n]
	}
	QD := s.QD[:n]
	Mp, Mn := math.Inf(1), math.Inf(1)
	best := math.Inf(1)
	j = -1
	for t, g := range G {
		if sets[t]&inLowSet == 0 {
			continue
		}
		v := ny[t] * g
		var b, a float64
		if y[t] > 0 {
			Mp = min(Mp, v)
			if b = mp - v; !(b > 0) {
				continue
			}
			a = s.QD[ip] + QD[t] - 2*float64(Qp[t])
		} else {
			Mn = min(Mn, v)
			if b = mn - v; !(b > 0) {
				continue
			}
			a = s.QD[in] + QD[t] - 2*float64(Qn[t])
		}
		if a <= 0 {
			a = smoTau
		}
		if obj := -b * b / a; obj <= best {
			best, j = obj, t
		}
	}
	if j < 0 || max(mp-Mp, mn-Mn) <= s.eps {
		return ip, -1, nil
	}
	if y[j] > 0 {
		i, Qi = ip, Qp
		if in >= 0 {
			// Qp came before Qn: update's getQ(j) would be its second
			// successor, after which the matrix may reuse its buffer.
			Qi = s.getQ(ip, n)
		}
		return i, j, Qi
	}
	return in, j, Qn
}

// mMNu returns m_c and M_c (file comment) of both classes over the active
// set: ±Inf where a set is empty.
func (s *smo) mMNu() (mp, Mp, mn, Mn float64) {
	mp, mn = math.Inf(-1), math.Inf(-1)
	Mp, Mn = math.Inf(1), math.Inf(1)
	for t := 0; t < s.activeSize; t++ {
		v := s.ny[t] * s.G[t]
		if s.y[t] > 0 {
			if s.inUp(t) {
				mp = max(mp, v)
			}
			if s.inLow(t) {
				Mp = min(Mp, v)
			}
		} else {
			if s.inUp(t) {
				mn = max(mn, v)
			}
			if s.inLow(t) {
				Mn = min(Mn, v)
			}
		}
	}
	return mp, Mp, mn, Mn
}

// gapNu returns max_c (m_c − M_c) on the active set, a class with an
// empty I_up or I_low counting 0.
func (s *smo) gapNu() float64 {
	mp, Mp, mn, Mn := s.mMNu()
	g := 0.0
	if !math.IsInf(mp, 0) && !math.IsInf(Mp, 0) {
		g = mp - Mp
	}
	if !math.IsInf(mn, 0) && !math.IsInf(Mn, 0) {
		g = max(g, mn-Mn)
	}
	return g
}

// canShrinkNu is canShrink with the bounds of t's own class.
func (s *smo) canShrinkNu(t int, mp, Mp, mn, Mn float64) bool {
	if s.alphaStatus[t] == freeAlpha {
		return false
	}
	m, M := mp, Mp
	if s.y[t] < 0 {
		m, M = mn, Mn
	}
	v := s.ny[t] * s.G[t]
	if s.inUp(t) {
		return v < M
	}
	return v > m
}

// shrinkNu is shrink for the ν problem.
func (s *smo) shrinkNu() {
	mp, Mp, mn, Mn := s.mMNu()
	if !s.unshrunk && max(mp-Mp, mn-Mn) <= 10*s.eps {
		s.unshrunk = true
		s.reconstructGradient()
		s.activeSize = s.l
		mp, Mp, mn, Mn = s.mMNu()
	}
	for t := 0; t < s.activeSize; t++ {
		if !s.canShrinkNu(t, mp, Mp, mn, Mn) {
			continue
		}
		for s.activeSize--; s.activeSize > t; s.activeSize-- {
			if !s.canShrinkNu(s.activeSize, mp, Mp, mn, Mn) {
				s.swap(t, s.activeSize)
				break
			}
		}
	}
	s.QD = s.Q.QD()
	s.nextI = noNext
}

// rhoNu returns ρ and r over the active set (file comment).
func (s *smo) rhoNu() (rho, r float64) {
	var rc [2]float64 // r₊, r₋
	for c, sign := range [2]int8{1, -1} {
		ub, lb := math.Inf(1), math.Inf(-1)
		var sum float64
		nFree := 0
		for t := 0; t < s.activeSize; t++ {
			if s.y[t] != sign {
				continue
			}
			switch g := s.G[t]; s.alphaStatus[t] {
			case freeAlpha:
				sum += g
				nFree++
			case upperBound:
				lb = max(lb, g)
			default:
				ub = min(ub, g)
			}
		}
		switch {
		case nFree > 0:
			rc[c] = sum / float64(nFree)
		// As smo.go's rho, where LIBSVM would give ±Inf or NaN: the
		// finite end of a half-open interval, 0 for an empty class.
		case math.IsInf(ub, 1) && math.IsInf(lb, -1):
			rc[c] = 0
		case math.IsInf(ub, 1):
			rc[c] = lb
		case math.IsInf(lb, -1):
			rc[c] = ub
		default:
			rc[c] = (ub + lb) / 2
		}
	}
	return (rc[0] - rc[1]) / 2, (rc[0] + rc[1]) / 2
}
