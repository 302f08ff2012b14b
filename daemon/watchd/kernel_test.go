package watchd

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/options"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// The kernel tests' data: LIBSVM files bundled with the repository.
const (
	heartTrain    = "../../examples/data/heart_scale.train" // 200 rows, 13 features, classes ±1
	heartTest     = "../../examples/data/heart_scale.test"  // 70 rows
	digitsTrain   = "../../core/testdata/digits.train"      // 1437 rows, 64 features, 10 classes
	digitsTest    = "../../core/testdata/digits.test"       // 360 rows
	diabetesTrain = "../../core/testdata/diabetes.train"    // 353 rows, 10 features, real targets
	diabetesTest  = "../../core/testdata/diabetes.test"     // 89 rows
)

// kernelOptions are svm-train options (an RBF kernel, C = 4): their -t
// selects the kernel trainer.
const kernelOptions = "-t 2 -c 4"

// objectiveTol bounds the relative difference between the dual objective
// of the daemon's warm solve and that of a cold solve of the same rows:
// both stop at SMO's gap ε = 0.001, which leaves the objective within a few
// 1e-8 relative on these problems (measured: at most 3.1e-8).
const objectiveTol = 1e-4

// nuObjectiveTol is objectiveTol for ν-SVC, whose objective is the solver's
// divided by r² (kerneltrain.go): r is known to about eps/2 at two points
// both optimal to eps, so the quotients differ by about 2·eps/r relative
// (r ≈ 2.1 on heart_scale at ν = 0.5, eps 1e-3: 1e-3).
const nuObjectiveTol = 1e-3

// objectiveTolOf is the objective tolerance for models of type t.
func objectiveTolOf(t core.SVMType) float64 {
	if t == core.NuSVC {
		return nuObjectiveTol
	}
	return objectiveTol
}

// lines returns the lines of a data file, each with its newline (the last
// one too).
func lines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	out := strings.SplitAfter(text, "\n")
	return out[:len(out)-1] // the empty string after the last newline
}

// kernelConfig is testConfig with svm-train options and a store sized for
// the kernel tests' data.
func kernelConfig(root, options string, capacity, maxFeatures int) Config {
	cfg := testConfig(root)
	cfg.TrainOptions = options
	cfg.Store = store.Config{Capacity: capacity, MaxFeatures: maxFeatures}
	return cfg
}

// readText reads LIBSVM text with core's file reader (dense or sparse as it
// prefers), apart from the daemon's batch path.
func readText(t *testing.T, text string) *data.Dataset {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rows.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := data.ReadFile(path, data.ReadOptions{Format: data.FormatLIBSVM})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// coldKernel is the independent reference: core.TrainKernel, from α = 0, on
// rows read by core's reader, with the options parsed by core.
func coldKernel(t *testing.T, opts string, ds *data.Dataset) *core.KernelModel {
	t.Helper()
	o, _, err := options.ParseKernel(strings.Fields(opts))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := core.TrainKernel(ds, o.Params)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// publishedKernel loads the published version v, which must be a kernel
// model.
func publishedKernel(t *testing.T, root string, v uint64) *core.KernelModel {
	t.Helper()
	l, err := loadLoaded(filepath.Join(root, ModelsDir, modeldir.FileName(v)))
	if err != nil {
		t.Fatal(err)
	}
	if kerOf(l) == nil {
		t.Fatalf("version %d is not a kernel model", v)
	}
	return kerOf(l)
}

// kernelDecisionTol bounds the difference of decision values between the
// daemon's model and the cold solve's: two solutions that each meet SMO's
// stopping gap ε = 0.001 differ in their decision values by a few ε at
// most (measured: 3.3e-3 at most on these data sets; heart's test row 25
// lies 5e-8 from the boundary in one of the tests).
const kernelDecisionTol = 1e-2

// sameOptimum checks that got, the daemon's model, reached the optimum of
// want, a cold solve of the same rows: dual objective within objectiveTol
// (relative); on every row of test, decision values within
// kernelDecisionTol and, for classification, the same label unless a
// decision value of want is within kernelDecisionTol of 0 (where any two
// ε-optimal solutions may disagree); for regression, predictions within
// 1e-3 of the targets' spread.
func sameOptimum(t *testing.T, what string, got, want *core.KernelModel, test *data.Dataset) {
	t.Helper()
	g, w := got.Result.Objective, want.Result.Objective
	if math.Abs(g-w) > objectiveTolOf(want.SVMType)*math.Abs(w) {
		t.Errorf("%s: objective %.10g, cold solve %.10g", what, g, w)
	}
	spread := 0.0
	if want.IsRegression() {
		spread = slices.Max(test.Labels()) - slices.Min(test.Labels())
	}
	dg, dw := make([]float64, got.NumDecisionValues()), make([]float64, want.NumDecisionValues())
	if len(dg) != len(dw) {
		t.Fatalf("%s: %d decision values, cold solve %d", what, len(dg), len(dw))
	}
	for i := range test.Len() {
		idx, val := test.SparseRow(i)
		pg, pw := got.PredictSparse(idx, val), want.PredictSparse(idx, val)
		if want.IsRegression() {
			if math.Abs(pg-pw) > 1e-3*spread {
				t.Errorf("%s: test row %d predicted %v, cold solve %v", what, i, pg, pw)
				return
			}
			continue
		}
		got.DecisionSparse(dg, idx, val)
		want.DecisionSparse(dw, idx, val)
		near := false
		for k := range dw {
			if math.Abs(dg[k]-dw[k]) > kernelDecisionTol {
				t.Errorf("%s: test row %d: decision value %d is %v, cold solve %v", what, i, k, dg[k], dw[k])
				return
			}
			near = near || math.Abs(dw[k]) <= kernelDecisionTol
		}
		if pg != pw && !near {
			t.Errorf("%s: test row %d predicted %v, cold solve %v", what, i, pg, pw)
			return
		}
	}
}

// readTest reads a test file with core's reader, sparse, so that rows of
// any width predict with models of fewer features.
func readTest(t *testing.T, path string) *data.Dataset {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds := data.NewSparse(int(st.Size()), int(st.Size()), 0)
	if _, err := data.ReadInto(ds, f, path, data.ReadOptions{Format: data.FormatLIBSVM}); err != nil {
		t.Fatal(err)
	}
	return ds
}

// metricValue returns the value of the unlabelled metric name in a
// Prometheus text exposition; name may leave out MetricPrefix.
func metricValue(t *testing.T, text, name string) float64 {
	t.Helper()
	if !strings.HasPrefix(name, MetricPrefix) {
		name = MetricPrefix + name
	}
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metric %s: %v", name, err)
			}
			return f
		}
	}
	t.Fatalf("no metric %s in\n%s", name, text)
	return 0
}

