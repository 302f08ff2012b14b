package core

import (
	"errors"
	"testing"
)

// TestTruncateRestoresWidth: dropping rows drops their features from a
// sparse data set's width, and dense rows are cleared for reuse.
func TestTruncateRestoresWidth(t *testing.T) {
	d := NewSparse(4, 10, 0)
	d.AppendSparse(1, []int32{0, 2}, []float32{1, 1})
	d.AppendSparse(1, nil, nil)
	d.AppendSparse(-1, []int32{7}, []float32{2})
	if d.NumFeatures() != 8 {
		t.Fatalf("width %d, want 8", d.NumFeatures())
	}
	d.Truncate(2)
	if d.Len() != 2 || d.NumFeatures() != 3 || d.Nonzeros() != 2 {
		t.Errorf("after Truncate(2): %d rows, width %d, %d nonzeros; want 2, 3, 2", d.Len(), d.NumFeatures(), d.Nonzeros())
	}
	d.Truncate(0)
	if d.NumFeatures() != 0 {
		t.Errorf("after Truncate(0): width %d", d.NumFeatures())
	}

	dense := NewDense(2, 3)
	dense.AppendDense(1, []float32{1, 2, 3})
	dense.Truncate(0)
	dense.AppendSparse(1, []int32{1}, []float32{5})
	if got := dense.DenseRow(0); got[0] != 0 || got[1] != 5 || got[2] != 0 {
		t.Errorf("reused dense row %v, want [0 5 0]", got)
	}
	dense.AppendDense(1, []float32{1, 1, 1})
	if err := dense.AppendDense(1, []float32{1, 1, 1}); !errors.Is(err, ErrFull) {
		t.Errorf("third row in a 2-row set: %v, want ErrFull", err)
	}
}
