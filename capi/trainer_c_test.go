package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/options"
)

// denseRows reads rows [from, to) of a data file as dense rows of width nf
// (features past nf dropped) with their labels; to < 0 means the end.
func denseRows(t *testing.T, path string, from, to, nf int) (labels []float64, x []float32) {
	t.Helper()
	ds, err := data.ReadFile(path, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if to < 0 {
		to = ds.Len()
	}
	for i := from; i < to; i++ {
		row := make([]float32, nf)
		if ds.IsDense() {
			copy(row, ds.DenseRow(i))
		} else {
			idx, val := ds.SparseRow(i)
			for k, j := range idx {
				if int(j) < nf {
					row[j] = val[k]
				}
			}
		}
		labels = append(labels, ds.Label(i))
		x = append(x, row...)
	}
	return labels, x
}

// TestTrainerFromC trains through the C ABI (rows added in all four
// layouts, rows removed, warm fits) and checks each model against the Go
// API given the same rows and options, byte for byte, and the accuracy of
// the last one.
func TestTrainerFromC(t *testing.T) {
	exe := compileC(t, "trainer", false)
	cases := []struct {
		name, options     string
		train, test       string
		trainTo, testFrom int
		nf                int
		sparse            bool
		minAccuracy       float64 // 0: regression, not checked
	}{
		{"heart_scale dense", "-s 1 -B 1", "heart_scale", "heart_scale", 200, 200, 13, false, 0.80},
		{"heart_scale sparse", "-s 3 -c 2 -B 1", "heart_scale", "heart_scale", 200, 200, 13, true, 0.80},
		{"digits sparse", "-s 1 -B 1 -e 0.05", "digits.train", "digits.test", -1, 0, 64, true, 0.90},
		{"diabetes dense", "-s 12 -B 1 -c 0.5", "diabetes.train", "diabetes.test", -1, 0, 10, false, 0},
		{"heart_scale RBF dense", "-t 2 -c 10", "heart_scale", "heart_scale", 200, 200, 13, false, 0.70},
		{"heart_scale RBF sparse", "-s 0 -t 2 -c 10 -e 0.01", "heart_scale", "heart_scale", 200, 200, 13, true, 0.70},
		{"diabetes ε-SVR sparse", "-s 3 -t 2 -c 4 -p 0.1", "diabetes.train", "diabetes.test", -1, 0, 10, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			labels, x := denseRows(t, filepath.Join("../core/testdata", c.train), 0, c.trainTo, c.nf)
			testLabels, testX := denseRows(t, filepath.Join("../core/testdata", c.test), c.testFrom, -1, c.nf)
			n := len(labels)
			capRows := n + 10
			capNNZ := 0
			if c.sparse {
				capNNZ = n*c.nf + 100
			}
			// Every 7th row goes, listed from the back: any order works.
			var remove []int
			for i := n - 1; i >= 0; i-- {
				if i%7 == 3 {
					remove = append(remove, i)
				}
			}

			dir := t.TempDir()
			dataPath := filepath.Join(dir, "data")
			writeRaw(t, dataPath+".labels", labels)
			writeRaw(t, dataPath+".f32", x)
			x64 := make([]float64, len(x))
			for i, v := range x {
				x64[i] = float64(v)
			}
			writeRaw(t, dataPath+".f64", x64)
			var indptr []int64
			var indices []int32
			var v32 []float32
			var v64 []float64
			indptr = append(indptr, 0)
			for i := range n {
				for j, v := range x[i*c.nf : (i+1)*c.nf] {
					if v != 0 {
						indices = append(indices, int32(j))
						v32 = append(v32, v)
						v64 = append(v64, float64(v))
					}
				}
				indptr = append(indptr, int64(len(indices)))
			}
			writeRaw(t, dataPath+".indptr", indptr)
			writeRaw(t, dataPath+".indices", indices)
			writeRaw(t, dataPath+".v32", v32)
			writeRaw(t, dataPath+".v64", v64)
			removeU := make([]uint64, len(remove))
			for i, r := range remove {
				removeU[i] = uint64(r)
			}
			writeRaw(t, filepath.Join(dir, "remove"), removeU)
			writeRaw(t, filepath.Join(dir, "test.f32"), testX)
			out := filepath.Join(dir, "out")
			runC(t, exe, c.options, strconv.Itoa(capRows), strconv.Itoa(c.nf), strconv.Itoa(capNNZ), dataPath,
				strconv.Itoa(n), filepath.Join(dir, "remove"), strconv.Itoa(len(remove)),
				filepath.Join(dir, "test"), strconv.Itoa(len(testLabels)), out)

			// The same steps through the Go API.
			var ds *data.Dataset
			if c.sparse {
				ds = data.NewSparse(capRows, capNNZ, c.nf)
			} else {
				ds = data.NewDense(capRows, c.nf)
			}
			appendRows := func(from, to int) {
				for i := from; i < to; i++ {
					if err := ds.AppendDense(labels[i], x[i*c.nf:(i+1)*c.nf]); err != nil {
						t.Fatal(err)
					}
				}
			}
			var files [3][]byte
			var predict3 func(x []float32) float64
			var info3 core.FitSummary
			wantUnit := 0.0
			if options.KernelSyntax(strings.Fields(c.options)) {
				files, predict3, info3 = kernelSteps(t, c.options, ds, appendRows, n, remove, capRows, c.nf)
				wantUnit = 2 // SVMGO_WORK_KERNEL_EVALS
			} else {
				files, predict3, info3 = linearSteps(t, c.options, ds, appendRows, n, remove, capRows, c.nf)
				wantUnit = 1 // SVMGO_WORK_ROWS_READ
			}
			// svmgo_trainer_fit_info reports the last fit as the Go API's
			// run of the same steps does.
			converged := 0.0
			if info3.Converged {
				converged = 1
			}
			sameBits(t, "fit info", readFloat64s(t, out+".info"), []float64{float64(info3.Iterations),
				float64(info3.Work), info3.Objective, float64(info3.NumSV), converged, wantUnit})
			for i, want := range files {
				name := "m" + strconv.Itoa(i+1)
				got, err := os.ReadFile(out + "." + name + ".svmgo")
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s: the C-trained model file differs from the Go API's", name)
				}
			}
			pred := readFloat64s(t, out+".pred")
			want := make([]float64, len(testLabels))
			for i := range want {
				want[i] = predict3(testX[i*c.nf : (i+1)*c.nf])
			}
			sameBits(t, "predictions", pred, want)
			if c.minAccuracy > 0 {
				correct := 0
				for i, y := range testLabels {
					if pred[i] == y {
						correct++
					}
				}
				acc := float64(correct) / float64(len(testLabels))
				t.Logf("accuracy %.4f (%d/%d)", acc, correct, len(testLabels))
				if acc < c.minAccuracy {
					t.Errorf("accuracy %.4f (%d/%d), want at least %.2f", acc, correct, len(testLabels), c.minAccuracy)
				}
			}
		})
	}
}

