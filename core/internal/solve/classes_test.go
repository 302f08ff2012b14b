package solve

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGroupLabelsTwoClasses: the two-class path gives what the general
// loop gives (labels, or an error for the same row) on random label
// sequences of one to four classes, with a non-integer, a NaN, an
// infinity or a label past int32 put in at a random row, and on the
// {−1, +1} order rule.
func TestGroupLabelsTwoClasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	odd := []float64{0.5, math.NaN(), math.Inf(1), 1 << 40, -3.000001}
	for trial := range 2000 {
		l := 1 + rng.IntN(40)
		classes := []float64{-1, 1, 0, 7, -5}[:1+rng.IntN(4)]
		if trial%3 == 0 {
			classes = []float64{1, -1}
		}
		y := make([]float64, l)
		for i := range y {
			y[i] = classes[rng.IntN(len(classes))]
		}
		if trial%5 == 0 {
			y[rng.IntN(l)] = odd[rng.IntN(len(odd))]
		}
		got, gotErr := GroupLabels(y)
		want, wantErr := groupLabels(y)
		if !slices.Equal(got, want) || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("%v: GroupLabels %v, %v; the general loop %v, %v", y, got, gotErr, want, wantErr)
		}
	}
	if got := twoClasses([]float64{-1, -1, 1, -1}); !slices.Equal(got, []int32{1, -1}) {
		t.Errorf("{−1, +1}: %v, want [1 -1]", got)
	}
	if got := twoClasses([]float64{2, 2, 0, 2}); !slices.Equal(got, []int32{2, 0}) {
		t.Errorf("{2, 0}: %v, want [2 0]", got)
	}
	if got := twoClasses([]float64{0, 1, 5e-324}); got != nil {
		t.Errorf("a denormal beside 0: %v, want nil", got)
	}
}
