package core

import (
	"cmp"
	"math"
	"slices"

	"github.com/libsvmgo/libsvmgo/core/simd"
)

// SMO-type decomposition for the kernel SVM duals.
//
// Problem (the general form every kernel formulation reduces to):
//
//	min_α  f(α) = ½ αᵀQα + pᵀα
//	subject to  yᵀα = Δ,  0 ≤ α_t ≤ C_t,  t = 0..l−1,
//
// with y_t ∈ {+1, −1} and C_t = Cp where y_t = +1, Cn where y_t = −1, times
// the variable's instance weight w_t when the problem has weights.
// C-SVC: Q_ij = y_i y_j K(x_i, x_j), p = −e, Δ = 0. ε-SVR (2l variables) and
// one-class (Δ = νl) are other choices of Q, p, y and the starting α; Δ is
// whatever yᵀα is on entry, and every step keeps it.
//
// G = ∇f(α) = Qα + p. With
//
//	I_up(α)  = {t | α_t < C_t, y_t = +1  or  α_t > 0, y_t = −1}
//	I_low(α) = {t | α_t < C_t, y_t = −1  or  α_t > 0, y_t = +1}
//	m(α) = max_{t ∈ I_up} −y_t G_t,   M(α) = min_{t ∈ I_low} −y_t G_t,
//
// α is optimal iff m(α) ≤ M(α); the solver stops when m(α) − M(α) ≤ eps.
// Each iteration takes the working set of WSS 2 (R.-E. Fan, P.-H. Chen,
// C.-J. Lin, "Working Set Selection Using Second Order Information for
// Training Support Vector Machines", JMLR 6, 2005):
//
//	i ∈ argmax_{t ∈ I_up} −y_t G_t
//	j ∈ argmin_{t ∈ I_low, −y_t G_t < −y_i G_i} −b_it² / ā_it,
//	a_it = Q_ii + Q_tt − 2 y_i y_t Q_it,  b_it = −y_i G_i + y_t G_t > 0,
//	ā_it = a_it if a_it > 0 else τ = 1e-12,
//
// and minimises f exactly along the feasible direction of the pair, clipped
// to the box. Shrinking (T. Joachims, "Making large-scale SVM learning
// practical", 1999, in the form of C.-C. Chang, C.-J. Lin, "LIBSVM: A
// Library for Support Vector Machines", ACM TIST 2(3), 2011, Section 4.1)
// sets aside bounded variables that cannot enter a violating pair given the
// current m and M; their gradient is rebuilt from
//
//	Gbar_t = Σ_{j: α_j = C_j} C_j Q_tj,   G_t = Gbar_t + p_t + Σ_{j free} α_j Q_tj
//
// once when the gap first falls under 10·eps and again before returning.
// Departure from LIBSVM: when α_t reaches or leaves its bound while some
// variables are inactive, Gbar of the active ones is updated at once from
// the column the iteration already holds, and that of the inactive ones
// only at the next reconstruction, one column per variable whose updates
// did not cancel (deferGbar). Gbar is read only there, and the inactive
// part of a column is rarely cached: a warm start, shrunk from its first
// iteration, paid most of its kernel evaluations for it.
// rho is computed as in the same paper: the average of y_t G_t over free
// variables, or the midpoint of the interval the bounded ones allow.
// Nothing here copies LIBSVM's code; names follow the papers.
//
// Starting point. A cold start builds G and Gbar from α with one column of
// Q per nonzero α_t (initGradient). A warm start after a few rows were
// added costs about as much as the cold run that way, since most of the
// work of a kernel SVM is one column per support vector. So solveFrom also
// accepts the G and Gbar of a previous solve, together with the α⁰ they
// were computed at (same Q, p and bounds: the caller checks that), and
// updates them instead (initGradientFrom), Q being symmetric:
//
//	stored t:  G_t = G⁰_t + Σ_{j: α_j ≠ α⁰_j} Q_tj (α_j − α⁰_j)
//	           Gbar_t = Gbar⁰_t ± C_j Q_tj for each j whose upper-bound
//	           status differs from α⁰_j's
//	new t:     G_t = p_t + Σ_j Q_tj α_j,  Gbar_t = Σ_{j: α_j = C_j} C_j Q_tj
//
// one column of Q per changed α_j (clipping and feasible.RepairEquality change a
// few), and for the variables without a stored gradient (NaN in G⁰; α⁰ = 0
// there) their entries against the nonzero α_j only (rebuildByEntries,
// when Q computes entries) or else a column each. When that is no fewer
// kernel values than the cold rebuild would take, the cold rebuild runs
// instead. A warm start is then shrunk at once and every
// smoShrinkEveryWarm iterations (ShrinkAtStart), unless free variables
// are a large part of it (smoWarmFreeShare: it then runs unshrunk, with
// no reconstruction, for a few iterations per free variable); its first
// round judges
// the bounded variables against the previous optimum's threshold (the
// mean of −y_t G⁰_t over the variables free in α⁰, bStart) as well
// as the current m and M, which the new rows' violations stretch: on a
// shuttle pair of 33,889 rows the round kept 33,761 active without it
// (139 with it), and the 100 iterations on them were most of the pair's
// kernel work.

// qMatrix is the matrix the SMO solver sees: Q of the problem above in the
// solver's current ordering of the variables, which the solver changes
// with swapIndex as it shrinks. Implementations cache columns; the solver
// holds at most two columns returned by getQ at once (the last two).
type qMatrix interface {
	// getQ returns Q's column i, entries 0..length-1 in the current
	// ordering. The slice stays valid until the second getQ call after it.
	getQ(i, length int) []float32
	// QD returns Q's diagonal in the current ordering: the matrix's own
	// slice, which swapIndex keeps in step.
	QD() []float64
	// swapIndex exchanges variables i and j in the ordering.
	swapIndex(i, j int)
}

// qEntries is implemented by matrices that can compute entries of Q, bit
// for bit those getQ returns, without filling a column: the warm start
// uses it for the gradient of variables without a stored value, from
// their entries against the support vectors only.
type qEntries interface {
	// entries sets dst[k] = Q_{i,js[k]}, i and js in the current ordering,
	// for k < len(js) (len(dst) ≥ len(js), len(js) ≤ the matrix's size),
	// as one batch of kernel values.
	entries(dst []float32, i int, js []int32)
}

// qTwins is implemented by matrices in which one variable's row of Q can
// be the negation of another's (ε-SVR's α_t and α*_t): the warm start
// then takes both variables' gradients from one batch of entries.
type qTwins interface {
	// twin returns the variable, in the current ordering, whose row of Q
	// is the negation of variable i's, or −1 for none.
	twin(i int) int
}