// ratioOf returns warm/cold kernel evaluations of a "cold solve for
// comparison" record.
func ratioOf(r map[string]any) (warm, cold, ratio float64) {
	warm, cold = r["warm_kernel_evals"].(float64), r["cold_kernel_evals"].(float64)
	return warm, cold, warm / cold
}

// TestKernelWarmRetrain streams batches through the daemon with svm-train
// options and ColdEvery = 1. The published model must be the optimum a cold
// core.TrainKernel reaches on the same rows (objective and test
// predictions; checked after every batch while the rows are few, after
// the last for digits), every warm objective that of the daemon's own cold
// solve, and each retrain after the first, warm from the stored α and the
// gradient kept in memory (rows only appended), must cost fewer kernel
// evaluations than the cold solve: the bounds are the measured ratios with
// a margin.
//
//	heart -t 2 -c 4, 100 rows then 5 × 20: ratios 0.92 0.74 0.66 0.72 0.69,
//	    in all 50,260 against 69,140 (0.73)
//	digits -t 2 -c 4 (45 one-vs-one pairs), 1200 rows then 50, 50, 50, 50,
//	    37: 0.41 0.48 0.41 0.35 0.25, in all 1,016,514 against 2,699,888
//	    (0.38)
//	digits -t 2 (issue 5's case, C = 1), 90% then all: 419,467 against
//	    1,098,655 (0.38), as core's own warm-start test measures
//	diabetes -s 3 -t 2 -c 100 (ε-SVR), 253 rows then 4 × 25: 0.27 0.27
//	    0.23 0.25, in all 0.25
//	heart -s 2 -t 2 -n 0.5 (one-class), 100 rows then 5 × 20: 0.40 0.38
//	    0.33 0.34 0.30, in all 0.34
//	heart -s 1 -t 2 -n 0.5 (ν-SVC), 100 rows then 5 × 20: 0.54 0.43 0.35
//	    0.38 0.35, in all 0.39
//	diabetes -s 4 -t 2 -n 0.5 -c 10 (ν-SVR), 253 rows then 4 × 25: 0.33
//	    0.30 0.23 0.26, in all 0.28
//
// Each new row costs one kernel column over its subproblem (core builds its
// gradient entry from it), which is what keeps heart's ratios high: 20 new
// rows against 100–180 kept ones.
func TestKernelWarmRetrain(t *testing.T) {
	cases := []struct {
		name, train, test, options string
		maxFeatures                int
		batches                    []int
		maxEach, maxAll            float64 // bounds on warm/cold kernel evaluations
	}{
		{"heart", heartTrain, heartTest, kernelOptions, 13, []int{100, 20, 20, 20, 20, 20}, 1, 0.8},
		{"digits", digitsTrain, digitsTest, kernelOptions, 64, []int{1200, 50, 50, 50, 50, 37}, 0.6, 0.45},
		{"digits-90", digitsTrain, digitsTest, "-t 2", 64, []int{1293, 144}, 0.45, 0.45},
		{"svr", diabetesTrain, diabetesTest, "-s 3 -t 2 -c 100", 10, []int{253, 25, 25, 25, 25}, 0.35, 0.3},
		{"one-class", heartTrain, heartTest, "-s 2 -t 2 -n 0.5", 13, []int{100, 20, 20, 20, 20, 20}, 0.5, 0.4},
		{"nu-svc", heartTrain, heartTest, "-s 1 -t 2 -n 0.5", 13, []int{100, 20, 20, 20, 20, 20}, 0.65, 0.45},
		{"nu-svr", diabetesTrain, diabetesTest, "-s 4 -t 2 -n 0.5 -c 10", 10, []int{253, 25, 25, 25, 25}, 0.4, 0.35},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			all := lines(t, c.train)
			test := readTest(t, c.test)
			cfg := kernelConfig(t.TempDir(), c.options, 2000, c.maxFeatures)
			cfg.ColdEvery = 1
			s := newSync(t, cfg)
			at := 0
			for i, n := range c.batches {
				s.ingest(t, fmt.Sprintf("b%02d.txt", i), strings.Join(all[at:at+n], ""))
				at += n
				// The independent reference after each batch while that is
				// cheap, after the last one always; the objective of the
				// daemon's own cold solve after each (below).
				if at < 500 || i == len(c.batches)-1 {
					got := publishedKernel(t, cfg.Root, uint64(i+1))
					want := coldKernel(t, c.options, readText(t, strings.Join(all[:at], "")))
					sameOptimum(t, fmt.Sprintf("after batch %d", i), got, want, test)
				}
			}
			retrained := s.records(t, "retrained")
			colds := s.records(t, "cold solve for comparison")
			if len(retrained) != len(c.batches) || len(colds) != len(c.batches) {
				t.Fatalf("%d retrains and %d cold solves logged, want %d", len(retrained), len(colds), len(c.batches))
			}
			if _, ok := processCPU(); ok {
				// CPU over a solve: at most its wall time on every core
				// (plus the clock's granularity); a batch's CPU in all
				// holds its two solves'.
				done := s.records(t, "batch done")
				for i, r := range append(slices.Clone(retrained), append(colds, done...)...) {
					cpu, ok := r["cpu_seconds"].(float64)
					if wall := r["seconds"].(float64); !ok || cpu < 0 || cpu > wall*float64(runtime.NumCPU())+0.02 {
						t.Errorf("record %d (%v): cpu_seconds %v, wall %v s", i, r["msg"], r["cpu_seconds"], wall)
					}
				}
				if len(done) != len(c.batches) {
					t.Fatalf("%d batches done logged, want %d", len(done), len(c.batches))
				}
				for i, r := range done {
					parts := retrained[i]["cpu_seconds"].(float64) + colds[i]["cpu_seconds"].(float64)
					if all := r["cpu_seconds"].(float64); all < parts-0.002 {
						t.Errorf("batch %d: %v CPU seconds in all, its solves %v", i, all, parts)
					}
				}
			}
			for i, r := range colds {
				wo, co := r["warm_objective"].(float64), r["cold_objective"].(float64)
				if math.Abs(wo-co) > objectiveTolOf(s.d.spec.opts.Kernel.Params.SVMType)*math.Abs(co) {
					t.Errorf("batch %d: warm objective %.10g, the cold solve's %.10g", i, wo, co)
				}
			}
			var warmAll, coldAll float64
			for i, r := range retrained {
				// The first retrain has no dual to start from; the others
				// start from α and the gradient of the one before.
				if r["kind"] != "kernel" || r["warm"] != (i > 0) || r["gradient"] != (i > 0) {
					t.Errorf("retrain %d: kind %v, warm %v, gradient %v", i, r["kind"], r["warm"], r["gradient"])
				}
				w, cold, ratio := ratioOf(colds[i])
				if want := r["kernel_evals"].(float64); w != want {
					t.Errorf("retrain %d: %v kernel evaluations logged, the comparison says %v", i, want, w)
				}
				if i == 0 {
					if ratio != 1 {
						t.Errorf("first retrain: warm %v, cold %v kernel evaluations, want equal (both cold)", w, cold)
					}
					continue
				}
				warmAll += w
				coldAll += cold
				t.Logf("batch %d (%v rows): kernel evaluations warm %v, cold %v, ratio %.3f",
					i, colds[i]["samples"], w, cold, ratio)
				if ratio >= c.maxEach {
					t.Errorf("batch %d: warm/cold kernel evaluations %.3f, want < %v", i, ratio, c.maxEach)
				}
			}
			t.Logf("warm retrains: %v kernel evaluations, cold %v, ratio %.3f", warmAll, coldAll, warmAll/coldAll)
			if warmAll/coldAll >= c.maxAll {
				t.Errorf("warm/cold kernel evaluations over the stream %.3f, want < %v", warmAll/coldAll, c.maxAll)
			}
			// /metrics exports the last comparison.
			var m strings.Builder
			s.d.WriteMetrics(&m)
			last := colds[len(colds)-1]
			for name, want := range map[string]float64{
				"warm_kernel_evals_last": last["warm_kernel_evals"].(float64),
				"cold_kernel_evals_last": last["cold_kernel_evals"].(float64),
				"warm_cold_ratio":        last["warm_cold_ratio"].(float64),
			} {
				if got := metricValue(t, m.String(), name); math.Abs(got-want) > 1e-12*want {
					t.Errorf("metric %s = %v, the log says %v", name, got, want)
				}
			}
			st := s.d.st
			if kernelDual(st) == nil || linearDual(st) != nil || st.Len() != at {
				t.Errorf("store: %d rows, kernel dual %v, linear dual %v", st.Len(), kernelDual(st) != nil, linearDual(st) != nil)
			}
		})
	}
}

