package core

import (
	"math"
	"slices"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// Warm starts that carry the solver's gradient.
//
// Rebuilding G = Qα + p from a previous α costs one kernel column per
// support vector: on digits, about as many kernel evaluations as the cold
// run. A KernelDual therefore also carries each subproblem's final G and
// Gbar (KernelGradient), and the next run starts from them: a column per
// α that clipping or feasible.RepairEquality changed and one per row added since
// (smo.solveFrom). Those values are only right for the same Q, p and box,
// over the same rows; a KernelGradient records what they depend on and is
// ignored, with G rebuilt from α as before, when anything differs. It
// also keeps the α it was computed at (laid out as G), which the solver
// starts from as α⁰: an α the caller changed since costs one column, as an
// α the repair moved does, where a hash of every α vector (run twice a
// Train and once a DeleteRows, a tenth of a warm retrain on digits)
// dropped the whole gradient. Rows
// removed through KernelDual.DeleteRows keep it usable: it drops their
// entries and remembers the removed support vectors, whose terms the next
// Train takes out of G and Gbar with one kernel column each
// (removedColumns, takeOutRemoved), where rebuilding G cost a column per
// support vector of every pair.

// KernelGradient is the gradient of each subproblem of a kernel training
// run at its returned α (KernelDual.Alpha), and what it was computed
// under. Rows appended to the data set after the run, with their α padded
// with zeros (or any feasible value), keep it usable: those rows are
// recognised by their position (≥ Rows) and get their gradient from one
// kernel column each. Rows removed by KernelDual.DeleteRows leave it
// usable (gradientRows). Reordering or changing rows makes it unusable
// (Check no longer matches) and Train silently rebuilds G from α; an α of
// the first Rows rows changed since the run costs a kernel column.
type KernelGradient struct {
	// Kernel is the resolved kernel (Gamma not zero) of the run.
	Kernel Kernel
	// Box holds, per subproblem, the upper bounds C_t of its two sides: for
	// C-SVC those of the classes Pairs[k][0] and Pairs[k][1] (C times the
	// class weight), (1, 1) for ν-SVC and one-class, (C, C) for ε-SVR and
	// ν-SVR. ν itself does not enter Q, p or the box, only the starting
	// sums: a gradient stays usable when ν changes.
	Box [][2]float64
	// Epsilon is ε of ε-SVR (p = ε ∓ z depends on it); 0 otherwise (ν-SVR's
	// p = ∓z has none).
	Epsilon float64
	// Rows is the number of rows of the run: G and Gbar cover rows
	// 0..Rows−1.
	Rows int
	// Check is a 64-bit hash (multiply-xorshift per word) of the labels,
	// features and weights of rows 0..Rows−1: it tells whether a data set
	// still holds the rows G was computed on.
	Check uint64
	// G holds, per subproblem, ∇f(α) = Qα + p at the rows of the
	// subproblem: for C-SVC the rows of class Pairs[k][0] among the first
	// Rows rows, in data order, then those of class Pairs[k][1] (so a pair
	// keeps values for its own rows only, not for the whole data set); for
	// one-class every row's; for ε-SVR that of α_t of every row (α*_t's is
	// 2ε − G_t).
	G [][]float64
	// Gbar holds, per subproblem, Σ_{j: α_j = C_j} C_j Q_tj, laid out as
	// G (for ε-SVR, α*_t's is −Gbar_t).
	Gbar [][]float64
	// First holds, per C-SVC subproblem, how many entries of G[k] belong to
	// class Pairs[k][0]; nil for one-class and ε-SVR.
	First []int

	// What lets the gradient outlive removed rows (DeleteRows), set by
	// Train; a gradient without it is dropped when rows go.
	rows gradientRows
	// alpha holds, per subproblem, the α at which G and Gbar were computed,
	// laid out as G (β for ε-SVR): the solver's α⁰ (fillStored). Set by
	// Train and PathStart; a gradient without it is unusable.
	alpha [][]float64
}

// gradientRows is what a KernelGradient keeps about its rows so that
// KernelDual.DeleteRows can cut rows out of it instead of dropping it:
// the next Train then takes the removed rows' terms out of the stored G
// and Gbar, one kernel value per remaining row of a pair and removed
// support vector of that pair (removedRows), where dropping the gradient
// cost a column per support vector of every pair, as much as a cold run.
type gradientRows struct {
	// hash holds RowHash of each of the Rows rows: Check after a removal
	// is refolded from what stays.
	hash []uint64
	// label holds each row's class (C-SVC, ν-SVC), which places the row
	// in the pairs' G; nil for the others.
	label []int32
	// sv holds the features, label and weight of the rows with a nonzero
	// α in some subproblem: the model's support vectors, read only. svOf
	// maps each of the Rows rows to its position in sv, −1 for none.
	sv   *data.Dataset
	svOf []int32
	// gone lists the support vectors removed since the run, whose terms
	// are still in G and Gbar; nil when none.
	gone *removedRows
}

// removedRows are support vectors removed from a gradient's rows since
// its run: Train subtracts, from G_t of each stored row t of subproblem
// v, y_t K(x_t, x_k) Coef[v][k], and from Gbar_t, y_t K(x_t, x_k)
// Bar[v][k], with y_t the row's side in the stored orientation (+1 for
// class Pairs[v][0]; +1 for one-class and the α half of ε-SVR).
type removedRows struct {
	// SV holds each removed row's position in gradientRows.sv.
	SV []int32
	// Hash holds each removed row's RowHash: where the kept kernel
	// columns (kkeep.go) still hold its column, removedColumns reads its
	// values from there.
	Hash []uint64
	// Coef holds, per subproblem, y_k α_k of each removed row (β_k for
	// ε-SVR, 0 where the row is not in the subproblem); Bar the same
	// where α_k was at its upper bound, 0 elsewhere.
	Coef, Bar [][]float64
}

// deleteRows removes the rows at the sorted positions del from g, in
// g's own memory (each run of rows that stays moves with one copy,
// data.DeleteSorted), and reports whether g outlives them: false when it
// lacks gradientRows or its α, and then g is not changed and must be
// dropped. Removed support vectors among g's rows join gradientRows.gone,
// with their terms taken from the α G was computed at (g.alpha), whatever
// the caller's vectors hold now. Rows at or past g.Rows (added since the
// run) are only dropped from α, by the caller.
//
// Cutting in place, where a filter into new slices cost about 8% of a
// 10,000-row daemon batch, changes every dual that shares g (Extended's,
// Prefix's): their gradient then covers the rows that stay, which its
// Check tells from the rows they were made for, so a Train from one of
// them rebuilds G from α. A caller that needs g's rows as they were clones
// g first (clone).
func (g *KernelGradient) deleteRows(svm SVMType, pairs [][2]int32, del []int) bool {
	rs := &g.rows
	n := g.Rows
	nv := len(g.G)
	if rs.hash == nil || len(rs.hash) != n || len(rs.svOf) != n || (svm.IsSVC() && len(rs.label) != n) ||
		len(g.alpha) != nv || len(g.Gbar) != nv || (svm.IsSVC() && len(g.First) != nv) {
		return false
	}
	for v := range nv {
		if len(g.alpha[v]) != len(g.G[v]) || len(g.Gbar[v]) != len(g.G[v]) {
			return false
		}
	}
	cut := del
	for k, r := range del {
		if r >= n {
			cut = del[:k]
			break
		}
	}
	// The removed support vectors, their terms per subproblem; the
	// rows' own records are cut below, once the pairs' entries of the
	// removed rows are found from their labels.
	gone := &removedRows{}
	if rs.gone != nil {
		gone.SV = append(gone.SV, rs.gone.SV...)
		gone.Hash = append(gone.Hash, rs.gone.Hash...)
	}
	for _, r := range cut {
		if rs.svOf[r] >= 0 {
			gone.SV = append(gone.SV, rs.svOf[r])
			gone.Hash = append(gone.Hash, rs.hash[r])
		}
	}
	if len(gone.SV) > 0 {
		gone.Coef, gone.Bar = make([][]float64, nv), make([][]float64, nv)
	}
	at := make([]int, len(cut)) // each removed row's entry in G[v], −1 for none
	pos := make([]int, 0, len(cut))
	for v := range nv {
		if g.First == nil {
			copy(at, cut)
		} else {
			// A pair's entries: its first class's rows in data order,
			// then its second's.
			first, second := 0, g.First[v]
			for k, r := 0, 0; r < n && k < len(cut); r++ {
				e := -1
				switch rs.label[r] {
				case pairs[v][0]:
					e = first
					first++
				case pairs[v][1]:
					e = second
					second++
				}
				if r == cut[k] {
					at[k] = e
					k++
				}
			}
		}
		if len(gone.SV) > 0 {
			// Sized at once: grown a value at a time, these were most
			// of deleteRows's instructions on digits.
			coef, bar := make([]float64, 0, len(gone.SV)), make([]float64, 0, len(gone.SV))
			if rs.gone != nil {
				coef, bar = append(coef, rs.gone.Coef[v]...), append(bar, rs.gone.Bar[v]...)
			}
			for k, r := range cut {
				if rs.svOf[r] < 0 {
					continue
				}
				a := 0.0
				if at[k] >= 0 {
					a = g.alpha[v][at[k]]
				}
				c, b := removedTerm(svm, g, rs, pairs, v, r, a)
				coef, bar = append(coef, c), append(bar, b)
			}
			gone.Coef[v], gone.Bar[v] = coef, bar
		}
		// G, Gbar and α without the removed rows' entries.
		pos = pos[:0]
		for _, e := range at {
			if e >= 0 {
				pos = append(pos, e)
			}
		}
		if g.First != nil {
			slices.Sort(pos)
			nFirst := g.First[v]
			for _, e := range pos {
				if e < g.First[v] {
					nFirst--
				}
			}
			g.First[v] = nFirst
		}
		g.G[v], g.Gbar[v], g.alpha[v] = data.DeleteSorted(g.G[v], pos), data.DeleteSorted(g.Gbar[v], pos), data.DeleteSorted(g.alpha[v], pos)
	}
	rs.gone = nil
	if len(gone.SV) > 0 {
		rs.gone = gone
	}
	rs.hash, rs.svOf = data.DeleteSorted(rs.hash, cut), data.DeleteSorted(rs.svOf, cut)
	if rs.label != nil {
		rs.label = data.DeleteSorted(rs.label, cut)
	}
	g.Rows = n - len(cut)
	g.Check = foldRows(rs.hash)
	return true
}

// clone returns a copy of g that shares no memory deleteRows changes with
// g (the support vectors, read only, stay shared).
func (g *KernelGradient) clone() *KernelGradient {
	c := *g
	c.G, c.Gbar, c.alpha = cloneVectors(g.G), cloneVectors(g.Gbar), cloneVectors(g.alpha)
	c.First = cloneOrNil(g.First)
	c.rows.hash, c.rows.svOf, c.rows.label = cloneOrNil(g.rows.hash), cloneOrNil(g.rows.svOf), cloneOrNil(g.rows.label)
	return &c
}

// removedTerm returns what removing row r, whose α in subproblem v is a,
// leaves to take out of the other rows' G and Gbar (removedRows.Coef and
// Bar).
func removedTerm(svm SVMType, g *KernelGradient, rs *gradientRows, pairs [][2]int32, v, r int, a float64) (coef, bar float64) {
	if a == 0 {
		return 0, 0
	}
	w := rs.sv.Weight(int(rs.svOf[r]))
	switch {
	case svm.IsSVC():
		side := 0
		if rs.label[r] == pairs[v][1] {
			side = 1
		}
		coef = a
		if side == 1 {
			coef = -a
		}
		if a >= g.Box[v][side]*w {
			bar = coef
		}
	case svm.IsRegression():
		// β = α − α*: a bounded α contributes C Q, a bounded α* −C Q to
		// the α half's Gbar.
		coef = a
		if math.Abs(a) >= g.Box[v][0]*w {
			bar = a
		}
	default:
		coef = a
		if a >= g.Box[v][0]*w {
			bar = a
		}
	}
	return coef, bar
}

// removedColumns returns, per removed support vector (removedRows), its
// kernel values against the rows 0..Rows−1 the gradient covers: one
// column over the data set, which every pair of the row's class reads
// (takeOutRemoved). The values come from the row's kept column (kept,
// when not nil, between its begin and end) where it holds them: the
// values the runs that put the row's terms into G computed; the others
// are computed by kr (which reads the data set's rows, or their dense
// copy) from the removed row kept in gradientRows.sv. For C-SVC (pairs,
// the subproblems' classes, and the rows' labels known) only the rows of
// the pairs in which the removed row has a term are filled (the others
// stay 0: takeOutRemoved reads none of them): a support vector of digits
// is one in a few of its class's nine pairs (digits -M 20, 1% in and out:
// warm over cold kernel evaluations 0.025 with every row, 0.019 with
// these). Returns nil when nothing was removed, and the number of kernel
// evaluations.
func (g *KernelGradient) removedColumns(kr *kernelRows, kept *keptColumns, pairs [][2]int32) ([][]float32, int64) {
	gone := g.rows.gone
	if gone == nil {
		return nil, 0
	}
	n := g.Rows
	kds := kr.ds
	nf := kds.NumFeatures()
	z := make([]float32, nf) // the removed row, as wide as kds's rows
	all := make([]int32, n)
	for t := range all {
		all[t] = int32(t)
	}
	cols := make([][]float32, len(gone.SV))
	sv := g.rows.sv
	var evals int64
	var missing, some []int32
	var buf []float32
	svc := pairs != nil && len(g.rows.label) == n && len(pairs) == len(gone.Coef)
	// C-SVC: each row's class as a position in classes (−1 for a label
	// no pair has), so that a removed row's rows are picked with one
	// lookup a row: a search of its pairs' labels for every row and
	// removed support vector was a tenth of this function.
	var classes []int32
	var classOf []int32
	var need []bool
	if svc {
		for _, pr := range pairs {
			for _, c := range pr {
				if !slices.Contains(classes, c) {
					classes = append(classes, c)
				}
			}
		}
		classOf = make([]int32, n)
		for t, c := range g.rows.label[:n] {
			classOf[t] = int32(slices.Index(classes, c))
		}
		need = make([]bool, len(classes))
	}
	for q, s := range gone.SV {
		col := make([]float32, n)
		rows := all
		if kept != nil && len(gone.Hash) == len(gone.SV) {
			var ok bool
			if missing, ok = kept.removedColumn(gone.Hash[q], col, missing); ok {
				rows = missing
			}
		}
		if svc {
			// The classes of the pairs with a term of this row.
			clear(need)
			for v, pr := range pairs {
				if gone.Coef[v][q] != 0 || gone.Bar[v][q] != 0 {
					need[slices.Index(classes, pr[0])], need[slices.Index(classes, pr[1])] = true, true
				}
			}
			some = some[:0]
			for _, t := range rows {
				if c := classOf[t]; c >= 0 && need[c] {
					some = append(some, t)
				}
			}
			rows = some
		}
		cols[q] = col
		if len(rows) == 0 {
			continue
		}
		evals += int64(len(rows))
		dst := col
		if len(rows) < n {
			buf = slices.Grow(buf[:0], len(rows))[:len(rows)]
			dst = buf
		}
		clear(z)
		var zi []int32
		var zv []float32
		if sv.IsDense() {
			zv = sv.DenseRow(int(s))
			zi = make([]int32, len(zv))
			for j := range zi {
				zi[j] = int32(j)
			}
		} else {
			zi, zv = sv.SparseRow(int(s))
		}
		// Features past kds's width meet only zeros in its rows but
		// count in z'z.
		zz := sqSparse32(zv)
		var si []int32
		var sx []float32
		for a, j := range zi {
			if int(j) < nf {
				z[j] = zv[a]
				if zv[a] != 0 {
					si, sx = append(si, j), append(sx, zv[a])
				}
			}
		}
		switch {
		case kr.k.Type == RBFKernel && kds.IsDense():
			kr.columnRBFOf(dst, z, nil, nil, zz, rows)
		case kr.k.Type == RBFKernel:
			kr.columnRBFOf(dst, nil, si, sx, zz, rows)
		default:
			for k, t := range rows {
				if kds.IsDense() {
					dst[k] = float32(kr.k.ofDot(trainDot(kds.DenseRow(int(t)), z)))
				} else {
					xi, xv := kds.SparseRow(int(t))
					dst[k] = float32(kr.k.ofDot(dotMerge32(xi, xv, si, sx)))
				}
			}
		}
		if len(rows) < n {
			for k, t := range rows {
				col[t] = dst[k]
			}
		}
	}
	return cols, evals
}

// takeOutRemoved subtracts the terms of the removed support vectors
// (removedRows) of subproblem v from the stored starting values G0 and
// Gbar0 of the variables whose data rows are rows (fillStored's layout:
// the positive side's nPos rows, then the negative side's), for the rows
// the gradient covers; flipped says the positive side is Pairs[v][1],
// which turns the sides into the stored orientation's. cols holds the
// removed rows' kernel values (removedColumns).
//
// Each side's covered rows are a prefix of its rows (storedSides), and a
// side's sign is one: a term is subtracted over that prefix with the
// sign in the coefficient ((−K)·c is K·(−c) to the bit), and Gbar0 only
// for a removed row that was at its bound (most are free). A sign, a
// coverage test and both vectors a row and removed row were a fiftieth
// of a warm retrain on digits (-M 20).
func (g *KernelGradient) takeOutRemoved(G0, Gbar0 []float64, rows []int32, nPos int, flipped bool, v int, cols [][]float32) {
	gone := g.rows.gone
	if gone == nil {
		return
	}
	pos, _, neg, _ := g.storedSides(v, flipped)
	sides := [2]struct {
		lo, hi int
		sign   float64
	}{{0, min(pos, nPos), 1}, {nPos, nPos + min(neg, len(rows)-nPos), -1}}
	if flipped {
		sides[0].sign, sides[1].sign = -1, 1
	}
	for q, col := range cols {
		c, b := gone.Coef[v][q], gone.Bar[v][q]
		if c == 0 && b == 0 {
			continue
		}
		for _, sd := range sides {
			rs := rows[sd.lo:sd.hi]
			G, Gbar := G0[sd.lo:sd.hi], Gbar0[sd.lo:sd.hi]
			G, Gbar = G[:len(rs)], Gbar[:len(rs)] // equal lengths: no bounds checks
			sc, sb := sd.sign*c, sd.sign*b
			for r, row := range rs {
				G[r] -= float64(col[row]) * sc
			}
			if b == 0 {
				continue
			}
			for r, row := range rs {
				Gbar[r] -= float64(col[row]) * sb
			}
		}
	}
}

// foldRows folds per-row hashes (data.Dataset.RowHash) into the hash of
// those rows in that order. A gradient keeps its rows' hashes, so that
// removing rows (KernelDual.DeleteRows) gives the hash of the rows that
// stay without the data set.
func foldRows(rows []uint64) uint64 {
	h := uint64(solve.HashSeed)
	for _, v := range rows {
		h = solve.HashWord(h, v)
	}
	return h
}

// hashRows returns the hash of ds's rows 0..mid−1 and of rows
// 0..ds.Len()−1 (mid is clamped to [0, ds.Len()]): foldRows of their
// RowHash values, which it also writes into dst when dst is not nil (it
// must then hold ds.Len() values). A data set that keeps its rows' hashes
// (data.Dataset.KeepRowHashes) gives them without reading its rows.
func hashRows(ds *data.Dataset, mid int, dst []uint64) (hMid, hAll uint64) {
	h := uint64(solve.HashSeed)
	l := ds.Len()
	mid = max(0, min(mid, l))
	kept := ds.RowHashes()
	var out []uint64
	if dst != nil {
		out = dst[:l]
	}
	for i := range l {
		if i == mid {
			hMid = h
		}
		var r uint64
		if kept != nil {
			r = kept[i]
		} else {
			r = ds.RowHash(i)
		}
		if out != nil {
			out[i] = r
		}
		h = solve.HashWord(h, r)
	}
	if mid == l {
		hMid = h
	}
	return hMid, h
}

// usableGradient returns warm's gradient if it was computed with kernel k
// (and ε of ε-SVR) on the first Rows rows of ds; else nil. hMid is
// hashRows(ds, warm.Gradient.Rows)'s first result. The bounds are checked
// per subproblem (boxMatches); the α it was computed at need not be
// warm's (fillStored).
func usableGradient(warm *KernelDual, k Kernel, epsilon float64, hMid uint64, l int) *KernelGradient {
	if warm == nil || warm.Gradient == nil {
		return nil
	}
	g := warm.Gradient
	n := len(warm.Alpha)
	if g.Kernel != k || g.Epsilon != epsilon || g.Rows <= 0 || g.Rows > l || g.Check != hMid ||
		len(g.G) != n || len(g.Gbar) != n || len(g.Box) != n || len(g.alpha) != n {
		return nil
	}
	svc := warm.SVMType.IsSVC()
	if svc && len(g.First) != n {
		return nil
	}
	for v := range n {
		if len(g.Gbar[v]) != len(g.G[v]) || len(g.alpha[v]) != len(g.G[v]) ||
			svc && !(g.First[v] >= 0 && g.First[v] <= len(g.G[v])) || !svc && len(g.G[v]) != g.Rows {
			return nil
		}
	}
	return g
}

// boxMatches reports whether subproblem v of g was solved with the
// bounds (Cp, Cn); flipped is set when the pair is taken in the other
// order (Pairs[v] = (negative, positive)), which changes neither G nor
// Gbar: Q and p do not depend on which side is +1.
func (g *KernelGradient) boxMatches(v int, Cp, Cn float64, flipped bool) bool {
	if flipped {
		Cp, Cn = Cn, Cp
	}
	return g.Box[v] == [2]float64{Cp, Cn}
}

// fillStored writes subproblem v's stored values into the solver's
// starting buffers for variables whose data rows are rows: α⁰ (the α the
// gradient was computed at), G⁰ and Gbar⁰ for rows the gradient covers,
// NaN in G⁰ for the others. For C-SVC, rows are the positive class's rows
// in data order, then (from position nPos) the negative class's; flipped
// says the positive class is Pairs[v][1]. Rows the gradient covers come
// first within each class (they are the data set's first Rows rows), so
// each class's stored values are a prefix of its rows here
// (storedSides). One-class passes the identity rows, nPos = len(rows).
func (g *KernelGradient) fillStored(a0, G0, Gbar0 []float64, rows []int32, nPos int, flipped bool, v int) {
	pos, posOff, neg, negOff := g.storedSides(v, flipped)
	g.fillSide(a0[:nPos], G0[:nPos], Gbar0[:nPos], pos, v, posOff)
	g.fillSide(a0[nPos:], G0[nPos:], Gbar0[nPos:], neg, v, negOff)
}

// storedSides returns how many values subproblem v stores for its
// positive and its negative side (flipped: the positive side is
// Pairs[v][1]) and where each side's start in G[v]: for C-SVC the
// classes' rows among the first Rows rows (First[v] and the rest), for
// one-class every stored row on the positive side. Those are the rows
// each side's variables start with (fillStored): the data set's first
// Rows rows are the gradient's (usableGradient), in data order within a
// class. Scanning each side's rows for the first one past Rows, twice a
// pair (fillSide and takeOutRemoved), was a fiftieth of a warm retrain
// on digits.
func (g *KernelGradient) storedSides(v int, flipped bool) (pos, posOff, neg, negOff int) {
	n := len(g.G[v])
	if g.First == nil {
		return n, 0, 0, n // one-class: every row is "positive"
	}
	f := g.First[v]
	if flipped {
		return n - f, f, f, 0
	}
	return f, 0, n - f, f
}

// fillSide is fillStored for the variables of one class, whose stored
// values are the stored ones of subproblem v from off, for its first
// stored variables: copied at once (a test and three loads a variable
// took a fiftieth of a warm retrain on digits); the variables past them
// get α⁰ = 0 and NaN.
func (g *KernelGradient) fillSide(a0, G0, Gbar0 []float64, stored, v, off int) {
	n := min(stored, len(a0))
	copy(a0[:n], g.alpha[v][off:off+n])
	copy(G0[:n], g.G[v][off:off+n])
	copy(Gbar0[:n], g.Gbar[v][off:off+n])
	for r := n; r < len(a0); r++ {
		a0[r], G0[r], Gbar0[r] = 0, math.NaN(), 0
	}
}

// fillStoredSVR is fillStored for ε-SVR's 2l variables (α then α*), whose
// stored values follow from those of α: α⁰ = max(β, 0) and α*⁰ =
// max(−β, 0) from the stored β, G*_t = 2ε − G_t and Gbar*_t = −Gbar_t
// (Q's rows for α*_t are the negated rows for α_t, and p*_t = 2ε − p_t).
func (g *KernelGradient) fillStoredSVR(a0, G0, Gbar0 []float64) {
	l := len(a0) / 2
	gv, gbv, beta := g.G[0], g.Gbar[0], g.alpha[0]
	for r := range l {
		if r < g.Rows {
			a0[r], a0[r+l] = max(beta[r], 0), max(-beta[r], 0)
			G0[r], G0[r+l] = gv[r], 2*g.Epsilon-gv[r]
			Gbar0[r], Gbar0[r+l] = gbv[r], -gbv[r]
		} else {
			a0[r], a0[r+l] = 0, 0
			G0[r], G0[r+l] = math.NaN(), math.NaN()
			Gbar0[r], Gbar0[r+l] = 0, 0
		}
	}
}

// entries sets dst[k] = Q_{i,js[k]} (qEntries) without the cache, counted
// in kernelEvals: kernelRows.column gives what getQ's columns hold, bit for
// bit, and K is symmetric. The data rows of js go through rowBuf. The
// values go into the kept columns of i's row and of js's rows too: they
// are a new row's entries against the support vectors, which the
// iterations' columns read again.
func (q *svcQ) entries(dst []float32, i int, js []int32) {
	rows := q.rowBuf[:len(js)]
	for k, j := range js {
		rows[k] = q.index[j]
	}
	dst = dst[:len(js)]
	if q.across {
		// Another pair may have computed them (a new row's entries
		// against the support vectors of its class, which most of the
		// pairs of that class share): only the others are computed.
		var written int64
		rows, q.missing, written = q.kept.entriesKept(dst, q.index[i], rows, q.missing)
		q.kernelEvals += written
		if len(rows) > 0 {
			q.kept.keepEntries(q.index[i], rows, q.computeMissing(dst, i, rows))
		}
	} else {
		q.cols.column(q.kr, dst, int(q.index[i]), rows)
		q.kernelEvals += int64(len(js))
		if q.kept != nil {
			q.kept.keepEntries(q.index[i], rows, dst)
		}
	}
	if q.y != nil {
		yi := q.y[i]
		for k, j := range js {
			if q.y[j] != yi {
				dst[k] = -dst[k]
			}
		}
	}
}

// entries sets dst[k] = Q_{i,js[k]} (qEntries) without the cache, counted
// in kernelEvals; on rows wide enough (keptColumns.wide) the kernel
// values go into the kept columns as svcQ's do. On diabetes's 8 features
// writing them, one into each support vector's column, cost 1.8% of a
// warm retrain's instructions for 1.5% fewer kernel values (-M 20); on
// digits's 64 they saved 24% of the kernel values, 10% of the
// instructions.
func (q *svrQ) entries(dst []float32, i int, js []int32) {
	rows := q.rowBuf[:len(js)]
	for k, j := range js {
		rows[k] = q.rows[q.index[j]]
	}
	dst = dst[:len(js)]
	row := q.rows[q.index[i]]
	q.cols.column(q.kr, dst, int(row), rows)
	q.kernelEvals += int64(len(js))
	if q.kept != nil && q.kept.wide {
		q.kept.keepEntries(row, rows, dst)
	}
	for k, j := range js {
		if q.sign[j] != q.sign[i] {
			dst[k] = -dst[k]
		}
	}
}

// warmSettled is a warm C-SVC pair's (or one-class problem's) shortcut
// past the solver when its start is the stored one: α equals α⁰ wherever
// G⁰ holds a value (none of the pair's α moved: no support vector of the
// pair left it and the repair changed nothing) and is 0 elsewhere (rows
// added since), so G⁰ is ∇f at α on its rows. It gives the variables
// without a stored value their G and Gbar from their entries against the
// nonzero α, summed as initGradientFrom's rebuildByRows sums them, and
// records them in G0 and Gbar0 (α⁰ = 0 there), so that a solve started
// after it computes no kernel value to start. Then one pass over the
// variables, in the caller's order, gives m(α) − M(α), ρ, the objective
// and the support vector counts as finish computes them; when m − M ≤ eps
// (0: 1e-3) the problem is solved, and it returns the result a solve
// would have returned after no iteration (ok; bit for bit on problems of
// up to 1000 variables, which the solver does not shrink before its first
// check). Otherwise (ok false) the caller solves, from G0 and Gbar0 as
// updated.
//
// On digits (-M 20), where 1% of the rows in and out leave about a third
// of the 45 pairs optimal, each such pair cost a solve's setup and finish
// passes, the gap checked three times and the copies around them: a
// retrain with no row changed took 2.0 ms of CPU, 1.4 ms with this.
func (s *smo) warmSettled(q qEntries, alpha, alpha0, G0, Gbar0, p []float64, y []int8, Cp, Cn float64, wt []float64, eps float64) (res smoResult, ok bool) {
	l := len(alpha)
	alpha0, G0, Gbar0, p, y = alpha0[:l], G0[:l], Gbar0[:l], p[:l], y[:l] // equal lengths: no bounds checks
	unknown := 0
	for t, a := range alpha {
		switch {
		case math.IsNaN(G0[t]):
			if a != 0 {
				return res, false
			}
			unknown++
		case a != alpha0[t]:
			return res, false
		}
	}
	C := func(t int) float64 {
		c := Cn
		if y[t] > 0 {
			c = Cp
		}
		if wt != nil {
			c *= wt[t]
		}
		return c
	}
	if unknown > 0 {
		nz := s.nz[:0]
		for j, a := range alpha {
			if a != 0 {
				nz = append(nz, int32(j))
			}
		}
		buf := s.qbuf[:len(nz)]
		for t, g := range G0 {
			if !math.IsNaN(g) {
				continue
			}
			q.entries(buf, t, nz)
			var sum, gbar float64
			for k, j := range nz {
				v := float64(buf[k])
				sum += alpha[j] * v
				if c := C(int(j)); alpha[j] >= c {
					gbar += c * v
				}
			}
			alpha0[t], G0[t], Gbar0[t] = 0, p[t]+sum, gbar
		}
	}
	if eps == 0 {
		eps = smoDefaultEps
	}
	m, M := math.Inf(-1), math.Inf(1)
	ub, lb := math.Inf(1), math.Inf(-1)
	var sum, obj float64
	nFree := 0
	for t, a := range alpha {
		// The sign of y_t by branch, not by a conversion and product a
		// variable: this pass is most of a settled pair's cost.
		g := G0[t]
		c, yG := Cp, g // y_t G_t
		if y[t] < 0 {
			c, yG = Cn, -g
		}
		if wt != nil {
			c *= wt[t]
		}
		if a == 0 && c > 0 && g+p[t]-(g+p[t]) == 0 {
			// At the lower bound alone (most variables: no support
			// vector): its term of the objective is 0 (g + p_t
			// finite), m or M and ub or lb as below.
			if y[t] > 0 {
				if -g > m {
					m = -g
				}
				ub = min(ub, g)
			} else {
				if g < M {
					M = g
				}
				lb = max(lb, -g)
			}
			continue
		}
		atUpper, atLower := a >= c, a <= 0
		if a > 0 {
			res.NumSV++
			if atUpper {
				res.NumBoundSV++
			}
		}
		obj += a * (g + p[t])
		v := -yG // −y_t G_t, as mM reads it
		if !atUpper && !atLower {
			sum += yG
			nFree++
			if v > m {
				m = v
			}
			if v < M {
				M = v
			}
			continue
		}
		if y[t] < 0 {
			atUpper, atLower = atLower, atUpper
		}
		if !atUpper { // only in I_up
			if v > m {
				m = v
			}
			ub = min(ub, yG)
		} else {
			if !atLower && v < M {
				M = v
			}
			lb = max(lb, yG)
		}
	}
	if !math.IsInf(m, 0) && !math.IsInf(M, 0) {
		res.Gap = m - M
	}
	if !(res.Gap <= eps) {
		return smoResult{}, false
	}
	switch {
	case nFree > 0:
		res.Rho = sum / float64(nFree)
	case math.IsInf(ub, 1) && math.IsInf(lb, -1):
		res.Rho = 0
	case math.IsInf(ub, 1):
		res.Rho = lb
	case math.IsInf(lb, -1):
		res.Rho = ub
	default:
		res.Rho = (ub + lb) / 2
	}
	res.Objective = obj / 2
	res.Converged = true
	return res, true
}
