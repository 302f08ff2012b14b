package linear

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/model"
)

// Reference figures of the L1-regularized solvers from Debian's
// liblinear-tools 2.3.0, recorded by testdata/liblinear-ref.sh
// (liblinear-train -e 0.0001 ..., its printed "Objective value" and
// "#nonzeros" per subproblem, then liblinear-predict on the test file).
var liblinearL1Refs = []struct {
	name, args, train, test string
	objectives              []float64
	nonzeros                []int
	accuracy                float64 // percent
	// capped lists the subproblems LIBLINEAR stopped at its 1000-pass cap
	// short of the optimum, where ours must only not be worse (we stop
	// at the same cap, at another point of the same slow descent).
	capped []int
	// converge: LIBLINEAR's model is far from the optimum (breast_cancer
	// -s 5: objective 57.202 at its cap, the optimum 52.797 after 3622
	// passes of ours); we train to convergence and compare accuracy only
	// (94.7368% both; 95.6140% at our own cap, one test row of 114 off).
	converge bool
}{
	{"heart_scale", "-s 5", "heart_scale", "heart_scale", []float64{123.365633}, []int{12}, 84.4444, nil, false},
	{"heart_scale", "-s 5 -B 1 -c 4 -w-1 2", "heart_scale", "heart_scale", []float64{618.109932}, []int{14}, 84.4444, nil, false},
	{"breast_cancer", "-s 5", "breast_cancer.train", "breast_cancer.test", []float64{57.202042}, []int{16}, 94.7368, []int{0}, true},
	{"debdesc_bin", "-s 5", "debdesc_bin.train", "debdesc_bin.test", []float64{10665.604337}, []int{3451}, 93.4972, nil, false},
	{"digits", "-s 5", "digits.train", "digits.test", []float64{27.246784, 16.134548, 31.611404, 81.309611, 108.434971, 66.944829, 27.429011, 164.994510, 35.271104, 38.028753}, []int{34, 20, 28, 36, 40, 34, 31, 43, 30, 30}, 97.7778, nil, false},
	{"digits", "-s 5 -B 1", "digits.train", "digits.test", []float64{27.246771, 16.122303, 30.666909, 73.119769, 84.360282, 65.886946, 27.250156, 147.448769, 35.271105, 37.249663}, []int{34, 21, 28, 35, 40, 35, 31, 42, 30, 26}, 97.7778, []int{3, 4, 5, 7}, false},
	{"heart_scale", "-s 6", "heart_scale", "heart_scale", []float64{102.667832}, []int{12}, 83.7037, nil, false},
	{"heart_scale", "-s 6 -B 1 -c 4 -w-1 2", "heart_scale", "heart_scale", []float64{503.733343}, []int{14}, 84.8148, nil, false},
	{"breast_cancer", "-s 6", "breast_cancer.train", "breast_cancer.test", []float64{70.095727}, []int{9}, 93.8596, nil, false},
	{"debdesc_bin", "-s 6", "debdesc_bin.train", "debdesc_bin.test", []float64{11523.537716}, []int{1102}, 92.7511, nil, false},
	{"digits", "-s 6", "digits.train", "digits.test", []float64{62.102053, 42.242182, 63.913754, 114.867199, 133.405422, 95.589759, 66.593643, 180.986255, 65.260135, 69.922434}, []int{23, 15, 20, 28, 28, 20, 26, 31, 20, 18}, 98.0556, nil, false},
	{"digits", "-s 6 -B 1", "digits.train", "digits.test", []float64{62.102947, 42.241623, 63.124603, 111.311592, 121.260914, 95.589124, 66.593620, 170.110615, 65.261236, 69.774782}, []int{23, 15, 22, 28, 29, 21, 26, 31, 20, 19}, 97.7778, nil, false},
}

// Tolerances of the L1 acceptance criteria (issue 14).
const (
	l1NonzerosRelTol = 0.02 // nonzero weights, relative, over all subproblems
	l1ObjectiveTol   = 1e-4 // primal objective, relative (LIBLINEAR prints 6 decimals)
)

// nonzeros counts decision function k's nonzero weights (bias row included).
func nonzeros(m *LinearModel, k int) int {
	nrW, n := m.NrW(), 0
	for j := range m.weightRows() {
		if m.W[j*nrW+k] != 0 {
			n++
		}
	}
	return n
}