// sameRows reports whether a and b hold the same rows in the same order:
// labels and nonzero features, whether dense or sparse.
func sameRows(a, b *data.Dataset) bool {
	nonzeros := func(ds *data.Dataset, i int) ([]int32, []float32) {
		if !ds.IsDense() {
			return ds.SparseRow(i)
		}
		var idx []int32
		var val []float32
		for j, v := range ds.DenseRow(i) {
			if v != 0 {
				idx, val = append(idx, int32(j)), append(val, v)
			}
		}
		return idx, val
	}
	if a.Len() != b.Len() || !slices.Equal(a.Labels(), b.Labels()) {
		return false
	}
	for i := range a.Len() {
		ai, av := nonzeros(a, i)
		bi, bv := nonzeros(b, i)
		if !slices.Equal(ai, bi) || !slices.Equal(av, bv) {
			return false
		}
	}
	return true
}

// cloneKernelDual returns a deep copy of d's pairs and α.
func cloneKernelDual(d *core.KernelDual) *core.KernelDual {
	c := &core.KernelDual{SVMType: d.SVMType, Pairs: slices.Clone(d.Pairs)}
	for _, a := range d.Alpha {
		c.Alpha = append(c.Alpha, slices.Clone(a))
	}
	return c
}

// TestKernelRestart closes the daemon after three batches and opens a new
// one on the same root: α comes back from the snapshot bit for bit, the
// gradient does not (it is not persisted), and the next retrain starts warm
// from α alone — core rebuilds the gradient — and still reaches the cold
// optimum. The retrain after it carries a gradient again.
func TestKernelRestart(t *testing.T) {
	all := lines(t, heartTrain)
	test := readTest(t, heartTest)
	cfg := kernelConfig(t.TempDir(), kernelOptions, 1000, 13)
	cfg.ColdEvery = 1
	batches := [][2]int{{0, 100}, {100, 120}, {120, 140}, {140, 160}, {160, 180}}
	text := func(i int) string { return strings.Join(all[batches[i][0]:batches[i][1]], "") }

	first := newSync(t, cfg)
	for i := range 3 {
		first.ingest(t, fmt.Sprintf("b%d.txt", i), text(i))
	}
	before := cloneKernelDual(kernelDual(first.d.st))
	if lastGradient(first.d) == nil {
		t.Fatal("the first daemon kept no gradient")
	}

	second := newSync(t, cfg)
	if lastGradient(second.d) != nil {
		t.Fatal("a new daemon has a gradient")
	}
	got := kernelDual(second.d.st)
	if got == nil || got.SVMType != before.SVMType || !slices.Equal(got.Pairs, before.Pairs) || len(got.Alpha) != len(before.Alpha) {
		t.Fatalf("restored kernel dual %+v, want %+v", got, before)
	}
	for k := range before.Alpha {
		if !slices.Equal(got.Alpha[k], before.Alpha[k]) {
			t.Fatalf("restored α[%d] differs from the one the first daemon stored", k)
		}
	}
	for i := 3; i < 5; i++ {
		second.ingest(t, fmt.Sprintf("b%d.txt", i), text(i))
		want := coldKernel(t, kernelOptions, readText(t, strings.Join(all[:batches[i][1]], "")))
		sameOptimum(t, fmt.Sprintf("batch %d", i), publishedKernel(t, cfg.Root, uint64(i+1)), want, test)
	}
	r := second.records(t, "retrained")
	if len(r) != 2 || r[0]["warm"] != true || r[0]["gradient"] != false || r[1]["gradient"] != true {
		t.Fatalf("retrains after the restart %v: want warm without a gradient, then with one", r)
	}
	c := second.records(t, "cold solve for comparison")
	for i, rec := range c {
		w, cold, ratio := ratioOf(rec)
		t.Logf("after the restart, retrain %d (gradient %v): kernel evaluations warm %v, cold %v, ratio %.3f",
			i, r[i]["gradient"], w, cold, ratio)
	}
}

