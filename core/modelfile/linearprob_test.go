package modelfile

import (
	"bytes"
	"errors"
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestRoundTripProbability checks the optional fields of probability
// models: Platt's parameters of a linear SVC trained with -b 1, and -b 1
// itself, round-trip exactly, give the same probabilities, and re-marshal
// to the same bytes; a logistic regression model (-s 7) needs none of them.
func TestRoundTripProbability(t *testing.T) {
	platt := newModel(linear.L2LossSVCDual, []int32{3, 1, 2}, 6, 1, 21)
	platt.ProbA = []float64{-2.5, -1.25, -3}
	platt.ProbB = []float64{0.125, math.SmallestNonzeroFloat64, -0.5}
	platt.Params.Probability = true
	binary := newModel(linear.L1LossSVCDual, []int32{1, -1}, 4, -1, 22)
	binary.ProbA, binary.ProbB = []float64{-1.5}, []float64{0.25}
	binary.Params.Probability = true
	lr := newModel(linear.L2LogisticDual, []int32{5, 6, 7, 8}, 5, -1, 23)
	lr.Params.Probability = true // -b 1 on logistic regression: recorded, nothing fitted
	for _, m := range []*linear.LinearModel{platt, binary, lr} {
		t.Run(m.Solver.String(), func(t *testing.T) {
			b := marshal(t, m)
			got, err := Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			if want := stored(m); !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip changed the model:\n got %+v\nwant %+v", got, want)
			}
			if !got.Info().Probability {
				t.Fatal("decoded model gives no probabilities")
			}
			x := []float32{0.5, -1, 2, 0, 0.25, 1}[:m.NumFeatures]
			p, q := m.ProbabilityDense(make([]float64, len(m.Labels)), x), got.ProbabilityDense(make([]float64, len(m.Labels)), x)
			for k := range p {
				if math.Float64bits(p[k]) != math.Float64bits(q[k]) {
					t.Fatalf("probabilities %v before, %v after", p, q)
				}
			}
			if again := marshal(t, got); !bytes.Equal(again, b) {
				t.Fatal("re-marshalling the decoded model gives different bytes")
			}
		})
	}
	// A model without the optional fields has no pa, pb or pr key.
	plain := newModel(linear.L2LossSVCDual, []int32{1, -1}, 4, -1, 24)
	for _, key := range []string{"\xa2pa", "\xa2pb", "\xa2pr"} {
		if bytes.Contains(marshal(t, plain), []byte(key)) {
			t.Errorf("a model without probabilities has a %q key", key[1:])
		}
	}
}

// TestOptionalFieldsKeepOldBytes decodes the linear model files written
// before the optional fields existed (the compat fixtures of
// daemon/modeldir) and checks that Marshal writes them back byte for byte.
func TestOptionalFieldsKeepOldBytes(t *testing.T) {
	for _, name := range []string{"linear-svc-binary", "linear-svc-multi-bias", "linear-svr"} {
		b, err := os.ReadFile("../../daemon/modeldir/testdata/compat/" + name + ".svmgo")
		if err != nil {
			t.Fatal(err)
		}
		m, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if m.Info().Probability || m.ProbA != nil || m.Params.Probability {
			t.Errorf("%s: an old file decodes with probabilities", name)
		}
		if again := marshal(t, m); !bytes.Equal(again, b) {
			t.Errorf("%s: re-marshalled bytes differ from the file's", name)
		}
	}
}

// TestPlattFieldsRefused checks that Platt parameters that do not fit the
// model are refused as corrupt.
func TestPlattFieldsRefused(t *testing.T) {
	m := newModel(linear.L2LossSVCDual, []int32{1, 2, 3}, 3, -1, 25)
	for name, change := range map[string]func(bd *body){
		"ragged":  func(bd *body) { bd.ProbA = bd.ProbA[:7] },
		"count":   func(bd *body) { bd.ProbA, bd.ProbB = bd.ProbA[:16], bd.ProbB[:16] },
		"A only":  func(bd *body) { bd.ProbB = nil },
		"NaN":     func(bd *body) { copy(bd.ProbB, Float64Blob([]float64{math.NaN()})) },
		"on a LR": func(bd *body) { bd.Solver = int64(linear.L2Logistic) },
	} {
		bd := toBody(m)
		bd.ProbA = Float64Blob([]float64{-1, -2, -3})
		bd.ProbB = Float64Blob([]float64{0, 1, 2})
		change(bd)
		payload, err := bd.MarshalMsg(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Unmarshal(frame(payload, Major, 0)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Unmarshal = %v, want ErrCorrupt", name, err)
		}
	}
}