// The status of α_t relative to its box.
const (
	lowerBound int8 = iota // α_t = 0
	upperBound             // α_t = C_t
	freeAlpha              // 0 < α_t < C_t
)

const (
	smoTau        = 1e-12 // ā for pairs with non-positive curvature (Fan et al. 2005)
	smoDefaultEps = 1e-3
	// smoShrinkEvery is how many iterations pass between shrinking rounds,
	// capped at l (LIBSVM's interval).
	smoShrinkEvery = 1000
	// smoShrinkEveryWarm is the interval of a warm start (ShrinkAtStart).
	// Its first round, before any iteration, sets little aside when new
	// rows violate the optimality conditions (m − M is then wide), and
	// LIBSVM's interval kept such a run on all its variables for a
	// thousand iterations, most of the run: on the daemon's shuttle stream
	// a pair of 34,240 rows had 34,075 active until then, 273 after. A
	// round scans the active set once, what an iteration does twice.
	smoShrinkEveryWarm = 100
	// smoWarmFreeShare and smoWarmShrinkAfter: a warm start with at least
	// one free variable in smoWarmFreeShare does not shrink until
	// smoWarmShrinkAfter iterations per free variable have passed. Its
	// iterations are about as many as its free variables (most of them
	// move: 1,487–1,665 of 1,780 on a Fashion-MNIST pair of 4,950 rows,
	// in 2,800–3,700 iterations), so the two reconstructions of the
	// shrunk variables' gradients (free × inactive entries each, 41–45%
	// of the retrain) cost more than the scans of the shrunk variables
	// they save (an iteration scans the active set twice, contiguous and
	// vectorized); the columns reach every row either way. That pair's
	// warm retrains took 0.83–0.86 of the CPU time without shrinking
	// (alternated runs at load 15–20) for 1.003 of the kernel
	// evaluations and 0.86 of the iterations. Where the free variables are few
	// (shuttle: 4–22 of 33,889–40,450, 637–2,385 iterations) shrinking
	// sets almost every variable aside for the whole run, and the cap
	// keeps a long run on its old course.
	smoWarmFreeShare   = 8
	smoWarmShrinkAfter = 4
)

// smoParams are one solve's settings.
type smoParams struct {
	Cp, Cn float64 // upper bound of α_t where y_t = +1, −1; both > 0
	// Weight, when not nil, holds each variable's instance weight w_t > 0
	// (caller's ordering): the bound of α_t is Cp·w_t or Cn·w_t.
	Weight    []float64
	Eps       float64 // stop when m(α) − M(α) ≤ Eps; 0 means 1e-3
	Shrinking bool
	// MaxIter caps the iterations; 0 means max(10⁷, 100·l), LIBSVM's cap.
	MaxIter int
	// ShrinkAtStart runs the first shrinking round before the first
	// iteration instead of after min(l, 1000): for a warm start, whose α
	// and gradient already tell which variables sit at a bound with no
	// chance of entering a violating pair (most rows of a previous
	// solution), so the first thousand iterations do not scan them. It
	// applies to problems of more than 1000 variables, and then the rounds
	// come every smoShrinkEveryWarm iterations; with Warm, a start whose
	// free variables are many (smoWarmFreeShare) defers them instead.
	ShrinkAtStart bool
	// Warm says the starting α is a previous solution, often optimal
	// already or nearly: before the first iteration and after the final
	// reconstruction the solver then checks m(α) − M(α) ≤ eps with one scan
	// of G (gap) before selectPair asks for a column. On a warm pair with
	// no violator that column (of the whole problem, after the
	// reconstruction) was most of its cost. The iterates are those without
	// it: gap ≤ eps is exactly when selectPair finds no j. Cold solves keep
	// it off, so their work counts (recorded in model files) stay as they
	// were.
	Warm bool
	// Nu solves the ν problem (smo_nu.go): pairs within one class of y,
	// both classes' sums of α kept, ρ and r from each class's variables.
	Nu bool
	// Progress, when not nil, is told every smoProgressEvery iterations
	// the iteration count and the violation m(α) − M(α) on the active set.
	Progress func(iteration int, violation float64)
}

// smoProgressEvery is how often SMO reports progress: LIBSVM prints a dot
// as often (each shrinking round, every 1000 iterations); one report
// costs a pass over the active set, a thousandth of the iterations' work.
const smoProgressEvery = 1000

// smoResult is what one solve returns.
type smoResult struct {
	Iterations int
	// Objective is f(α) = ½ αᵀQα + pᵀα at the returned α.
	Objective float64
	// Rho is ρ: for C-SVC the decision function is Σ y_t α_t K(x_t, x) − ρ.
	Rho float64
	// Gap is m(α) − M(α) at the returned α, over all variables.
	Gap float64
	// QColumns counts getQ calls: an upper bound on the columns the matrix
	// had to compute (a cache answers some of them without kernel work).
	QColumns int64
	// Converged is false when MaxIter stopped the solve first.
	Converged bool
	// NumSV counts α_t > 0; NumBoundSV those at α_t = C_t.
	NumSV, NumBoundSV int
	// R is r of the ν problem (smo_nu.go); 0 otherwise.
	R float64
}

// smo holds the solver's buffers, sized for up to l variables at
// construction; a solve allocates nothing. One smo serves one solve at a
// time.
type smo struct {
	// Per-variable state in the current ordering (position t); index[t] is
	// the caller's index of the variable at position t.
	alpha       []float64
	G           []float64
	Gbar        []float64
	p           []float64
	y           []int8
	alphaStatus []int8
	// ny holds −y_t as float64, kept in step with y: the scans multiply
	// by it instead of converting and negating y_t.
	ny []float64
	// sets holds inUpSet and inLowSet bits of each variable, kept in step
	// with alphaStatus by setStatus: one load instead of two in the scans.
	sets []uint8
	// wt holds the instance weights w_t in the current ordering when
	// weighted (smoParams.Weight), kept in step by swap.
	wt       []float64
	weighted bool
	index    []int32
	// nz and qbuf are the warm start's scratch: positions of the nonzero
	// α and one batch of entries against them. flushGbar uses nz too, as
	// the map from a caller's index to its position.
	nz   []int32
	qbuf []float32
	// blkRows, blkG and blkGbar are rebuildByEntries's block of variables
	// and their partial sums.
	blkRows       [entryBlock]int32
	blkG, blkGbar [entryBlock]float64
	// ownG and ownGbar are the solver's own buffers for G and Gbar,
	// which gradientInto lends out for others'.
	ownG, ownGbar []float64
	// gbarEv holds the Gbar updates of inactive variables not made yet
	// (deferGbar), in the order they happened; at most cap(gbarEv).
	gbarEv []gbarEvent

	Q          qMatrix
	QD         []float64
	Cp, Cn     float64
	eps        float64
	l          int
	activeSize int
	unshrunk   bool // the one unshrink at gap < 10·eps happened
	// shrinkFromStart makes the next shrinking round judge bounded
	// variables against bStart (shrink): set for the first round of a
	// warm start.
	shrinkFromStart bool
	// bStart is the threshold −y_t G_t of the previous optimum a stored
	// gradient was taken at: the mean over its free variables (all
	// within eps of each other there); NaN when unknown.
	bStart float64
	nu     bool // the ν problem (smoParams.Nu)
	// stale is set when α changed while some variables were inactive: their
	// G is out of date until reconstructGradient. Without it (a warm start
	// shrunk at once and found optimal) the reconstruction is skipped.
	stale    bool
	qColumns int64
	// nextM and nextI are m(α) and the first index of WSS 2 for the next
	// selectPair, found by update's gradient loop (it touches every active
	// G_t anyway); nextI = noNext when they must be searched for.
	nextM float64
	nextI int
}

