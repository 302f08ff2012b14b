package linear

import (
	"cmp"
	"math"
	"slices"
)

// Rebuilding an L2-loss SVC primal start from dual variables alone (the
// daemon after a restart, a trainer given only α).
//
// Why w(α) = Σ y_i α_i x_i is a poor start after a primal run: it is
// w − ∇f(w) (primal_l2svc.go), and the stopping test leaves the gradient
// largest where the curvature is, so w(α) misses w most along stiff
// coordinates: the bias (-B 1) and common features (debdesc_bin after 90%:
// bias −30.8 against −1.08, f(w(α)) = 1.0e7 against f(0) = 5.1e4).
//
// α still knows each support row's margin at w, z_i = 1 − α_i/(2C_i), and
// so q(v) = ½‖v‖² + Σ_{α_i>0} C_i (1 − y_i vᵀx_i)², minimized by w to the
// previous run's tolerance. rebuildFromAlpha minimizes q exactly over the
// stiffCoords stiffest coordinates (a pass over the support rows and a
// Cholesky solve); refineOnQ then runs CG on q until w passes the previous
// run's gradient test on q, or q's gradient is small beside the others'.
// The measured effect of each step and of the two constants below:
// examples/bench/README.md, "Primal Newton's measured settings".

// stiffCoords is the number of coordinates rebuildFromAlpha solves for
// exactly; dense data of up to 63 features is solved whole.
const stiffCoords = 64

// refineShare: refineOnQ stops once q's gradient is this part of the
// gradient of the rows outside q, which the Newton method must follow anyway.
const refineShare = 0.3

// stiffBlock is rebuildFromAlpha's workspace, sized once for a problem
// dimension (newStiffBlock).
type stiffBlock struct {
	pos []int32   // coordinate → place in S, −1 outside (dimension entries)
	S   []int32   // the block's coordinates (stiffCoords)
	H   []float64 // ∇²q on the block, then its Cholesky factor (stiffCoords²)
	g   []float64 // ∇q on the block, then the step (stiffCoords)
	at  []int32   // one row's entries in the block: places in S
	val []float64 // and values (stiffCoords each)
}

// stiffBlockBytes is the memory newStiffBlock(dim) allocates.
func stiffBlockBytes(dim int) int {
	return dim*4 + stiffCoords*4 + stiffCoords*stiffCoords*8 + stiffCoords*8 + stiffCoords*(4+8)
}

func newStiffBlock(dim int) stiffBlock {
	pos := make([]int32, dim)
	for j := range pos {
		pos[j] = -1
	}
	k := stiffCoords
	return stiffBlock{pos: pos, S: make([]int32, 0, k), H: make([]float64, k*k), g: make([]float64, k),
		at: make([]int32, k), val: make([]float64, k)}
}

// rebuildFromAlpha sets w to w(α) = Σ y_i α_i x_i, then minimizes q (above)
// over its stiffCoords coordinates of largest ∇²q diagonal. D is scratch
// of w's length. It returns the rows it read (the support rows, twice).
func (f *l2svcFun) rebuildFromAlpha(w, alpha, D []float64, b *stiffBlock) int64 {
	clear(w)
	for j := range D {
		D[j] = 1
	}
	var sv int64
	for i, a := range alpha {
		if a > 0 {
			f.addRowSquares(w, float64(f.sign[i])*a, D, 2*f.c[i], i)
			sv++
		}
	}
	if sv == 0 {
		return 0
	}
	b.choose(D)
	k := len(b.S)
	H, g := b.H[:k*k], b.g[:k]
	clear(H)
	for a, j := range b.S {
		H[a*k+a] = 1
		g[a] = w[j]
	}
	for i, a := range alpha {
		if a <= 0 {
			continue
		}
		m := f.blockEntries(i, b)
		if m == 0 {
			continue
		}
		c2, yi := 2*f.c[i], float64(f.sign[i])
		r := c2 * yi * (yi*f.dot(i, w) - 1) // ∂/∂(vᵀx_i) of C_i(1 − y_i vᵀx_i)²
		at, val := b.at[:m], b.val[:m]
		for p, u := range at {
			g[u] += r * val[p]
			row := H[int(u)*k : int(u)*k+k]
			cv := c2 * val[p]
			for q, v := range at {
				row[v] += cv * val[q]
			}
		}
	}
	// H ⪰ I: only NaN or Inf in the data fail, leaving w(α).
	if choleskySolve(H, g, k) {
		for a, j := range b.S {
			w[j] -= g[a]
		}
	}
	for _, j := range b.S {
		b.pos[j] = -1
	}
	b.S = b.S[:0]
	return 2 * sv
}

