package linear

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
	"github.com/libsvmgo/libsvmgo/core/model"
)

// Reference figures for -s 7 from Debian's liblinear-tools 2.3.0, recorded
// by testdata/liblinear-ref.sh: liblinear-train -e 0.0001 <options>, the
// primal objective of its model computed from the model file's weights by
// testdata/liblinear-primal.awk, and liblinear-predict's test accuracy.
var liblinearLRDualRefs = []struct {
	name, args, train, test string
	objectives              []float64 // primal P(w), one per subproblem
	accuracy                float64   // percent
}{
	{"heart_scale", "-s 7", "heart_scale", "heart_scale", []float64{98.22679951}, 83.7037},
	{"heart_scale", "-s 7 -B 1 -c 4", "heart_scale", "heart_scale", []float64{366.8862589}, 84.4444},
	{"breast_cancer", "-s 7", "breast_cancer.train", "breast_cancer.test", []float64{68.28930661}, 95.614},
	{"debdesc_bin", "-s 7", "debdesc_bin.train", "debdesc_bin.test", []float64{11604.72988}, 92.4213},
	{"digits", "-s 7", "digits.train", "digits.test", []float64{53.22687255, 40.91886693, 58.90255622, 121.7617986, 130.9512916, 97.47791883, 63.28525144, 178.9018088, 62.15285127, 70.79715615}, 98.3333},
	{"digits", "-s 7 -B 1", "digits.train", "digits.test", []float64{53.15313804, 40.34335685, 57.5156832, 118.5986655, 122.204036, 96.592342, 62.32268874, 169.9298502, 61.85895362, 69.72307224}, 98.0556},
}

func TestLRDualParityWithLIBLINEAR(t *testing.T) {
	for _, ref := range liblinearLRDualRefs {
		t.Run(ref.name+strings.ReplaceAll(ref.args, " ", ""), func(t *testing.T) {
			if testing.Short() && ref.name == "debdesc_bin" {
				t.Skip("large set")
			}
			opts, _, err := ParseLinearOptions(append(strings.Fields(ref.args), "-e", "0.0001"))
			if err != nil {
				t.Fatal(err)
			}
			train, test := readTestdata(t, ref.train), readTestdata(t, ref.test)
			m, dual, err := TrainLinear(train, opts.Params)
			if err != nil {
				t.Fatal(err)
			}
			if !m.Result.Converged {
				t.Fatal("did not converge")
			}
			if got, want := len(m.Result.Subproblems), len(ref.objectives); got != want {
				t.Fatalf("%d subproblems, LIBLINEAR %d", got, want)
			}
			worst := 0.0
			for k, want := range ref.objectives {
				r := m.Result.Subproblems[k]
				// The float32 model's objective, recomputed from its weights
				// alone, against LIBLINEAR's model's.
				c := checkPrimal(train, m, k)
				worst = max(worst, math.Abs(c.f-want)/want)
				if rel := math.Abs(c.f-want) / want; rel > objectiveRelTol {
					t.Errorf("subproblem %d: primal objective %.8g, LIBLINEAR %.8g (relative difference %.2g)", k, c.f, want, rel)
				}
				if rel := math.Abs(r.PrimalObjective-c.f) / want; rel > 1e-6 {
					t.Errorf("subproblem %d: reported primal objective %.10g, recomputed %.10g", k, r.PrimalObjective, c.f)
				}
				// Weak duality and a gap closed to the tolerance: the
				// dual objective reported is the α's (checked below).
				if r.DualityGap < -1e-9*want || r.DualityGap > 1e-4*want {
					t.Errorf("subproblem %d: duality gap %.3g against objective %.8g", k, r.DualityGap, want)
				}
				if got := lrDualObjective(train, m, dual, k); math.Abs(got-r.DualObjective) > 1e-8*want {
					t.Errorf("subproblem %d: reported dual objective %.12g, recomputed from α %.12g", k, r.DualObjective, got)
				}
			}
			pred := m.PredictBatch(make([]float64, test.Len()), test)
			s := model.ScorePredictions(pred, test.Labels(), false)
			t.Logf("largest relative primal difference %.2g; accuracy %.4f%%, LIBLINEAR %.4f%%", worst, 100*s.Accuracy(), ref.accuracy)
			if d := math.Abs(100*s.Accuracy() - ref.accuracy); d > accuracyTol {
				t.Errorf("test accuracy %.4f%%, LIBLINEAR %.4f%%", 100*s.Accuracy(), ref.accuracy)
			}
		})
	}
}