// gbarEvent is an update of Gbar deferred for the inactive variables:
// Gbar_u += C·Q_uj for positions u ≥ from, j being the variable whose
// caller's index is j (positions change with shrinking; the inactive ones
// stay put until the next reconstruction).
type gbarEvent struct {
	j    int32
	from int32
	c    float64
}

// gbarEventsMax caps the deferred Gbar updates a solver holds; when they
// fill up they are made at once (flushGbar), which is correct at any time.
const gbarEventsMax = 4096

// Bits of smo.sets.
const (
	inUpSet  uint8 = 1
	inLowSet uint8 = 2
)

// noNext marks smo.nextI as not computed.
const noNext = -2

// smoBytes returns the bytes newSMO(l) allocates for its buffers.
func smoBytes(l int) int {
	// alpha, G, Gbar, p, ny, wt; y, alphaStatus, sets; index, nz, qbuf;
	// the deferred Gbar updates.
	return l*(6*8+1+1+1+4+4+4) + 16*gbarEventCap(l)
}

// gbarEventCap is the capacity of smo.gbarEv for l variables (≥ 2: an
// iteration defers up to two updates).
func gbarEventCap(l int) int { return max(2, min(l, gbarEventsMax)) }

// newSMO returns a solver for problems of up to l variables.
func newSMO(l int) *smo {
	s := &smo{
		alpha:       make([]float64, l),
		G:           make([]float64, l),
		Gbar:        make([]float64, l),
		p:           make([]float64, l),
		y:           make([]int8, l),
		alphaStatus: make([]int8, l),
		sets:        make([]uint8, l),
		ny:          make([]float64, l),
		wt:          make([]float64, l),
		index:       make([]int32, l),
		nz:          make([]int32, 0, l),
		qbuf:        make([]float32, l),
		gbarEv:      make([]gbarEvent, 0, gbarEventCap(l)),
	}
	s.ownG, s.ownGbar = s.G, s.Gbar
	return s
}

// solve is solveFrom without a stored gradient: G and Gbar are built from
// alpha.
func (s *smo) solve(Q qMatrix, p []float64, y []int8, alpha []float64, par smoParams) smoResult {
	return s.solveFrom(Q, p, y, alpha, nil, nil, nil, par)
}

// gradient returns the solver's G and Gbar buffers, the first l entries,
// in the caller's ordering. After a solve they hold ∇f and Gbar at the
// returned α, until the next solve. Before a solveFrom the caller may fill
// them with a stored gradient and pass them back: solveFrom reads G0 and
// Gbar0 before writing G and Gbar, so a trainer needs no buffers of its own.
func (s *smo) gradient(l int) (G, Gbar []float64) {
	return s.G[:l], s.Gbar[:l]
}

// gradientInto makes G and Gbar, each as long as the variables of the
// solves to come (at most s's capacity), the buffers s keeps ∇f and
// Gbar in (gradient returns them): a caller that keeps every solve's
// gradient (the next warm start's) has the solver work in the memory it
// keeps, where copying each pair's G and Gbar out after its solve was
// 3% of a shuttle warm retrain's CPU. nil, nil gives s its own buffers
// back. It panics if G and Gbar differ in length or exceed the capacity.
func (s *smo) gradientInto(G, Gbar []float64) {
	if G == nil && Gbar == nil {
		s.G, s.Gbar = s.ownG, s.ownGbar
		return
	}
	if len(G) != len(Gbar) || len(G) > cap(s.ownG) {
		panic("core: smo.gradientInto: bad lengths")
	}
	s.G, s.Gbar = G, Gbar
}

// solveFrom minimises f over the variables given by p, y and alpha (all of
// length l ≤ the capacity of s) with Q in its identity ordering, and
// writes the solution into alpha. alpha on entry is the starting point
// (zero for a cold start, a previous solution for a warm start); it must
// be feasible: 0 ≤ α_t ≤ C_t (yᵀα = Δ holds by definition of Δ). y holds
// ±1. With alpha0 nil the gradient is built from alpha with one column of
// Q per nonzero α_t. Otherwise G0 and Gbar0 are ∇f and Gbar of this same
// problem (Q, p, Cp, Cn) at alpha0, with G0_t NaN for a variable that has
// no stored value (alpha0_t is then taken as 0), and the gradient at alpha
// is updated from them (see the file comment); G0 and Gbar0 may be the
// buffers gradient returns. On return Q is back in its identity ordering,
// so it can serve another solve.
//
// solveFrom panics if the lengths disagree, l exceeds the capacity, a
// bound is not positive, Eps is negative or α is outside the box: those
// are caller bugs.
func (s *smo) solveFrom(Q qMatrix, p []float64, y []int8, alpha, alpha0, G0, Gbar0 []float64, par smoParams) smoResult {
	l := len(alpha)
	maxIter := s.setup(Q, p, y, alpha, alpha0, G0, Gbar0, par)
	if alpha0 == nil {
		s.initGradient()
	} else {
		s.initGradientFrom(alpha0, G0, Gbar0)
	}

	iter := 0
	converged := false
	// gap is m − M over all l variables at the current α where the loop
	// computed it last: finish then need not scan them again.
	gap := math.NaN()
	every := min(l, smoShrinkEvery)
	counter := every + 1
	if par.ShrinkAtStart && l > smoShrinkEvery {
		// Small problems shrink after l iterations anyway; there an early
		// round only costs the columns' extension after unshrinking, and
		// the iterations on the shrunk set take more steps: digits' warm
		// pairs (~285 variables, -M 20, 1% in and out) shrunk at once took
		// 1.41 times the iterations and 1.10 times the instructions.
		counter, every = 1, smoShrinkEveryWarm
		s.shrinkFromStart = par.Warm && !s.nu
		if par.Warm && !s.nu {
			if nFree := s.countFree(); nFree*smoWarmFreeShare >= l {
				// Most of the problem moves: see smoWarmFreeShare.
				counter = smoWarmShrinkAfter*nFree + 1
				s.shrinkFromStart = false
			}
		}
	}
	for iter < maxIter {
		if len(s.gbarEv) > cap(s.gbarEv)-2 {
			s.flushGbar() // room for this iteration's two
		}
		if counter--; counter == 0 {
			counter = every
			if par.Shrinking {
				s.shrink()
			}
		}
		var i, j int
		var Qi []float32
		if par.Warm && iter == 0 {
			if g := s.gap(); g <= s.eps {
				j = -1
				if s.activeSize == l {
					gap = g // over every variable: nothing is shrunk
				}
			} else {
				i, j, Qi = s.selectPair()
			}
		} else {
			i, j, Qi = s.selectPair()
		}
		if j < 0 {
			// Optimal on the active set; check the whole set before
			// believing it.
			s.reconstructGradient()
			s.activeSize = l
			if par.Warm {
				if math.IsNaN(gap) {
					gap = s.gap()
				}
				if gap <= s.eps {
					converged = true
					break
				}
				gap = math.NaN() // the iterations go on
			}
			if i, j, Qi = s.selectPair(); j < 0 {
				converged = true
				break
			}
			counter = 1 // the shrunk set was wrong: shrink again at once
		}
		iter++
		s.update(i, j, Qi)
		if par.Progress != nil && iter%smoProgressEvery == 0 {
			par.Progress(iter, s.gap())
		}
	}
	if !converged {
		// MaxIter: the gradient of shrunk variables is stale.
		s.reconstructGradient()
		s.activeSize = l
	}

	return s.finish(alpha, iter, converged, gap)
}

