package main

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// TestCSRFeaturesPastNumFeatures checks what include/svmgo.h says of CSR
// features at or past SVMGO_MODEL_NUM_FEATURES (issue 10, fault 10: the
// header said they are ignored, which holds for linear models only):
// linear models ignore them; an RBF model counts them in ‖x − sv‖², so
// each kernel value is multiplied by exp(−γ v²) for an extra feature v,
// as in LIBSVM: decision value d becomes (d + ρ)·exp(−γ v²) − ρ.
func TestCSRFeaturesPastNumFeatures(t *testing.T) {
	src, err := os.ReadFile("../include/svmgo.h")
	if err != nil {
		t.Fatal(err)
	}
	decl := strings.Index(string(src), "SVMGO_API int svmgo_predict_csr_f32(")
	doc := string(src[strings.LastIndex(string(src[:decl]), "/*"):decl])
	if !strings.Contains(doc, "linear") || !strings.Contains(doc, "RBF") {
		t.Errorf("svmgo.h's comment on svmgo_predict_csr_f32 does not say that linear models ignore features past SVMGO_MODEL_NUM_FEATURES and RBF models count them:\n%s", doc)
	}

	const extra = 0.75
	for name, m := range predictModels(t) {
		nf, nd := m.Info().NumFeatures, m.Info().NumDecisionValues
		indptr := []int64{0, 2, 4}
		indices := []int32{0, 1, 0, int32(nf)} // row 1: feature 0 and one past the model's
		values := []float32{0.5, -0.25, 0.5, extra}
		dec := make([]float64, 2*nd)
		// row 0 has feature 1 where row 1 has the extra one: compare row 1
		// with the row of feature 0 alone
		base := make([]float64, nd)
		if err := predictCSRF32(m, outputDecisionValues, dec, indptr, indices, values, 2); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := predictCSRF32(m, outputDecisionValues, base, []int64{0, 1}, []int32{0}, []float32{0.5}, 1); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := dec[nd:]
		km, isKernel := m.(*core.KernelModel)
		_, isQKernel := m.(*quantize.Kernel)
		for k := range nd {
			switch {
			case isKernel:
				rho, gamma := km.Rho[k], km.Kernel.Gamma
				want := (base[k]+rho)*math.Exp(-gamma*extra*extra) - rho
				if math.Abs(got[k]-want) > 1e-9*(1+math.Abs(want)) {
					t.Errorf("%s: decision value %d with feature %d = %v is %v, want (d + ρ)·exp(−γv²) − ρ = %v", name, k, nf, extra, got[k], want)
				}
			case isQKernel:
				if got[k] == base[k] {
					t.Errorf("%s: decision value %d unchanged by feature %d: the RBF kernel counts it", name, k, nf)
				}
			default:
				if math.Float64bits(got[k]) != math.Float64bits(base[k]) {
					t.Errorf("%s: decision value %d is %v with feature %d, %v without: a linear model ignores it", name, k, got[k], nf, base[k])
				}
			}
		}
		if isKernel && km.Kernel.Type != core.RBFKernel {
			t.Fatalf("%s: kernel %v, the test wants RBF", name, km.Kernel.Type)
		}
	}
}
