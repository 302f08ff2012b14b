package linear

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// gradientRuns trains the first part of ds cold with a trainer that keeps
// the primal Newton state, and returns the trainer, that run's model and
// its dual extended to every row of ds (the state kept).
func gradientRuns(t *testing.T, args string, ds *data.Dataset, first int) (*LinearTrainer, *LinearModel, *LinearDual) {
	t.Helper()
	opts, _, err := ParseLinearOptions(strings.Fields(args))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewLinearTrainer(opts.Params, ds.Len(), ds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	tr.KeepGradient()
	m0, d0, err := tr.Train(prefix(ds, first), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d0.Gradient == nil || d0.Gradient.Rows != first {
		t.Fatalf("%s: the first run kept no gradient over its %d rows (%+v)", args, first, d0.Gradient)
	}
	return tr, m0, extended(d0, ds.Len())
}

// TestLinearGradientStart: a warm run from the kept state (rows added to
// debdesc_bin) reaches the objective of the same warm run from w alone,
// which reads every row at its start, and of the cold run, while reading
// fewer rows: the start reads only the rows added.
func TestLinearGradientStart(t *testing.T) {
	if testing.Short() {
		t.Skip("large set")
	}
	full := readTestdata(t, "debdesc_bin.train")
	l := full.Len()
	for _, args := range []string{"-s 2", "-s 1 -twin 1", "-s 2 -B 1", "-s 0"} {
		for _, part := range []float64{0.9, 0.99} {
			first := int(part * float64(l))
			tr, m0, warm := gradientRuns(t, args, full, first)
			cold, _, err := tr.Train(full, nil)
			if err != nil {
				t.Fatal(err)
			}
			fromW, _, err := tr.TrainFrom(full, nil, PrimalOf(m0))
			if err != nil {
				t.Fatal(err)
			}
			fromState, d, err := tr.TrainFrom(full, warm, PrimalOf(m0))
			if err != nil {
				t.Fatal(err)
			}
			c, a, b := cold.Result, fromW.Result, fromState.Result
			if !warmNoWorse(b.PrimalObjective, c.PrimalObjective) || !b.Converged {
				t.Errorf("%s after %v: objective from the state %.8g, cold %.8g (converged %v)", args, part, b.PrimalObjective, c.PrimalObjective, b.Converged)
			}
			if rel := math.Abs(b.PrimalObjective-a.PrimalObjective) / a.PrimalObjective; rel > 1e-6 {
				t.Errorf("%s after %v: objective from the state %.10g, from w %.10g", args, part, b.PrimalObjective, a.PrimalObjective)
			}
			// From w the start reads every row twice (f and ∇f(0)), and the
			// rows with a loss once more (∇f); from the state, only the
			// rows added.
			if saved := a.Updates - b.Updates; saved < int64(l) || b.Updates >= a.Updates {
				t.Errorf("%s after %v: rows read from the state %d, from w %d: want at least %d fewer", args, part, b.Updates, a.Updates, l)
			}
			if d.Gradient == nil || d.Gradient.Rows != l {
				t.Errorf("%s after %v: the warm run kept no gradient over all rows", args, part)
			}
			t.Logf("%s after %v: rows read from the state %d, from w %d, cold %d; products %d, %d, %d",
				args, part, b.Updates, a.Updates, c.Updates, b.HessianProducts, a.HessianProducts, c.HessianProducts)
		}
	}
}

// TestLinearGradientKeptIsExact: the kept state is f's at the returned w,
// recomputed from the rows (checkGradientExact), per decision function
// (digits, one-vs-rest, with a bias and a class weight; -s 2 and -s 0).
func TestLinearGradientKeptIsExact(t *testing.T) {
	ds := readTestdata(t, "digits.train")
	for _, args := range []string{"-s 2 -B 1 -w3 2", "-s 0 -B 1 -w3 2"} {
		_, _, d := gradientRuns(t, args, ds, ds.Len())
		if pos := d.Labels; pos[3] == 3 && d.Gradient.Box[3][0] != 2 {
			t.Errorf("%s: class 3's cost %v, want 2", args, d.Gradient.Box[3][0])
		}
		checkGradientExact(t, ds, d)
	}
}

// checkGradientExact checks d's gradient, over all rows of ds, against
// the values recomputed from the rows at its W: ∇f(w) = w + 2 Σ_{z_i<1}
// C_i y_i (z_i − 1) x_i, ∇f(0) = −2 Σ C_i y_i x_i, ∇²f's diagonal less
// the identity 2 Σ_{z_i<1} C_i x_ij², and the loss Σ C_i (1 − z_i)²; for
// logistic regression ∇f(w) = w + Σ C_i (σ(z_i) − 1) y_i x_i,
// ∇f(0) = −½ Σ C_i y_i x_i, Σ C_i σ(z_i)(1 − σ(z_i)) x_ij² and
// Σ C_i log(1 + e^{−z_i}).
func checkGradientExact(t *testing.T, ds *data.Dataset, d *LinearDual) {
	t.Helper()
	g := d.Gradient
	if g.Rows != ds.Len() {
		t.Fatalf("the gradient covers %d rows, the data %d", g.Rows, ds.Len())
	}
	n, m := g.Features, ds.NumFeatures() // the features of the run's rows, and of ds
	bias := g.Bias
	widen := func(v []float64) []float64 {
		out := make([]float64, m+1)
		copyWidened(out, v, n, bias)
		return out
	}
	xb := max(bias, 0) // the bias pseudo-feature's value, 0 without one
	for k, pos := range d.Labels {
		Cp, Cn := g.Box[k][0], g.Box[k][1]
		w := widen(g.W[k])
		grad, h := slices.Clone(w), make([]float64, m+1)
		g0 := make([]float64, m+1)
		var loss float64
		for i := range ds.Len() {
			y, c := -1.0, Cn
			if int32(ds.Label(i)) == pos {
				y, c = 1, Cp
			}
			c *= ds.Weight(i)
			z := y * (ds.Dot(i, w[:m]) + w[m]*xb)
			// Each row's terms: ∇f(0)'s factor, and where it has a loss,
			// the loss, ∇f's factor and the diagonal's weight.
			g0c, lossed, li, gc, hc := -2*c*y, z < 1, c*(1-z)*(1-z), 2*c*y*(z-1), 2*c
			if g.logistic {
				s := 1 / (1 + math.Exp(-z))
				g0c, lossed, li, gc, hc = -0.5*c*y, true, c*math.Log1p(math.Exp(-z)), c*(s-1)*y, c*s*(1-s)
			}
			ds.AddScaledTo(g0[:m], g0c, i)
			g0[m] += g0c * xb
			if lossed {
				loss += li
				ds.AddScaledTo(grad[:m], gc, i)
				grad[m] += gc * xb
				sq := make([]float64, m)
				ds.AddScaledTo(sq, 1, i)
				for j, v := range sq {
					h[j] += hc * v * v
				}
				h[m] += hc * xb * xb
			}
		}
		kg, kg0, kh := widen(g.G[k]), widen(g.G0[k]), widen(g.H[k])
		for j := range grad {
			if math.Abs(grad[j]-kg[j]) > 1e-9*(1+math.Abs(grad[j])) || math.Abs(g0[j]-kg0[j]) > 1e-9*(1+math.Abs(g0[j])) ||
				math.Abs(h[j]-kh[j]) > 1e-9*(1+h[j]) {
				t.Fatalf("class %d, entry %d: ∇f %v, kept %v; ∇f(0) %v, kept %v; ∇²f %v, kept %v", pos, j, grad[j], kg[j], g0[j], kg0[j], h[j], kh[j])
			}
		}
		if math.Abs(loss-g.Loss[k]) > 1e-9*loss {
			t.Errorf("class %d: loss %v, kept %v", pos, loss, g.Loss[k])
		}
	}
}

// TestLinearGradientDeleteRows: removing rows from a dual takes their
// terms out of its kept state exactly (checkGradientExact over the rows
// that stay): a dense one-vs-rest run with a bias, class and instance
// weights, and a sparse binary one whose widest row goes (its features
// shrink). The next run, on rows added after the removal, starts from the
// state (fewer rows read than from w alone), reaches the cold run's
// objective and leaves an exact state. So too when the removal changes
// the order in which classes first appear (digits without rows 0, 3 and
// 7; digits 4 against 0 without row 0, a binary run whose positive class
// is then the other): the state's decision functions follow the classes.
func TestLinearGradientDeleteRows(t *testing.T) {
	digits := readTestdata(t, "digits.train").Clone()
	// Digits 4 and 0 (rows 0 and 1 of the file): a binary run whose first
	// class is 4 until row 0 goes (±1 labels keep +1 first, as LIBLINEAR).
	pair := data.NewDense(digits.Len(), digits.NumFeatures())
	for i := range digits.Len() {
		if y := digits.Label(i); y == 4 || y == 0 {
			if err := pair.AppendDense(y, digits.DenseRow(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < digits.Len(); i += 7 {
		if err := digits.SetWeight(i, 1.5); err != nil {
			t.Fatal(err)
		}
	}
	deb := prefix(readTestdata(t, "debdesc_bin.train"), 1200)
	widest, most := 0, int32(-1)
	for i := range 1000 {
		if idx, _ := deb.SparseRow(i); len(idx) > 0 && idx[len(idx)-1] > most {
			widest, most = i, idx[len(idx)-1]
		}
	}
	for _, tc := range []struct {
		args     string
		ds       *data.Dataset
		first    int   // rows of the first run
		del      []int // positions removed after it
		reorders bool  // the removal changes the classes' order
	}{
		{"-s 2 -B 1 -w3 2", digits, digits.Len() - 40, []int{10, 17, 200, 201, 999, digits.Len() - 41}, false},
		{"-s 1 -twin 1", deb, 1000, []int{widest, 3, 4, 500, 998}, false},
		{"-s 0 -B 1 -w3 2", digits, digits.Len() - 40, []int{10, 17, 200, 201, 999, digits.Len() - 41}, false},
		{"-s 0", deb, 1000, []int{widest, 3, 4, 500, 998}, false},
		{"-s 2 -B 1 -w3 2", digits, digits.Len() - 40, []int{0, 3, 7}, true},
		{"-s 0 -B 1 -w3 2", digits, digits.Len() - 40, []int{0, 3, 7}, true},
		{"-s 2 -w4 3", pair, pair.Len() - 40, []int{0}, true},
		{"-s 1 -twin 1 -B 1", pair, pair.Len() - 40, []int{0}, true},
		{"-s 0 -w0 0.5", pair, pair.Len() - 40, []int{0}, true},
	} {
		tr, m0, warm := gradientRuns(t, tc.args, tc.ds, tc.first)
		ds := tc.ds.Clone()
		if err := ds.DeleteRows(tc.del); err != nil {
			t.Fatal(err)
		}
		if err := warm.DeleteRows(tc.del); err != nil {
			t.Fatal(err)
		}
		if warm.Gradient == nil {
			t.Fatalf("%s: the gradient was dropped", tc.args)
		}
		kept := tc.first - len(tc.del)
		if tc.ds == deb && warm.Gradient.Features >= m0.NumFeatures {
			t.Errorf("%s: the features did not shrink (%d of %d) with the widest row gone", tc.args, warm.Gradient.Features, m0.NumFeatures)
		}
		checkGradientExact(t, ds.Prefix(kept), &LinearDual{Labels: warm.Labels, Gradient: warm.Gradient})

		fromW, _, err := tr.TrainFrom(ds, nil, PrimalOf(m0))
		if err != nil {
			t.Fatal(err)
		}
		m, d, err := tr.TrainFrom(ds, warm, PrimalOf(m0))
		if err != nil {
			t.Fatal(err)
		}
		cold, _, err := tr.Train(ds, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.reorders == slices.Equal(d.Labels, warm.Labels) {
			t.Fatalf("%s without rows %v: classes %v, before %v", tc.args, tc.del, d.Labels, warm.Labels)
		}
		if m.Result.Updates+int64(kept) > fromW.Result.Updates {
			t.Errorf("%s: rows read from the state %d, from w %d: want at least %d fewer", tc.args, m.Result.Updates, fromW.Result.Updates, kept)
		}
		if !warmNoWorse(m.Result.PrimalObjective, cold.Result.PrimalObjective) || !m.Result.Converged {
			t.Errorf("%s: objective %.8g, cold %.8g (converged %v)", tc.args, m.Result.PrimalObjective, cold.Result.PrimalObjective, m.Result.Converged)
		}
		checkGradientExact(t, ds, d)
	}
}

// TestLinearGradientRefused: a state whose rows, α, costs, bias or
// margins no longer match is not used (the warm run reads every row, as
// from w alone). Features are not checked (outside the contract:
// LinearGradient).
func TestLinearGradientRefused(t *testing.T) {
	full := readTestdata(t, "heart_scale")
	l := full.Len()
	tr, m0, warm := gradientRuns(t, "-s 2", full, l-20)
	fromW, _, err := tr.TrainFrom(full, nil, PrimalOf(m0))
	if err != nil {
		t.Fatal(err)
	}
	used, _, err := tr.TrainFrom(full, warm, PrimalOf(m0))
	if err != nil {
		t.Fatal(err)
	}
	if used.Result.Updates >= fromW.Result.Updates {
		t.Fatalf("the state was not used: rows read %d, from w %d", used.Result.Updates, fromW.Result.Updates)
	}
	refusals := map[string]func(d *LinearDual) *LinearDual{
		"α changed": func(d *LinearDual) *LinearDual {
			d.Alpha[0][3] += 0.5
			return d
		},
		"α changed, then rows deleted": func(d *LinearDual) *LinearDual {
			d.Alpha[0][3] += 0.5
			if err := d.DeleteRows([]int{0}); err != nil {
				t.Fatal(err)
			}
			if d.Gradient != nil {
				t.Errorf("α changed, then rows deleted: the dual kept its gradient")
			}
			d.Alpha[0] = append(d.Alpha[0], 0)
			return d
		},
		"another loss (logistic regression's)": func(d *LinearDual) *LinearDual {
			g := *d.Gradient
			g.logistic = true
			d.Gradient = &g
			return d
		},
		"cost changed": func(d *LinearDual) *LinearDual {
			g := *d.Gradient
			g.Box = [][2]float64{{2, 2}}
			d.Gradient = &g
			return d
		},
		"margins of fewer rows": func(d *LinearDual) *LinearDual {
			g := *d.Gradient
			g.Z = [][]float64{g.Z[0][1:]}
			d.Gradient = &g
			return d
		},
		"more rows than the data": func(d *LinearDual) *LinearDual {
			g := *d.Gradient
			g.Rows = l + 1
			d.Gradient = &g
			return d
		},
	}
	for name, spoil := range refusals {
		d := spoil(extended(warm, l))
		m, _, err := tr.TrainFrom(full, d, PrimalOf(m0))
		if err != nil {
			t.Fatal(err)
		}
		// Not used, the run is the one from w alone.
		if m.Result.Updates != fromW.Result.Updates {
			t.Errorf("%s: the state was used (rows read %d, from w %d)", name, m.Result.Updates, fromW.Result.Updates)
		}
	}
	// Labels changed: the hash of the first rows differs.
	relabelled := data.NewDense(l, full.NumFeatures())
	for i := range l {
		y := full.Label(i)
		if i == 5 {
			y = -y
		}
		if err := relabelled.AppendDense(y, full.DenseRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	if g := tr.usableGradient(warm, []int32{1, -1}, [][2]float64{{1, 1}}, full.NumFeatures(), first(hashLabelsAt(relabelled.Labels(), relabelled.Weights(), nil, warm.Gradient.Rows)), l); g != nil {
		t.Errorf("labels changed: the state is usable")
	}
	if g := tr.usableGradient(warm, []int32{1, -1}, [][2]float64{{1, 1}}, full.NumFeatures(), first(hashLabelsAt(full.Labels(), full.Weights(), nil, warm.Gradient.Rows)), l); g == nil {
		t.Errorf("the same rows: the state is not usable")
	}
}

func first(a, _ [4]uint64) [4]uint64 { return a }

// TestLinearGradientStopAtStart: a run on the same rows from its own state
// at a point that passes the tests reads the rows before it stops (the
// state alone decides nothing), takes no Newton step and returns the same
// weights.
func TestLinearGradientStopAtStart(t *testing.T) {
	ds := readTestdata(t, "heart_scale")
	opts, _, _ := ParseLinearOptions(strings.Fields("-s 2 -e 0.0001"))
	tr, err := NewLinearTrainer(opts.Params, ds.Len(), ds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	tr.KeepGradient()
	m0, d0, err := tr.Train(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := tr.TrainFrom(ds, d0, PrimalOf(m0))
	if err != nil {
		t.Fatal(err)
	}
	r := m.Result
	if r.NewtonIterations != 0 || !r.Converged || r.Updates < int64(ds.Len()) {
		t.Errorf("restart from the state: %d Newton iterations, converged %v, %d rows read (want 0, true, ≥ %d)",
			r.NewtonIterations, r.Converged, r.Updates, ds.Len())
	}
	for j := range m0.W {
		if m.W[j] != m0.W[j] {
			t.Fatalf("weight %d moved from %v to %v", j, m0.W[j], m.W[j])
		}
	}
}

// TestLinearGradientNewFeatures: rows added with features no earlier row
// had (a wider data set) keep the state usable, its vectors widened, and
// the run matches the cold one.
func TestLinearGradientNewFeatures(t *testing.T) {
	full := readTestdata(t, "debdesc_bin.train")
	// The first rows with their largest feature index below a bound, so
	// that the rows added later widen the data.
	bound := int32(full.NumFeatures() * 3 / 4)
	narrow := data.NewSparse(full.Len(), full.Nonzeros(), 0)
	var rest []int
	for i := range full.Len() {
		idx, val := full.SparseRow(i)
		if len(idx) > 0 && idx[len(idx)-1] >= bound || narrow.Len() >= 3000 {
			rest = append(rest, i)
			continue
		}
		if err := narrow.AppendSparse(full.Label(i), idx, val); err != nil {
			t.Fatal(err)
		}
	}
	m0rows := narrow.Len()
	for _, i := range rest[:1000] {
		idx, val := full.SparseRow(i)
		if err := narrow.AppendSparse(full.Label(i), idx, val); err != nil {
			t.Fatal(err)
		}
	}
	tr, m0, warm := gradientRuns(t, "-s 2 -B 1", narrow, m0rows)
	if m0.NumFeatures >= narrow.NumFeatures() {
		t.Fatalf("the rows added bring no new feature (%d, %d)", m0.NumFeatures, narrow.NumFeatures())
	}
	fromW, _, err := tr.TrainFrom(narrow, nil, PrimalOf(m0))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := tr.TrainFrom(narrow, warm, PrimalOf(m0))
	if err != nil {
		t.Fatal(err)
	}
	cold, _, err := tr.Train(narrow, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Result.Updates >= fromW.Result.Updates {
		t.Errorf("the state was not used: rows read %d, from w %d", m.Result.Updates, fromW.Result.Updates)
	}
	if !warmNoWorse(m.Result.PrimalObjective, cold.Result.PrimalObjective) {
		t.Errorf("objective %.8g, cold %.8g", m.Result.PrimalObjective, cold.Result.PrimalObjective)
	}
	if rel := math.Abs(m.Result.PrimalObjective-fromW.Result.PrimalObjective) / fromW.Result.PrimalObjective; rel > 1e-6 {
		t.Errorf("objective %.10g, from w %.10g", m.Result.PrimalObjective, fromW.Result.PrimalObjective)
	}
}

// extended is d for a run on n ≥ its rows rows, as core.Dual.Extended
// makes it: each α vector extended with zeros, labels and gradient kept.
func extended(d *LinearDual, n int) *LinearDual {
	e := &LinearDual{Labels: d.Labels, Gradient: d.Gradient, Alpha: make([][]float64, len(d.Alpha))}
	for k, a := range d.Alpha {
		e.Alpha[k] = make([]float64, n)
		copy(e.Alpha[k], a)
	}
	return e
}

// TestLinearGradientSharedLog: two runs from one state, on different
// rows added, each keep exactly their own rows (the second cannot append
// to the log the first appended to, and copies its rows); and a state
// after removals, extended again, stays exact.
func TestLinearGradientSharedLog(t *testing.T) {
	full := prefix(readTestdata(t, "debdesc_bin.train"), 1400)
	tr, _, warm := gradientRuns(t, "-s 2", full, 1000)
	// rowsOf returns rows [0, 1000) and [from, to) of full, with room for
	// 500 rows more.
	rowsOf := func(from, to int) *data.Dataset {
		ds := data.NewSparse(1500, full.Nonzeros(), 0)
		for i := range full.Len() {
			if i < 1000 || i >= from && i < to {
				solve.AppendRow(ds, full, i)
			}
		}
		return ds
	}
	a, other := rowsOf(1000, 1200), rowsOf(1200, 1400)
	_, da, err := tr.TrainFrom(a, extended(warm, a.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, db, err := tr.TrainFrom(other, extended(warm, other.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if da.Gradient.rows.log != warm.Gradient.rows.log || db.Gradient.rows.log == warm.Gradient.rows.log {
		t.Errorf("the first run did not append to the state's log, or the second did")
	}
	checkGradientExact(t, a, da)
	checkGradientExact(t, other, db)
	del := []int{0, 1, 2, 600}
	if err := da.DeleteRows(del); err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteRows(del); err != nil {
		t.Fatal(err)
	}
	checkGradientExact(t, a, &LinearDual{Labels: da.Labels, Gradient: da.Gradient}) // the rows read from the shared log
	if err := db.DeleteRows([]int{5, 1100}); err != nil {
		t.Fatal(err)
	}
	if err := other.DeleteRows([]int{5, 1100}); err != nil {
		t.Fatal(err)
	}
	checkGradientExact(t, other, &LinearDual{Labels: db.Labels, Gradient: db.Gradient}) // from the copy
	for i := 1200; i < 1300; i++ {
		solve.AppendRow(a, full, i)
	}
	_, dc, err := tr.TrainFrom(a, extended(da, a.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if dc.Gradient.rows.log != da.Gradient.rows.log {
		t.Errorf("the run after removals did not append to the log")
	}
	checkGradientExact(t, a, dc)
}
