package core

import (
	"errors"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// TestTrainersRefuseUnusableCosts (issue 22, fault 10): an instance
// weight of 1.797e308 (or 1e308 beside 1e-308) made the objectives NaN, so
// the primal solvers stopped at once and called a garbage model
// converged (LinearSVC.fit and LogisticRegression.fit, through the C ABI,
// returned it); 5e-324 at C = 0.5 is a cost of 0, which SMO's bounds
// cannot be. Every trainer refuses such rows with an error wrapping
// ErrParams and data.ErrBadWeight, and still trains with a weight of 10⁶.
func TestTrainersRefuseUnusableCosts(t *testing.T) {
	ds, err := data.ReadFile("testdata/heart_scale", data.ReadOptions{ClassLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	options := []string{"-s 0", "-s 1", "-s 2", "-s 3", "-s 5", "-s 7", "-s 11", "-s 12", "-s 13",
		"-t 2", "-t 2 -s 1 -n 0.3", "-t 2 -s 2", "-t 2 -s 3", "-t 2 -s 4"}
	for _, c := range []struct {
		name    string
		weights map[int]float64 // row → weight; the others 1 or rest
		rest    float64
		refused bool
	}{
		{"1.797e308", map[int]float64{0: 1.797e308}, 1, true},
		{"1e308 beside 1e-308", map[int]float64{0: 1e308}, 1e-308, true},
		{"5e-324 at C = 0.5", map[int]float64{3: 5e-324}, 1, true},
		{"1e6", map[int]float64{0: 1e6}, 1, false},
	} {
		for i := range ds.Len() {
			w, ok := c.weights[i]
			if !ok {
				w = c.rest
			}
			if err := ds.SetWeight(i, w); err != nil {
				t.Fatal(err)
			}
		}
		for _, opt := range options {
			o, _, err := parseTrainParams(strings.Fields(opt+" -c 0.5"), 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = TrainModel(ds, o)
			refused := errors.Is(err, ErrParams) && errors.Is(err, data.ErrBadWeight)
			want := c.refused
			if c.name == "5e-324 at C = 0.5" && (o.Kernel.SVMType == NuSVC || o.Kernel.SVMType == OneClass) && o.IsKernel() {
				want = false // no C: the weight 5e-324 itself bounds α
			}
			if refused != want {
				t.Errorf("%s, %s: %v; want refused %v", c.name, opt, err, want)
			}
			if !want && err != nil && !strings.Contains(err.Error(), "nu is infeasible") {
				t.Errorf("%s, %s: %v", c.name, opt, err) // ν-SVC: 10⁶ rows by weight in one class
			}
		}
	}
}