// setup checks solveFrom's arguments (panicking on a caller bug), loads
// the problem into s, in its identity ordering with nothing shrunk, and
// returns the iteration cap.
func (s *smo) setup(Q qMatrix, p []float64, y []int8, alpha, alpha0, G0, Gbar0 []float64, par smoParams) (maxIter int) {
	l := len(alpha)
	if len(p) != l || len(y) != l || l > cap(s.alpha) {
		panic("core: smo.solve: length mismatch or l beyond capacity")
	}
	if par.Weight != nil && len(par.Weight) != l {
		panic("core: smo.solve: weight length mismatch")
	}
	if alpha0 != nil && (len(alpha0) != l || len(G0) != l || len(Gbar0) != l) {
		panic("core: smo.solve: stored gradient length mismatch")
	}
	if !(par.Cp > 0) || !(par.Cn > 0) || !(par.Eps >= 0) {
		panic("core: smo.solve: bounds must be positive and eps non-negative")
	}
	s.Q, s.l, s.Cp, s.Cn = Q, l, par.Cp, par.Cn
	s.eps = par.Eps
	s.nu = par.Nu
	if s.eps == 0 {
		s.eps = smoDefaultEps
	}
	maxIter = par.MaxIter
	if maxIter <= 0 {
		maxIter = max(10000000, 100*l)
		if l > math.MaxInt32/100 {
			maxIter = math.MaxInt32
		}
	}
	s.alpha, s.G, s.Gbar = s.alpha[:l], s.G[:l], s.Gbar[:l]
	s.p, s.y, s.alphaStatus, s.index = s.p[:l], s.y[:l], s.alphaStatus[:l], s.index[:l]
	s.sets = s.sets[:l]
	s.ny = s.ny[:l]
	s.weighted = par.Weight != nil
	if s.weighted {
		s.wt = s.wt[:l]
		copy(s.wt, par.Weight)
	}
	s.nextI = noNext
	copy(s.p, p)
	copy(s.y, y)
	s.loadAlpha(alpha)
	s.activeSize = l
	s.unshrunk = false
	s.shrinkFromStart = false
	s.bStart = math.NaN()
	s.stale = false
	s.gbarEv = s.gbarEv[:0]
	s.qColumns = 0
	s.QD = Q.QD()
	return maxIter
}

// setsOf gives a variable's I_up and I_low bits (sets) by its status and
// side (0: y = +1, 1: y = −1): setStatusIn's, looked up.
var setsOf = [3][2]uint8{
	lowerBound: {inUpSet, inLowSet},
	upperBound: {inLowSet, inUpSet},
	freeAlpha:  {inUpSet | inLowSet, inUpSet | inLowSet},
}

// loadAlpha sets s's starting α, status, sets, −y and identity order
// from alpha (panicking on an α outside its box), as setStatusIn and a
// pass each for −y and the order did: one pass, with each side's bound
// hoisted and no call a variable (a warm retrain loads some 13,000
// variables on digits, 45 pairs, where its solves take some 900
// iterations).
func (s *smo) loadAlpha(alpha []float64) {
	l := len(alpha)
	y, ny, sa, st, sets, index := s.y[:l], s.ny[:l], s.alpha[:l], s.alphaStatus[:l], s.sets[:l], s.index[:l]
	var wt []float64
	if s.weighted {
		wt = s.wt[:l]
	}
	for t, a := range alpha {
		side, C := 0, s.Cp
		if y[t] < 0 {
			side, C = 1, s.Cn
		}
		ny[t] = -float64(y[t])
		if wt != nil {
			C *= wt[t]
		}
		if !(a >= 0 && a <= C) {
			panic("core: smo.solve: starting alpha outside [0, C]")
		}
		status := freeAlpha
		switch {
		case a >= C:
			a, status = C, upperBound
		case a <= 0:
			a, status = 0, lowerBound
		}
		sa[t], st[t], sets[t], index[t] = a, status, setsOf[status][side], int32(t)
	}
}

// finish computes the result of a solve that took iter iterations: ρ (and
// r for ν), the gap (gap when not NaN: the solve's last m − M over every
// variable at this α), the objective and the support vector counts, and
// writes the solution into alpha with Q back in its identity ordering.
func (s *smo) finish(alpha []float64, iter int, converged bool, gap float64) smoResult {
	l := s.l
	res := smoResult{Iterations: iter, Converged: converged}
	if s.nu {
		res.Rho, res.R = s.rhoNu()
	} else {
		res.Rho = s.rho()
	}
	res.Gap = gap
	if math.IsNaN(gap) {
		res.Gap = s.gap()
	}
	// The objective is summed in the caller's order, so that it does not
	// depend on the shrinking path (a warm start at the optimum gives back
	// its first run's objective bit for bit).
	s.restoreOrder()
	var obj float64
	for t := 0; t < l; t++ {
		a := s.alpha[t]
		obj += a * (s.G[t] + s.p[t])
		if a > 0 {
			res.NumSV++
			if s.alphaStatus[t] == upperBound {
				res.NumBoundSV++
			}
		}
	}
	res.Objective = obj / 2
	copy(alpha, s.alpha)
	res.QColumns = s.qColumns
	s.Q = nil
	return res
}

