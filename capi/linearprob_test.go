package main

import (
	"math"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/options"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// TestLinearProbabilities trains linear models with probabilities through
// the C ABI trainer's Go side (logistic regression -s 0 and -s 7, and a
// linear SVC with "-syntax linear ... -b 1": -b alone selects LIBSVM's
// syntax), and checks SVMGO_MODEL_HAS_PROBABILITY, then
// SVMGO_OUTPUT_PROBABILITY for dense f32 and f64 and CSR rows, bit for bit
// against core's ProbabilityDense of the model the Go API trains from the
// same rows and options (Incremental parameters, as the trainer uses), for
// the float model and its int8 quantization; a linear SVC trained without
// -b 1 is refused with SVMGO_E_UNSUPPORTED.
func TestLinearProbabilities(t *testing.T) {
	const nf = 64
	labels, x := denseRows(t, "../core/testdata/digits.train", 0, 600, nf)
	_, testX := denseRows(t, "../core/testdata/digits.test", 0, 40, nf)
	rows := len(testX) / nf
	for _, opts := range []string{"-s 0 -B 1", "-s 7", "-syntax linear -s 1 -b 1 -B 1"} {
		h, err := newTrainer(opts, uint64(len(labels)), nf, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := addDense(h, labels, x, len(labels), nf); err != nil {
			t.Fatal(err)
		}
		m, err := fit(h)
		if err != nil {
			t.Fatal(err)
		}
		o, _, err := options.ParseTrain(strings.Fields(opts), options.SyntaxAuto)
		if err != nil || o.IsKernel() {
			t.Fatalf("%s: %v, kernel %v", opts, err, o.IsKernel())
		}
		ds := data.NewDense(len(labels), nf)
		for i, y := range labels {
			if err := ds.AppendDense(y, x[i*nf:(i+1)*nf]); err != nil {
				t.Fatal(err)
			}
		}
		want, _, err := linear.TrainLinear(ds, o.Linear.Incremental())
		if err != nil {
			t.Fatal(err)
		}
		q, err := quantize.QuantizeLinear(want, 8)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			got  core.Model
			ref  core.ProbabilityModel
		}{{"float", m, want}, {"int8", q, q}} {
			hm := &modelHandle{fixed: c.got}
			if v, err := property(hm, propHasProbability); err != nil || v != 1 {
				t.Fatalf("%s %s: SVMGO_MODEL_HAS_PROBABILITY %d, %v", opts, c.name, v, err)
			}
			k := len(c.got.Info().Labels)
			var ref []float64
			for i := range rows {
				p := c.ref.ProbabilityDense(make([]float64, k), testX[i*nf:(i+1)*nf])
				sum := 0.0
				for _, v := range p {
					sum += v
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Fatalf("%s %s row %d: probabilities sum to %v", opts, c.name, i, sum)
				}
				ref = append(ref, p...)
			}
			dst := make([]float64, rows*k)
			if err := predictDenseF32(c.got, outputProbability, dst, testX, rows, nf); err != nil {
				t.Fatal(err)
			}
			sameBits(t, opts+" "+c.name+" dense f32", dst, ref)
			x64 := make([]float64, len(testX))
			for i, v := range testX {
				x64[i] = float64(v)
			}
			clear(dst)
			if err := predictDenseF64(c.got, outputProbability, dst, x64, rows, nf); err != nil {
				t.Fatal(err)
			}
			sameBits(t, opts+" "+c.name+" dense f64", dst, ref)
			indptr, indices, values := []int64{0}, []int32(nil), []float32(nil)
			for i := range rows {
				for j, v := range testX[i*nf : (i+1)*nf] {
					if v != 0 {
						indices, values = append(indices, int32(j)), append(values, v)
					}
				}
				indptr = append(indptr, int64(len(indices)))
			}
			clear(dst)
			if err := predictCSRF32(c.got, outputProbability, dst, indptr, indices, values, rows); err != nil {
				t.Fatal(err)
			}
			sameBits(t, opts+" "+c.name+" CSR f32", dst, ref)
		}
	}

	h, err := newTrainer("-s 1", uint64(len(labels)), nf, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := addDense(h, labels, x, len(labels), nf); err != nil {
		t.Fatal(err)
	}
	m, err := fit(h)
	if err != nil {
		t.Fatal(err)
	}
	err = predictDenseF32(m, outputProbability, make([]float64, 10), testX[:nf], 1, nf)
	if statusOf(err) != statusUnsupported || !strings.Contains(err.Error(), "only when trained with -b 1") {
		t.Errorf("probabilities of a linear SVC without -b 1: %v", err)
	}
}
