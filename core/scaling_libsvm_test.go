package core

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// TestScaleMatchesLIBSVM is issue 16's acceptance for scaling inside the
// model: a model trained with --scale on the raw train file predicts the
// raw test file as LIBSVM (svm-train, svm-predict 3.24) and LIBLINEAR
// (2.3) predict it when trained and tested on the files svm-scale wrote
// (testdata/scaled/make.sh): the same labels, and for ε-SVR the same
// values to 1e-3 relative (svm-scale writes 6 significant digits, which
// the model does not round to).
func TestScaleMatchesLIBSVM(t *testing.T) {
	for _, c := range []struct {
		name, train, test string
		family            Family
		options           string
	}{
		{"digits-rbf", "digits.train", "digits.test", KernelFamily, "-s 0 -t 2 -c 1 --scale"},
		{"heart-rbf-l0", "heart_scale", "heart_scale", KernelFamily, "-s 0 -t 2 -c 1 --scale --scale-lower 0"},
		{"diabetes-svr", "diabetes.train", "diabetes.test", KernelFamily, "-s 3 -t 2 -c 100 -p 1 --scale"},
		{"digits-linear", "digits.train", "digits.test", LinearFamily, "-s 1 -c 1 --scale"},
		{"breast-linear", "breast_cancer.train", "breast_cancer.test", LinearFamily, "-s 2 -c 1 --scale --scale-lower 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, _, err := parseTrainParams(strings.Fields(c.options), c.family)
			if err != nil {
				t.Fatal(err)
			}
			read := func(name string) *data.Dataset {
				ds, err := data.ReadFile("testdata/"+name, data.ReadOptions{ClassLabels: o.ClassLabels()})
				if err != nil {
					t.Fatal(err)
				}
				return ds
			}
			train, test := read(c.train), read(c.test)
			// The command's path (svmgo train --scale).
			m, err := TrainModel(train, o)
			if err != nil {
				t.Fatal(err)
			}
			want := readPredictions(t, "testdata/scaled/"+c.name+".pred")
			got := m.PredictBatch(make([]float64, test.Len()), test)
			if len(want) != len(got) {
				t.Fatalf("%d reference predictions for %d rows", len(want), len(got))
			}
			differ, worst := 0, 0.0
			for i := range got {
				if o.IsRegression() {
					worst = max(worst, math.Abs(got[i]-want[i])/(1+math.Abs(want[i])))
				} else if got[i] != want[i] {
					differ++
				}
			}
			t.Logf("%d rows: %d labels differ, largest relative difference %.2g", len(got), differ, worst)
			if differ > 0 || worst > 1e-3 {
				t.Errorf("%d of %d labels differ from LIBSVM's on svm-scale'd files; values up to %.2g", differ, len(got), worst)
			}
		})
	}
}

func readPredictions(t *testing.T, path string) []float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var v []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		x, err := strconv.ParseFloat(strings.TrimSpace(sc.Text()), 64)
		if err != nil {
			t.Fatal(err)
		}
		v = append(v, x)
	}
	return v
}
