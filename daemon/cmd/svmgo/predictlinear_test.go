package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// probLines parses predict -b 1's output: the labels line and the rows.
func probLines(t *testing.T, path string) (header string, rows [][]float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for _, l := range lines[1:] {
		var row []float64
		for _, f := range strings.Fields(l) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return lines[0], rows
}

// TestPredictLinearProbabilities checks predict -b 1 on linear logistic
// regression models against liblinear-predict -b 1's output
// (core/testdata/heart_scale.lr.prob, of liblinear-train -s 0 -B 1
// -e 0.0001 heart_scale): the LIBLINEAR model imported gives its rows to
// the 6 digits printed, a model trained here (-s 0 and -s 7) to 10⁻³; and
// an SVC model gives probabilities only when trained with -b 1.
func TestPredictLinearProbabilities(t *testing.T) {
	dir := t.TempDir()
	wantHeader, want := probLines(t, dataDir+"heart_scale.lr.prob")
	imported := filepath.Join(dir, "imported.model")
	if code, _, errs := svmgo(t, "import", dataDir+"heart_scale.lr.model", imported); code != 0 {
		t.Fatalf("import: %s", errs)
	}
	models := map[string]float64{imported: 1e-5}
	for _, s := range []string{"0", "7"} {
		m := filepath.Join(dir, "lr"+s+".model")
		if code, _, errs := svmgo(t, "train-linear", "-q", "-s", s, "-B", "1", "-e", "0.0001", dataDir+"heart_scale", m); code != 0 {
			t.Fatalf("train-linear -s %s: %s", s, errs)
		}
		models[m] = 1e-3
	}
	for model, tol := range models {
		out := filepath.Join(dir, "out")
		code, stdout, errs := svmgo(t, "predict", "-b", "1", dataDir+"heart_scale", model, out)
		if code != 0 {
			t.Fatalf("predict -b 1 %s: %s", model, errs)
		}
		if stdout != "Accuracy = 84.4444% (228/270)\n" {
			t.Errorf("%s: predict printed %q", filepath.Base(model), stdout)
		}
		header, rows := probLines(t, out)
		if header != wantHeader || len(rows) != len(want) {
			t.Fatalf("%s: header %q, %d rows; LIBLINEAR %q, %d rows", filepath.Base(model), header, len(rows), wantHeader, len(want))
		}
		for i, row := range rows {
			for k, v := range row {
				w := want[i][k]
				if k == 0 && v != w || math.Abs(v-w) > tol*math.Max(w, 0.01) {
					t.Errorf("%s row %d: %v, LIBLINEAR %v", filepath.Base(model), i+1, row, want[i])
					break
				}
			}
		}
	}

	svc := filepath.Join(dir, "svc.model")
	if code, _, errs := svmgo(t, "train-linear", "-q", "-s", "2", dataDir+"digits.train", svc); code != 0 {
		t.Fatal(errs)
	}
	code, _, errs := svmgo(t, "predict", "-b", "1", dataDir+"digits.test", svc, filepath.Join(dir, "no"))
	if code == 0 || !strings.Contains(errs, "logistic regression model (-s 0, -s 7) or an SVC model trained with -b 1") {
		t.Errorf("predict -b 1 of an SVC model without -b 1: exit %d, %q", code, errs)
	}
	if code, _, errs := svmgo(t, "train-linear", "-q", "-s", "2", "-b", "1", dataDir+"digits.train", svc); code != 0 {
		t.Fatal(errs)
	}
	out := filepath.Join(dir, "svc.out")
	if code, _, errs := svmgo(t, "predict", "-b", "1", dataDir+"digits.test", svc, out); code != 0 {
		t.Fatal(errs)
	}
	header, rows := probLines(t, out)
	if len(strings.Fields(header)) != 11 || len(rows) != 360 {
		t.Fatalf("header %q, %d rows", header, len(rows))
	}
	for i, row := range rows {
		sum := 0.0
		for _, v := range row[1:] {
			sum += v
		}
		if math.Abs(sum-1) > 1e-5 { // ten values printed to 6 digits
			t.Errorf("row %d: probabilities sum to %v", i+1, sum)
		}
	}
}

// TestTrainLinearDualLRReport: train-linear -s 7 prints LIBLINEAR's report,
// which for -s 7 has no nSV line; liblinear-train -s 7 -e 0.0001
// heart_scale prints "Objective value = -98.226800".
func TestTrainLinearDualLRReport(t *testing.T) {
	model := filepath.Join(t.TempDir(), "m")
	code, out, errs := svmgo(t, "train-linear", "-s", "7", "-e", "0.0001", dataDir+"heart_scale", model)
	if code != 0 {
		t.Fatal(errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var obj float64
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "optimization finished, #iter = ") {
		t.Fatalf("report:\n%s", out)
	}
	if _, err := fmt.Sscanf(lines[1], "Objective value = %g", &obj); err != nil || math.Abs(obj+98.2268) > 1e-4*98.2268 {
		t.Errorf("report:\n%s(objective %v, LIBLINEAR -98.226800)", out, obj)
	}
}