// TestKernelEviction fills the store so that a batch evicts rows: the
// default policy takes the rows whose α is 0 in every stored vector (every
// one-vs-one pair for digits), oldest first; their α leaves the dual, the
// gradient follows the removal (core.KernelDual.DeleteRows), and the
// retrain, warm from the remaining α and that gradient, reaches the
// optimum of a cold solve of the rows kept. Every retrain after the first
// carries a gradient, evicting or not.
func TestKernelEviction(t *testing.T) {
	cases := []struct {
		name, train, test string
		maxFeatures       int
		capacity          int
		batches           []int
	}{
		{"heart", heartTrain, heartTest, 13, 120, []int{100, 20, 20, 20}},
		{"digits", digitsTrain, digitsTest, 64, 1250, []int{1200, 50, 50, 50}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			all := lines(t, c.train)
			test := readTest(t, c.test)
			cfg := kernelConfig(t.TempDir(), kernelOptions, c.capacity, c.maxFeatures)
			s := newSync(t, cfg)
			// held[i] is the line of all that the store's row i came from.
			var held []int
			at := 0
			for i, n := range c.batches {
				evicting := len(held)+n > c.capacity
				var want []int // the rows the policy keeps, by line
				if evicting {
					need := len(held) + n - c.capacity
					gone := map[int]bool{}
					kd := kernelDual(s.d.st)
					for pass := 0; pass < 2 && len(gone) < need; pass++ {
						for r := range held {
							if len(gone) == need {
								break
							}
							sv := slices.ContainsFunc(kd.Alpha, func(a []float64) bool { return a[r] != 0 })
							if !gone[r] && (pass == 1 || !sv) {
								gone[r] = true
							}
						}
					}
					oldest := true
					for r := range held {
						if gone[r] {
							if r >= need {
								oldest = false
							}
							continue
						}
						want = append(want, held[r])
					}
					if oldest {
						t.Fatalf("batch %d: the policy evicts the %d oldest rows; the test needs support vectors among them", i, need)
					}
				} else {
					want = held
				}
				for j := at; j < at+n; j++ {
					want = append(want, j)
				}
				s.ingest(t, fmt.Sprintf("b%d.txt", i), strings.Join(all[at:at+n], ""))
				at += n
				held = want
				if evicting && lastGradient(s.d) == nil {
					t.Error("no gradient after the retrain")
				}

				var text strings.Builder
				for _, j := range held {
					text.WriteString(all[j])
				}
				ref := readText(t, text.String())
				if !sameRows(s.d.st.Dataset(), ref) {
					t.Fatalf("batch %d: the store holds other rows than the policy keeps", i)
				}
				if i >= 2 { // the evicting batch and the one after it
					sameOptimum(t, fmt.Sprintf("batch %d", i), publishedKernel(t, cfg.Root, uint64(i+1)), coldKernel(t, kernelOptions, ref), test)
				}
			}
			added := s.records(t, "batch added")
			r := s.records(t, "retrained")
			for i := range c.batches {
				if want := i > 0; r[i]["gradient"] != want {
					t.Errorf("batch %d (evicted %v): gradient %v, want %v", i, added[i]["evicted"], r[i]["gradient"], want)
				}
			}
			if added[2]["evicted"] != float64(c.batches[2]) {
				t.Errorf("batch 2 evicted %v rows, want %d", added[2]["evicted"], c.batches[2])
			}
		})
	}
}

