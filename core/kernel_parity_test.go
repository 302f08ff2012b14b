package core

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// Parity with LIBSVM 3.24 on the cases of testdata/libsvm-ref.txt that do
// not ask for probability estimates: per subproblem objective and ρ, the
// support vector counts, test accuracy or error, and every test
// prediction (labels equal; regression values within parityPredRel).
//
// The options are those Debian's svm-train actually trained with: its
// real-valued options rounded to float32 (libsvmref's ReadOptions).
//
// Tolerances: LIBSVM stops at the same ε = 1e-3 on the same KKT gap, but
// kernel values here are float32 columns where LIBSVM's are float32 too
// (its Qfloat) and rows are float32 where LIBSVM's are double, so the two
// may stop at slightly different points of the same face. Where the rows
// are exact in float32 (digits: k/16) the iterates are LIBSVM's and the
// support vector counts equal in every subproblem; they are equal in every
// case recorded, but for paritySVSlack's.
const (
	parityObjRel  = 1e-3 // objective, relative
	parityRho     = 1e-3 // ρ, relative, absolute when |ρ| < 1
	paritySVFrac  = 0.01 // total support vector count, relative
	parityAccPts  = 0.3  // accuracy, percentage points
	parityMSEFrac = 0.01 // ε-SVR test MSE, relative
	parityPredRel = 1e-4 // ε-SVR, ν-SVR: each test prediction, relative (absolute below 1)
)

// paritySVSlack is how far a subproblem's nSV may be from LIBSVM's, by
// case; 0 elsewhere. heart_scale_nu_poly: heart_scale's values (0.708333,
// …) are not float32 numbers, and upstream svm-train 3.24 trained on the
// file with each value rounded to float32 (and the options as
// ReadOptions gives them) ends where this solver does: 916 iterations,
// obj 86.315906, rho -1.515785, nSV 107 (Debian's run on the decimal
// file: 948, 86.310133, -1.514751, 108).
var paritySVSlack = map[string]int{"heart_scale_nu_poly": 1}

// paritySameIterates are the ν cases whose every subproblem takes as many
// SMO iterations as svm-train's: the same start, working sets, shrinking
// and stopping test on the same numbers (digits' rows are exact in float32;
// shuttle's, heart_scale's and diabetes' rounding happens not to change a
// step). The C-SVC cases differ by a few iterations in some subproblems
// (exp and kernel rounding), heart_scale_nu_poly by 32 (paritySVSlack).
var paritySameIterates = map[string]bool{"heart_scale_nu": true, "digits_nu": true, "shuttle_nu": true,
	"diabetes_nu": true, "diabetes_nu_default": true}

