package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// Issue 6's accuracy tolerances: a quantized model's test accuracy is
// within these many points of its float model's.
const (
	int8AccuracyPoints  = 0.5
	int16AccuracyPoints = 0.05
)

// rowsOf returns the "name  value" rows of a command's output.
func rowsOf(t *testing.T, out string) map[string]string {
	t.Helper()
	rows := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := rowPattern.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q is not a name/value row:\n%s", l, out)
		}
		rows[m[1]] = m[2]
	}
	return rows
}

// floatModels holds a float model file read back by the test: one of the
// two is set.
type floatModels struct {
	linear *linear.LinearModel
	kernel *core.KernelModel
}

func readFloat(t *testing.T, path string) floatModels {
	t.Helper()
	kind, err := fileKind(path)
	if err != nil {
		t.Fatal(err)
	}
	if kind == modelfile.KindLinear {
		m, err := modelfile.ReadFileAs[*linear.LinearModel](path)
		if err != nil {
			t.Fatal(err)
		}
		return floatModels{linear: m}
	}
	m, err := modelfile.ReadFileAs[*core.KernelModel](path)
	if err != nil {
		t.Fatal(err)
	}
	return floatModels{kernel: m}
}

// decider is what the tests compare of both models: core's float models and
// quantize's models have these methods.
type decider interface {
	DecisionDense(dst []float64, x []float32) []float64
	DecisionSparse(dst []float64, index []int32, value []float32) []float64
	NumDecisionValues() int
}

// predictor is the part of core's and quantize's models the tests call
// row by row.
type predictor interface {
	decider
	PredictDense(x []float32) float64
	PredictSparse(index []int32, value []float32) float64
}

func (f floatModels) predictor() predictor {
	if f.linear != nil {
		return f.linear
	}
	return f.kernel
}