// choose sets S to the stiffCoords coordinates of largest D (all of them
// when there are fewer; ties to the first), and pos to their places: pos
// is the sort's scratch, allocation-free (a heap did it in 33 lines).
func (b *stiffBlock) choose(D []float64) {
	idx := b.pos[:len(D)]
	for j := range idx {
		idx[j] = int32(j)
	}
	slices.SortStableFunc(idx, func(p, q int32) int { return cmp.Compare(D[q], D[p]) })
	b.S = append(b.S[:0], idx[:min(stiffCoords, len(D))]...)
	for j := range idx {
		idx[j] = -1
	}
	for p, j := range b.S {
		b.pos[j] = int32(p)
	}
}

// blockEntries writes row i's nonzero entries in the block (the bias
// pseudo-feature included) to b.at and b.val, returning their number.
func (f *l2svcFun) blockEntries(i int, b *stiffBlock) int {
	m := 0
	put := func(j int, v float64) {
		if p := b.pos[j]; p >= 0 && v != 0 {
			b.at[m], b.val[m] = p, v
			m++
		}
	}
	if f.ds.IsDense() {
		x := f.ds.DenseRow(i)
		for _, j := range b.S {
			if int(j) < len(x) {
				put(int(j), float64(x[j]))
			}
		}
	} else {
		idx, val := f.ds.SparseRow(i)
		val = val[:len(idx)]
		for p, j := range idx {
			put(int(j), float64(val[p]))
		}
	}
	if f.bias >= 0 {
		put(f.n, f.bias)
	}
	return m
}

// choleskySolve solves H·x = g for a symmetric positive definite k×k H
// (row-major), overwriting H with its Cholesky factor and g with x; false
// (g unusable) when H is not positive definite in floating point.
func choleskySolve(H, g []float64, k int) bool {
	for i := range k {
		for j := 0; j <= i; j++ {
			s := H[i*k+j]
			for m := range j {
				s -= H[i*k+m] * H[j*k+m]
			}
			if i == j {
				if !(s > 0) {
					return false
				}
				H[i*k+i] = math.Sqrt(s)
			} else {
				H[i*k+j] = s / H[j*k+j]
			}
		}
	}
	for i := range k { // L y = g
		s := g[i]
		for m := range i {
			s -= H[i*k+m] * g[m]
		}
		g[i] = s / H[i*k+i]
	}
	for i := k - 1; i >= 0; i-- { // Lᵀ x = y
		s := g[i]
		for m := i + 1; m < k; m++ {
			s -= H[m*k+i] * g[m]
		}
		g[i] = s / H[i*k+i]
	}
	return true
}

// refineOnQ minimizes q (above) from w by CG preconditioned by q's
// diagonal D, until ‖∇q(w)‖ ≤ max(tol·‖∇q(0)‖ over the support rows,
// refineShare·‖g_out‖), g_out the loss gradient of the rows outside q
// (α_i = 0), or max(dim, 5) steps. t's vectors are its scratch (the Newton
// method has not started). It returns the Hessian-vector products taken.
func (f *l2svcFun) refineOnQ(w, alpha, D []float64, t *newton, tol float64) int {
	n := len(w)
	r, z, d, Hd, g0, gOut := t.r[:n], t.M[:n], t.d[:n], t.Hd[:n], t.g0[:n], t.s[:n]
	// r = −∇q(w), g0 = ∇q(0) and I over the support rows; gOut over the
	// others.
	copy(r, w)
	clear(g0)
	clear(gOut)
	f.nI = 0
	for i, a := range alpha {
		c2, yi := 2*f.c[i], float64(f.sign[i])
		zi := yi * f.dot(i, w)
		if a > 0 {
			f.I[f.nI] = int32(i)
			f.nI++
			f.addRow(r, c2*yi*(zi-1), i)
			f.addRow(g0, -c2*yi, i)
		} else if zi < 1 {
			f.addRow(gOut, c2*yi*(zi-1), i)
		}
	}
	f.reads += int64(len(alpha))
	for j := range r {
		r[j] = -r[j]
		z[j] = r[j] / D[j]
		d[j] = z[j]
	}
	stop := max(tol*norm2(g0), refineShare*norm2(gOut))
	zTr := dot64(z, r)
	maxCG := max(n, 5)
	for it := 0; it < maxCG; it++ {
		if norm2(r) <= stop {
			return it
		}
		f.Hv(d, Hd)
		a := zTr / dot64(d, Hd)
		axpy(w, a, d)
		axpy(r, -a, Hd)
		for j := range z {
			z[j] = r[j] / D[j]
		}
		zTrNew := dot64(z, r)
		beta := zTrNew / zTr
		for j := range d {
			d[j] = z[j] + beta*d[j]
		}
		zTr = zTrNew
	}
	return maxCG
}