func TestL1ParityWithLIBLINEAR(t *testing.T) {
	for _, ref := range liblinearL1Refs {
		t.Run(ref.name+strings.ReplaceAll(ref.args, " ", ""), func(t *testing.T) {
			if testing.Short() && ref.name == "debdesc_bin" {
				t.Skip("large set")
			}
			opts, _, err := ParseLinearOptions(append(strings.Fields(ref.args), "-e", "0.0001"))
			if err != nil {
				t.Fatal(err)
			}
			train, test := readTestdata(t, ref.train), readTestdata(t, ref.test)
			if ref.converge {
				opts.Params.MaxIter = 100000
			}
			m, _, err := TrainLinear(train, opts.Params)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(m.Result.Subproblems), len(ref.objectives); got != want {
				t.Fatalf("%d subproblems, LIBLINEAR %d", got, want)
			}
			gotNZ, wantNZ := 0, 0
			for k, want := range ref.objectives {
				got := m.Result.Subproblems[k].PrimalObjective
				// The reported objective is that of the model's weights.
				if f := l1Objective(train, m, k); math.Abs(f-got) > 1e-5*got {
					t.Errorf("subproblem %d: reported objective %.9g, recomputed from the float32 weights %.9g", k, got, f)
				}
				switch rel := (got - want) / want; {
				case slices.Contains(ref.capped, k) && rel > l1ObjectiveTol:
					t.Errorf("subproblem %d: objective %.6f, worse than LIBLINEAR's capped %.6f", k, got, want)
				case !slices.Contains(ref.capped, k) && math.Abs(rel) > l1ObjectiveTol:
					t.Errorf("subproblem %d: objective %.6f, LIBLINEAR %.6f (relative difference %.2g)", k, got, want, rel)
				}
				gotNZ += nonzeros(m, k)
				wantNZ += ref.nonzeros[k]
			}
			// Within 2%, or one weight on the small sets.
			if d := math.Abs(float64(gotNZ-wantNZ)) / float64(wantNZ); !ref.converge && d > l1NonzerosRelTol && gotNZ-wantNZ != 1 && wantNZ-gotNZ != 1 {
				t.Errorf("%d nonzero weights, LIBLINEAR %d", gotNZ, wantNZ)
			}
			pred := m.PredictBatch(make([]float64, test.Len()), test)
			s := model.ScorePredictions(pred, test.Labels(), false)
			if d := math.Abs(100*s.Accuracy() - ref.accuracy); d > accuracyTol {
				t.Errorf("test accuracy %.4f%%, LIBLINEAR %.4f%%", 100*s.Accuracy(), ref.accuracy)
			}
			t.Logf("nonzeros %d (LIBLINEAR %d), accuracy %.4f%% (%.4f%%), objective[0] %.6f (%.6f)",
				gotNZ, wantNZ, 100*s.Accuracy(), ref.accuracy, m.Result.Subproblems[0].PrimalObjective, ref.objectives[0])
		})
	}
}

// l1Objective recomputes decision function k's primal objective from the
// model's weights in float64: ‖w‖₁ + Σ C_i loss(y_i wᵀx_i), with the
// squared hinge (-s 5) or the logistic loss (-s 6).
func l1Objective(ds *data.Dataset, m *LinearModel, k int) float64 {
	p, nrW := m.Params, m.NrW()
	var f float64
	for j := range m.weightRows() {
		f += math.Abs(float64(m.W[j*nrW+k]))
	}
	dec := make([]float64, nrW)
	for i := range ds.Len() {
		if ds.IsDense() {
			m.DecisionDense(dec, ds.DenseRow(i))
		} else {
			idx, val := ds.SparseRow(i)
			m.DecisionSparse(dec, idx, val)
		}
		label := int32(ds.Label(i))
		y, C := -1.0, p.C
		if label == m.Labels[k] {
			y, C = 1, p.C*p.weightOf(label)
		} else if nrW == 1 {
			C = p.C * p.weightOf(label)
		}
		z := y * dec[k]
		if m.Solver == L1L2LossSVC {
			f += C * math.Pow(max(0, 1-z), 2)
		} else {
			f += C * logisticLoss(z)
		}
	}
	return f
}