// lrDualObjective recomputes D(α) − Σ C_i log C_i of subproblem k from the
// returned α alone, with w = Σ y_i α_i x_i rebuilt in float64.
func lrDualObjective(ds *data.Dataset, m *LinearModel, dual *LinearDual, k int) float64 {
	a := newKKT(ds, m, dual, k) // y and w = Σ y_i α_i x_i; its bounds are the SVM's
	f := 0.5 * dot64(a.w, a.w)
	for i, v := range dual.Alpha[k] {
		C := 1 / (2 * a.diag[i]) // newKKT's L2-loss diagonal is 1/(2C_i)
		f += v*math.Log(v) + (C-v)*math.Log(C-v) - C*math.Log(C)
	}
	return f
}

// TestLRDualKKT checks the optimality condition of each sub-problem at the
// returned α, with the gradient computed from scratch: every α_i is inside
// (0, C_i), and ∂D/∂α_i = y_i wᵀx_i + log(α_i/(C_i − α_i)) is within eps of
// 0 (the test LIBLINEAR's stopping rule measures before the last pass's
// updates), with class weights and on dense rows.
func TestLRDualKKT(t *testing.T) {
	dense := toDense(readTestdata(t, "heart_scale"))
	for _, c := range []struct {
		name string
		ds   *data.Dataset
		args string
	}{
		{"heart", readTestdata(t, "heart_scale"), "-s 7 -w1 3"},
		{"heart dense", dense, "-s 7 -B 1 -c 2"},
		{"digits", readTestdata(t, "digits.train"), "-s 7 -B 1 -w4 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			const eps = 1e-6
			opts, _, err := ParseLinearOptions(strings.Fields(c.args))
			if err != nil {
				t.Fatal(err)
			}
			p := opts.Params
			p.Eps = eps
			m, dual, err := TrainLinear(c.ds, p)
			if err != nil {
				t.Fatal(err)
			}
			if !m.Result.Converged {
				t.Fatal("did not converge")
			}
			for k, alpha := range dual.Alpha {
				a := newKKT(c.ds, m, dual, k)
				worst := 0.0
				for i, v := range alpha {
					C := 1 / (2 * a.diag[i])
					if !(v > 0 && v < C) {
						t.Fatalf("subproblem %d: α_%d = %g outside (0, %g)", k, i, v, C)
					}
					g := a.y[i]*a.margin(i) + math.Log(v/(C-v))
					worst = max(worst, math.Abs(g))
				}
				// The last pass moved α by steps of gradient < eps; allow
				// its effect on the others.
				if worst > 100*eps {
					t.Errorf("subproblem %d: largest |∂D/∂α_i| %.3g", k, worst)
				}
			}
		})
	}
}

// toDense returns ds's rows in a dense data set of its width.
func toDense(ds *data.Dataset) *data.Dataset {
	out := data.NewDense(ds.Len(), ds.NumFeatures())
	for i := range ds.Len() {
		solve.AppendRow(out, ds, i)
	}
	return out
}