// linearSteps runs trainer.c's steps (fit; remove; add 5, fit warm; add
// 3, remove 2, fit warm) through core's linear trainer on ds, empty, and
// returns the three model files, the last model's label function and the
// last run's summary.
func linearSteps(t *testing.T, opts string, ds *data.Dataset, appendRows func(from, to int), n int, remove []int, capRows, nf int) ([3][]byte, func([]float32) float64, core.FitSummary) {
	t.Helper()
	o, _, err := options.ParseLinear(strings.Fields(opts))
	if err != nil {
		t.Fatal(err)
	}
	// As core.Dual.Extended: the primal Newton state is kept (the C ABI
	// trainer's keeps it, core.NewTrainer, and removals cut it).
	extend := func(d *linear.LinearDual) *linear.LinearDual {
		w := &linear.LinearDual{Labels: d.Labels, Gradient: d.Gradient}
		for _, a := range d.Alpha {
			w.Alpha = append(w.Alpha, append(append([]float64(nil), a...), make([]float64, ds.Len()-len(a))...))
		}
		return w
	}
	tr, err := linear.NewLinearTrainer(o.Incremental(), capRows, nf)
	if err != nil {
		t.Fatal(err)
	}
	tr.KeepGradient()
	appendRows(0, n)
	m1, d1, err := tr.Train(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.DeleteRows(remove); err != nil {
		t.Fatal(err)
	}
	if err := d1.DeleteRows(remove); err != nil {
		t.Fatal(err)
	}
	appendRows(0, 5)
	m2, d2, err := tr.TrainFrom(ds, extend(d1), linear.PrimalOf(m1))
	if err != nil {
		t.Fatal(err)
	}
	held := ds.Len()
	appendRows(5, 8)
	if err := ds.DeleteRows([]int{held + 2, 0}); err != nil {
		t.Fatal(err)
	}
	if err := d2.DeleteRows([]int{0}); err != nil {
		t.Fatal(err)
	}
	m3, _, err := tr.TrainFrom(ds, extend(d2), linear.PrimalOf(m2))
	if err != nil {
		t.Fatal(err)
	}
	var files [3][]byte
	for i, m := range []*linear.LinearModel{m1, m2, m3} {
		if m.NumFeatures != nf {
			t.Fatalf("m%d: the Go model has %d features, want %d: pick rows that use the last feature", i+1, m.NumFeatures, nf)
		}
		if files[i], err = modelfile.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	return files, m3.PredictDense, m3.Result.Summary()
}

// kernelSteps is linearSteps for a kernel trainer (LIBSVM's options),
// warm-started as the capi trainer does: kept rows' α, new rows at 0, the
// gradient passed on (DeleteRows drops it).
func kernelSteps(t *testing.T, opts string, ds *data.Dataset, appendRows func(from, to int), n int, remove []int, capRows, nf int) ([3][]byte, func([]float32) float64, core.FitSummary) {
	t.Helper()
	o, _, err := options.ParseKernel(strings.Fields(opts))
	if err != nil {
		t.Fatal(err)
	}
	extend := func(d *core.KernelDual) *core.KernelDual {
		w := &core.KernelDual{SVMType: d.SVMType, Pairs: d.Pairs, Gradient: d.Gradient}
		for _, a := range d.Alpha {
			w.Alpha = append(w.Alpha, append(append([]float64(nil), a...), make([]float64, ds.Len()-len(a))...))
		}
		return w
	}
	width := nf // kept columns, as the C ABI trainer's
	if !ds.IsDense() {
		width = min(nf, max(ds.CapNonzeros()/capRows, 1))
	}
	tr, err := core.NewKernelTrainer(o.Incremental(width), capRows, nf)
	if err != nil {
		t.Fatal(err)
	}
	appendRows(0, n)
	m1, d1, err := tr.Train(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.DeleteRows(remove); err != nil {
		t.Fatal(err)
	}
	if err := d1.DeleteRows(remove); err != nil {
		t.Fatal(err)
	}
	appendRows(0, 5)
	m2, d2, err := tr.Train(ds, extend(d1))
	if err != nil {
		t.Fatal(err)
	}
	held := ds.Len()
	appendRows(5, 8)
	if err := ds.DeleteRows([]int{held + 2, 0}); err != nil {
		t.Fatal(err)
	}
	if err := d2.DeleteRows([]int{0}); err != nil {
		t.Fatal(err)
	}
	m3, _, err := tr.Train(ds, extend(d2))
	if err != nil {
		t.Fatal(err)
	}
	var files [3][]byte
	for i, m := range []*core.KernelModel{m1, m2, m3} {
		if m.NumFeatures != nf {
			t.Fatalf("m%d: the Go model has %d features, want %d: pick rows that use the last feature", i+1, m.NumFeatures, nf)
		}
		if files[i], err = modelfile.MarshalKernel(m); err != nil {
			t.Fatal(err)
		}
	}
	return files, m3.PredictDense, m3.Result.Summary()
}