// TestSwitchKind runs the same root with LIBLINEAR options, then svm-train
// options after a restart, then LIBLINEAR options again by Reload. Each
// switch finds the stored dual of the other kind, says so, and trains cold
// once: the model is a cold solve's of the stored rows. The store records
// the new kind's dual, on disk too; the run after a switch is warm again.
func TestSwitchKind(t *testing.T) {
	all := lines(t, heartTrain)
	test := readTest(t, heartTest)
	linearCfg := kernelConfig(t.TempDir(), "-s 1 -c 1 -e 0.001", 1000, 13)
	kernelCfg := linearCfg
	kernelCfg.TrainOptions = kernelOptions
	text := func(to int) string { return strings.Join(all[:to], "") }

	lin := newSync(t, linearCfg)
	lin.ingest(t, "b0.txt", text(100))
	lin.ingest(t, "b1.txt", strings.Join(all[100:120], ""))
	if linearDual(lin.d.st) == nil || kernelDual(lin.d.st) != nil {
		t.Fatal("the linear daemon did not store a linear dual")
	}

	ker := newSync(t, kernelCfg)
	ker.ingest(t, "b2.txt", strings.Join(all[120:140], ""))
	other := ker.records(t, "stored dual is of the other kind: training cold")
	if len(other) != 1 || other[0]["stored"] != "linear" || other[0]["training"] != "kernel" {
		t.Fatalf("switch to kernel options logged %v", other)
	}
	if r := ker.records(t, "retrained"); r[0]["warm"] != false || r[0]["kind"] != "kernel" {
		t.Errorf("first kernel retrain %v: want cold", r[0])
	}
	sameOptimum(t, "kernel after linear", publishedKernel(t, kernelCfg.Root, 3), coldKernel(t, kernelOptions, readText(t, text(140))), test)
	if st := openStore(t, kernelCfg); kernelDual(st) == nil || linearDual(st) != nil {
		t.Fatal("the snapshot does not hold the kernel dual alone")
	}
	ker.ingest(t, "b3.txt", strings.Join(all[140:160], ""))
	if r := ker.records(t, "retrained"); r[1]["warm"] != true || r[1]["gradient"] != true {
		t.Errorf("second kernel retrain %v: want warm with a gradient", r[1])
	}

	if err := ker.d.Reload(linearCfg); err != nil {
		t.Fatal(err)
	}
	ker.d.applyReload()
	if lastGradient(ker.d) != nil || ker.d.spec.opts.IsKernel() {
		t.Fatal("the reload to LIBLINEAR options kept the kernel trainer or gradient")
	}
	if sw := ker.records(t, "training options switched kind"); len(sw) != 1 || sw[0]["from"] != "kernel" || sw[0]["to"] != "linear" {
		t.Errorf("reload logged %v", sw)
	}
	ker.ingest(t, "b4.txt", strings.Join(all[160:180], ""))
	other = ker.records(t, "stored dual is of the other kind: training cold")
	if len(other) != 2 || other[1]["stored"] != "kernel" || other[1]["training"] != "linear" {
		t.Fatalf("switch back to linear options logged %v", other)
	}
	l, err := loadLoaded(filepath.Join(kernelCfg.Root, ModelsDir, modeldir.FileName(5)))
	if err != nil || linOf(l) == nil {
		t.Fatalf("version 5: %+v, %v; want a linear model", l, err)
	}
	want, _, _ := trainText(t, linearCfg, text(180))
	assertSameDecisions(t, linOf(l), want, ker.d.st.Dataset())
	if linearDual(ker.d.st) == nil || kernelDual(ker.d.st) != nil {
		t.Error("the store does not hold the linear dual alone")
	}
	ker.ingest(t, "b5.txt", strings.Join(all[180:200], ""))
	if r := ker.records(t, "retrained"); r[3]["warm"] != true || r[3]["kind"] != "linear" {
		t.Errorf("linear retrain after the switch %v: want warm", r[3])
	}
}

// TestStaleGradientIgnored gives the daemon's warm start a gradient that
// does not belong to the stored α: one computed with another C (a reload
// of -c keeps the in-memory gradient, whose bounds then differ), and one
// from another daemon's rows, injected. core must rebuild the gradient from
// α rather than use it: the model is still the cold solve's. Were a stale
// gradient used, SMO would stop at a point that is optimal for the wrong
// gradient, far from this optimum.
func TestStaleGradientIgnored(t *testing.T) {
	all := lines(t, heartTrain)
	test := readTest(t, heartTest)
	text := func(from, to int) string { return strings.Join(all[from:to], "") }

	t.Run("reload-C", func(t *testing.T) {
		cfg := kernelConfig(t.TempDir(), kernelOptions, 1000, 13)
		s := newSync(t, cfg)
		s.ingest(t, "b0.txt", text(0, 100))
		s.ingest(t, "b1.txt", text(100, 120))
		c8 := cfg
		c8.TrainOptions = "-t 2 -c 8"
		if err := s.d.Reload(c8); err != nil {
			t.Fatal(err)
		}
		s.d.applyReload()
		if lastGradient(s.d) == nil {
			t.Fatal("the reload dropped the gradient; the test needs it passed on")
		}
		s.ingest(t, "b2.txt", text(120, 140))
		if r := s.records(t, "retrained"); r[2]["gradient"] != true {
			t.Fatalf("retrain after the reload %v: the gradient was not passed", r[2])
		}
		sameOptimum(t, "after -c 8", publishedKernel(t, cfg.Root, 3), coldKernel(t, "-t 2 -c 8", readText(t, text(0, 140))), test)
	})

	t.Run("foreign", func(t *testing.T) {
		a := newSync(t, kernelConfig(t.TempDir(), kernelOptions, 1000, 13))
		a.ingest(t, "a.txt", text(0, 100))
		cfg := kernelConfig(t.TempDir(), kernelOptions, 1000, 13)
		b := newSync(t, cfg)
		b.ingest(t, "b0.txt", text(100, 200))
		if lastGradient(a.d).Rows != lastGradient(b.d).Rows {
			t.Fatal("the two gradients cover different row counts; the test wants them alike")
		}
		b.d.last.Kernel.Gradient = a.d.last.Kernel.Gradient // same row count, other rows and α
		b.ingest(t, "b1.txt", text(0, 20))
		if r := b.records(t, "retrained"); r[1]["gradient"] != true {
			t.Fatalf("retrain %v: the injected gradient was not passed", r[1])
		}
		sameOptimum(t, "foreign gradient", publishedKernel(t, cfg.Root, 2), coldKernel(t, kernelOptions, readText(t, text(100, 200)+text(0, 20))), test)
	})
}

