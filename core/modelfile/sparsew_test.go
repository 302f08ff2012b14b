package modelfile

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/options"
)

// TestSparseWeightsChosen checks the writer's choice: sparse exactly when
// smaller, and then a few percent of the dense file at 3% nonzeros; and
// that both layouts read back bit for bit.
func TestSparseWeightsChosen(t *testing.T) {
	const nf = 20000
	for _, density := range []float64{0.03, 0.3, 0.9} {
		m := newModel(linear.L1Logistic, []int32{1, -1}, nf, 1, 11)
		r := rand.New(rand.NewPCG(5, 6))
		for i := range m.W {
			if r.Float64() >= density {
				m.W[i] = 0
			}
		}
		b := marshal(t, m)
		// The same model with no zero weight, which the writer stores dense.
		full := *m
		full.W = slices.Clone(m.W)
		for i, w := range full.W {
			if w == 0 {
				full.W[i] = 1e-30
			}
		}
		dense := marshal(t, &full)
		lay, err := Layout(b)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, f := range lay.Fields {
			keys = append(keys, f.Key)
		}
		sparse := slices.Contains(keys, "wi")
		ratio := float64(len(b)) / float64(len(dense))
		t.Logf("density %.2f: %d bytes, dense %d (%.1f%%), keys %v", density, len(b), len(dense), 100*ratio, keys)
		switch {
		case density < 0.5 && !sparse:
			t.Errorf("density %.2f: written dense", density)
		case density > 0.8 && sparse:
			t.Errorf("density %.2f: written sparse, which is larger", density)
		case density == 0.03 && ratio > 0.05:
			t.Errorf("3%% nonzeros: %d bytes, %.1f%% of the dense file's %d", len(b), 100*ratio, len(dense))
		}
		got, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got.W, m.W, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
			t.Errorf("density %.2f: weights differ after the round trip", density)
		}
	}
}

// TestSparseWeightsTrained round-trips trained L1 models (binary and
// one-vs-rest, with and without bias): weights and predictions equal.
func TestSparseWeightsTrained(t *testing.T) {
	for _, tc := range []struct{ file, args string }{
		{"debdesc_bin.train", "-s 6 -c 0.05"},
		{"digits.train", "-s 5 -B 1"},
		{"heart_scale", "-s 6"},
	} {
		ds, err := data.ReadFile("../testdata/"+tc.file, data.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o, _, err := options.ParseLinear(strings.Fields(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := linear.TrainLinear(ds, o.Params)
		if err != nil {
			t.Fatal(err)
		}
		b := marshal(t, m)
		got, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.W, m.W) {
			t.Errorf("%s %s: weights differ after the round trip", tc.file, tc.args)
		}
		samePredictions(t, m, got)
		nnz := 0
		for _, w := range m.W {
			if w != 0 {
				nnz++
			}
		}
		t.Logf("%s %s: %d of %d weights nonzero (%.1f%%), file %d bytes, dense weights alone %d",
			tc.file, tc.args, nnz, len(m.W), 100*float64(nnz)/float64(len(m.W)), len(b), 4*len(m.W))
	}
}

// TestSparseWeightsRefused checks that a damaged sparse weight stream is
// refused as corrupt, each way a reader must catch.
func TestSparseWeightsRefused(t *testing.T) {
	base := testModels()[len(testModels())-1].m // l1-sparse: 41 rows × 3 functions
	cases := map[string]func(bd *body){
		"both layouts":    func(bd *body) { bd.W = make([]byte, 4*41*3) },
		"count too large": func(bd *body) { bd.WI[0] = 42 },
		"gap zero":        func(bd *body) { bd.WI[1] = 0 },
		"past the rows":   func(bd *body) { bd.WI[1] = 41 + 1 },
		"values short":    func(bd *body) { bd.WX = bd.WX[:len(bd.WX)-4] },
		"values long":     func(bd *body) { bd.WX = append(bd.WX, 0, 0, 128, 63) },
		"index trailing":  func(bd *body) { bd.WI = append(bd.WI, 1) },
		"odd values blob": func(bd *body) { bd.WX = bd.WX[:len(bd.WX)-1] },
		"expansion": func(bd *body) {
			bd.NumFeatures = math.MaxInt32
		},
		"nan weight": func(bd *body) { copy(bd.WX, []byte{0, 0, 192, 127}) },
	}
	for name, damage := range cases {
		bd := toBody(base)
		if len(bd.WI) == 0 {
			t.Fatal("the l1-sparse test model is not stored sparse")
		}
		damage(bd)
		p, err := bd.MarshalMsg(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Unmarshal(frame(p, Major, 0)); err == nil || !strings.Contains(err.Error(), "corrupt") {
			t.Errorf("%s: error %v, want ErrCorrupt", name, err)
		}
	}
}
