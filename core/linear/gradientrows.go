package linear

import (
	"math"
	"slices"
	"sync"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// Removing rows from a kept primal Newton state (LinearGradient).
//
// The state's f, ∇f, ∇f(0) and ∇²f's diagonal are sums over its rows at
// its w, so a removed row's terms can be taken out exactly: for the
// L2-loss SVC, with α_i = 2C_i max(0, 1 − z_i) (the dual the run
// returned),
//
//	∇f:     2C_i y_i (z_i − 1) x_i = −y_i α_i x_i   (α_i > 0)
//	∇f(0):  −2C_i y_i x_i                           (every row)
//	∇²f:    2C_i x_ij²                              (α_i > 0)
//	loss:   C_i (1 − z_i)² = α_i²/(4C_i)            (α_i > 0)
//
// and for logistic regression, with α_i = C_i σ(−z_i), t_i = α_i/C_i,
//
//	∇f:     C_i (σ(z_i) − 1) y_i x_i = −y_i α_i x_i
//	∇f(0):  −½ C_i y_i x_i
//	∇²f:    C_i σ(z_i)(1 − σ(z_i)) x_ij² = α_i (1 − t_i) x_ij²
//	loss:   C_i log(1 + e^{−z_i}) = −C_i log(1 − t_i)
//
// Reading the removed rows (1% of a store in a stream) replaces the pass
// over every row a warm run made once rows had gone: on debdesc_bin -s 2,
// 1% out and 1% in, the start's f and ∇f(0) pass and the first ∇f pass
// over the loss's rows, a quarter of the warm run's rows read. The rows
// themselves are gone from the caller's data set by then, so the state
// keeps its rows (keptRows), as the kernel state keeps its support
// vectors (kernelwarm.go). The values are still only a start: the Newton
// method stops on values read from the rows (newton.minimize), so
// rounding in the subtraction cannot move the optimum it returns.

// keptRows are a state's rows: positions in an append-only log of rows
// that the states of one stream of runs share, so that a run copies only
// the rows added since the state it started from, and a removal only
// positions (copying every row each time cost 28% of a warm run's CPU on
// debdesc_bin).
type keptRows struct {
	log  *rowLog
	view *data.Dataset // the log's rows when the state was made (read only)
	live []int32       // the state's rows, in order: positions in view
}

// rowLog is rows appended and never changed: a view of its first rows
// stays valid while rows are appended. mu orders appends (two runs from
// one state may append at once); only the run whose start is the log's
// last row appends, the others copy their rows to a log of their own.
type rowLog struct {
	mu sync.Mutex
	ds *data.Dataset
}

// keptRowsOf returns the rows of ds as a state's: from's, when it holds
// ds's first rows and its log can take the rest, else a new log (with
// room for half as many rows again, and every row of ds copied).
func keptRowsOf(ds *data.Dataset, from *keptRows) *keptRows {
	if from != nil {
		if k := from.extend(ds); k != nil {
			return k
		}
	}
	l := ds.Len()
	nnz := ds.Nonzeros()
	log := &rowLog{ds: ds.CloneWithRoom(l+l/2+1, nnz+nnz/2+1)}
	live := make([]int32, l)
	for i := range live {
		live[i] = int32(i)
	}
	return &keptRows{log: log, view: log.ds.RowRange(0, l), live: live}
}

// extend returns the state's rows for ds, whose first len(k.live) rows
// are k's, with the rest appended to k's log; nil when the log is not k's
// to append to (a run from k appended already), when its dead rows
// (removed since they were written) outnumber the live ones, or when the
// rows do not fit in its room.
func (k *keptRows) extend(ds *data.Dataset) *keptRows {
	lg := k.log
	lg.mu.Lock()
	defer lg.mu.Unlock()
	n, from := lg.ds.Len(), len(k.live)
	if n != k.view.Len() || n-from > from || from > ds.Len() {
		return nil
	}
	for i := from; i < ds.Len(); i++ {
		var err error
		if ds.IsDense() {
			err = lg.ds.AppendDense(ds.Label(i), ds.DenseRow(i))
		} else {
			idx, val := ds.SparseRow(i)
			err = lg.ds.AppendSparse(ds.Label(i), idx, val)
		}
		if w := ds.Weight(i); err == nil && w != 1 {
			err = lg.ds.SetWeight(lg.ds.Len()-1, w)
		}
		if err != nil { // no room, or a wider dense row: a log of its own
			lg.ds.Truncate(n)
			return nil
		}
	}
	live := make([]int32, from, ds.Len())
	copy(live, k.live)
	for p := n; p < lg.ds.Len(); p++ {
		live = append(live, int32(p))
	}
	return &keptRows{log: lg, view: lg.ds.RowRange(0, lg.ds.Len()), live: live}
}

// hash returns hashLabels's lanes over the rows: (rows 0..mid−1, all).
func (k *keptRows) hash(mid int) (hMid, hAll [4]uint64) {
	return hashLabelsAt(k.view.Labels(), k.view.Weights(), k.live, mid)
}

// reach returns 1 + the largest feature index of the rows at the
// positions cut of live in the sparse view.
func reach(view *data.Dataset, live []int32, cut []int) int {
	n := 0
	for _, r := range cut {
		if idx, _ := view.SparseRow(int(live[r])); len(idx) > 0 {
			n = max(n, int(idx[len(idx)-1])+1)
		}
	}
	return n
}

// numFeatures returns 1 + the largest feature index of the rows (a
// dense log's width).
func (k *keptRows) numFeatures() int {
	if k.view.IsDense() {
		return k.view.NumFeatures()
	}
	n := 0
	for _, p := range k.live {
		if idx, _ := k.view.SparseRow(int(p)); len(idx) > 0 {
			n = max(n, int(idx[len(idx)-1])+1)
		}
	}
	return n
}

// deleteRows returns g without the rows at the sorted positions del of a
// dual with labels and vectors alpha (before the removal; rows at or past
// g.Rows are not g's and are skipped), or nil when g cannot outlive them:
// it keeps no rows, or alpha is no longer the one it was computed at
// (Check). g is not changed: duals made by Extended and Prefix share it.
// Check of the result is left for the caller to set once alpha is cut
// (LinearDual.DeleteRows).
func (g *LinearGradient) deleteRows(labels []int32, alpha [][]float64, del []int) *LinearGradient {
	rs, n, nrW := g.rows, g.Rows, len(g.W)
	if rs == nil || len(rs.live) != n || len(alpha) != nrW || len(labels) != nrW || len(g.Box) != nrW ||
		len(g.G) != nrW || len(g.G0) != nrW || len(g.H) != nrW || len(g.Loss) != nrW || len(g.Z) != nrW {
		return nil
	}
	for k, a := range alpha {
		if len(a) < n || len(g.Z[k]) != n {
			return nil
		}
	}
	if _, hAll := rs.hash(n); hashLinearAlpha(hAll, alpha, n) != g.Check {
		return nil
	}
	cut := del
	for k, r := range del {
		if r >= n {
			cut = del[:k]
			break
		}
	}
	ng := &LinearGradient{Rows: n - len(cut), Bias: g.Bias, Features: g.Features, Box: g.Box, W: g.W, logistic: g.logistic,
		G: cloneEach(g.G), G0: cloneEach(g.G0), H: cloneEach(g.H), Loss: slices.Clone(g.Loss)}
	for _, r := range cut {
		p := int(rs.live[r])
		wt := rs.view.Weight(p)
		for k := range nrW {
			y, C := -1.0, g.Box[k][1]
			if int32(rs.view.Label(p)) == labels[k] {
				y, C = 1, g.Box[k][0]
			}
			C *= wt
			a := alpha[k][r]
			if g.logistic {
				t := a / C // 1 − σ(z_i)
				addRowTerms(ng.G0[k], 0.5*C*y, nil, 0, rs.view, p, g.Features, g.Bias)
				addRowTerms(ng.G[k], y*a, ng.H[k], -a*(1-t), rs.view, p, g.Features, g.Bias)
				ng.Loss[k] += C * math.Log1p(-t) // −C_i log(1 + e^{−z_i}) = C_i log σ(z_i)
				continue
			}
			addRowTerms(ng.G0[k], 2*C*y, nil, 0, rs.view, p, g.Features, g.Bias)
			if a > 0 {
				addRowTerms(ng.G[k], y*a, ng.H[k], -2*C, rs.view, p, g.Features, g.Bias)
				ng.Loss[k] -= a * a / (4 * C)
			}
		}
	}
	live := make([]int32, 0, ng.Rows)
	j := 0
	for r, p := range rs.live {
		if j < len(cut) && cut[j] == r {
			j++
			continue
		}
		live = append(live, p)
	}
	ng.rows = &keptRows{log: rs.log, view: rs.view, live: live}
	ng.Z = make([][]float64, nrW)
	for k, z := range g.Z {
		ng.Z[k] = withoutPositions(z, cut)
	}
	// A sparse data set's features shrink to those of the rows kept
	// (Dataset.DeleteRows): no row has the others, whose weights the next
	// start takes as 0 (their terms in the sums above are then 0 too).
	// Features is 1 + the largest index of the state's rows, so only a
	// removed row that holds that index can shrink them: the kept rows are
	// read only then (reading them every time: 2.6% of a warm stream's CPU
	// on debdesc_bin, perf).
	if !rs.view.IsDense() && reach(rs.view, rs.live, cut) < g.Features {
		return ng
	}
	if f := ng.rows.numFeatures(); f < g.Features {
		ng.Features = f
		cutFeatures := func(v [][]float64) [][]float64 {
			out := make([][]float64, len(v))
			for k, x := range v {
				out[k] = append(x[:f:f], x[g.Features:]...) // the bias's entry stays last
			}
			return out
		}
		ng.W, ng.G, ng.G0, ng.H = cutFeatures(ng.W), cutFeatures(ng.G), cutFeatures(ng.G0), cutFeatures(ng.H)
	}
	return ng
}

// withoutPositions returns a copy of v without the entries at the
// ascending positions cut.
func withoutPositions(v []float64, cut []int) []float64 {
	out := make([]float64, 0, len(v)-len(cut))
	next := 0
	for _, r := range cut {
		out = append(out, v[next:r]...)
		next = r + 1
	}
	return append(out, v[next:]...)
}

// addRowTerms does v += a·x_r and, when h is not nil, h_j += b·x_rj²,
// over n features and then the bias pseudo-feature when bias ≥ 0.
func addRowTerms(v []float64, a float64, h []float64, b float64, ds *data.Dataset, r, n int, bias float64) {
	if ds.IsDense() {
		for j, x := range ds.DenseRow(r)[:n] {
			v[j] += a * float64(x)
			if h != nil {
				h[j] += b * float64(x) * float64(x)
			}
		}
	} else {
		idx, val := ds.SparseRow(r)
		for q, j := range idx {
			x := float64(val[q])
			v[j] += a * x
			if h != nil {
				h[j] += b * x * x
			}
		}
	}
	if bias >= 0 {
		v[n] += a * bias
		if h != nil {
			h[n] += b * bias * bias
		}
	}
}

// cloneEach returns a copy of each vector of v.
func cloneEach(v [][]float64) [][]float64 {
	out := make([][]float64, len(v))
	for k, x := range v {
		out[k] = slices.Clone(x)
	}
	return out
}

// inClassOrder returns g, a state whose decision functions have the
// positive classes warmLabels, with its functions in the order of this
// run's labels (labels[:len(box)] the positive classes; a binary run's two
// classes), box their costs; nil when the classes or costs differ. Classes
// are numbered in order of first appearance, so a removal can reorder
// them (digits without rows 0, 3 and 7): g's vectors are then permuted
// into a new value (g is not changed, duals share it); a binary run whose
// positive class is the other one's flips every y_i, so its w, ∇f and
// ∇f(0) are negated and its costs swapped (its margins, loss and ∇²f do
// not change).
func (g *LinearGradient) inClassOrder(warmLabels, labels []int32, box [][2]float64) *LinearGradient {
	nrW := len(box)
	if slices.Equal(warmLabels, labels[:nrW]) {
		if !slices.Equal(g.Box, box) {
			return nil
		}
		return g
	}
	if nrW == 1 {
		if len(labels) != 2 || warmLabels[0] != labels[1] || g.Box[0] != [2]float64{box[0][1], box[0][0]} {
			return nil
		}
		neg := func(v [][]float64) [][]float64 {
			x := make([]float64, len(v[0]))
			for j, e := range v[0] {
				x[j] = -e
			}
			return [][]float64{x}
		}
		ng := *g
		ng.Box, ng.W, ng.G, ng.G0 = box, neg(g.W), neg(g.G), neg(g.G0)
		return &ng
	}
	ng := *g
	ng.Box, ng.W, ng.G, ng.G0 = make([][2]float64, nrW), make([][]float64, nrW), make([][]float64, nrW), make([][]float64, nrW)
	ng.H, ng.Loss, ng.Z = make([][]float64, nrW), make([]float64, nrW), make([][]float64, nrW)
	for k, pos := range labels[:nrW] {
		q := slices.Index(warmLabels, pos)
		if q < 0 || g.Box[q] != box[k] {
			return nil
		}
		ng.Box[k], ng.W[k], ng.G[k], ng.G0[k], ng.H[k], ng.Loss[k] = box[k], g.W[q], g.G[q], g.G0[q], g.H[q], g.Loss[q]
		ng.Z[k] = g.Z[q]
	}
	return &ng
}