// TestKernelGate: the gate holds back the last 20% of a batch for kernel
// models as for linear ones. C-SVC: a clean batch passes, one whose held
// rows have flipped labels is refused (scored on rows it was not trained
// on, the model gets them wrong), and its flipped rows are trained on at the
// next batch (α > 0: misclassified rows are support vectors). One-class:
// the score is the fraction of held rows predicted +1, so a batch whose last
// rows lie far from everything stored is refused.
func TestKernelGate(t *testing.T) {
	all := lines(t, heartTrain)
	t.Run("c-svc", func(t *testing.T) {
		cfg := kernelConfig(t.TempDir(), kernelOptions, 1000, 13)
		cfg.GateMinAccuracy = 0.6
		s := newSync(t, cfg)
		s.ingest(t, "a.txt", strings.Join(all[:100], ""))
		s.ingest(t, "b.txt", flipLast(strings.Join(all[100:150], ""), 40))
		s.ingest(t, "c.txt", strings.Join(all[150:200], ""))
		if vs := modelVersions(t, cfg.Root); !slices.Equal(vs, []uint64{1, 2}) {
			t.Fatalf("published versions %v, want [1 2]: a and c", vs)
		}
		refused := s.records(t, "gate refused the model: not published")
		if len(refused) != 1 || refused[0]["batch"] != "b.txt" || refused[0]["rows"] != 10.0 {
			t.Fatalf("gate refusals %v, want b.txt's 10 held rows", refused)
		}
		if score := refused[0]["score"].(float64); score > 0.3 {
			t.Errorf("b.txt's flipped rows scored %v, want ≤ 0.3", score)
		}
		kd := kernelDual(s.d.st)
		for i := 140; i < 150; i++ {
			if kd.Alpha[0][i] <= 0 {
				t.Errorf("after c: b's formerly held row %d has α %v, want > 0", i, kd.Alpha[0][i])
			}
		}
		for i := 190; i < 200; i++ {
			if kd.Alpha[0][i] != 0 {
				t.Errorf("after c: c's held row %d has α %v, want 0", i, kd.Alpha[0][i])
			}
		}
	})
	t.Run("one-class", func(t *testing.T) {
		cfg := kernelConfig(t.TempDir(), "-s 2 -t 2 -n 0.5", 1000, 13)
		cfg.GateMinAccuracy = 0.2
		s := newSync(t, cfg)
		s.ingest(t, "a.txt", strings.Join(all[:100], ""))
		far := strings.Join(all[100:140], "")
		for range 10 {
			far += "1 1:9 2:9 3:9 4:9 5:9 6:9 7:9 8:9 9:9 10:9 11:9 12:9 13:9\n"
		}
		s.ingest(t, "b.txt", far)
		s.ingest(t, "c.txt", strings.Join(all[140:200], ""))
		passed := s.records(t, "gate passed")
		refused := s.records(t, "gate refused the model: not published")
		if len(passed) != 2 || len(refused) != 1 || refused[0]["batch"] != "b.txt" || refused[0]["score"] != 0.0 {
			t.Fatalf("gate passed %v, refused %v; want a and c passed, b refused with no inlier", passed, refused)
		}
		t.Logf("inlier fractions of the held rows: a %v, c %v", passed[0]["score"], passed[1]["score"])
		if vs := modelVersions(t, cfg.Root); !slices.Equal(vs, []uint64{1, 2}) {
			t.Errorf("published versions %v, want [1 2]", vs)
		}
	})
}