// C returns the upper bound of the variable at position t.
func (s *smo) C(t int) float64 {
	c := s.Cn
	if s.y[t] > 0 {
		c = s.Cp
	}
	if s.weighted {
		c *= s.wt[t]
	}
	return c
}

// setStatus classifies α_t, pins it to a bound it reached and records its
// membership in I_up and I_low.
func (s *smo) setStatus(t int) { s.setStatusIn(t, s.C(t)) }

// setStatusIn is setStatus with α_t's upper bound C = C(t) known.
func (s *smo) setStatusIn(t int, C float64) {
	switch {
	case s.alpha[t] >= C:
		s.alpha[t] = C
		s.alphaStatus[t] = upperBound
	case s.alpha[t] <= 0:
		s.alpha[t] = 0
		s.alphaStatus[t] = lowerBound
	default:
		s.alphaStatus[t] = freeAlpha
	}
	atUpper, atLower := s.alphaStatus[t] == upperBound, s.alphaStatus[t] == lowerBound
	if s.y[t] < 0 {
		atUpper, atLower = atLower, atUpper
	}
	var b uint8
	if !atUpper {
		b |= inUpSet
	}
	if !atLower {
		b |= inLowSet
	}
	s.sets[t] = b
}

// inUp and inLow report membership in I_up and I_low.
func (s *smo) inUp(t int) bool { return s.sets[t]&inUpSet != 0 }

func (s *smo) inLow(t int) bool { return s.sets[t]&inLowSet != 0 }

func (s *smo) getQ(i, length int) []float32 {
	s.qColumns++
	return s.Q.getQ(i, length)[:length]
}

// countFree returns the number of free variables.
func (s *smo) countFree() int {
	n := 0
	for _, st := range s.alphaStatus[:s.l] {
		if st == freeAlpha {
			n++
		}
	}
	return n
}

// initGradient builds G = Qα + p and Gbar from the starting α, one full
// column per nonzero α_t: a cold start costs nothing, a warm start as many
// columns as it has support vectors.
func (s *smo) initGradient() {
	copy(s.G, s.p)
	clear(s.Gbar)
	for t := 0; t < s.l; t++ {
		if s.alphaStatus[t] == lowerBound {
			continue
		}
		Qt := s.getQ(t, s.l)
		simd.AddScaled32(s.G[:len(Qt)], s.alpha[t], Qt)
		if s.alphaStatus[t] == upperBound {
			simd.AddScaled32(s.Gbar[:len(Qt)], s.C(t), Qt)
		}
	}
}

// initGradientFrom builds G and Gbar at α from their values G0, Gbar0 at
// alpha0 (file comment): a column per changed α_j and per variable with
// no stored value, or the cold rebuild when that is cheaper.
//
// One pass counts what changed, sums the previous optimum's threshold
// (bStart: the mean of −y_t G0_t over the variables free in alpha0 that
// have a stored value, −ρ there; NaN when none is free) and loads G0 and
// Gbar0; the columns of changed α and the rebuilt variables are then
// found in passes that stop at the last one. Four passes over every
// variable, each as long as a settled pair's whole check, were a
// twentieth of a warm retrain on digits (-M 20).
func (s *smo) initGradientFrom(alpha0, G0, Gbar0 []float64) {
	l := s.l
	alpha0, G0, Gbar0 = alpha0[:l], G0[:l], Gbar0[:l]
	alpha, status, y, ny := s.alpha[:l], s.alphaStatus[:l], s.y[:l], s.ny[:l]
	var wt []float64
	if s.weighted {
		wt = s.wt[:l]
	}
	// G and Gbar may be G0 and Gbar0 themselves: each is read at t
	// before it is written there. NaN in G marks from here on the
	// variables without a stored value (Gbar 0 there).
	G, Gbar := s.G[:l], s.Gbar[:l]
	changed, unknown, nonzero, nFree := 0, 0, 0, 0
	var sum float64
	for t, g := range G0 {
		a0 := alpha0[t]
		if g != g { // NaN: no stored value
			unknown++
			a0 = 0
			G[t], Gbar[t] = g, 0
		} else {
			C := s.Cn
			if y[t] > 0 {
				C = s.Cp
			}
			if wt != nil {
				C *= wt[t]
			}
			if a0 > 0 && a0 < C {
				sum += ny[t] * g
				nFree++
			}
			G[t], Gbar[t] = g, Gbar0[t]
		}
		if alpha[t] != a0 {
			changed++
		}
		if status[t] != lowerBound {
			nonzero++
		}
	}
	// Kernel values each way: the cold rebuild takes a column of l per
	// nonzero α; the update a column per changed α, and for each variable
	// without a stored value either its entries against the nonzero α
	// (qEntries) or a column. Counting an unknown variable as a whole
	// column made a warm start after a batch of new rows (more new rows
	// than support vectors) rebuild everything.
	qe, byEntry := s.Q.(qEntries)
	perUnknown := int64(l)
	if byEntry && nonzero < l {
		perUnknown = int64(nonzero)
	} else {
		byEntry = false
	}
	if int64(changed)*int64(l)+int64(unknown)*perUnknown >= int64(nonzero)*int64(l) {
		s.initGradient()
		return
	}
	s.bStart = math.NaN()
	if nFree > 0 {
		s.bStart = sum / float64(nFree)
	}
	for j := 0; changed > 0; j++ {
		known := !math.IsNaN(G[j])
		a0 := 0.0
		if known {
			a0 = alpha0[j]
		}
		d := alpha[j] - a0
		if d == 0 {
			continue
		}
		changed--
		Qj := s.getQ(j, l)
		G := G[:len(Qj)] // equal lengths let the compiler drop bounds checks
		for t, q := range Qj {
			G[t] += d * float64(q) // NaN stays NaN where no value is stored
		}
		C := s.C(j)
		wasUpper := known && a0 >= C
		if isUpper := status[j] == upperBound; wasUpper != isUpper {
			if wasUpper {
				C = -C
			}
			Gbar := Gbar[:len(Qj)]
			for t, q := range Qj {
				Gbar[t] += C * float64(q)
			}
		}
	}
	if unknown == 0 {
		return
	}
	var nz []int32 // positions of the nonzero α, for byEntry
	if byEntry {
		nz = s.nz[:0]
		for j, st := range status {
			if st != lowerBound {
				nz = append(nz, int32(j))
			}
		}
	}
	if byEntry && unknown <= rowwiseUnknownMax {
		s.rebuildByRows(qe, nz, unknown)
		return
	}
	if byEntry {
		s.rebuildByEntries(qe, nz)
		return
	}
	for i := range l {
		if !math.IsNaN(G[i]) {
			continue
		}
		Qi := s.getQ(i, l) // column i = row i: Q is symmetric
		status, alpha := s.alphaStatus[:len(Qi)], s.alpha[:len(Qi)]
		g, gbar := s.p[i], 0.0
		for j, q := range Qi {
			switch status[j] {
			case freeAlpha:
				g += alpha[j] * float64(q)
			case upperBound:
				g += alpha[j] * float64(q)
				gbar += s.C(j) * float64(q)
			}
		}
		G[i], Gbar[i] = g, gbar
	}
}

