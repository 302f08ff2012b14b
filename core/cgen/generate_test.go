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
	for _, want := range []string{"double tiny_predict(const float *x);", "void tiny_decision(const float *x, float *out);", "#define tiny_NUM_FEATURES 2"} {
		if !strings.Contains(string(src.Header), want) {
			t.Errorf("header lacks %q", want)
		}
	}
	if src.ArrayBytes != 2*4+2*4 { // labels, weights
		t.Errorf("ArrayBytes %d, want 16", src.ArrayBytes)
	}
}