// TestHotSwapKinds runs the daemon (Run, fsnotify) with a modeldir watcher
// following models/ with default options: the linear version of the first
// batch, then, after a reload to svm-train options, the kernel version of
// the second, are each served in the field of their kind, the kernel one
// predicting as the published file.
func TestHotSwapKinds(t *testing.T) {
	all := lines(t, heartTrain)
	cfg := kernelConfig(t.TempDir(), "-s 1", 1000, 13)
	r := start(t, cfg)
	w, err := modeldir.Watch(filepath.Join(cfg.Root, ModelsDir), modeldir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	served := func(v uint64) *modeldir.Loaded {
		t.Helper()
		waitFor(t, fmt.Sprintf("the watcher to serve version %d", v), func() bool {
			l := w.Current()
			return l != nil && l.Version == v
		})
		return w.Current()
	}
	drop(t, cfg.Root, "b1.txt", strings.Join(all[:100], ""))
	if l := served(1); linOf(l) == nil || kerOf(l) != nil {
		t.Fatalf("version 1: Model %v, Kernel %v; want a linear model", linOf(l) != nil, kerOf(l) != nil)
	}
	kcfg := cfg
	kcfg.TrainOptions = kernelOptions
	if err := r.d.Reload(kcfg); err != nil {
		t.Fatal(err)
	}
	drop(t, cfg.Root, "b2.txt", strings.Join(all[100:140], ""))
	l := served(2)
	if linOf(l) != nil || kerOf(l) == nil {
		t.Fatalf("version 2: Model %v, Kernel %v; want a kernel model", linOf(l) != nil, kerOf(l) != nil)
	}
	r.stop(t)
	file := publishedKernel(t, cfg.Root, 2)
	test := readTest(t, heartTest)
	d1, d2 := make([]float64, 1), make([]float64, 1)
	for i := range test.Len() {
		idx, val := test.SparseRow(i)
		if a, b := kerOf(l).DecisionSparse(d1, idx, val)[0], file.DecisionSparse(d2, idx, val)[0]; a != b {
			t.Fatalf("test row %d: served model's decision %v, the file's %v", i, a, b)
		}
	}
	sameOptimum(t, "version 2", kerOf(l), coldKernel(t, kernelOptions, readText(t, strings.Join(all[:140], ""))), test)
}

func TestParseTrainOptions(t *testing.T) {
	for _, c := range []struct {
		options string
		check   func(s trainSpec) bool
	}{
		{"", func(s trainSpec) bool {
			return !s.opts.IsKernel() && s.opts.Linear.Params.Solver == linear.DefaultLinearParams().Solver
		}},
		{"-s 3 -c 2", func(s trainSpec) bool {
			return !s.opts.IsKernel() && s.opts.Linear.Params.Solver == linear.L1LossSVCDual && s.opts.Linear.Params.C == 2
		}},
		// -n alone is LIBLINEAR's thread count, -s 12 its ε-SVR.
		{"-s 12 -n 2", func(s trainSpec) bool {
			return !s.opts.IsKernel() && s.opts.Linear.Params.Threads == 2 && s.realLabels()
		}},
		{kernelOptions, func(s trainSpec) bool {
			return s.opts.IsKernel() && s.opts.Kernel.Params.SVMType == core.CSVC && s.opts.Kernel.Params.Kernel.Type == core.RBFKernel && s.opts.Kernel.Params.C == 4 && !s.realLabels()
		}},
		{"-s 2 -t 2 -n 0.25", func(s trainSpec) bool {
			return s.opts.IsKernel() && s.opts.Kernel.Params.SVMType == core.OneClass && s.opts.Kernel.Params.Nu == 0.25 && s.realLabels()
		}},
		{"-s 3 -g 0.5", func(s trainSpec) bool {
			return s.opts.IsKernel() && s.opts.Kernel.Params.SVMType == core.EpsSVR && s.opts.Kernel.Params.Kernel.Gamma == 0.5 && s.realLabels()
		}},
		{"-m 8 -b 1", func(s trainSpec) bool {
			return s.opts.IsKernel() && s.opts.Kernel.Params.CacheMB == 8 && s.opts.Kernel.Params.Probability
		}},
		{"-h 0 -q", func(s trainSpec) bool { return s.opts.IsKernel() && !s.opts.Kernel.Params.Shrinking }},
		// The syntax named: -s 3 is then svm-train's ε-SVR (RBF by
		// default), or LIBLINEAR's L1-loss SVC.
		{"-syntax kernel -s 3", func(s trainSpec) bool {
			return s.opts.IsKernel() && s.opts.Kernel.Params.SVMType == core.EpsSVR && s.opts.Kernel.Params.Kernel.Type == core.RBFKernel && s.realLabels()
		}},
		{"-syntax linear -s 3", func(s trainSpec) bool {
			return !s.opts.IsKernel() && s.opts.Linear.Params.Solver == linear.L1LossSVCDual
		}},
		// -s 1 retrains through its primal twin, whichever way it is named.
		{"-syntax linear -s 1", func(s trainSpec) bool {
			return !s.opts.IsKernel() && s.opts.Linear.Params.Solver == linear.L2LossSVCDual && s.opts.Linear.Params.PrimalTwin
		}},
	} {
		s, err := parseTrainOptions(c.options, 64)
		if err != nil || !c.check(s) {
			t.Errorf("%q: %+v, %v", c.options, s, err)
		}
	}
	for _, c := range []struct{ options, want string }{
		{"-s 1 -v 5", "-v"},
		{"-t 2 -v 5", "-v"},
		{"-t 2 data.txt", `unexpected argument "data.txt"`},
		{"-t 9", "-t"},
		{"-t 2 -s 5", "-s"},
		{"-t 2 -s 1 -n 0", "nu"},
		{"-g -1", "gamma"},
		{"-s 9", "-s"},
		{"-syntax linear -t 2", "-t"},
		{"-syntax kernel -B 1", "-B"},
		{"-syntax libsvm", "libsvm"},
		{"-c 1 -syntax kernel", "first"},
	} {
		_, err := parseTrainOptions(c.options, 64)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error naming %q", c.options, err, c.want)
		}
		cfg := testConfig(t.TempDir())
		cfg.TrainOptions = c.options
		if err := cfg.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%q: Validate = %v, want ErrConfig", c.options, err)
		}
	}
}

// lastGradient is the kernel gradient the daemon passes to its next
// retrain; nil when it has none.
func lastGradient(d *Daemon) *core.KernelGradient {
	if d.last == nil || d.last.Kernel == nil {
		return nil
	}
	return d.last.Kernel.Gradient
}

// TestKernelKeptBudget streams digits through a daemon whose store stays
// full (evicting) with a budget for the kernel columns kept between
// retrains (-M) far below what the support vectors' columns would take:
// after every retrain /metrics must report the budget, and kept bytes
// that respect it yet leave no room for one more column (the budget is
// filled, not merely respected by keeping nothing). The retrains read the
// kept columns, so the published model must still be the cold optimum.
func TestKernelKeptBudget(t *testing.T) {
	const opts = "-t 2 -M 0.05"            // 52,428 bytes: about 21 columns of 600 rows
	budget := math.Floor(0.05 * (1 << 20)) // -M in bytes, as the trainer rounds it
	all := lines(t, digitsTrain)
	test := readTest(t, digitsTest)
	cfg := kernelConfig(t.TempDir(), opts, 600, 64)
	s := newSync(t, cfg)
	batches := []int{560, 40, 40, 40, 40}
	at := 0
	for i, n := range batches {
		s.ingest(t, fmt.Sprintf("b%02d.txt", i), strings.Join(all[at:at+n], ""))
		at += n
		var m strings.Builder
		s.d.WriteMetrics(&m)
		kept := metricValue(t, m.String(), "kernel_columns_kept_bytes")
		if got := metricValue(t, m.String(), "kernel_columns_kept_budget_bytes"); got != budget {
			t.Fatalf("batch %d: budget metric %v, want %v", i, got, budget)
		}
		rows := float64(s.d.st.Len())
		column := 4 * rows
		t.Logf("batch %d: %v rows stored, %v bytes of kernel columns kept (%.0f columns) of %v", i, rows, kept, kept/column, budget)
		switch {
		case kept > budget:
			t.Errorf("batch %d: %v bytes kept, over the %v-byte budget", i, kept, budget)
		case i > 0 && kept+column <= budget:
			// Columns are kept after warm retrains; digits has hundreds
			// of support vectors, so the budget must be full.
			t.Errorf("batch %d: %v bytes kept, room left for another %v-byte column", i, kept, column)
		}
	}
	if s.d.st.Len() != 600 {
		t.Fatalf("store holds %d rows, want 600 (full, evicting)", s.d.st.Len())
	}
	got := publishedKernel(t, cfg.Root, uint64(len(batches)))
	want := coldKernel(t, opts, s.d.st.Dataset())
	sameOptimum(t, "after the last batch", got, want, test)
}

