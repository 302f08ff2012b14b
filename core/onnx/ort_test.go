package onnx

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// ortOutput is what examples/onnx/ort_run.js writes.
type ortOutput struct {
	Outputs map[string]struct {
		Type string    `json:"type"`
		Dims []int     `json:"dims"`
		Data []float64 `json:"data"`
	} `json:"outputs"`
	MedianMS *float64 `json:"median_ms"`
}

// ortNodePath returns the node_modules directory holding onnxruntime-node
// (SVMGO_ORT_NODE_PATH, which make test-onnx sets), skipping the test when
// it is unset under -short or outside CI.
func ortNodePath(t testing.TB) string {
	p := os.Getenv("SVMGO_ORT_NODE_PATH")
	if p == "" {
		if testing.Short() {
			// make test's go test -short passes run before make
			// test-onnx has installed ONNX Runtime; test-onnx runs these.
			t.Skip("SVMGO_ORT_NODE_PATH unset: make test-onnx runs this")
		}
		if os.Getenv("CI") != "" {
			t.Fatal("SVMGO_ORT_NODE_PATH is unset (CI is set): run make test-onnx")
		}
		t.Skip("SVMGO_ORT_NODE_PATH unset: make test-onnx installs ONNX Runtime and sets it")
	}
	return p
}

// runORT runs the model file with ONNX Runtime on the dense rows x
// (rows × cols) and returns its outputs.
func runORT(t testing.TB, nodePath, modelPath string, x []float32, rows, cols int) *ortOutput {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "x.f32")
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	cmd := exec.Command("node", "../../examples/onnx/ort_run.js", modelPath, in, strconv.Itoa(rows), strconv.Itoa(cols), "1", out)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodePath)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("onnxruntime: %v\n%s", err, msg)
	}
	j, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var o ortOutput
	if err := json.Unmarshal(j, &o); err != nil {
		t.Fatal(err)
	}
	return &o
}

// denseMatrix returns the first rows rows of ds as a row-major dense
// matrix of nf columns.
func denseMatrix(ds *data.Dataset, nf, rows int) []float32 {
	x := make([]float32, rows*nf)
	for i := range rows {
		denseRow(x[i*nf:(i+1)*nf], ds, i)
	}
	return x
}

// TestONNXRuntime exports every kind and runs it with ONNX Runtime 1.17
// (onnxruntime-node): its labels must be the model's (bar rows whose
// smallest decision value is within float32 rounding of a tie, which are
// listed), its scores the model's decision values or probabilities within
// valueTol relative, its regression values likewise.
func TestONNXRuntime(t *testing.T) {
	nodePath := ortNodePath(t)
	for _, c := range exportCases() {
		t.Run(c.name, func(t *testing.T) {
			m, test := train(t, c)
			b, err := Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "m.onnx")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			nf := m.Info().NumFeatures
			x := denseMatrix(test, nf, test.Len())
			o := runORT(t, nodePath, path, x, test.Len(), nf)
			checkORT(t, m, o, x, test.Len(), valueTol)
		})
	}
}

