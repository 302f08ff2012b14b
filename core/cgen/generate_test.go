package cgen

import (
	"errors"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// otherKind is a model of a kind without a generator.
type otherKind struct{ core.Model }

func (otherKind) Info() core.ModelInfo { return core.ModelInfo{Kind: "other", NumFeatures: 1} }

func smallLinear() *linear.LinearModel {
	return &linear.LinearModel{Solver: linear.L2LossSVCDual, Labels: []int32{1, -1}, NumFeatures: 2, Bias: -1, W: []float32{0.5, -2}}
}

// TestGenerateRefuses: names that are not C identifiers, and kinds
// without a generator.
func TestGenerateRefuses(t *testing.T) {
	for _, name := range []string{"", "9lives", "a-b", "x y", strings.Repeat("n", 41)} {
		if _, err := Generate(smallLinear(), Options{Name: name}); err == nil {
			t.Errorf("name %q accepted", name)
		}
	}
	if _, err := Generate(otherKind{}, Options{Name: "m"}); !errors.Is(err, ErrNotGeneratable) {
		t.Errorf("a kind without a generator: %v, want ErrNotGeneratable", err)
	}
}

// TestProvenance: both files name the generator's version, the model
// file and its CRC, the kind and the options; the header declares the
// entry points by the name given.
func TestProvenance(t *testing.T) {
	src, err := Generate(smallLinear(), Options{Name: "tiny", Version: "9.8.7", Source: "tiny.svmgo", SourceCRC: 0xdeadbeef})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range [][]byte{src.Header, src.Code} {
		for _, want := range []string{"svmgo 9.8.7", "tiny.svmgo", "deadbeef", "Kind: linear, classification, 2 features", "Options: " + linear.L2LossSVCDual.String()} {
			if !strings.Contains(string(f), want) {
				t.Errorf("no %q in:\n%s", want, f)
			}
		}
	}
	for _, want := range []string{"double tiny_predict(const float *x);", "double tiny_decision(const float *x, float *out);", "#define tiny_NUM_FEATURES 2"} {
		if !strings.Contains(string(src.Header), want) {
			t.Errorf("header lacks %q", want)
		}
	}
	if src.ArrayBytes != 2*4+2*4 { // labels, weights
		t.Errorf("ArrayBytes %d, want 16", src.ArrayBytes)
	}
}

// TestPairSlots: two class pairs in progress at once (their intervals
// [i, j] of classes overlap) never share a running sum, and the sums are
// as few as the most pairs in progress at one class, (c+1)·(nr−c)−1.
func TestPairSlots(t *testing.T) {
	for nr := 2; nr <= 12; nr++ {
		slot, live := pairSlots(nr)
		type pair struct{ i, j int }
		var pairs []pair
		for i := range nr {
			for j := i + 1; j < nr; j++ {
				pairs = append(pairs, pair{i, j})
			}
		}
		if len(slot) != len(pairs) {
			t.Fatalf("%d classes: %d slots for %d pairs", nr, len(slot), len(pairs))
		}
		most := 0
		for c := range nr {
			most = max(most, (c+1)*(nr-c)-1)
		}
		if live != most {
			t.Errorf("%d classes: %d sums, want %d", nr, live, most)
		}
		for p, a := range pairs {
			if slot[p] < 0 || slot[p] >= live {
				t.Fatalf("%d classes: pair %v in sum %d of %d", nr, a, slot[p], live)
			}
			for q := p + 1; q < len(pairs); q++ {
				b := pairs[q]
				if slot[p] == slot[q] && a.i <= b.j && b.i <= a.j {
					t.Errorf("%d classes: pairs %v and %v overlap in sum %d", nr, a, b, slot[p])
				}
			}
		}
	}
	if _, live := pairSlots(10); live != 29 {
		t.Errorf("10 classes: %d sums, want 29", live)
	}
}
