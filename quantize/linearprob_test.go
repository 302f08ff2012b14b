package quantize

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/options"
)

// TestLinearProbabilities checks that quantization keeps what gives a
// linear model its class probabilities — the solver of logistic
// regression (-s 7), the Platt sigmoids of an SVC trained with -b 1 — so
// that the quantized model gives probabilities computed as the float
// model's from its own decision values: equal to linear.LinearProbabilities
// of them, within a few percent of the float model's, summing to 1, the
// same after a file round trip; and that an SVC model without -b 1 gives
// none.
func TestLinearProbabilities(t *testing.T) {
	train, test := dataset(t, "digits.train"), dataset(t, "digits.test")
	for _, args := range [][]string{{"-s", "7", "-B", "1"}, {"-s", "1", "-b", "1"}, {"-s", "1"}} {
		opts, _, err := options.ParseLinear(args)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := linear.TrainLinear(train, opts.Params)
		if err != nil {
			t.Fatal(err)
		}
		for _, bits := range []int{8, 16} {
			q, err := QuantizeLinear(m, bits)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := q.Info().Probability, m.Info().Probability; got != want {
				t.Fatalf("%v int%d: Probability %v, float model %v", args, bits, got, want)
			}
			b := mustMarshal(t, q)
			back, err := Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			if !back.Info().Probability {
				if bytes.Contains(b, []byte("\xa2pa")) {
					t.Errorf("%v: a model without probabilities has a pa key", args)
				}
				continue
			}
			qp, bp := q, back.(*Linear)
			k := len(m.Labels)
			pf, pq, pb, ref := make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
			dec := make([]float64, m.NrW())
			worst := 0.0
			for i := range test.Len() {
				x := test.DenseRow(i)
				m.ProbabilityDense(pf, x)
				qp.ProbabilityDense(pq, x)
				bp.ProbabilityDense(pb, x)
				linear.LinearProbabilities(ref, qp.DecisionDense(dec, x), m.ProbA, m.ProbB)
				sum := 0.0
				for c := range pq {
					if pq[c] != ref[c] || math.Float64bits(pq[c]) != math.Float64bits(pb[c]) {
						t.Fatalf("%v int%d row %d: %v, from its decision values %v, after a round trip %v", args, bits, i, pq, ref, pb)
					}
					worst = max(worst, math.Abs(pq[c]-pf[c]))
					sum += pq[c]
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Fatalf("row %d: probabilities sum to %v", i, sum)
				}
			}
			limit := map[int]float64{8: 0.05, 16: 1e-3}[bits]
			t.Logf("%v int%d: largest probability difference from the float model %.3g", args, bits, worst)
			if worst > limit {
				t.Errorf("%v int%d: probabilities %.3g from the float model's", args, bits, worst)
			}
		}
	}
}

// TestLinearPlattRefused checks that a quantized file whose Platt
// sigmoids do not fit its model is refused as corrupt, and that the
// quantized linear compat fixtures (written before the fields existed)
// re-marshal byte for byte.
func TestLinearPlattRefused(t *testing.T) {
	m := handLinear()
	m.Solver, m.Params.Solver = linear.L2LossSVCDual, linear.L2LossSVCDual
	q, err := QuantizeLinear(m, 8)
	if err != nil {
		t.Fatal(err)
	}
	for name, pa := range map[string][]byte{
		"short": f64(-1)[:4],
		"NaN":   f64(math.NaN()),
		"count": append(f64(-1), f64(-2)...),
	} {
		bd := linearBodyOf(t, q)
		bd.ProbA, bd.ProbB = pa, f64(0.5)
		if _, err := Unmarshal(sealed(t, modelfile.KindQLinear, bd)); !errors.Is(err, modelfile.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	for _, name := range []string{"qlinear-int8", "qlinear-int16"} {
		b, err := os.ReadFile(filepath.Join("..", "daemon", "modeldir", "testdata", "compat", name+".svmgo"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if m.Info().Probability {
			t.Errorf("%s: probabilities from an old file", name)
		}
		if again := mustMarshal(t, m); !bytes.Equal(again, b) {
			t.Errorf("%s: re-marshalled bytes differ from the file's", name)
		}
	}
}
