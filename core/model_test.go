package core

import (
	"math"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/model"
)

// TestModelInfo: Info describes each float kind as its own fields and
// methods do, allocates nothing, and LabelOf gives what PredictDense gives.
func TestModelInfo(t *testing.T) {
	lin := &linear.LinearModel{Solver: linear.L2LossSVCDual, Labels: []int32{3, 1, 2}, NumFeatures: 2, Bias: 1,
		W: []float32{1, -1, 0.5, 0.25, 2, -2, 0.1, 0.2, 0.3}}
	svr := &linear.LinearModel{Solver: linear.L2LossSVRDual, NumFeatures: 2, Bias: -1, W: []float32{1, 2}}
	if err := lin.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    Model
		want ModelInfo
	}{
		{lin, ModelInfo{Kind: KindLinear, Task: TaskClassification, NumFeatures: 2, Labels: lin.Labels, NumDecisionValues: 3}},
		{svr, ModelInfo{Kind: KindLinear, Task: TaskRegression, NumFeatures: 2, NumDecisionValues: 1}},
	} {
		got := c.m.Info()
		if got.Kind != c.want.Kind || got.Task != c.want.Task || got.NumFeatures != c.want.NumFeatures ||
			len(got.Labels) != len(c.want.Labels) || got.NumDecisionValues != c.want.NumDecisionValues ||
			got.Kernel || got.Bits != 0 || got.Probability || got.LaplaceScale != 0 {
			t.Errorf("Info = %+v, want %+v", got, c.want)
		}
		if n := testing.AllocsPerRun(100, func() { _ = c.m.Info() }); n != 0 {
			t.Errorf("Info allocates %v times", n)
		}
		for _, x := range [][]float32{{1, 2}, {-3, 0.5}, {0, 0}} {
			dec := c.m.DecisionDense(make([]float64, 3), x)
			if a, b := c.m.LabelOf(dec), c.m.PredictDense(x); math.Float64bits(a) != math.Float64bits(b) {
				t.Errorf("LabelOf %v, PredictDense %v on %v", a, b, x)
			}
		}
	}
	if TaskOf(EpsSVR) != TaskRegression || TaskOf(OneClass) != TaskOneClass || TaskOf(CSVC) != TaskClassification {
		t.Error("TaskOf maps an SVM type to the wrong task")
	}
	if TaskOneClass.String() != "one-class" {
		t.Errorf("TaskOneClass.String() = %q", TaskOneClass.String())
	}
}

// TestRepeatedLabel finds a repeat wherever it is, and none among
// distinct labels.
func TestRepeatedLabel(t *testing.T) {
	if l, ok := model.RepeatedLabel([]int32{5, -1, 7, 2, -1}); !ok || l != -1 {
		t.Errorf("model.RepeatedLabel = %d, %v; want -1", l, ok)
	}
	if _, ok := model.RepeatedLabel([]int32{5, -1, 7, 2}); ok {
		t.Error("model.RepeatedLabel found a repeat among distinct labels")
	}
}

func TestBatchRows(t *testing.T) {
	dst := make([]float64, 10)
	if got := BatchRows(dst, make([]float32, 12), 4, "f"); len(got) != 3 || &got[0] != &dst[0] {
		t.Errorf("BatchRows of 3 rows of 4 gave %d values (or another array)", len(got))
	}
	for _, c := range []struct{ n, nf int }{{12, 5}, {4, 0}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "f: matrix size") {
					t.Errorf("BatchRows(%d values, %d features) panicked with %v, want the size message", c.n, c.nf, r)
				}
			}()
			BatchRows(dst, make([]float32, c.n), c.nf, "f")
		}()
	}
}
