package cgen

import (
	"errors"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
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
	for _, name := range []string{"", "9lives", "a-b", "x y", "caf\u00e9", "a\x00", strings.Repeat("n", 41)} {
		if _, err := Generate(smallLinear(), Options{Name: name}); err == nil {
			t.Errorf("name %q accepted", name)
		}
	}
	for _, name := range []string{"_", "m", "A9_z", "z0_", strings.Repeat("n", 40)} {
		if _, err := Generate(smallLinear(), Options{Name: name}); err != nil {
			t.Errorf("name %q refused: %v", name, err)
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

// TestManyClasses: a 40-class kernel model needs 419 running sums (more
// than a byte indexes) and predicts on the host as the library does.
func TestManyClasses(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no host C compiler")
	}
	const nr, nf = 40, 3
	r := rand.New(rand.NewPCG(29, 40))
	sv := data.NewDense(nr, nf)
	m := &core.KernelModel{SVMType: core.CSVC, Kernel: core.Kernel{Type: core.RBFKernel, Gamma: 0.5}, NumFeatures: nf,
		SV: sv, Coef: make([]float64, (nr-1)*nr), Rho: make([]float64, nr*(nr-1)/2)}
	x := make([]float32, nf)
	for c := range nr {
		m.Labels, m.NumSV = append(m.Labels, int32(100+c)), append(m.NumSV, 1)
		for j := range x {
			x[j] = float32(r.Float64()*2 - 1)
		}
		if err := sv.AppendDense(0, x); err != nil {
			t.Fatal(err)
		}
	}
	for i := range m.Coef {
		m.Coef[i] = r.Float64()*2 - 1
	}
	for p := range m.Rho {
		m.Rho[p] = r.Float64() - 0.5
	}
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	if _, live := pairSlots(nr); live != 419 {
		t.Fatalf("%d running sums, want 419", live)
	}
	src, err := Generate(m, Options{Name: "many"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src.Code), "static const uint16_t many_slot[780]") {
		t.Error("the slot table is not uint16_t[780]")
	}
	test := data.NewDense(500, nf)
	for range 500 {
		for j := range x {
			x[j] = float32(r.Float64()*2 - 1)
		}
		if err := test.AppendDense(0, x); err != nil {
			t.Fatal(err)
		}
	}
	checkGenerated(t, modelCase{name: "many"}, "many", m, test, false)
}