func TestKernelParityLIBSVM(t *testing.T) {
	_, cases, _ := readLibsvmRef(t)
	ran := 0
	for _, c := range cases {
		opt, rest, err := ParseKernelOptions(c.ReadOptions())
		if err != nil || len(rest) != 0 {
			t.Fatalf("%s: options %v: %v", c.Name, c.Options, err)
		}
		if opt.Params.Probability {
			continue
		}
		ran++
		t.Run(c.Name, func(t *testing.T) {
			if testing.Short() && c.Name != "heart_scale" {
				t.Skip("short")
			}
			train := readRefData(t, c.Train)
			test := readRefData(t, c.Test)
			m, _, err := TrainKernel(train, opt.Params)
			if err != nil {
				t.Fatal(err)
			}
			if g := c.Floats(t, "gamma"); len(g) == 1 && m.Kernel.Type != LinearKernel && m.Kernel.Gamma != g[0] {
				t.Errorf("gamma %v, LIBSVM %v", m.Kernel.Gamma, g[0])
			}
			if len(m.Result.Subproblems) != len(c.Subs) {
				t.Fatalf("%d subproblems, LIBSVM %d", len(m.Result.Subproblems), len(c.Subs))
			}
			for k, ref := range c.Subs {
				got := m.Result.Subproblems[k]
				if !got.Converged {
					t.Errorf("sub %d did not converge", k)
				}
				if d := math.Abs(got.Objective - ref.Obj); d > parityObjRel*math.Abs(ref.Obj) {
					t.Errorf("sub %d: obj %.6f, LIBSVM %.6f", k, got.Objective, ref.Obj)
				}
				if d := math.Abs(got.Rho - ref.Rho); d > parityRho*max(1, math.Abs(ref.Rho)) {
					t.Errorf("sub %d: rho %.6f, LIBSVM %.6f", k, got.Rho, ref.Rho)
				}
				// ν-SVC's C = 1/r and ν-SVR's ε = −r, printed with %f.
				if !math.IsNaN(ref.C) && math.Abs(1/got.R-ref.C) > parityObjRel*ref.C+1e-6 {
					t.Errorf("sub %d: C = 1/r %.6f, LIBSVM %.6f", k, 1/got.R, ref.C)
				}
				if !math.IsNaN(ref.Epsilon) && math.Abs(-got.R-ref.Epsilon) > parityObjRel*math.Abs(ref.Epsilon)+1e-6 {
					t.Errorf("sub %d: epsilon = -r %.6f, LIBSVM %.6f", k, -got.R, ref.Epsilon)
				}
				if paritySameIterates[c.Name] && got.Iterations != ref.Iter {
					t.Errorf("sub %d: %d iterations, LIBSVM %d", k, got.Iterations, ref.Iter)
				}
				nsv := got.NumSV
				if d := nsv - ref.NSV; d < -paritySVSlack[c.Name] || d > paritySVSlack[c.Name] {
					t.Errorf("sub %d: nSV %d, LIBSVM %d", k, nsv, ref.NSV)
				}
				t.Logf("sub %d: iter %d/%d obj %.6f/%.6f rho %.6f/%.6f nSV %d/%d nBSV %d/%d",
					k, got.Iterations, ref.Iter, got.Objective, ref.Obj, got.Rho, ref.Rho, nsv, ref.NSV, got.NumBoundSV, ref.NBSV)
			}
			if ts := c.Floats(t, "total_sv"); len(ts) == 1 {
				if d := math.Abs(float64(m.SV.Len()) - ts[0]); d > max(1, paritySVFrac*ts[0]) {
					t.Errorf("total SV %d, LIBSVM %v", m.SV.Len(), ts[0])
				}
			}
			if lab := c.Floats(t, "label"); lab != nil {
				for k, v := range lab {
					if k >= len(m.Labels) || float64(m.Labels[k]) != v {
						t.Fatalf("labels %v, LIBSVM %v", m.Labels, lab)
					}
				}
			}
			pred := m.PredictBatch(make([]float64, test.Len()), test)
			// Every prediction: the same label, or for regression the same
			// value within parityPredRel.
			if c.Pred != nil {
				if len(c.Pred) != len(pred) {
					t.Fatalf("%d recorded predictions for %d test rows", len(c.Pred), len(pred))
				}
				differ, worst := 0, 0.0
				for i, v := range pred {
					d := math.Abs(v-c.Pred[i]) / max(1, math.Abs(c.Pred[i]))
					worst = max(worst, d)
					if m.IsRegression() && d <= parityPredRel || v == c.Pred[i] {
						continue
					}
					if differ++; differ <= 3 {
						t.Errorf("test row %d: predicted %v, svm-predict %v", i+1, v, c.Pred[i])
					}
				}
				if differ > 0 {
					t.Errorf("%d of %d predictions differ from svm-predict's", differ, len(pred))
				}
				t.Logf("predictions: %d of %d differ from svm-predict's (largest relative difference %.3g)", differ, len(pred), worst)
			}
			switch {
			case c.Has["mse"]:
				var se float64
				for i, v := range pred {
					se += (v - test.Label(i)) * (v - test.Label(i))
				}
				mse := se / float64(test.Len())
				if math.Abs(mse-c.MSE) > parityMSEFrac*c.MSE {
					t.Errorf("test MSE %.6f, LIBSVM %.6f", mse, c.MSE)
				}
				t.Logf("MSE %.6f / LIBSVM %.6f", mse, c.MSE)
			case c.Has["accuracy"]:
				correct, pos := 0, 0
				for i, v := range pred {
					if v == test.Label(i) {
						correct++
					}
					if v > 0 {
						pos++
					}
				}
				acc := 100 * float64(correct) / float64(test.Len())
				refAcc := 100 * float64(c.Correct) / float64(c.Total)
				if math.Abs(acc-refAcc) > parityAccPts {
					t.Errorf("accuracy %.4f%% (%d/%d), LIBSVM %.4f%% (%d/%d)", acc, correct, test.Len(), refAcc, c.Correct, c.Total)
				}
				if c.Has["pred_pos"] && math.Abs(float64(pos-c.PredPos)) > paritySVFrac*float64(test.Len()) {
					t.Errorf("%d rows predicted +1, LIBSVM %d", pos, c.PredPos)
				}
				t.Logf("accuracy %.4f%% / LIBSVM %.4f%%", acc, refAcc)
			}
			checkKKT(t, m, train)
		})
	}
	if ran == 0 {
		t.Fatal("no parity case ran")
	}
}

func readRefData(t *testing.T, name string) *data.Dataset {
	t.Helper()
	ds, err := data.ReadFile(filepath.Join("testdata", name), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// checkKKT recomputes, from the model alone, the decision value f of every
// training row of a binary C-SVC or a one-class model, and checks the
// optimality conditions of the dual at tolerance eps (f is the decision
// function, y f ≥ 1 − tol for α = 0, ≤ 1 + tol at α = C, ≈ 1 when free).
func checkKKT(t *testing.T, m *KernelModel, ds *data.Dataset) {
	t.Helper()
	if m.SVMType != CSVC || len(m.Labels) != 2 || len(m.Params.Weights) != 0 {
		return
	}
	C := m.Params.C
	tol := 2 * m.Params.Eps
	// α of each training row from the coefficients: find a row's SV index
	// by equality of rows (rows are copied in order, so a two-pointer walk
	// over each class works).
	dec := make([]float64, 1)
	var viol int
	var worst float64
	for i := range ds.Len() {
		var f float64
		if ds.IsDense() {
			f = m.DecisionDense(dec, ds.DenseRow(i))[0]
		} else {
			idx, val := ds.SparseRow(i)
			f = m.DecisionSparse(dec, idx, val)[0]
		}
		y := -1.0
		if int32(ds.Label(i)) == m.Labels[0] {
			y = 1
		}
		// Without α per row, check the one-sided conditions that hold for
		// every α: y f ≥ 1 − tol implies α may be 0; rows with y f < 1 − tol
		// must be at C, which the solution shows as nBSV ≥ their number.
		if y*f < 1-tol {
			viol++
			worst = max(worst, 1-y*f)
		}
	}
	// Rows with margin violations must all be bounded support vectors.
	if nb := m.Result.NumBoundSV; viol > nb {
		t.Errorf("%d rows violate the margin, only %d bounded support vectors (C = %v)", viol, nb, C)
	}
}