// rowwiseUnknownMax is the most variables without a stored value that
// rebuildByRows takes: one batch of entries per variable against the
// nonzero α. rebuildByEntries's batch per nonzero α over a block of so
// few variables was mostly the batch's fixed cost (a small batch of rows
// added: on diabetes ε-SVR, 6 variables against some 300 support
// vectors, about a quarter of a warm retrain's CPU in a profile).
const rowwiseUnknownMax = 16

// rebuildByRows sets G_i and Gbar_i of every variable i without a stored
// value (NaN in G) from one batch of entries Q_ij against the nonzero α_j
// (positions nz), summed in the order of nz. When Q tells a variable u
// whose row is the negation of i's (qTwins: ε-SVR's α*_t of α_t's), the
// same batch gives G_u = p_u − Σ_j α_j Q_ij and Gbar_u = −Gbar_i: a row
// added to ε-SVR costs one batch, not two.
func (s *smo) rebuildByRows(qe qEntries, nz []int32, unknown int) {
	q := s.qbuf[:len(nz)]
	alpha, status := s.alpha[:s.l], s.alphaStatus[:s.l]
	tw, _ := s.Q.(qTwins)
	for i, g := range s.G[:s.l] {
		if unknown == 0 {
			return // the rest have their values
		}
		if !math.IsNaN(g) {
			continue
		}
		unknown--
		qe.entries(q, i, nz)
		var sum, gbar float64
		for k, j := range nz {
			v := float64(q[k])
			sum += alpha[j] * v
			if status[j] == upperBound {
				gbar += s.C(int(j)) * v
			}
		}
		s.G[i], s.Gbar[i] = s.p[i]+sum, gbar
		if tw == nil {
			continue
		}
		if u := tw.twin(i); u > i && math.IsNaN(s.G[u]) {
			s.G[u], s.Gbar[u] = s.p[u]-sum, -gbar
			unknown--
		}
	}
}

// entryBlock is how many variables rebuildByEntries takes at a time.
const entryBlock = 256

// rebuildByEntries sets G_i and Gbar_i of every variable i without a
// stored value (NaN in G) from the entries Q_ij of the nonzero α_j alone
// (positions nz, in increasing order): fewer kernel values than column i
// when the support vectors are fewer than the variables, though none of
// them is cached. It takes the variables a block at a time and, per
// support vector j, one batch of entries Q_ji over the block (Q is
// symmetric; the kernels compute K(x, z) and K(z, x) alike, bit for bit,
// on dense rows), added with simd.AddScaled32: each G_i still sums its
// terms from p_i in the order of nz. One batch per row against the
// support vectors, as before, gathered scattered support vector rows and
// summed with a branch per term: twice the time per kernel value of a
// column.
func (s *smo) rebuildByEntries(qe qEntries, nz []int32) {
	G, Gbar := s.G[:s.l], s.Gbar[:s.l]
	for lo := 0; lo < s.l; {
		blk := s.blkRows[:0]
		for ; lo < s.l && len(blk) < entryBlock; lo++ {
			if math.IsNaN(G[lo]) {
				blk = append(blk, int32(lo))
			}
		}
		if len(blk) == 0 {
			return
		}
		g, gbar := s.blkG[:len(blk)], s.blkGbar[:len(blk)]
		for k, i := range blk {
			g[k], gbar[k] = s.p[i], 0
		}
		q := s.qbuf[:len(blk)]
		for _, j := range nz {
			qe.entries(q, int(j), blk)
			simd.AddScaled32(g, s.alpha[j], q)
			if s.alphaStatus[j] == upperBound {
				simd.AddScaled32(gbar, s.C(int(j)), q)
			}
		}
		for k, i := range blk {
			G[i], Gbar[i] = g[k], gbar[k]
		}
	}
}

// selectPair returns the WSS 2 working set over the active set and Q's
// column i (length activeSize). j < 0 means m − M ≤ eps on the active set
// (i < 0 too when I_up is empty).
func (s *smo) selectPair() (i, j int, Qi []float32) {
	if s.nu {
		return s.selectPairNu()
	}
	m, i := s.nextM, s.nextI
	if i == noNext {
		m, i = s.maxUp()
	}
	s.nextI = noNext
	if i < 0 {
		return -1, -1, nil
	}
	n := s.activeSize
	Qi = s.getQ(i, n)
	// Over I_low: M = min −y_t G_t, and j minimising −b_it²/a_it with
	// b_it = m − (−y_t G_t) > 0, a_it = Q_ii + Q_tt − 2 y_i y_t Q_it (smoTau
	// where ≤ 0). Vectorized (simd.SelectJ) with the scalar loop's
	// roundings and its last-index tie-breaking, so j is LIBSVM's.
	M, j := simd.SelectJ(s.G[:n], s.ny[:n], s.QD[:n], Qi[:n], s.sets[:n], inLowSet, m, s.QD[i], 2*float64(s.y[i]), smoTau)
	if m-M <= s.eps {
		return i, -1, Qi
	}
	return i, j, Qi
}

// maxUp returns m(α) over the active set and the last position attaining
// it (−1 when I_up is empty): WSS 2's i.
func (s *smo) maxUp() (m float64, i int) {
	m, i = math.Inf(-1), -1
	n := s.activeSize
	G, ny, sets := s.G[:n], s.ny[:n], s.sets[:n]
	for t, g := range G {
		if v := ny[t] * g; v >= m && sets[t]&inUpSet != 0 {
			m, i = v, t
		}
	}
	return m, i
}

