package onnx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/shareddata"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// sharedCase is a kind trained on a set of ../shared/data that
// exportCases (core/testdata's heart_scale, digits and diabetes) leaves
// out, checked against ONNX Runtime on the first testRows rows of its test
// file (0: all). debdesc_bin's 9,132 columns make a dense input of 36 KiB
// a row, so it is checked on 1,000 rows.
type sharedCase struct {
	exportCase
	testRows int
	tol      float64 // relative tolerance of values; 0: valueTol
}

func sharedCases() []sharedCase {
	const bcTr, bcTe, shTr, shTe, ddTr, ddTe = "breast_cancer.train", "breast_cancer.test", "shuttle.train", "shuttle.test", "debdesc_bin.train", "debdesc_bin.test"
	rbf := func(t core.SVMType, c float64, prob bool) core.TrainParams {
		p := kernelParams(t, core.RBFKernel, prob)
		p.Kernel.C = c
		return p
	}
	scaled := func(p core.TrainParams) core.TrainParams {
		p.Scale = core.ScaleParams{Enabled: true, Lower: -1, Upper: 1}
		return p
	}
	return []sharedCase{
		{exportCase{"csvc-rbf-breast_cancer-prob", bcTr, bcTe, rbf(core.CSVC, 1, true)}, 0, 0},
		{exportCase{"lr-breast_cancer", bcTr, bcTe, linearParams(linear.L2Logistic, 1, true)}, 0, 0},
		{exportCase{"oneclass-rbf-breast_cancer", bcTr, bcTe, kernelParams(core.OneClass, core.RBFKernel, false)}, 0, 0},
		// ONNX Runtime sums shuttle's 21 pairs' terms in float32 over up to
		// a thousand support vectors each: one value in 300,000 lands at
		// 1.2e-5 relative (row 10307, pair 6), the rest within valueTol.
		{exportCase{"csvc-rbf-shuttle-scaled", shTr, shTe, scaled(rbf(core.CSVC, 1, false))}, 0, 2e-5},
		{exportCase{"l2svc-shuttle", shTr, shTe, linearParams(linear.L2LossSVCDual, 1, false)}, 0, 0},
		{exportCase{"l2svc-debdesc_bin", ddTr, ddTe, linearParams(linear.L2LossSVCDual, 1, false)}, 1000, 0},
		{exportCase{"lr-debdesc_bin-prob", ddTr, ddTe, linearParams(linear.L2Logistic, 1, true)}, 1000, 0},
	}
}

// TestONNXRuntimeSharedData is TestONNXRuntime on the shared sets
// exportCases does not read: breast_cancer (binary, kernel and linear,
// probabilities, one-class), shuttle (7 classes, kernel and linear) and
// debdesc_bin (binary, 9,132 sparse features, linear).
func TestONNXRuntimeSharedData(t *testing.T) {
	nodePath := ortNodePath(t)
	for _, c := range sharedCases() {
		t.Run(c.name, func(t *testing.T) {
			tr, err := data.ReadFile(shareddata.Path(t, c.train), data.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			m, err := core.TrainModel(tr, c.p)
			if err != nil {
				t.Fatal(err)
			}
			nf := m.Info().NumFeatures
			test, err := data.ReadFile(shareddata.Path(t, c.test), data.ReadOptions{MaxFeatures: nf})
			if err != nil {
				t.Fatal(err)
			}
			rows := test.Len()
			if c.testRows > 0 {
				rows = min(rows, c.testRows)
			}
			x := denseMatrix(test, nf, rows)
			b, err := Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "m.onnx")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			tol := c.tol
			if tol == 0 {
				tol = valueTol
			}
			checkORT(t, m, runORT(t, nodePath, path, x, rows, nf), x, rows, tol)
		})
	}
}
