package core

import (
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// Conjugate gradients on the free face of a warm SMO solve.
//
// Problem: smo.go's dual, min f(α) = ½ αᵀQα + pᵀα subject to yᵀα = Δ
// and 0 ≤ α_t ≤ C_t, restricted to the face where the bounded variables
// stay at their bounds and the free ones F (0 < α_t < C_t, active) move:
//
//	min_d  G_Fᵀd + ½ dᵀQ_FF d   subject to  y_Fᵀd = 0,
//
// by conjugate gradients (M. R. Hestenes, E. Stiefel, "Methods of
// Conjugate Gradients for Solving Linear Systems", J. Res. NBS 49(6),
// 1952) on the residual projected onto y_Fᵀd = 0 (P v = v − y_F (y_Fᵀv)/k,
// y_t = ±1), each step exact along its direction and cut at the first
// bound it reaches, where the face ends and faceCG stops: the projected
// CG of bound-constrained QP solvers (J. J. Moré, G. Toraldo, "On the
// solution of large quadratic programming problems with bound
// constraints", SIAM J. Optim. 1(1), 1991), with SMO to find the next
// face.
//
// Why: a warm start after 1% of the rows changed mostly re-balances the
// free variables the new and removed rows pushed off the margin, and
// where Q_FF is near singular SMO's pairwise steps zig-zag: on shuttle
// (-c 100 -g 1, rows alike) a pair with 19 free variables and a start gap
// of 0.0011 took 890 iterations, and a pair's warm solve ~700 iterations
// for ~13 free variables (digits's take ~2.3 a free variable). A Newton
// step over the face (Cholesky of Q_FF) fails there, Q_FF not being
// positive definite to working precision; CG needs no factor and
// converges on Q_FF's range. Run every smoCGEvery iterations per free
// variable (none from the start: there the violators are new rows at a
// bound, not on the face).

const (
	// cgMax is the largest free set faceCG takes: Q_FF is k² values, and
	// a larger face is one many SMO steps move anyway (Fashion-MNIST
	// pairs: ~1,800 free variables in ~3,000 iterations).
	cgMax = 64
	// smoCGEvery: a warm solve runs faceCG after smoCGEvery·k iterations
	// since the last run (k its free variables then; at least smoCGMin).
	smoCGEvery = 4
	smoCGMin   = 10
)

// cgBuf is faceCG's scratch, allocated with the solver.
type cgBuf struct {
	q             []float64 // Q_FF, row-major k×k
	g, r, d, w, y []float64 // G_F, the projected residual, the direction, Q_FF d, y_F
	a0            []float64 // α_F before the steps
	st0           []int8    // the bound status before the steps
	f             []int32   // F's positions
}

// newCGBuf returns faceCG's buffers for a solver of up to l variables
// (faces of up to min(l, cgMax)).
func newCGBuf(l int) cgBuf {
	n := min(l, cgMax)
	return cgBuf{q: make([]float64, n*n), g: make([]float64, n), r: make([]float64, n), d: make([]float64, n),
		w: make([]float64, n), y: make([]float64, n), a0: make([]float64, n), st0: make([]int8, n), f: make([]int32, 0, n)}
}

// cgBytes returns the bytes of newCGBuf(l)'s buffers.
func cgBytes(l int) int {
	n := min(l, cgMax)
	return (n*n+6*n)*8 + n + 4*n
}

// faceCG takes up to k−1 projected CG steps (k = |F| free variables of
// the active set; none when k < 3 or k > min(l, cgMax)) from the current α, and
// returns k and the steps taken. It stops when the projected residual is
// under eps/4 in norm (every free −y_t G_t then within eps/2 of their
// mean), when a step reaches a bound, or when Q_FF has no curvature
// along the direction. G on the active set and Gbar are then updated
// with one column per variable moved (the inactive variables' G at the
// next reconstruction, as after an iteration).
func (s *smo) faceCG() (k, steps int) {
	n := s.activeSize
	b := &s.cg
	F := b.f[:0]
	for t, st := range s.alphaStatus[:n] {
		if st == freeAlpha {
			if len(F) == cap(F) {
				return len(F) + 1, 0
			}
			F = append(F, int32(t))
		}
	}
	k = len(F)
	if k < 3 {
		return k, 0
	}
	q := b.q[:k*k]
	g, r, d, w, y := b.g[:k], b.r[:k], b.d[:k], b.w[:k], b.y[:k]
	for a, t := range F {
		Qt := s.getQ(int(t), n)
		row := q[a*k : a*k+k]
		for c, u := range F {
			row[c] = float64(Qt[u])
		}
		g[a], y[a], b.a0[a], b.st0[a] = s.G[t], float64(s.y[t]), s.alpha[t], s.alphaStatus[t]
	}
	// r = −P g; returns rᵀr.
	project := func() float64 {
		var yg float64
		for a, v := range g {
			yg += y[a] * v
		}
		yg /= float64(k)
		var rr float64
		for a, v := range g {
			r[a] = y[a]*yg - v
			rr += r[a] * r[a]
		}
		return rr
	}
	rr := project()
	copy(d, r)
	tol := s.eps * s.eps / 16
	for steps < k-1 && rr > tol {
		var dQd, gd float64
		for a := range k {
			row := q[a*k : a*k+k]
			var sum float64
			for c, x := range row {
				sum += x * d[c]
			}
			w[a] = sum
			dQd += d[a] * sum
			gd += g[a] * d[a]
		}
		if !(dQd > 0) || !(gd < 0) {
			break
		}
		// The exact step along d, cut at the first bound.
		tau, block := -gd/dQd, -1
		for a, t := range F {
			var room float64
			switch {
			case d[a] > 0:
				room = s.C(int(t)) - s.alpha[t]
			case d[a] < 0:
				room = -s.alpha[t]
			default:
				continue
			}
			if room/d[a] < tau {
				tau, block = room/d[a], a
			}
		}
		for a, t := range F {
			switch {
			case a == block && d[a] > 0:
				s.alpha[t] = s.C(int(t))
			case a == block:
				s.alpha[t] = 0
			default:
				s.alpha[t] = min(max(s.alpha[t]+tau*d[a], 0), s.C(int(t)))
			}
			g[a] += tau * w[a]
		}
		steps++
		if block >= 0 {
			break
		}
		old := rr
		rr = project()
		beta := rr / old
		for a := range d {
			d[a] = r[a] + beta*d[a]
		}
	}
	if steps == 0 {
		return k, 0
	}
	for a, t := range F {
		s.setStatus(int(t))
		delta := s.alpha[t] - b.a0[a]
		if delta == 0 {
			continue
		}
		Qt := s.getQ(int(t), n)
		simd.AddScaled32(s.G[:n], delta, Qt)
		if was := b.st0[a] == upperBound; was != (s.alphaStatus[t] == upperBound) {
			s.addGbar(int(t), was, Qt)
		}
	}
	s.stale = s.stale || n < s.l
	s.nextI = noNext
	return k, steps
}
