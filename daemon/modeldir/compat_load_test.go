package modeldir

import (
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
)

// loadCompat reads a fixture through the loader every path uses.
func loadCompat(t *testing.T, path string) any {
	t.Helper()
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case l.Model != nil:
		return l.Model
	case l.Kernel != nil:
		return l.Kernel
	}
	return l.Quantized
}

// compatPredict computes the outputs TestCompatFixtures compares.
func compatPredict(t *testing.T, m any, ds *core.Dataset) []compatRow {
	return compatPredictOld(t, m, ds)
}