// checkORT compares ONNX Runtime's outputs o on the rows x with the
// model's predictions, values within tol relative.
func checkORT(t *testing.T, m core.Model, o *ortOutput, x []float32, rows int, tol float64) {
	t.Helper()
	info := m.Info()
	nf := info.NumFeatures
	dec := make([]float64, info.NumDecisionValues)
	var prob []float64
	var pm core.ProbabilityModel
	if info.Probability {
		pm = m.(core.ProbabilityModel)
		prob = make([]float64, len(info.Labels))
	}
	maxRel, flips, binaryProb := 0.0, 0, 0.0
	check := func(i, k int, want, got float64) {
		rel := math.Abs(want-got) / max(1, math.Abs(want))
		maxRel = max(maxRel, rel)
		if rel > tol {
			t.Errorf("row %d, value %d: ONNX Runtime %g, svmgo %g", i, k, got, want)
		}
	}
	if info.Task != core.TaskClassification {
		v := o.Outputs[ValueName]
		if len(v.Data) != rows {
			t.Fatalf("%s: %d values for %d rows", ValueName, len(v.Data), rows)
		}
		for i := range rows {
			row := x[i*nf : (i+1)*nf]
			if info.Task == core.TaskOneClass {
				if want := m.PredictDense(row); want != v.Data[i] {
					m.DecisionDense(dec, row)
					if math.Abs(dec[0]) > 1e-4 {
						t.Errorf("row %d: ONNX Runtime %g, svmgo %g (decision value %g)", i, v.Data[i], want, dec[0])
					}
					flips++
				}
				continue
			}
			check(i, 0, m.DecisionDense(dec, row)[0], v.Data[i])
		}
		t.Logf("%d rows: largest relative difference %.2g, %d one-class labels at float32 near-ties", rows, maxRel, flips)
		return
	}
	labels, scores := o.Outputs[LabelName], o.Outputs[ScoresName]
	if len(labels.Data) != rows || len(scores.Dims) != 2 || scores.Dims[0] != rows {
		t.Fatalf("outputs: %d labels, scores %v, for %d rows", len(labels.Data), scores.Dims, rows)
	}
	e := scores.Dims[1]
	for i := range rows {
		row := x[i*nf : (i+1)*nf]
		m.DecisionDense(dec, row)
		z := scores.Data[i*e : (i+1)*e]
		if want := m.LabelOf(dec); want != labels.Data[i] {
			margin := math.Inf(1)
			for _, d := range dec {
				margin = min(margin, math.Abs(d))
			}
			if margin > 1e-4 {
				t.Errorf("row %d: ONNX Runtime label %g, svmgo %g (smallest |decision value| %g)", i, labels.Data[i], want, margin)
			} else {
				t.Logf("row %d: float32 near-tie: ONNX Runtime label %g, svmgo %g, margin %g", i, labels.Data[i], want, margin)
			}
			flips++
		}
		switch {
		case prob != nil && scoresAreProbabilities(m):
			pm.ProbabilityDense(prob, row)
			if len(prob) == 2 && info.Kernel {
				// ONNX Runtime couples even two classes' pairwise
				// probabilities by LIBSVM's iterative method, stopping at
				// eps = 0.005/k; LIBSVM (and svmgo) take the pair's
				// sigmoid directly.
				binaryProb = max(binaryProb, math.Abs(prob[0]-z[0]))
				if math.Abs(prob[0]-z[0]) > ortCouplingTol {
					t.Errorf("row %d: ONNX Runtime probability %g, svmgo %g", i, z[0], prob[0])
				}
				continue
			}
			for k := range prob {
				check(i, k, prob[k], z[k])
			}
		case len(dec) == 1 && info.Kernel:
			// One decision value d: ONNX Runtime writes −d and d.
			check(i, 0, -dec[0], z[0])
			check(i, 1, dec[0], z[1])
		case len(dec) == 1:
			// A binary linear model, written as the rows d and −d.
			check(i, 0, dec[0], z[0])
			check(i, 1, -dec[0], z[1])
		default:
			for k := range dec {
				check(i, k, dec[k], z[k])
			}
		}
	}
	t.Logf("%d rows: largest relative difference %.2g, %d labels at float32 near-ties", rows, maxRel, flips)
	if binaryProb > 0 {
		t.Logf("two-class probabilities: largest difference %.2g (ONNX Runtime's iterative coupling)", binaryProb)
	}
}

// ortCouplingTol bounds the difference of ONNX Runtime's two-class kernel
// probabilities from the pair's sigmoid: its coupling stops when every
// component of the gradient is below 0.005/k.
const ortCouplingTol = 0.005

// scoresAreProbabilities reports whether the exported graph's scores are
// probabilities: a kernel model's with prob_a/prob_b, a logistic
// regression's; not a linear SVC's Platt probabilities (Caveats).
func scoresAreProbabilities(m core.Model) bool {
	if lm, ok := m.(*linear.LinearModel); ok {
		return lm.Solver.IsLogistic()
	}
	return m.Info().Probability
}
