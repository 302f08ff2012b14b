package linear

import (
	"errors"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// TestCrossValidateLinearLabelRow: a bad label is reported with its row
// of the data set given, not of a fold's training part.
func TestCrossValidateLinearLabelRow(t *testing.T) {
	d := data.NewSparse(6, 6, 0)
	for i, y := range []float64{1, -1, 1, -1, 2.5, 1} {
		if err := d.AppendSparse(y, []int32{0}, []float32{float32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := CrossValidateLinear(d, DefaultLinearParams(), 3)
	if !errors.Is(err, data.ErrLabels) || !strings.Contains(err.Error(), "label 2.5 of row 5 ") || strings.Contains(err.Error(), "fold") {
		t.Errorf("err = %v, want ErrLabels naming row 5 and no fold", err)
	}
}