// quantizeInTest quantizes f as the command should, through the package.
func (f floatModels) quantizeInTest(t *testing.T, bits int) quantize.Model {
	t.Helper()
	var q quantize.Model
	var err error
	if f.linear != nil {
		q, err = quantize.QuantizeLinear(f.linear, bits)
	} else {
		q, err = quantize.QuantizeKernel(f.kernel, bits)
	}
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// eachRow calls dense for row i of ds when it is a dense row as wide as
// the model, else sparse with its nonzero (or, for a dense row, every)
// feature.
func eachRow(ds *data.Dataset, nf int, dense func(i int, x []float32), sparse func(i int, index []int32, value []float32)) {
	for i := range ds.Len() {
		if !ds.IsDense() {
			idx, val := ds.SparseRow(i)
			sparse(i, idx, val)
			continue
		}
		x := ds.DenseRow(i)
		if len(x) == nf {
			dense(i, x)
			continue
		}
		idx := make([]int32, len(x))
		for j := range idx {
			idx[j] = int32(j)
		}
		sparse(i, idx, x)
	}
}

// quantizeCase is a float model trained for the tests: the svmgo command
// and options that train it, its training and test files.
type quantizeCase struct {
	name       string
	train      []string
	trainFile  string
	testFile   string
	regression bool
	// larger: the quantized file is larger than the float one (few
	// support vectors over many features, each with a scale and offset).
	larger bool
}

// firstLines writes the first n lines of src to a file in dir and returns
// its path.
func firstLines(t *testing.T, dir, src string, n int) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	path := filepath.Join(dir, filepath.Base(src)+"."+strconv.Itoa(n))
	if err := os.WriteFile(path, []byte(strings.Join(lines[:min(n, len(lines))], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// narrowRows writes the rows of src with features 1..n only, every one
// set, so that data.ReadFile reads them as dense rows narrower than a model
// of src's width: the predictors read the missing features as zeros.
func narrowRows(t *testing.T, dir, src string, n int) string {
	t.Helper()
	ds, err := data.ReadFile(src, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range ds.Len() {
		x := ds.DenseRow(i)
		fmt.Fprintf(&b, "%g", ds.Label(i))
		for j := range n {
			fmt.Fprintf(&b, " %d:%g", j+1, x[j]+0.5) // + 0.5: no zeros
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "narrow.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if ds, err := data.ReadFile(path, data.ReadOptions{}); err != nil || !ds.IsDense() || ds.NumFeatures() != n {
		t.Fatalf("%s: not read as dense rows of %d features (%v)", path, n, err)
	}
	return path
}

// TestQuantizeCommand quantizes linear and kernel models of every
// formulation at 8 and 16 bits with a check file, and checks every printed
// number against the models read back by the test: the file sizes on
// disk, the source CRC in model_in's frame, the largest decision value
// change and error bound over the check rows (recomputed here), the
// accuracies of both models (predicted here row by row, by the models'
// own Predict calls) within issue 6's tolerances, and model_out's bytes
// against the package's quantization of the same float model.
func TestQuantizeCommand(t *testing.T) {
	dir := t.TempDir()
	deb300 := firstLines(t, dir, dataDir+"debdesc_bin.train", 300)
	debTest := firstLines(t, dir, dataDir+"debdesc_bin.test", 200)
	narrow := narrowRows(t, dir, "../../../examples/data/heart_scale.test", 5)
	cases := []quantizeCase{
		{name: "linear digits -s 3 -B 1", train: []string{"train-linear", "-s", "3", "-B", "1"},
			trainFile: dataDir + "digits.train", testFile: dataDir + "digits.test"},
		{name: "linear breast_cancer", train: []string{"train-linear"},
			trainFile: dataDir + "breast_cancer.train", testFile: dataDir + "breast_cancer.test"},
		{name: "linear SVR diabetes", train: []string{"train-linear", "-s", "12", "-B", "1"},
			trainFile: dataDir + "diabetes.train", testFile: dataDir + "diabetes.test", regression: true},
		{name: "RBF digits", train: []string{"train"},
			trainFile: dataDir + "digits.train", testFile: dataDir + "digits.test"},
		{name: "RBF heart_scale -b 1", train: []string{"train", "-b", "1"},
			trainFile: dataDir + "heart_scale", testFile: "../../../examples/data/heart_scale.test"},
		{name: "epsilon-SVR diabetes", train: []string{"train", "-s", "3", "-c", "100", "-g", "0.5"},
			trainFile: dataDir + "diabetes.train", testFile: dataDir + "diabetes.test", regression: true},
		{name: "linear heart_scale, check rows of 5 of 13 features", train: []string{"train-linear", "-B", "1"},
			trainFile: dataDir + "heart_scale", testFile: narrow},
		{name: "RBF heart_scale, check rows of 5 of 13 features", train: []string{"train"},
			trainFile: dataDir + "heart_scale", testFile: narrow},
		{name: "RBF debdesc_bin 300 rows", train: []string{"train"},
			trainFile: deb300, testFile: debTest, larger: true},
	}
	for ci, c := range cases {
		if testing.Short() && c.name == "RBF digits" {
			t.Logf("-short: %s left out (the RBF heart_scale cases cover kernel models)", c.name)
			continue
		}
		in := filepath.Join(dir, fmt.Sprintf("m%d.svmgo", ci))
		args := append(append(append([]string(nil), c.train...), "-q"), c.trainFile, in)
		if code, _, errs := svmgo(t, args...); code != 0 {
			t.Fatalf("%s: svmgo %v: %s", c.name, args, errs)
		}
		fm := readFloat(t, in)
		ds, err := data.ReadFile(c.testFile, data.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, bits := range []int{8, 16} {
			t.Run(fmt.Sprintf("%s/int%d", c.name, bits), func(t *testing.T) {
				out := filepath.Join(dir, fmt.Sprintf("m%d.q%d", ci, bits))
				args := []string{"quantize", "--bits", strconv.Itoa(bits), "--check", c.testFile, in, out}
				if c.larger { // its timing is a second of sparse rows; the others cover it
					args = append([]string{"quantize", "--no-timing"}, args[1:]...)
				}
				code, stdout, errs := svmgo(t, args...)
				if code != 0 || errs != "" {
					t.Fatalf("quantize: exit %d: %s", code, errs)
				}
				checkQuantizeReport(t, c, fm, ds, bits, in, out, rowsOf(t, stdout))
			})
		}
	}
}

// checkQuantizeReport checks the quantize command's report on case c.
func checkQuantizeReport(t *testing.T, c quantizeCase, fm floatModels, ds *data.Dataset, bits int, in, out string, rows map[string]string) {
	t.Helper()
	inBytes, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	outBytes, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := quantize.Marshal(fm.quantizeInTest(t, bits))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(outBytes, want) {
		t.Errorf("model_out (%d B) is not the package's quantization of model_in (%d B)", len(outBytes), len(want))
	}
	q, err := modelfile.ReadFileAs[quantize.Model](out)
	if err != nil {
		t.Fatal(err)
	}
	if q.Bits() != bits {
		t.Errorf("model_out has %d bits, want %d", q.Bits(), bits)
	}

	if c.larger {
		if rows["batch predict"] != "not timed (--no-timing)" {
			t.Errorf("quantize --no-timing: batch predict %q", rows["batch predict"])
		}
	} else {
		checkBatchVerdict(t, rows["batch predict"], "rows of "+c.testFile, min(ds.Len(), batchSampleRows))
	}

	// Sizes: the files on disk.
	kind := map[bool]string{true: "linear (", false: "kernel ("}[fm.linear != nil]
	if !strings.HasPrefix(rows["model_in"], in+": "+kind) || !strings.HasSuffix(rows["model_in"], ", "+commas(len(inBytes))+" B") {
		t.Errorf("model_in %q, want %s: %s…), %s B", rows["model_in"], in, kind, commas(len(inBytes)))
	}
	if w := fmt.Sprintf("%s: %s int%d, %s B", out, q.Kind(), bits, commas(len(outBytes))); rows["model_out"] != w {
		t.Errorf("model_out %q, want %q", rows["model_out"], w)
	}
	ratio := 100 * float64(len(outBytes)) / float64(len(inBytes))
	if got := number(t, strings.TrimSuffix(strings.Fields(rows["size"])[0], "%")); math.Abs(got-ratio) > 0.005 {
		t.Errorf("size %q, want %.4f%%", rows["size"], ratio)
	}
	if larger := len(outBytes) > len(inBytes); larger != strings.Contains(rows["size"], "larger") || larger != c.larger {
		t.Errorf("size %q for %d B from %d B", rows["size"], len(outBytes), len(inBytes))
	}
	// Provenance: bytes 20–23 of model_in's frame.
	crc := binary.LittleEndian.Uint32(inBytes[20:24])
	if f := strings.Fields(rows["source CRC-32C"]); len(f) == 0 || f[0] != fmt.Sprintf("0x%08x", crc) || q.SourceCRC() != crc {
		t.Errorf("source CRC-32C %q, model_out records %#x; model_in's payload CRC is %#x", rows["source CRC-32C"], q.SourceCRC(), crc)
	}

	// The check, recomputed row by row.
	if got := rows["check"]; got != fmt.Sprintf("%s: %s rows", c.testFile, commas(ds.Len())) {
		t.Errorf("check %q for %d rows", got, ds.Len())
	}
	f := fm.predictor()
	nd := q.NumDecisionValues()
	decF, decQ, bound := make([]float64, nd), make([]float64, nd), make([]float64, nd)
	predF, predQ := make([]float64, ds.Len()), make([]float64, ds.Len())
	maxChange, maxBound, maxRow, maxValue, outside := 0.0, 0.0, -1, -1, 0
	visit := func(i int) {
		for k := range nd {
			d := math.Abs(decQ[k] - decF[k])
			if maxRow < 0 || d > maxChange {
				maxChange, maxRow, maxValue = d, i, k
			}
			maxBound = max(maxBound, bound[k])
			if d > bound[k] {
				outside++
			}
		}
	}
	eachRow(ds, q.NumFeatures(), func(i int, x []float32) {
		f.DecisionDense(decF, x)
		q.DecisionDense(decQ, x)
		q.ErrorBoundDense(bound, x)
		predF[i], predQ[i] = f.PredictDense(x), q.PredictDense(x)
		visit(i)
	}, func(i int, idx []int32, val []float32) {
		f.DecisionSparse(decF, idx, val)
		q.DecisionSparse(decQ, idx, val)
		q.ErrorBoundSparse(bound, idx, val)
		predF[i], predQ[i] = f.PredictSparse(idx, val), q.PredictSparse(idx, val)
		visit(i)
	})
	if outside != 0 {
		t.Errorf("%d decision values moved more than their error bound", outside)
	}
	change := rows["largest decision value change"]
	if !near(number(t, change), maxChange, 6) || !strings.HasSuffix(change, fmt.Sprintf("(row %d, decision value %d)", maxRow+1, maxValue+1)) {
		t.Errorf("largest decision value change %q, want %.6g at row %d, value %d", change, maxChange, maxRow+1, maxValue+1)
	}
	if b := rows["largest error bound"]; !near(number(t, b), maxBound, 6) || !strings.HasSuffix(b, "(every change within its bound)") {
		t.Errorf("largest error bound %q, want %.6g, every change within its bound", b, maxBound)
	}
	sf := core.ScorePredictions(predF, ds.Labels(), c.regression)
	sq := core.ScorePredictions(predQ, ds.Labels(), c.regression)
	if c.regression {
		var mf, mq float64
		if _, err := fmt.Sscanf(rows["mean squared error"], "float %g, quantized %g", &mf, &mq); err != nil ||
			!near(mf, sf.MSE, 6) || !near(mq, sq.MSE, 6) {
			t.Errorf("mean squared error %q, want float %.6g, quantized %.6g", rows["mean squared error"], sf.MSE, sq.MSE)
		}
		var rf, rq float64
		if _, err := fmt.Sscanf(rows["squared correlation"], "float %g, quantized %g", &rf, &rq); err != nil ||
			!near(rf, sf.SquaredCorrelation, 6) || !near(rq, sq.SquaredCorrelation, 6) {
			t.Errorf("squared correlation %q, want float %.6g, quantized %.6g", rows["squared correlation"], sf.SquaredCorrelation, sq.SquaredCorrelation)
		}
		return
	}
	var pf, pq float64
	var cf, nf, cq, nq int
	if _, err := fmt.Sscanf(rows["accuracy"], "float %g%% (%d/%d), quantized %g%% (%d/%d)", &pf, &cf, &nf, &pq, &cq, &nq); err != nil ||
		cf != sf.Correct || nf != sf.Total || cq != sq.Correct || nq != sq.Total ||
		!near(pf, 100*sf.Accuracy(), 6) || !near(pq, 100*sq.Accuracy(), 6) {
		t.Errorf("accuracy %q (%v), want float %d/%d, quantized %d/%d", rows["accuracy"], err, sf.Correct, sf.Total, sq.Correct, sq.Total)
	}
	changed := 0
	for i := range predF {
		if predF[i] != predQ[i] {
			changed++
		}
	}
	if want := fmt.Sprintf("%d of %d", changed, ds.Len()); rows["predictions changed"] != want {
		t.Errorf("predictions changed %q, want %q", rows["predictions changed"], want)
	}
	tol := int8AccuracyPoints
	if bits == 16 {
		tol = int16AccuracyPoints
	}
	if d := 100 * math.Abs(sq.Accuracy()-sf.Accuracy()); d > tol {
		t.Errorf("int%d accuracy %d/%d, float %d/%d: %.4f points apart, more than %v", bits, sq.Correct, sq.Total, sf.Correct, sf.Total, d, tol)
	}
}

// TestQuantizeErrors: refused inputs print one line naming what was wrong
// and exit 1; usage errors print the usage and exit 2; neither leaves
// model_out or a temporary file behind.
func TestQuantizeErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "heart.svmgo")
	if code, _, errs := svmgo(t, "train-linear", "-q", dataDir+"heart_scale", in); code != 0 {
		t.Fatal(errs)
	}
	q8 := filepath.Join(dir, "heart.q8")
	if code, _, errs := svmgo(t, "quantize", "--no-timing", in, q8); code != 0 {
		t.Fatal(errs)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("1 1:0.5 2:1\n-1 3:x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notModel := filepath.Join(dir, "not.model")
	if err := os.WriteFile(notModel, []byte("solver_type L2R_L2LOSS_SVC_DUAL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.q")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{q8, out}, []string{q8, "already quantized (qlinear, int8)", "quantize the float model"}},
		{[]string{"--bits", "4", in, out}, []string{"--bits", `"4"`, "8 or 16"}},
		{[]string{"--bits", "int8", in, out}, []string{"--bits", "8 or 16"}},
		{[]string{"--check", bad, in, out}, []string{"bad.txt:2:"}},
		{[]string{"--check", filepath.Join(dir, "missing.txt"), in, out}, []string{"missing.txt"}},
		{[]string{filepath.Join(dir, "missing.svmgo"), out}, []string{"missing.svmgo"}},
		{[]string{notModel, out}, []string{"not.model", "not a model file"}},
		{[]string{in, filepath.Join(dir, "nodir", "out.q")}, []string{"nodir"}},
	} {
		code, stdout, errs := svmgo(t, append([]string{"quantize"}, c.args...)...)
		if code != 1 || stdout != "" {
			t.Errorf("quantize %v: exit %d, stdout %q; want 1 and nothing", c.args, code, stdout)
		}
		ok := strings.Count(errs, "\n") == 1
		for _, w := range c.want {
			ok = ok && strings.Contains(errs, w)
		}
		if !ok {
			t.Errorf("quantize %v: stderr %q, want one line with %q", c.args, errs, c.want)
		}
	}
	for _, args := range [][]string{{}, {in}, {in, out, out}, {"--frobnicate", in, out}, {"--bits"}, {in, out, "--bits", "16"}} {
		code, stdout, errs := svmgo(t, append([]string{"quantize"}, args...)...)
		if code != 2 || stdout != "" || !strings.Contains(errs, "usage: svmgo quantize") {
			t.Errorf("quantize %q: exit %d, stdout %q, stderr %q; want the usage and 2", args, code, stdout, errs)
		}
	}
	for _, h := range []string{"-h", "--help"} {
		if code, stdout, _ := svmgo(t, "quantize", h); code != 0 || !strings.HasPrefix(stdout, "usage: svmgo quantize") {
			t.Errorf("quantize %s: exit %d, %q", h, code, stdout)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case "heart.svmgo", "heart.q8", "bad.txt", "not.model":
		default:
			t.Errorf("%s left behind", e.Name())
		}
	}
}

// TestPredictQuantized: svmgo predict reads quantized model files of both
// kinds and prints and writes what it does for float ones. The prediction
// lines are the quantized model's own PredictDense, row by row in the
// test; the accuracy line is the float model's format, with the counts of
// those predictions; int16 and int8 accuracies are within issue 6's
// tolerances of the float model's, whose line the same command prints.
func TestPredictQuantized(t *testing.T) {
	dir := t.TempDir()
	heartTest := "../../../examples/data/heart_scale.test"
	for _, c := range []struct {
		name     string
		train    []string
		trainF   string
		testF    string
		suffix   string // of the accuracy line
		prologue string // the line before it
	}{
		{"RBF digits", []string{"train"}, dataDir + "digits.train", dataDir + "digits.test", " (classification)", ""},
		{"linear digits", []string{"train-linear", "-s", "3", "-B", "1"}, dataDir + "digits.train", dataDir + "digits.test", "", ""},
		{"linear heart_scale", []string{"train-linear"}, "../../../examples/data/heart_scale.train", heartTest, "", ""},
		{"RBF heart_scale -b 1", []string{"train", "-b", "1"}, "../../../examples/data/heart_scale.train", heartTest,
			" (classification)", "Model supports probability estimates, but disabled in prediction.\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
			args := append(append(append([]string(nil), c.train...), "-q"), c.trainF, model)
			if code, _, errs := svmgo(t, args...); code != 0 {
				t.Fatal(errs)
			}
			ds, err := data.ReadFile(c.testF, data.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			code, out, errs := svmgo(t, "predict", c.testF, model, model+".out")
			if code != 0 {
				t.Fatal(errs)
			}
			var floatCorrect, total int
			if _, err := fmt.Sscanf(strings.TrimPrefix(out, c.prologue), "Accuracy = %g%% (%d/%d)", new(float64), &floatCorrect, &total); err != nil || total != ds.Len() {
				t.Fatalf("float predict printed %q (%v)", out, err)
			}
			for _, bits := range []int{16, 8} {
				qpath := fmt.Sprintf("%s.q%d", model, bits)
				if code, _, errs := svmgo(t, "quantize", "--no-timing", "--bits", strconv.Itoa(bits), model, qpath); code != 0 {
					t.Fatal(errs)
				}
				q, err := modelfile.ReadFileAs[quantize.Model](qpath)
				if err != nil {
					t.Fatal(err)
				}
				pred := make([]float64, ds.Len())
				var want bytes.Buffer
				for i := range pred {
					pred[i] = q.PredictDense(ds.DenseRow(i))
					want.WriteString(strconv.FormatFloat(pred[i], 'g', -1, 64) + "\n")
				}
				s := core.ScorePredictions(pred, ds.Labels(), false)
				code, out, errs := svmgo(t, "predict", c.testF, qpath, qpath+".out")
				if code != 0 {
					t.Fatalf("predict int%d: exit %d: %s", bits, code, errs)
				}
				wantOut := c.prologue + fmt.Sprintf("Accuracy = %.6g%% (%d/%d)%s\n", 100*s.Accuracy(), s.Correct, s.Total, c.suffix)
				if out != wantOut {
					t.Errorf("predict int%d printed %q, want %q", bits, out, wantOut)
				}
				if got, err := os.ReadFile(qpath + ".out"); err != nil || !bytes.Equal(got, want.Bytes()) {
					t.Errorf("predict int%d: output file differs from the model's PredictDense (%v)", bits, err)
				}
				tol := map[int]float64{8: int8AccuracyPoints, 16: int16AccuracyPoints}[bits]
				if d := 100 * math.Abs(float64(s.Correct-floatCorrect)) / float64(total); d > tol {
					t.Errorf("int%d: %d/%d correct, float %d/%d: %.4f points apart", bits, s.Correct, total, floatCorrect, total, d)
				}
			}
		})
	}
}

// TestPredictQuantizedProbability: predict -b 1 with a quantized C-SVC
// model writes svm-predict's probability layout with the quantized model's
// own ProbabilityDense; a quantized ε-SVR model prints the Laplace note
// with its float model's σ; -b 1 is refused for a quantized linear model
// and for a kernel model without probability estimates.
func TestPredictQuantizedProbability(t *testing.T) {
	dir := t.TempDir()
	train, test := "../../../examples/data/heart_scale.train", "../../../examples/data/heart_scale.test"
	ds, err := data.ReadFile(test, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	model, q16 := filepath.Join(dir, "prob.svmgo"), filepath.Join(dir, "prob.q16")
	if code, _, errs := svmgo(t, "train", "-q", "-b", "1", "-c", "4", train, model); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := svmgo(t, "quantize", "--no-timing", "--bits", "16", model, q16); code != 0 {
		t.Fatal(errs)
	}
	qm, err := modelfile.ReadFileAs[quantize.Model](q16)
	if err != nil {
		t.Fatal(err)
	}
	k := qm.(*quantize.Kernel)
	want := "labels " + joinInt32s(k.Labels()) + "\n"
	p := make([]float64, k.NumClasses())
	correct := 0
	for i := range ds.Len() {
		k.ProbabilityDense(p, ds.DenseRow(i))
		best := 0
		for c := range p {
			if p[c] > p[best] {
				best = c
			}
		}
		if float64(k.Labels()[best]) == ds.Label(i) {
			correct++
		}
		want += strconv.Itoa(int(k.Labels()[best]))
		for _, v := range p {
			want += fmt.Sprintf(" %.6g", v)
		}
		want += "\n"
	}
	code, out, errs := svmgo(t, "predict", "-b", "1", test, q16, q16+".out")
	if code != 0 {
		t.Fatal(errs)
	}
	if w := fmt.Sprintf("Accuracy = %.6g%% (%d/%d) (classification)\n", 100*float64(correct)/float64(ds.Len()), correct, ds.Len()); out != w {
		t.Errorf("predict -b 1 printed %q, want %q", out, w)
	}
	if got, err := os.ReadFile(q16 + ".out"); err != nil || string(got) != want {
		t.Errorf("predict -b 1 output differs from ProbabilityDense's (%v):\n%.200s\nwant\n%.200s", err, got, want)
	}

	svr, svrQ := filepath.Join(dir, "svr.svmgo"), filepath.Join(dir, "svr.q8")
	if code, _, errs := svmgo(t, "train", "-q", "-s", "3", "-b", "1", train, svr); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := svmgo(t, "quantize", "--no-timing", svr, svrQ); code != 0 {
		t.Fatal(errs)
	}
	fsvr, err := modelfile.ReadFileAs[*core.KernelModel](svr)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs = svmgo(t, "predict", "-b", "1", test, svrQ, svrQ+".out")
	if note := fmt.Sprintf("z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma=%.6g\n", fsvr.ProbA[0]); code != 0 ||
		!strings.HasPrefix(out, "Prob. model for test data: target value = predicted value + z,\n"+note) ||
		!strings.Contains(out, "Mean squared error = ") {
		t.Errorf("predict -b 1 with a quantized ε-SVR model: exit %d, %q%s", code, out, errs)
	}

	lin, linQ := filepath.Join(dir, "lin.svmgo"), filepath.Join(dir, "lin.q8")
	rbf, rbfQ := filepath.Join(dir, "rbf.svmgo"), filepath.Join(dir, "rbf.q8")
	for _, c := range [][]string{{"train-linear", "-q", train, lin}, {"quantize", lin, linQ}, {"train", "-q", train, rbf}, {"quantize", rbf, rbfQ}} {
		if code, _, errs := svmgo(t, c...); code != 0 {
			t.Fatal(errs)
		}
	}
	for _, c := range []struct{ model, want string }{
		{linQ, "needs a logistic regression model (-s 0, -s 7) or an SVC model trained with -b 1"},
		{rbfQ, "model does not support probability estimates"},
	} {
		code, out, errs := svmgo(t, "predict", "-b", "1", test, c.model, filepath.Join(dir, "p.out"))
		if code != 1 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) || !strings.Contains(errs, c.model) {
			t.Errorf("predict -b 1 %s: exit %d, stdout %q, stderr %q", c.model, code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "p.out")); !os.IsNotExist(err) {
		t.Error("a refused predict left its output file")
	}
}

// TestQuantizeLargeSparseModel: a kernel model of 8000 sparse support
// vectors (10 of 200 features each) quantizes to the sparse layout, whose
// index stream (about 11 bytes a support vector) is past 64 KiB, as
// Fashion-MNIST's int16 model's is (2.3 MB). The command must write a file
// that svmgo predict reads, and predict must print the counts of the
// quantized model's own predictions.
func TestQuantizeLargeSparseModel(t *testing.T) {
	const l, nf, nnz = 8000, 200, 10
	rng := rand.New(rand.NewPCG(1, 2))
	sv := data.NewSparse(l, l*nnz, nf)
	coef := make([]float64, l)
	for i := range l {
		var idx []int32
		var val []float32
		for j := 0; j < nf && len(idx) < nnz; j += 1 + rng.IntN(nf/nnz) {
			idx, val = append(idx, int32(j)), append(val, float32(rng.Float64()))
		}
		if err := sv.AppendSparse(0, idx, val); err != nil {
			t.Fatal(err)
		}
		coef[i] = 1 - 2*float64(i*2/l) // +1 for the first class, −1 for the second
	}
	m := &core.KernelModel{SVMType: core.CSVC, Kernel: core.Kernel{Type: core.RBFKernel, Gamma: 0.1}, NumFeatures: nf,
		Labels: []int32{1, -1}, NumSV: []int32{l / 2, l / 2}, SV: sv, Coef: coef, Rho: []float64{0.1}}
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	float, test := filepath.Join(dir, "sparse.svmgo"), filepath.Join(dir, "test.txt")
	if err := modelfile.WriteFile(float, m); err != nil {
		t.Fatal(err)
	}
	// Test rows: the first support vectors with their class as label.
	var text strings.Builder
	for i := range 20 {
		idx, val := sv.SparseRow(i * l / 20)
		text.WriteString(map[bool]string{true: "1", false: "-1"}[i < 10])
		for k := range idx {
			fmt.Fprintf(&text, " %d:%g", idx[k]+1, val[k])
		}
		text.WriteByte('\n')
	}
	if err := os.WriteFile(test, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := data.ReadFile(test, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bits := range []int{8, 16} {
		q := filepath.Join(dir, fmt.Sprintf("sparse.q%d", bits))
		if code, _, errs := svmgo(t, "quantize", "--no-timing", "--bits", strconv.Itoa(bits), float, q); code != 0 {
			t.Errorf("quantize --bits %d: exit %d: %s", bits, code, errs)
			continue
		}
		qm, err := modelfile.ReadFileAs[quantize.Model](q)
		if err != nil {
			t.Fatal(err)
		}
		if k := qm.(*quantize.Kernel); k.DenseLayout() {
			t.Errorf("int%d: dense layout, want the sparse one", bits)
		}
		pred := make([]float64, ds.Len())
		for i := range pred {
			idx, val := ds.SparseRow(i)
			pred[i] = qm.PredictSparse(idx, val)
		}
		s := core.ScorePredictions(pred, ds.Labels(), false)
		code, out, errs := svmgo(t, "predict", test, q, q+".out")
		if want := fmt.Sprintf("Accuracy = %.6g%% (%d/%d) (classification)\n", 100*s.Accuracy(), s.Correct, s.Total); code != 0 || out != want {
			t.Errorf("predict int%d: exit %d, %q%s; want %q", bits, code, out, errs, want)
		}
	}
}

// batchVerdictPattern is the quantize report's batch predict line.
var batchVerdictPattern = regexp.MustCompile(`^([0-9]+\.[0-9]{2})× model_in's (?:CPU|wall) time \(PredictBatch on (.+), one goroutine, median of 5 alternated rounds' ratios\): (pays|on a par with model_in \(within 5%, this timing's noise\)|does not pay \((.+)\); quantize for size, predict batches with model_in for speed)$`)

// checkBatchVerdict checks a measured batch predict line: timed on at most
// `most` of the rows named (fewer when a call is slow), and its verdict the
// one its ratio gives (pays at most 1, on a par up to 1.05, else does not
// pay, with a reason).
func checkBatchVerdict(t *testing.T, line, rowsTimed string, most int) {
	t.Helper()
	m := batchVerdictPattern.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("batch predict %q: not a measured verdict", line)
	}
	n, what, _ := strings.Cut(m[2], " ")
	if k, err := strconv.Atoi(n); err != nil || k < 1 || k > most || what != rowsTimed {
		t.Errorf("batch predict timed on %q, want 1 to %d %s", m[2], most, rowsTimed)
	}
	ratio, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	// The ratio is printed rounded: at the edges either verdict fits.
	want := map[string]bool{}
	switch {
	case ratio < 0.995:
		want["pays"] = true
	case ratio <= 1.005:
		want["pays"], want["on a par"] = true, true
	case ratio < 1.045:
		want["on a par"] = true
	case ratio <= 1.055:
		want["on a par"], want["does not pay"] = true, true
	default:
		want["does not pay"] = true
	}
	got := strings.SplitN(m[3], " (", 2)[0]
	if got == "on a par with model_in" {
		got = "on a par"
	}
	if !want[got] {
		t.Errorf("batch predict %q: verdict %q does not fit the ratio %v", line, got, ratio)
	}
}

// TestQuantizeBatchVerdict: without --check a kernel model is timed on its
// own support vectors, and a linear model is not timed.
func TestQuantizeBatchVerdict(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ cmd, want string }{{"train", "kernel"}, {"train-linear", "linear"}} {
		in, out := filepath.Join(dir, c.want+".svmgo"), filepath.Join(dir, c.want+".q8")
		if code, _, errs := svmgo(t, c.cmd, "-q", dataDir+"breast_cancer.train", in); code != 0 {
			t.Fatalf("%s: %s", c.cmd, errs)
		}
		code, stdout, errs := svmgo(t, "quantize", in, out)
		if code != 0 {
			t.Fatalf("quantize %s: %s", in, errs)
		}
		line := rowsOf(t, stdout)["batch predict"]
		if c.want == "linear" {
			if !strings.HasPrefix(line, "not timed (give --check test_file") {
				t.Errorf("linear model without --check: batch predict %q", line)
			}
			continue
		}
		m := readFloat(t, in)
		checkBatchVerdict(t, line, "support vectors of model_in", min(m.kernel.SV.Len(), batchSampleRows))
	}
}

// TestTimedRows: the rows a batch timing keeps, never more than it has
// (50 rows whose call took a second once asked for a block of 128).
func TestTimedRows(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		n    int
		d    time.Duration
		want int
	}{
		{512, 5 * ms, 512},    // fast: all
		{512, 40 * ms, 128},   // a round's worth is 128
		{512, 80 * ms, 128},   // 64 a round, but a block takes 20 ms
		{512, 800 * ms, 64},   // a block would take 200 ms: ten rounds' worth
		{512, 100000 * ms, 1}, // at least one
		{50, 1000 * ms, 5},    // ten rounds' worth of 50 rows
		{50, 20 * ms, 50},     // a block is more than there is
		{100, 11 * ms, 100},   // a block: all 100
	} {
		if got := timedRows(c.n, c.d); got != c.want {
			t.Errorf("timedRows(%d, %v) = %d, want %d", c.n, c.d, got, c.want)
		}
	}
}

// TestQuantizeRefusesUnfaithful: a kernel model whose int8 codes change the
// labels of its own support vectors (a feature deciding within [0, 0.02]
// whose range two outliers stretch to [−1, 1], shuttle's shape) is refused
// with the reason and not written; --force writes it, and 16 bits pass.
func TestQuantizeRefusesUnfaithful(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 400 {
		x0 := 0.02 * float64((i*37)%400) / 400
		y := -1
		if x0 > 0.01 {
			y = 1
		}
		fmt.Fprintf(&b, "%d 1:%g 2:%g\n", y, x0, float64((i*91)%400)/400)
	}
	b.WriteString("1 1:-1 2:0.5\n1 1:1 2:0.5\n")
	train := filepath.Join(dir, "outliers.train")
	if err := os.WriteFile(train, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "m.svmgo")
	if code, _, errs := svmgo(t, "train", "-q", "-c", "100", "-g", "1000", train, in); code != 0 {
		t.Fatal(errs)
	}
	q8 := filepath.Join(dir, "m.q8")
	code, stdout, errs := svmgo(t, "quantize", "--no-timing", in, q8)
	if code != 1 || stdout != "" || !strings.Contains(errs, "m.q8 not written") ||
		!strings.Contains(errs, "features 1 (LIBSVM indices)") || !strings.Contains(errs, "--force") {
		t.Fatalf("int8: exit %d, stdout %q, stderr %q; want a refusal naming feature 1", code, stdout, errs)
	}
	if _, err := os.Stat(q8); !os.IsNotExist(err) {
		t.Fatalf("int8: %s written (%v)", q8, err)
	}
	for _, args := range [][]string{{"--force", in, q8}, {"--bits", "16", in, filepath.Join(dir, "m.q16")}} {
		code, stdout, errs := svmgo(t, append([]string{"quantize", "--no-timing"}, args...)...)
		row := rowsOf(t, stdout)["support vectors"]
		if code != 0 || errs != "" || !strings.HasPrefix(row, "labels of ") {
			t.Fatalf("quantize %v: exit %d, stderr %q, support vectors row %q", args, code, errs, row)
		}
		if strings.HasPrefix(row, "labels of 0 of") == (args[0] == "--force") {
			t.Fatalf("quantize %v: support vectors row %q", args, row)
		}
	}
}
