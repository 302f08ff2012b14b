package core

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestTrainerMatchesKindTrainers: a Trainer's runs, cold and warm after rows
// were added and removed, give bit for bit the models and duals of the
// linear and kernel trainers driven directly, as the C ABI drove them
// before it held a Trainer.
func TestTrainerMatchesKindTrainers(t *testing.T) {
	full := readTestdata(t, "heart_scale") // 270 rows
	for _, options := range []string{"-s 1 -c 2", "-s 1 -twin 1 -c 2", "-s 2 -B 1", "-s 12 -twin 1", "-s 3 -t 2 -c 4", "-syntax kernel -s 2 -n 0.3"} {
		t.Run(options, func(t *testing.T) {
			o, _, err := parseTrainParams(strings.Fields(options), 0)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := NewTrainer(o, full.Len(), full.NumFeatures())
			if err != nil {
				t.Fatal(err)
			}
			if tr.Family() != o.Family {
				t.Fatalf("trainer family %v, options %v", tr.Family(), o.Family)
			}
			// The reference: the kind's own trainer, warm as the C ABI
			// warmed it (α extended with zeros; w; the kernel gradient;
			// the linear gradient, which NewTrainer's trainer keeps).
			var (
				lt *linear.LinearTrainer
				kt *KernelTrainer
			)
			if o.IsKernel() {
				kt, err = NewKernelTrainer(o.Kernel, full.Len(), full.NumFeatures())
			} else {
				lt, err = linear.NewLinearTrainer(o.Linear, full.Len(), full.NumFeatures())
				if err == nil {
					lt.KeepGradient()
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			var (
				lDual  *linear.LinearDual
				lStart *linear.LinearPrimal
				kDual  *KernelDual
				dual   *Dual
			)
			step := func(ds *data.Dataset) {
				t.Helper()
				var warm *Dual
				if dual != nil {
					warm = dual.Extended(ds.Len())
				}
				m, out, err := tr.Train(ds, warm)
				if err != nil {
					t.Fatal(err)
				}
				dual = out
				if out.Rows() != ds.Len() {
					t.Fatalf("dual covers %d rows, want %d", out.Rows(), ds.Len())
				}
				var want Model
				if kt != nil {
					var w *KernelDual
					if kDual != nil {
						w = &KernelDual{SVMType: kDual.SVMType, Pairs: kDual.Pairs, Gradient: kDual.Gradient}
						for _, a := range kDual.Alpha {
							w.Alpha = append(w.Alpha, append(slices.Clone(a), make([]float64, ds.Len()-len(a))...))
						}
					}
					var km *KernelModel
					km, kDual, err = kt.Train(ds, w)
					want = km
					if err == nil && !equalVectors(out.Kernel.Alpha, kDual.Alpha) {
						t.Errorf("%d rows: α differs from the kernel trainer's", ds.Len())
					}
				} else {
					var w *linear.LinearDual
					if lDual != nil {
						w = &linear.LinearDual{Labels: lDual.Labels, Gradient: lDual.Gradient}
						for _, a := range lDual.Alpha {
							w.Alpha = append(w.Alpha, append(slices.Clone(a), make([]float64, ds.Len()-len(a))...))
						}
					}
					var lm *linear.LinearModel
					lm, lDual, err = lt.TrainFrom(ds, w, lStart)
					want, lStart = lm, linear.PrimalOf(lm)
					if err == nil && !equalVectors(out.Linear.Alpha, lDual.Alpha) {
						t.Errorf("%d rows: α differs from the linear trainer's", ds.Len())
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				// The same work too: a start or gradient not passed on
				// can reach the same model by more iterations.
				switch m := m.(type) {
				case *linear.LinearModel:
					if !reflect.DeepEqual(m.Result, want.(*linear.LinearModel).Result) {
						t.Errorf("%d rows: result %+v, the linear trainer's %+v", ds.Len(), m.Result, want.(*linear.LinearModel).Result)
					}
				case *KernelModel:
					if !reflect.DeepEqual(m.Result, want.(*KernelModel).Result) {
						t.Errorf("%d rows: result %+v, the kernel trainer's %+v", ds.Len(), m.Result, want.(*KernelModel).Result)
					}
				}
				for i := range full.Len() {
					a := m.DecisionDense(make([]float64, m.Info().NumDecisionValues), full.DenseRow(i))
					b := want.DecisionDense(make([]float64, want.Info().NumDecisionValues), full.DenseRow(i))
					if !slices.Equal(a, b) {
						t.Fatalf("%d rows: row %d decision %v, the kind's trainer %v", ds.Len(), i, a, b)
					}
				}
			}
			step(full.Prefix(200))
			step(full.Prefix(240)) // rows added: warm from the dual extended
			// Rows removed from both the data and the duals.
			ds := data.NewDense(240, full.NumFeatures()) // heart_scale reads dense
			for i := range 240 {
				if err := ds.AppendDense(full.Labels()[i], full.DenseRow(i)); err != nil {
					t.Fatal(err)
				}
			}
			del := []int{3, 50, 199}
			if err := ds.DeleteRows(del); err != nil {
				t.Fatal(err)
			}
			if err := dual.DeleteRows(del); err != nil {
				t.Fatal(err)
			}
			if kDual != nil {
				err = kDual.DeleteRows(del)
			} else {
				err = lDual.DeleteRows(del)
			}
			if err != nil {
				t.Fatal(err)
			}
			step(ds)
		})
	}
}

func equalVectors(a, b [][]float64) bool {
	return slices.EqualFunc(a, b, func(x, y []float64) bool { return slices.Equal(x, y) })
}

// TestDualExtended: Extended pads each α vector with zeros without
// touching the dual it came from, keeps the primal start and the kernel
// gradient, and panics for fewer rows.
func TestDualExtended(t *testing.T) {
	var nilDual *Dual
	if nilDual.Rows() != 0 {
		t.Errorf("nil dual covers %d rows", nilDual.Rows())
	}
	start := &linear.LinearPrimal{W: [][]float64{{1, 2}}}
	d := &Dual{Linear: &linear.LinearDual{Labels: []int32{1, -1}, Alpha: [][]float64{{0.5, 0, 1}}}, Primal: start}
	e := d.Extended(5)
	if !slices.Equal(e.Linear.Alpha[0], []float64{0.5, 0, 1, 0, 0}) || e.Primal != start || e.Rows() != 5 {
		t.Errorf("extended %+v, want α [0.5 0 1 0 0] and the same start", e.Linear)
	}
	e.Linear.Alpha[0][0] = 9
	if d.Linear.Alpha[0][0] != 0.5 || d.Rows() != 3 {
		t.Errorf("Extended changed the dual it came from: %v", d.Linear.Alpha)
	}
	g := &KernelGradient{}
	k := &Dual{Kernel: &KernelDual{SVMType: EpsSVR, Alpha: [][]float64{{1, 2}}, Gradient: g}}
	if ke := k.Extended(3); ke.Kernel.Gradient != g || !slices.Equal(ke.Kernel.Alpha[0], []float64{1, 2, 0}) || ke.Kernel.SVMType != EpsSVR {
		t.Errorf("extended kernel dual %+v", ke.Kernel)
	}
	defer func() {
		if recover() == nil {
			t.Error("Extended(2) of a 3-row dual did not panic")
		}
	}()
	d.Extended(2)
}

// TestDualExtendInPlace: with room in every α vector (rows removed by a
// cut in place), ExtendInPlace pads d's own vectors with zeros, clearing
// what a cut left past the old length, and returns d; without room it
// returns Extended's copy and leaves d alone.
func TestDualExtendInPlace(t *testing.T) {
	mem := []float64{0.5, 0, 1, 7, 8}
	d := &Dual{Linear: &linear.LinearDual{Labels: []int32{1, -1}, Alpha: [][]float64{mem[:3]}}}
	if e := d.ExtendInPlace(5); e != d || !slices.Equal(d.Linear.Alpha[0], []float64{0.5, 0, 1, 0, 0}) || &d.Linear.Alpha[0][0] != &mem[0] {
		t.Errorf("in place: got %p (d %p), α %v, want d itself with [0.5 0 1 0 0] in its own memory", e, d, d.Linear.Alpha[0])
	}
	g := &KernelGradient{}
	k := &Dual{Kernel: &KernelDual{SVMType: CSVC, Pairs: [][2]int32{{1, 2}}, Alpha: [][]float64{{1, 2}}, Gradient: g}}
	ke := k.ExtendInPlace(3)
	if ke == k || ke.Kernel.Gradient != g || !slices.Equal(ke.Kernel.Alpha[0], []float64{1, 2, 0}) || !slices.Equal(k.Kernel.Alpha[0], []float64{1, 2}) {
		t.Errorf("without room: got %+v from %+v, want a copy [1 2 0] and d unchanged", ke.Kernel, k.Kernel)
	}
	defer func() {
		if recover() == nil {
			t.Error("ExtendInPlace(4) of a 5-row dual did not panic")
		}
	}()
	d.ExtendInPlace(4)
}

func TestDualPrefix(t *testing.T) {
	var nilDual *Dual
	if nilDual.Prefix(0) != nil {
		t.Error("the prefix of a nil dual is not nil")
	}
	start := &linear.LinearPrimal{W: [][]float64{{1, 2}}}
	d := &Dual{Linear: &linear.LinearDual{Labels: []int32{1, -1}, Alpha: [][]float64{{0.5, 0, 1}}}, Primal: start}
	p := d.Prefix(2)
	if !slices.Equal(p.Linear.Alpha[0], []float64{0.5, 0}) || p.Primal != start || p.Rows() != 2 || !slices.Equal(p.Linear.Labels, []int32{1, -1}) {
		t.Errorf("prefix %+v, want α [0.5 0], the labels and the same start", p.Linear)
	}
	// A cut, not a copy: capped, so an append cannot write into d's row 2.
	if p.Linear.Alpha[0] = append(p.Linear.Alpha[0], 7); d.Linear.Alpha[0][2] != 1 {
		t.Errorf("appending to the prefix wrote into the dual: %v", d.Linear.Alpha)
	}
	g := &KernelGradient{}
	k := &Dual{Kernel: &KernelDual{SVMType: CSVC, Pairs: [][2]int32{{1, 2}}, Alpha: [][]float64{{1, 2, 3}}, Gradient: g}}
	if kp := k.Prefix(1); kp.Kernel.Gradient != g || !slices.Equal(kp.Kernel.Alpha[0], []float64{1}) || kp.Kernel.SVMType != CSVC || len(kp.Kernel.Pairs) != 1 {
		t.Errorf("kernel prefix %+v", kp.Kernel)
	}
	defer func() {
		if recover() == nil {
			t.Error("Prefix(4) of a 3-row dual did not panic")
		}
	}()
	d.Prefix(4)
}

// TestTrainModelAndSummary: TrainModel trains what the kind's own entry
// point trains, bit for bit; its summary restates the kind's result;
// CrossValidate is the kind's cross-validation; SetCreated stamps the float
// kinds.
func TestTrainModelAndSummary(t *testing.T) {
	ds := readTestdata(t, "heart_scale")
	for _, options := range []string{"-s 1 -c 2 -v 3", "-s 2 -B 1 -v 3", "-t 2 -c 4 -v 3", "-syntax kernel -s 3 -p 0.2 -v 3"} {
		t.Run(options, func(t *testing.T) {
			o, _, err := parseTrainParams(strings.Fields(options), 0)
			if err != nil {
				t.Fatal(err)
			}
			m, err := TrainModel(ds, o)
			if err != nil {
				t.Fatal(err)
			}
			s, ok := SummaryOf(m)
			if !ok {
				t.Fatal("no summary for a trained model")
			}
			var want FitSummary
			var pred []float64
			if o.IsKernel() {
				ref, err := TrainKernelModel(ds, o.Kernel)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(m.(*KernelModel).Coef, ref.Coef) {
					t.Error("TrainModel's kernel model differs from TrainKernelModel's")
				}
				r := ref.Result
				want = FitSummary{Iterations: r.Iterations, Work: r.KernelEvals, WorkUnit: WorkKernelEvals,
					Objective: r.Objective, NumSV: r.NumSV, Converged: r.Converged}
				if pred, err = CrossValidateKernel(ds, o.Kernel, 3); err != nil {
					t.Fatal(err)
				}
				if o.ClassLabels() != (o.Kernel.SVMType == CSVC) || o.IsRegression() != (o.Kernel.SVMType == EpsSVR) {
					t.Errorf("ClassLabels %v, IsRegression %v for %v", o.ClassLabels(), o.IsRegression(), o.Kernel.SVMType)
				}
			} else {
				ref, _, err := linear.TrainLinear(ds, o.Linear)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(m.(*linear.LinearModel).W, ref.W) {
					t.Error("TrainModel's linear model differs from TrainLinear's")
				}
				r := ref.Result
				want = FitSummary{Iterations: r.Iterations, Work: r.Updates, WorkUnit: WorkRowsRead,
					HessianProducts: r.HessianProducts, Objective: r.PrimalObjective, NumSV: r.NumSV, Converged: r.Converged}
				if pred, err = linear.CrossValidateLinear(ds, o.Linear, 3); err != nil {
					t.Fatal(err)
				}
				if !o.ClassLabels() || o.IsRegression() {
					t.Errorf("ClassLabels %v, IsRegression %v for a classifier", o.ClassLabels(), o.IsRegression())
				}
			}
			if s != want || s.Work <= 0 || s.NumSV <= 0 || !s.Converged {
				t.Errorf("summary %+v, want %+v (positive work and nSV, converged)", s, want)
			}
			got, err := CrossValidate(ds, o, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, pred) {
				t.Error("CrossValidate differs from the kind's cross-validation")
			}
			stamped := WithCreated(m, 1234)
			if got := stamped.Info().Created; got != 1234 {
				t.Errorf("WithCreated: created %d, want 1234", got)
			}
			if got := m.Info().Created; got != 0 {
				t.Errorf("WithCreated changed the model: created %d", got)
			}
		})
	}
}
