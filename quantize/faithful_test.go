package quantize

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
)

// outlierModel trains an RBF classifier whose label follows feature 1
// within [0, 0.02] while two outlying rows stretch that feature to
// [−1, 1]: shuttle's shape in two features, where int8's 255 steps leave
// the deciding values three codes.
func outlierModel(t *testing.T) *core.KernelModel {
	return cached(t, "kernel/outliers", func() (*core.KernelModel, error) {
		r := rand.New(rand.NewPCG(30, 3))
		const n = 400
		ds := data.NewDense(n+2, 2)
		for range n {
			x := []float32{float32(r.Float64() * 0.02), float32(r.Float64())}
			y := -1.0
			if x[0] > 0.01 {
				y = 1
			}
			if err := ds.AppendDense(y, x); err != nil {
				return nil, err
			}
		}
		for _, v := range []float32{-1, 1} {
			if err := ds.AppendDense(1, []float32{v, 0.5}); err != nil {
				return nil, err
			}
		}
		p := core.DefaultKernelParams()
		p.C, p.Kernel.Gamma, p.CacheMB = 100, 1000, 8
		tr, err := core.NewKernelTrainer(p, ds.Len(), ds.NumFeatures())
		if err != nil {
			return nil, err
		}
		m, _, err := tr.Train(ds, nil)
		return m, err
	})
}

// CheckFaithful refuses the int8 model of outlierModel, naming feature 1,
// and passes its int16 model and the test models at both widths, whose
// support vectors keep every label; ε-SVR and linear models are not
// checked.
func TestCheckFaithful(t *testing.T) {
	m := outlierModel(t)
	for _, bits := range []int{8, 16} {
		q, err := QuantizeKernel(m, bits)
		if err != nil {
			t.Fatal(err)
		}
		changed, checked, err := CheckFaithful(m, q)
		if checked != m.SV.Len() {
			t.Fatalf("int%d: checked %d of %d support vectors", bits, checked, m.SV.Len())
		}
		var ue *UnfaithfulError
		if bits == 16 {
			if err != nil || changed != 0 {
				t.Fatalf("int16: %d changed, %v; want none", changed, err)
			}
			continue
		}
		if !errors.As(err, &ue) || ue.Changed != changed || ue.Checked != checked ||
			float64(changed) <= MaxSupportVectorChange*float64(checked) {
			t.Fatalf("int8: %d of %d changed, error %v; want a refusal", changed, checked, err)
		}
		if len(ue.Coarse) != 1 || ue.Coarse[0] != 0 || !strings.Contains(err.Error(), "features 1 (LIBSVM indices)") {
			t.Fatalf("int8: coarse features %v, message %q; want feature 1", ue.Coarse, err)
		}
	}
	for _, c := range kernelCases {
		if c.name == "debdesc_bin-1500" && testing.Short() {
			continue
		}
		m := c.model(t)
		for _, bits := range []int{8, 16} {
			q, err := QuantizeKernel(m, bits)
			if err != nil {
				t.Fatal(err)
			}
			changed, checked, err := CheckFaithful(m, q)
			switch {
			case m.SVMType.IsRegression():
				if checked != 0 || err != nil {
					t.Fatalf("%s int%d: ε-SVR checked (%d, %v)", c.name, bits, checked, err)
				}
			case err != nil || checked == 0:
				t.Fatalf("%s int%d: %d of %d changed, %v", c.name, bits, changed, checked, err)
			}
		}
	}
	lm := linearCases[0].model(t)
	ql, err := QuantizeLinear(lm, 8)
	if err != nil {
		t.Fatal(err)
	}
	if _, checked, err := CheckFaithful(lm, ql); checked != 0 || err != nil {
		t.Fatalf("linear: checked %d, %v", checked, err)
	}
}

// sampleRows keeps every k-th row, in order, of a data set longer than n.
func TestSampleRows(t *testing.T) {
	ds := data.NewDense(10, 1)
	for i := range 10 {
		if err := ds.AppendDense(float64(i), []float32{float32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := sampleRows(ds, 10); got != ds {
		t.Fatal("a data set within n rows is not returned as is")
	}
	got := sampleRows(ds, 4) // every 3rd: 0, 3, 6, 9
	if got.Len() != 4 {
		t.Fatalf("%d rows, want 4", got.Len())
	}
	for i, want := range []float64{0, 3, 6, 9} {
		if got.Label(i) != want || got.DenseRow(i)[0] != float32(want) {
			t.Fatalf("row %d: label %v, want %v", i, got.Label(i), want)
		}
	}
}
