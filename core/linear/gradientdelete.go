package linear

import (
	"slices"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// Removing rows from a kept primal Newton state (LinearGradient).
//
// The state's f, ∇f, ∇f(0) and ∇²f's diagonal are sums over its rows at
// its w, so a removed row's terms can be taken out exactly: with
// α_i = 2C_i max(0, 1 − z_i) (the dual the run returned),
//
//	∇f:     2C_i y_i (z_i − 1) x_i = −y_i α_i x_i   (α_i > 0)
//	∇f(0):  −2C_i y_i x_i                           (every row)
//	∇²f:    2C_i x_ij²                              (α_i > 0)
//	loss:   C_i (1 − z_i)² = α_i²/(4C_i)            (α_i > 0)
//
// Reading the removed rows (1% of a store in a stream) replaces the pass
// over every row a warm run made once rows had gone: on debdesc_bin -s 2,
// 1% out and 1% in, the start's f and ∇f pass and the first ∇f pass over
// the loss's rows, a quarter of the warm run's rows read. The rows
// themselves are gone from the caller's data set by then, so the state
// keeps a copy of its rows (LinearGradient.rows), as the kernel state
// keeps its support vectors (kernelwarm.go). The values are still only a
// start: the Newton method stops on values read from the rows
// (newton.minimize), so rounding in the subtraction cannot move the
// optimum it returns.

// deleteRows returns g without the rows at the sorted positions del of a
// dual with labels and vectors alpha (before the removal; rows at or past
// g.Rows are not g's and are skipped), or nil when g cannot outlive them:
// it keeps no copy of its rows, or alpha is no longer the one it was
// computed at (Check). g is not changed: duals made by Extended and
// Prefix share it. Check of the result is left for the caller to set
// once alpha is cut (LinearDual.DeleteRows).
func (g *LinearGradient) deleteRows(labels []int32, alpha [][]float64, del []int) *LinearGradient {
	rs, n, nrW := g.rows, g.Rows, len(g.W)
	if rs == nil || rs.Len() != n || len(alpha) != nrW || len(labels) != nrW || len(g.Box) != nrW ||
		len(g.G) != nrW || len(g.G0) != nrW || len(g.H) != nrW || len(g.Loss) != nrW {
		return nil
	}
	for _, a := range alpha {
		if len(a) < n {
			return nil
		}
	}
	if _, hAll := hashLabels(rs, n); hashLinearAlpha(hAll, alpha, n) != g.Check {
		return nil
	}
	cut := del
	for k, r := range del {
		if r >= n {
			cut = del[:k]
			break
		}
	}
	ng := &LinearGradient{Rows: n - len(cut), Bias: g.Bias, Features: g.Features, Box: g.Box, W: g.W,
		G: cloneEach(g.G), G0: cloneEach(g.G0), H: cloneEach(g.H), Loss: slices.Clone(g.Loss)}
	for _, r := range cut {
		wt := rs.Weight(r)
		for k := range nrW {
			y, C := -1.0, g.Box[k][1]
			if int32(rs.Label(r)) == labels[k] {
				y, C = 1, g.Box[k][0]
			}
			C *= wt
			addRowTerms(ng.G0[k], 2*C*y, nil, 0, rs, r, g.Features, g.Bias)
			if a := alpha[k][r]; a > 0 {
				addRowTerms(ng.G[k], y*a, ng.H[k], -2*C, rs, r, g.Features, g.Bias)
				ng.Loss[k] -= a * a / (4 * C)
			}
		}
	}
	ng.rows = rs.Clone()
	if err := ng.rows.DeleteRows(cut); err != nil {
		return nil // cut holds distinct positions below rs.Len()
	}
	// A sparse copy's features shrink to those of the rows kept: no row
	// has the others, whose weights the next start takes as 0 (their
	// terms in the sums above are then 0 too).
	if f := ng.rows.NumFeatures(); f < g.Features {
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