// TestLRDualWarmStart checks that a run warm-started from the α of a run on
// 90% of the rows (new rows at α = 0) reaches the cold run's objective with
// fewer coordinate passes, and that a warm start from the cold optimum
// stops at once.
func TestLRDualWarmStart(t *testing.T) {
	ds := readTestdata(t, "breast_cancer.train")
	opts, _, _ := ParseLinearOptions(strings.Fields("-s 7 -e 0.001 -B 1"))
	p := opts.Params
	cold, coldDual, err := TrainLinear(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	part := data.NewSparse(ds.Len(), ds.Nonzeros(), 0)
	cut := ds.Len() * 9 / 10
	for i := range cut {
		solve.AppendRow(part, ds, i)
	}
	_, partDual, err := TrainLinear(part, p)
	if err != nil {
		t.Fatal(err)
	}
	warm := &LinearDual{Labels: partDual.Labels, Alpha: [][]float64{append(partDual.Alpha[0], make([]float64, ds.Len()-cut)...)}}
	tr, _ := NewLinearTrainer(p, ds.Len(), ds.NumFeatures())
	m, _, err := tr.Train(ds, warm)
	if err != nil {
		t.Fatal(err)
	}
	want := cold.Result.PrimalObjective
	if rel := math.Abs(m.Result.PrimalObjective-want) / want; rel > 1e-4 {
		t.Errorf("warm objective %.8g, cold %.8g", m.Result.PrimalObjective, want)
	}
	if m.Result.Updates >= cold.Result.Updates {
		t.Errorf("warm start read %d rows, cold %d", m.Result.Updates, cold.Result.Updates)
	}
	again, _, err := tr.Train(ds, coldDual)
	if err != nil {
		t.Fatal(err)
	}
	if again.Result.Iterations != 1 {
		t.Errorf("warm start from the optimum took %d passes, want 1", again.Result.Iterations)
	}
	t.Logf("rows read: cold %d, warm from 90%% %d, from the optimum %d",
		cold.Result.Updates, m.Result.Updates, again.Result.Updates)
}

// TestLRDualDeterministic checks that equal seeds give bit-identical
// weights, another seed other ones, and that threads change nothing.
func TestLRDualDeterministic(t *testing.T) {
	ds := readTestdata(t, "digits.train")
	opts, _, _ := ParseLinearOptions(strings.Fields("-s 7 -B 1"))
	p := opts.Params
	weights := func(seed uint64, threads int) []byte {
		q := p
		q.Seed, q.Threads = seed, threads
		m, _, err := TrainLinear(ds, q)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		binary.Write(&b, binary.LittleEndian, m.W)
		return b.Bytes()
	}
	a, b, c := weights(7, 1), weights(7, 2), weights(8, 1)
	if !bytes.Equal(a, b) {
		t.Error("seed 7: one thread and two give different weights")
	}
	if bytes.Equal(a, c) {
		t.Error("seeds 7 and 8 give identical weights: the seed is not used")
	}
}

// TestLRDualAllocs checks that a pass allocates nothing.
func TestLRDualAllocs(t *testing.T) {
	ds := readTestdata(t, "heart_scale")
	opts, _, _ := ParseLinearOptions(strings.Fields("-s 7 -B 1"))
	tr, err := NewLinearTrainer(opts.Params, ds.Len(), ds.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	wk := &tr.workers[0]
	y := wk.y[:ds.Len()]
	for i := range y {
		y[i] = int8(ds.Label(i))
	}
	alpha := make([]float64, ds.Len())
	s := &wk.lr
	s.init(ds, y, alpha, wk.alphaC, wk.QD, 1, 1, 1, 1e-12, 1)
	if n := testing.AllocsPerRun(20, func() { s.pass() }); n != 0 {
		t.Errorf("a pass allocates %v times", n)
	}
}

// TestLRDualTrainerBytes checks the size query: -s 7 needs 17 bytes a row
// more than the other DCD solvers (C_i − α_i, and the cached logarithm
// with its side), per worker.
func TestLRDualTrainerBytes(t *testing.T) {
	p := DefaultLinearParams()
	p.Threads = 2
	l1 := p
	l1.Solver = L1LossSVCDual
	p.Solver = L2LogisticDual
	if got, want := LinearTrainerBytes(p, 1000, 100), LinearTrainerBytes(l1, 1000, 100)+2*1000*(8+8+1); got != want {
		t.Errorf("-s 7: %d bytes, want %d", got, want)
	}
}