// update minimises f along the pair's direction d (d_i = y_i, d_j = −y_j,
// which keeps yᵀα) by a step δ ≥ 0 clipped to the box, then updates G on
// the active set and Gbar where a bound status changed. Qi is column i of
// length activeSize from selectPair.
func (s *smo) update(i, j int, Qi []float32) {
	Qj := s.getQ(j, s.activeSize)
	yi, yj := float64(s.y[i]), float64(s.y[j])
	// f(α + δd) = f(α) − δ b_ij + ½ δ² a_ij.
	b := -yi*s.G[i] + yj*s.G[j]
	a := s.QD[i] + s.QD[j] - 2*yi*yj*float64(Qi[j])
	if a <= 0 {
		a = smoTau
	}
	delta := b / a
	// Room each variable has in its direction; both are positive because
	// i ∈ I_up and j ∈ I_low.
	roomI := s.alpha[i]
	if yi > 0 {
		roomI = s.C(i) - s.alpha[i]
	}
	roomJ := s.C(j) - s.alpha[j]
	if yj > 0 {
		roomJ = s.alpha[j]
	}
	oldI, oldJ := s.alpha[i], s.alpha[j]
	statusI, statusJ := s.alphaStatus[i], s.alphaStatus[j]
	switch {
	case delta >= roomI && roomI <= roomJ:
		delta = roomI
		s.alpha[i] = s.boundIn(i, yi) // exactly at the bound
		s.alpha[j] = oldJ - yj*delta
		if roomJ == roomI {
			s.alpha[j] = s.boundIn(j, -yj)
		}
	case delta >= roomJ:
		delta = roomJ
		s.alpha[i] = oldI + yi*delta
		s.alpha[j] = s.boundIn(j, -yj)
	default:
		s.alpha[i] = oldI + yi*delta
		s.alpha[j] = oldJ - yj*delta
	}
	s.setStatus(i)
	s.setStatus(j)

	dI, dJ := s.alpha[i]-oldI, s.alpha[j]-oldJ
	n := s.activeSize
	s.stale = s.stale || n < s.l
	// G_t += Q_ti Δα_i + Q_tj Δα_j on the active set; the same pass finds
	// the next selectPair's i (maxUp) on the values it writes. Vectorized
	// (simd.GradStepMaxUp) with the scalar loop's roundings and its
	// last-index tie-breaking, so the iterates are LIBSVM's.
	s.nextM, s.nextI = simd.GradStepMaxUp(s.G[:n], Qi[:n], Qj[:n], dI, dJ, s.ny[:n], s.sets[:n], inUpSet)

	// Gbar sums C_t Q_:t over variables at their upper bound, on all l.
	if (statusI == upperBound) != (s.alphaStatus[i] == upperBound) {
		s.addGbar(i, statusI == upperBound, Qi)
	}
	if (statusJ == upperBound) != (s.alphaStatus[j] == upperBound) {
		s.addGbar(j, statusJ == upperBound, Qj)
	}
}

// boundIn returns the bound variable t reaches moving in direction dir.
func (s *smo) boundIn(t int, dir float64) float64 {
	if dir > 0 {
		return s.C(t)
	}
	return 0
}

// addGbar adds C_t Q_:t to Gbar (subtracts it when leaving is set). Qt is
// column t over the active set, which the iteration holds; the inactive
// positions' share is deferred (deferGbar).
func (s *smo) addGbar(t int, leaving bool, Qt []float32) {
	C := s.C(t)
	if leaving {
		C = -C
	}
	n := s.activeSize
	simd.AddScaled32(s.Gbar[:n], C, Qt[:n])
	if n < s.l {
		s.deferGbar(t, n, C)
	}
}

// deferGbar records Gbar_u += C·Q_ut for the inactive positions u ≥ n,
// made by flushGbar. Column t beyond the active set costs l − n kernel
// values, rarely cached; deferred, an α that reaches its bound and leaves
// it again before the next reconstruction costs none, and one column per
// variable serves all its updates.
func (s *smo) deferGbar(t, n int, C float64) {
	s.gbarEv = append(s.gbarEv, gbarEvent{j: s.index[t], from: int32(n), c: C})
}

// flushGbar makes the deferred Gbar updates. The inactive positions have
// not moved since (only a reconstruction makes them active again, and it
// flushes first), and the active set only shrank, so the events of one
// variable, in the order they happened, have non-increasing from: a
// position u in [from_k, from_{k−1}) missed events k, k+1, ... of it, and
// gets their sum, once. Sums that cancel (an α that reached its bound and
// left it) cost nothing.
func (s *smo) flushGbar() {
	ev := s.gbarEv
	if len(ev) == 0 {
		return
	}
	pos := s.nz[:s.l]
	for t, j := range s.index[:s.l] {
		pos[j] = int32(t)
	}
	// By variable, and in time order within one (a stable sort allocates
	// nothing).
	slices.SortStableFunc(ev, func(a, b gbarEvent) int { return cmp.Compare(a.j, b.j) })
	for lo := 0; lo < len(ev); {
		hi := lo + 1
		for hi < len(ev) && ev[hi].j == ev[lo].j {
			hi++
		}
		s.applyGbar(int(pos[ev[lo].j]), ev[lo:hi])
		lo = hi
	}
	s.gbarEv = ev[:0]
}

// applyGbar makes the deferred updates ev (one variable's, at position t,
// in time order) of Gbar: with one column of Q, as long as the last
// segment of positions whose sum does not cancel.
func (s *smo) applyGbar(t int, ev []gbarEvent) {
	// segment k is [ev[k].from, end of segment k−1), with sum ev[k:].c.
	segment := func(k int) (lo, hi int) {
		hi = s.l
		if k > 0 {
			hi = int(ev[k-1].from)
		}
		return int(ev[k].from), hi
	}
	end := 0
	var c float64
	for k := len(ev) - 1; k >= 0; k-- {
		c += ev[k].c
		if lo, hi := segment(k); c != 0 && lo < hi {
			end = max(end, hi)
		}
	}
	if end == 0 {
		return
	}
	Qt := s.getQ(t, end)
	c = 0
	for k := len(ev) - 1; k >= 0; k-- {
		c += ev[k].c
		if lo, hi := segment(k); c != 0 && lo < hi {
			simd.AddScaled32(s.Gbar[lo:hi], c, Qt[lo:hi])
		}
	}
}

// mM returns m(α) and M(α) over the active set. It reads −y_t from ny
// and the set bits from sets, over slices of equal length (no bounds
// checks): a warm start scans every variable several times (the first
// check, the shrinking rounds, the final check), and the loop on y and
// alphaStatus was a tenth of a warm retrain's profile on a 10,000-row
// shuttle store.
func (s *smo) mM() (m, M float64) {
	m, M = math.Inf(-1), math.Inf(1)
	n := s.activeSize
	G, ny, sets := s.G[:n], s.ny[:n], s.sets[:n]
	for t, g := range G {
		v := ny[t] * g
		b := sets[t]
		if b&inUpSet != 0 && v > m {
			m = v
		}
		if b&inLowSet != 0 && v < M {
			M = v
		}
	}
	return m, M
}

