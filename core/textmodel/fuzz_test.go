package textmodel

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// The fuzz targets of the two text-model readers, whose input is a file
// from anywhere (svmgo import). `go test` runs their seeds; `go test
// -fuzz FuzzReadLIBSVMModel ./core/textmodel` searches further.
//
// What must hold for any bytes: no panic, no hang; an error is a
// "name:..." error wrapping data.ErrSyntax, core.ErrParams or a line-limit
// error; a model that is returned validates and predicts a row of its width
// (all zeros, all ones) with one decision value a class pair or weight
// vector, without a panic.

// fuzzName is the file name the readers are given.
const fuzzName = "fuzz.model"

// fuzzMaxPredictFeatures bounds the width of the rows the targets predict:
// a header may claim 2³¹ features for a model of a few bytes.
const fuzzMaxPredictFeatures = 1 << 16

// addFileSeed adds the bytes of testdata file name (core/testdata) to f's
// corpus.
func addFileSeed(f *testing.F, name string) {
	b, err := os.ReadFile("../testdata/" + name)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}

// checkReadError checks that a read that returned no model returned an
// error that says which file it is about and wraps one of the readers'
// documented errors.
func checkReadError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("no model and no error")
	}
	if !strings.HasPrefix(err.Error(), fuzzName+":") {
		t.Fatalf("error %q does not start with the file name %q", err, fuzzName+":")
	}
	if !errors.Is(err, data.ErrSyntax) && !errors.Is(err, core.ErrParams) && !errors.Is(err, data.ErrLineTooLong) {
		t.Fatalf("error %q wraps none of ErrSyntax, ErrParams, ErrLineTooLong", err)
	}
}

// readModel is what both readers' models offer that the targets check.
type readModel interface {
	Validate() error
	NumDecisionValues() int
	DecisionDense(dst []float64, x []float32) []float64
	PredictSparse(index []int32, value []float32) float64
}

// checkReadModel checks a model a reader returned (with err, which must
// be nil): it validates and predicts rows of its width, numFeatures.
func checkReadModel(t *testing.T, err error, m readModel, numFeatures int) {
	t.Helper()
	if err != nil {
		t.Fatalf("error %v with a model", err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("a model read without error does not validate: %v", err)
	}
	checkPredicts(t, numFeatures, m.NumDecisionValues(), m.DecisionDense)
	if numFeatures <= fuzzMaxPredictFeatures {
		m.PredictSparse(nil, nil)
	}
}

// checkPredicts predicts an all-zeros and an all-ones row of m's width
// through decide, which must fill want decision values.
func checkPredicts(t *testing.T, numFeatures, want int, decide func(dst []float64, x []float32) []float64) {
	t.Helper()
	if numFeatures > fuzzMaxPredictFeatures {
		return
	}
	x := make([]float32, numFeatures)
	for _, v := range []float32{0, 1} {
		for j := range x {
			x[j] = v
		}
		if dec := decide(make([]float64, want), x); len(dec) != want {
			t.Fatalf("row of %v: %d decision values, want %d", v, len(dec), want)
		}
	}
}

// withWatchdog fails the run when read takes longer than a read of a few
// kilobytes can.
func withWatchdog(what string, n int, read func()) {
	watchdog := time.AfterFunc(10*time.Second, func() {
		panic(what + ": a read of " + strconv.Itoa(n) + " bytes hangs")
	})
	defer watchdog.Stop()
	read()
}

func FuzzReadLIBSVMModel(f *testing.F) {
	addFileSeed(f, "heart_scale.libsvm.model")
	f.Add([]byte("svm_type c_svc\nkernel_type linear\nnr_class 3\ntotal_sv 3\nrho 0.5 -1 2\nlabel 1 2 3\nnr_sv 1 1 1\nSV\n" +
		"1 0 1:1\n-1 1 2:0.5 4:1\n0 -1 3:-2\n"))
	f.Add([]byte("svm_type one_class\nkernel_type polynomial\ndegree 3\ngamma 0.5\ncoef0 1\nnr_class 2\ntotal_sv 2\nrho 0.1\nSV\n" +
		"0.5 1:1\n0.5 2:1\n"))
	f.Add([]byte("svm_type epsilon_svr\nkernel_type sigmoid\ngamma 0.25\ncoef0 -1\nnr_class 2\ntotal_sv 1\nrho -0.2\nSV\n2 1:1e3\n\n"))
	f.Add([]byte("svm_type nu_svc\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 -1\nnr_sv 1 1\n" +
		"probA -1.5\nprobB 0.1\nSV\n1 1:1\n-1 1:-1\n"))
	f.Add([]byte("svm_type nu_svr\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 0\nrho 0\nSV\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m *core.KernelModel
		var err error
		withWatchdog("FuzzReadLIBSVMModel", len(b), func() { m, err = ReadLIBSVMModel(bytes.NewReader(b), fuzzName) })
		if m == nil {
			checkReadError(t, err)
			return
		}
		checkReadModel(t, err, m, m.NumFeatures)
	})
}

func FuzzReadLIBLINEARModel(f *testing.F) {
	for _, name := range []string{"heart_scale.liblinear.model", "heart_scale.lr.model"} {
		addFileSeed(f, name)
	}
	f.Add([]byte("solver_type MCSVM_CS\nnr_class 2\nlabel 2 1\nnr_feature 2\nbias 1\nw\n1 -1\n0.5 0\n-2 2\n"))
	f.Add([]byte("solver_type L1R_L2LOSS_SVC\nnr_class 3\nlabel 1 2 3\nnr_feature 2\nbias -1\nw\n0 0 1\n0.5 0 0\n"))
	f.Add([]byte("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 3\nbias -1\nw\n1 2\n3\n"))
	f.Add([]byte("solver_type L1R_LR\nnr_class 2\nlabel 0 1\nnr_feature 1\nbias 0.5\nw\n0\n1e-3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m *linear.LinearModel
		var err error
		withWatchdog("FuzzReadLIBLINEARModel", len(b), func() { m, err = ReadLIBLINEARModel(bytes.NewReader(b), fuzzName) })
		if m == nil {
			checkReadError(t, err)
			return
		}
		checkReadModel(t, err, m, m.NumFeatures)
	})
}
