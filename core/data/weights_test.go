package data

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSetWeightRefusesBadWeights(t *testing.T) {
	ds := NewSparse(2, 2, 0)
	if err := ds.AppendSparse(1, []int32{0}, []float32{1}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if err := ds.SetWeight(0, w); !errors.Is(err, ErrBadWeight) {
			t.Errorf("SetWeight(%v) = %v, want ErrBadWeight", w, err)
		}
	}
	if ds.Weights() != nil || ds.Weight(0) != 1 {
		t.Errorf("a refused weight changed the data set: %v", ds.Weights())
	}
	if err := ds.SetWeight(0, 2.5); err != nil {
		t.Fatal(err)
	}
	if err := ds.AppendSparse(-1, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := ds.Weights(); !reflect.DeepEqual(got, []float64{2.5, 1}) {
		t.Errorf("weights %v, want [2.5 1] (an appended row weighs 1)", got)
	}
	if err := ds.DeleteRows([]int{0}); err != nil {
		t.Fatal(err)
	}
	if got := ds.Weights(); !reflect.DeepEqual(got, []float64{1}) {
		t.Errorf("after DeleteRows weights %v, want [1]", got)
	}
}

func TestReadWeightFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	w, err := ReadWeightFile(write("ok.wgt", "1\n2.5\n\n  0.125 \n1e1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w, []float64{1, 2.5, 0.125, 10}) {
		t.Errorf("weights %v", w)
	}
	for _, c := range []struct{ text, want string }{
		{"1\n-2\n", "bad.wgt:2: weight -2 is not positive and finite"},
		{"1\n1\nnan\n", "bad.wgt:3: weight nan is not positive and finite"},
		{"0\n", "bad.wgt:1: weight 0 is not positive and finite"},
		{"1\n2 3\n", `bad.wgt:2: weight "2 3" is not a number`},
		{"inf\n", "bad.wgt:1: weight inf is not positive and finite"},
	} {
		_, err := ReadWeightFile(write("bad.wgt", c.text))
		if err == nil || !strings.HasSuffix(err.Error(), c.want) || !errors.Is(err, ErrBadWeight) {
			t.Errorf("%q: error %v, want ...%s wrapping ErrBadWeight", c.text, err, c.want)
		}
	}
	ds := mustRead(t, "../testdata/heart_scale")
	err = ApplyWeightFile(ds, write("short.wgt", "1\n2\n"))
	if err == nil || !strings.Contains(err.Error(), "has 2 weights for 270 rows") {
		t.Errorf("count mismatch: %v", err)
	}
	text := strings.Repeat("1\n", 269) + "4\n"
	if err := ApplyWeightFile(ds, write("heart.wgt", text)); err != nil {
		t.Fatal(err)
	}
	if ds.Weight(269) != 4 || ds.Weight(0) != 1 {
		t.Errorf("weights %v %v", ds.Weight(0), ds.Weight(269))
	}
}

func TestCSVWeightColumn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.csv")
	if err := os.WriteFile(path, []byte("1,0.5,2,7\n-1,3,0,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := ReadFile(path, ReadOptions{WeightColumn: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 2 || ds.NumFeatures() != 2 || !reflect.DeepEqual(ds.Weights(), []float64{0.5, 3}) {
		t.Fatalf("rows %d, features %d, weights %v", ds.Len(), ds.NumFeatures(), ds.Weights())
	}
	if got := fmt.Sprint(ds.Dot(0, []float64{1, 10}), ds.Dot(1, []float64{1, 10})); got != "72 40" {
		t.Errorf("features read as %s, want 72 40", got)
	}
	// The last column as the weight.
	ds, err = ReadFile(path, ReadOptions{WeightColumn: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ds.Weights(), []float64{7, 4}) || ds.NumFeatures() != 2 {
		t.Errorf("weights %v, features %d", ds.Weights(), ds.NumFeatures())
	}
	if got := fmt.Sprint(ds.Dot(0, []float64{1, 10}), ds.Dot(1, []float64{1, 10})); got != "20.5 3" {
		t.Errorf("features read as %s, want 20.5 3", got)
	}
	for _, c := range []struct {
		text string
		col  int
		want string
	}{
		{"1,2,3\n1,-1,3\n", 2, "w.csv:2: column 2 (weight): -1 is not positive and finite"},
		{"1,2,3\n1,x,3\n", 2, "w.csv:2: column 2 (weight): "},
		{"1,2,3\n", 5, "w.csv:1: no weight column 5: the row has 3 columns"},
	} {
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(path, ReadOptions{WeightColumn: c.col})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q column %d: %v, want %s", c.text, c.col, err, c.want)
		}
	}
	if _, err := ReadFile("../testdata/heart_scale", ReadOptions{WeightColumn: 2}); !errors.Is(err, ErrBadWeight) {
		t.Errorf("LIBSVM file with a weight column: %v", err)
	}
}

// TestWeightedSolverAllocs: instance weights keep the solvers' iterations
// allocation-free (DCD passes, TRON, SMO).

func mustRead(t *testing.T, path string) *Dataset {
	t.Helper()
	ds, err := ReadFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}
