package quantize

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestShallowClones checks that the clones a scaled model shares its codes
// with copy every field but the pool and the scaling: a field added to
// Linear or Kernel and forgotten in shallowClone fails here.
func TestShallowClones(t *testing.T) {
	_, lin, ker, _, _ := scaledModels(t)
	for _, pair := range [][2]any{{lin.unscaled(), lin.unscaled().shallowClone()}, {ker.unscaled(), ker.unscaled().shallowClone()}} {
		a, b := reflect.ValueOf(pair[0]).Elem(), reflect.ValueOf(pair[1]).Elem()
		for i := range a.NumField() {
			name := a.Type().Field(i).Name
			if name == "pool" || name == "sc" || name == "batchW" { // batchW: the twin's batches are m's
				continue
			}
			if fa, fb := fmt.Sprint(a.Field(i)), fmt.Sprint(b.Field(i)); fa != fb {
				t.Errorf("%s.%s: clone has %.60s, model %.60s", a.Type().Name(), name, fb, fa)
			}
		}
	}
}

// scaledModels trains heart_scale behind a scaling onto [0, 1] and returns
// the scaled rows, 8-bit quantizations of the scaled linear and kernel
// models, and the quantizations of the same models without their scaling.
func scaledModels(t *testing.T) (*data.Dataset, *Linear, *Kernel, *Linear, *Kernel) {
	t.Helper()
	raw := dataset(t, "heart_scale")
	r, ds, err := core.ScaleTrainingRows(raw, core.ScaleParams{Enabled: true, Lower: -1, Upper: 1})
	if err != nil {
		t.Fatal(err)
	}
	lm, _, err := linear.TrainLinear(ds, linear.DefaultLinearParams())
	if err != nil {
		t.Fatal(err)
	}
	km, err := core.TrainKernelModel(ds, core.DefaultKernelParams())
	if err != nil {
		t.Fatal(err)
	}
	plainLin, err := QuantizeLinear(lm, 8)
	if err != nil {
		t.Fatal(err)
	}
	plainKer, err := QuantizeKernel(km, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := lm.SetScale(r); err != nil {
		t.Fatal(err)
	}
	if err := km.SetScale(r); err != nil {
		t.Fatal(err)
	}
	lin, err := QuantizeLinear(lm, 8)
	if err != nil {
		t.Fatal(err)
	}
	ker, err := QuantizeKernel(km, 8)
	if err != nil {
		t.Fatal(err)
	}
	if lin.Scale() != r || ker.Scale() != r || plainLin.Scale() != nil {
		t.Fatal("quantization lost the scaling")
	}
	return ds, lin, ker, plainLin, plainKer
}

// TestScaledQuantized checks that a quantized model keeps its float
// model's scaling through quantization and the file: on raw rows it gives
// exactly what the quantized unscaled model gives on the scaled rows
// (same codes, same scaled row up to the float32 rounding of the affine
// map), by every predict method, allocating nothing.
func TestScaledQuantized(t *testing.T) {
	scaled, lin, ker, plainLin, plainKer := scaledModels(t)
	raw := dataset(t, "heart_scale")
	for _, c := range []struct {
		name     string
		m, plain Model
	}{{"qlinear", lin, plainLin}, {"qkernel", ker, plainKer}} {
		b, err := Marshal(c.m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		n := raw.Len()
		want := c.plain.PredictBatch(make([]float64, n), scaled)
		got := c.m.PredictBatch(make([]float64, n), raw)
		gotBack := back.PredictBatch(make([]float64, n), raw)
		differ := 0
		for i := range n {
			if got[i] != want[i] {
				differ++
			}
		}
		// The scaled rows of the reference come from svm-scale's formula,
		// the model's from the affine map: a label may flip only on a
		// decision value within float32 rounding of 0.
		if differ > 0 {
			t.Errorf("%s: %d of %d predictions differ from the unscaled model's on scaled rows", c.name, differ, n)
		}
		if !slices.Equal(got, gotBack) {
			t.Errorf("%s: the decoded model predicts otherwise", c.name)
		}
		nf := c.m.Info().NumFeatures
		x := make([]float32, nf)
		copy(x, raw.DenseRow(0)) // heart_scale is read dense
		var idx []int32
		var val []float32
		for j, v := range x {
			if v != 0 {
				idx, val = append(idx, int32(j)), append(val, v)
			}
		}
		dec := make([]float64, c.m.Info().NumDecisionValues)
		for name, f := range map[string]func(){
			"PredictDense":   func() { c.m.PredictDense(x) },
			"PredictSparse":  func() { c.m.PredictSparse(idx, val) },
			"DecisionDense":  func() { c.m.DecisionDense(dec, x) },
			"DecisionSparse": func() { c.m.DecisionSparse(dec, idx, val) },
			"PredictBatch":   func() { c.m.PredictBatch(got, raw) },
		} {
			if a := testing.AllocsPerRun(20, f); a != 0 && !raceEnabled { // the race detector's sync.Pool drops buffers
				t.Errorf("%s %s allocates %v times a call", c.name, name, a)
			}
		}
		if p, q := c.m.PredictDense(x), c.m.PredictSparse(idx, val); p != q {
			t.Errorf("%s: dense %v, sparse %v", c.name, p, q)
		}
	}
}