// TestKernelKeptDefault: without -M the daemon keeps kernel columns
// within the -m budget (options.KernelOptions.Incremental): /metrics
// reports that budget, and after a warm retrain some columns within it.
// Rows of any width keep them: 9 features, sparse rows of 9 nonzeros, 20
// or 33 nonzeros of 64 features (digits, which the kernels read through
// core's dense copy); -M 0 keeps none.
func TestKernelKeptDefault(t *testing.T) {
	const opts = "-t 2 -m 2"
	budget := float64(2 << 20)
	for _, c := range []struct {
		opts string
		st   store.Config
		keep bool
	}{
		{opts, store.Config{Capacity: 100, MaxFeatures: 9}, true},
		{opts, store.Config{Capacity: 100, MaxFeatures: 1000, CapacityNonzeros: 900}, true},
		{opts, store.Config{Capacity: 100, MaxFeatures: 64, CapacityNonzeros: 2000}, true},
		{opts, store.Config{Capacity: 100, MaxFeatures: 64, CapacityNonzeros: 3300}, true},
		{opts + " -M 0", store.Config{Capacity: 100, MaxFeatures: 9}, false},
	} {
		st := c.st
		cfg := kernelConfig(t.TempDir(), c.opts, st.Capacity, st.MaxFeatures)
		cfg.Store.CapacityNonzeros = st.CapacityNonzeros
		spec, err := cfg.validate()
		if keep := spec.opts.Kernel.Params.KeepMB; err != nil || (keep == 2) != c.keep || (keep != 0 && keep != 2) {
			t.Errorf("store %+v: kept columns %v MiB (%v), want %v", st, keep, err, map[bool]string{true: "-m's 2", false: "none"}[c.keep])
		}
	}
	all := lines(t, digitsTrain)
	cfg := kernelConfig(t.TempDir(), opts, 600, 64)
	s := newSync(t, cfg)
	at := 0
	for i, n := range []int{560, 40} {
		s.ingest(t, fmt.Sprintf("b%02d.txt", i), strings.Join(all[at:at+n], ""))
		at += n
	}
	var m strings.Builder
	s.d.WriteMetrics(&m)
	if got := metricValue(t, m.String(), "kernel_columns_kept_budget_bytes"); got != budget {
		t.Fatalf("budget metric %v, want -m's %v", got, budget)
	}
	if kept := metricValue(t, m.String(), "kernel_columns_kept_bytes"); !(kept > 0 && kept <= budget) {
		t.Errorf("%v bytes of kernel columns kept after a warm retrain, want some within %v", kept, budget)
	}
}

// TestKernelWindowWarm keeps a store of 600 digits rows full with a
// sliding window: each 12-row batch (2%) retires the 12 oldest. The
// gradient follows the removals (followRemovals), so every retrain after
// the first is warm with a gradient and, against the daemon's own cold
// solve of the same rows, reaches its optimum at a fraction of its kernel
// work. Measured (-t 2 -c 4): 0.39–0.50 of the cold solve's kernel
// evaluations; 0.96–0.97 when the daemon dropped the gradient at each
// removal, as it did before.
func TestKernelWindowWarm(t *testing.T) {
	all := lines(t, digitsTrain)
	test := readTest(t, digitsTest)
	cfg := kernelConfig(t.TempDir(), kernelOptions, 612, 64)
	cfg.Store.Window = 600
	cfg.ColdEvery = 1
	s := newSync(t, cfg)
	batches := []int{600, 12, 12, 12, 12}
	at := 0
	for i, n := range batches {
		s.ingest(t, fmt.Sprintf("b%02d.txt", i), strings.Join(all[at:at+n], ""))
		at += n
	}
	if s.d.st.Len() != 600 {
		t.Fatalf("store holds %d rows, want the window's 600", s.d.st.Len())
	}
	added, retrained, colds := s.records(t, "batch added"), s.records(t, "retrained"), s.records(t, "cold solve for comparison")
	for i := 1; i < len(batches); i++ {
		if added[i]["evicted"] != float64(batches[i]) || retrained[i]["gradient"] != true {
			t.Errorf("batch %d: evicted %v, gradient %v; want %d evicted and a gradient", i, added[i]["evicted"], retrained[i]["gradient"], batches[i])
		}
		w, cold, ratio := ratioOf(colds[i])
		t.Logf("batch %d: kernel evaluations warm %v, cold %v, ratio %.3f", i, w, cold, ratio)
		if ratio >= 0.7 {
			t.Errorf("batch %d: warm/cold kernel evaluations %.3f, want < 0.7", i, ratio)
		}
		wo, co := colds[i]["warm_objective"].(float64), colds[i]["cold_objective"].(float64)
		if math.Abs(wo-co) > objectiveTolOf(core.CSVC)*math.Abs(co) {
			t.Errorf("batch %d: warm objective %.10g, the cold solve's %.10g", i, wo, co)
		}
	}
	want := coldKernel(t, kernelOptions, s.d.st.Dataset())
	sameOptimum(t, "after the last batch", publishedKernel(t, cfg.Root, uint64(len(batches))), want, test)
}