// gap returns m(α) − M(α) on the active set (all variables once solve has
// unshrunk), 0 when either set is empty.
func (s *smo) gap() float64 {
	if s.nu {
		return s.gapNu()
	}
	m, M := s.mM()
	if math.IsInf(m, 0) || math.IsInf(M, 0) {
		return 0
	}
	return m - M
}

// canShrink reports whether bounded variable t can leave the active set:
// it is in only one of I_up and I_low, on the side of m or M where no
// violating pair can use it.
func (s *smo) canShrink(t int, m, M float64) bool {
	if s.alphaStatus[t] == freeAlpha {
		return false
	}
	v := -float64(s.y[t]) * s.G[t]
	if s.inUp(t) {
		return v < M // only in I_up, and below every I_low value
	}
	return v > m // only in I_low, and above every I_up value
}

// shrink moves the variables canShrink allows behind the active set. The
// first time the gap falls under 10·eps it first makes every variable
// active again, with its gradient rebuilt, so the shrinking decisions made
// far from the optimum are revisited once.
func (s *smo) shrink() {
	if s.nu {
		s.shrinkNu()
		return
	}
	m, M := s.mM()
	if !s.unshrunk && m-M <= 10*s.eps {
		s.unshrunk = true
		s.reconstructGradient()
		s.activeSize = s.l
		m, M = s.mM()
	}
	if s.shrinkFromStart {
		s.shrinkFromStart = false
		if b := s.bStart; !math.IsNaN(b) {
			// A warm start's violators (new rows, the variables the
			// repair or removed rows moved) stretch [M, m] far beyond
			// where most bounded variables sit, and the first round then
			// kept almost all of them (33,761 of 33,889 on a shuttle
			// pair). The previous optimum's threshold is where it put m
			// and M: bounded variables on its right side are shrunk, as
			// they were there. A wrong guess costs iterations, not
			// correctness: the final check over every variable resumes
			// the solve.
			m, M = min(m, b), max(M, b)
		}
	}
	for t := 0; t < s.activeSize; t++ {
		if !s.canShrink(t, m, M) {
			continue
		}
		// Fill position t with the last active variable that stays.
		for s.activeSize--; s.activeSize > t; s.activeSize-- {
			if !s.canShrink(s.activeSize, m, M) {
				s.swap(t, s.activeSize)
				break
			}
		}
	}
	s.QD = s.Q.QD()
	s.nextI = noNext // the active set changed
}

// swap exchanges positions t and u in every per-variable array and in Q.
func (s *smo) swap(t, u int) {
	s.Q.swapIndex(t, u)
	s.alpha[t], s.alpha[u] = s.alpha[u], s.alpha[t]
	s.G[t], s.G[u] = s.G[u], s.G[t]
	s.Gbar[t], s.Gbar[u] = s.Gbar[u], s.Gbar[t]
	s.p[t], s.p[u] = s.p[u], s.p[t]
	s.y[t], s.y[u] = s.y[u], s.y[t]
	s.alphaStatus[t], s.alphaStatus[u] = s.alphaStatus[u], s.alphaStatus[t]
	s.sets[t], s.sets[u] = s.sets[u], s.sets[t]
	s.ny[t], s.ny[u] = s.ny[u], s.ny[t]
	if s.weighted {
		s.wt[t], s.wt[u] = s.wt[u], s.wt[t]
	}
	s.index[t], s.index[u] = s.index[u], s.index[t]
	s.nextI = noNext
}

// restoreOrder swaps the variables back to the caller's ordering: each
// swap puts one variable home, so at most l−1 swaps.
func (s *smo) restoreOrder() {
	for t := 0; t < s.l; t++ {
		for int(s.index[t]) != t {
			s.swap(t, int(s.index[t]))
		}
	}
}

// reconstructGradient rebuilds G for the inactive variables (positions
// activeSize..l−1) as Gbar_t + p_t + Σ_{j free} α_j Q_tj; free variables
// are all active, since only bounded ones are shrunk. Two loops compute the
// sum: over the free variables' columns, extended to length l (their active
// parts are likely cached), or over the inactive variables' columns of
// length activeSize (rarely cached, so their cost counts double). The
// cheaper one runs.
func (s *smo) reconstructGradient() {
	l, n := s.l, s.activeSize
	if n == l || !s.stale {
		return
	}
	s.stale = false
	s.flushGbar()
	nFree := 0
	for t := 0; t < n; t++ {
		if s.alphaStatus[t] == freeAlpha {
			nFree++
		}
	}
	if nFree*l > 2*n*(l-n) {
		s.reconstructByInactive()
	} else {
		s.reconstructByFree()
	}
}

// reconstructByInactive sums over each inactive variable's column.
func (s *smo) reconstructByInactive() {
	n := s.activeSize
	for t := n; t < s.l; t++ {
		Qt := s.getQ(t, n)
		status, alpha := s.alphaStatus[:len(Qt)], s.alpha[:len(Qt)]
		sum := s.Gbar[t] + s.p[t]
		for j, q := range Qt {
			if status[j] == freeAlpha {
				sum += alpha[j] * float64(q)
			}
		}
		s.G[t] = sum
	}
}

// reconstructByFree adds each free variable's column to the inactive part.
func (s *smo) reconstructByFree() {
	l, n := s.l, s.activeSize
	G := s.G[n:l]
	for k := range G {
		G[k] = s.Gbar[n+k] + s.p[n+k]
	}
	for j := 0; j < n; j++ {
		if s.alphaStatus[j] != freeAlpha {
			continue
		}
		simd.AddScaled32(G, s.alpha[j], s.getQ(j, l)[n:l])
	}
}

// rho returns ρ over the active set: the mean of y_t G_t over free
// variables (KKT makes them equal at the optimum), else the midpoint of
// [lb, ub], the interval the bounded variables' KKT conditions allow.
func (s *smo) rho() float64 {
	ub, lb := math.Inf(1), math.Inf(-1)
	var sum float64
	nFree := 0
	for t := 0; t < s.activeSize; t++ {
		yG := float64(s.y[t]) * s.G[t]
		switch {
		case s.alphaStatus[t] == freeAlpha:
			sum += yG
			nFree++
		case s.inUp(t): // only in I_up: α_t = 0, y_t = +1 or α_t = C_t, y_t = −1
			ub = min(ub, yG)
		default: // only in I_low
			lb = max(lb, yG)
		}
	}
	switch {
	case nFree > 0:
		return sum / float64(nFree)
	// Departure from LIBSVM, which returns ±Inf or NaN here: with one side
	// unbounded, take the finite end.
	case math.IsInf(ub, 1) && math.IsInf(lb, -1):
		return 0
	case math.IsInf(ub, 1):
		return lb
	case math.IsInf(lb, -1):
		return ub
	}
	return (ub + lb) / 2
}
