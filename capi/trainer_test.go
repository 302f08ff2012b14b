package main

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/options"
)

// TestFitWidensSparseModel: a sparse trainer's rows may never reach its
// last features; its model still has the trainer's width, with zero
// weights there, and otherwise the weights core trains on the same rows.
func TestFitWidensSparseModel(t *testing.T) {
	for _, bias := range []string{"", " -B 1"} {
		h, err := newTrainer("-s 1"+bias, 10, 10, 100)
		if err != nil {
			t.Fatal(err)
		}
		ref := data.NewSparse(10, 100, 0)
		rows := []struct {
			y   float64
			idx []int32
			val []float32
		}{
			{1, []int32{0, 2}, []float32{1, 0.5}},
			{-1, []int32{1, 5}, []float32{1, -0.5}},
			{1, []int32{0, 3}, []float32{0.7, 0.2}},
			{-1, []int32{4, 5}, []float32{0.3, 1}},
		}
		indptr := []int64{0}
		var indices []int32
		var values []float32
		var labels []float64
		for _, r := range rows {
			indices = append(indices, r.idx...)
			values = append(values, r.val...)
			indptr = append(indptr, int64(len(indices)))
			labels = append(labels, r.y)
			if err := ref.AppendSparse(r.y, r.idx, r.val); err != nil {
				t.Fatal(err)
			}
		}
		if err := addCSR(h, labels, indptr, indices, values, len(rows)); err != nil {
			t.Fatal(err)
		}
		m, err := fitLinear(h)
		if err != nil {
			t.Fatal(err)
		}
		o, _, _ := options.ParseLinear(strings.Fields("-s 1" + bias))
		want, _, err := linear.TrainLinear(ref, o.Incremental())
		if err != nil {
			t.Fatal(err)
		}
		if m.NumFeatures != 10 || want.NumFeatures != 6 {
			t.Fatalf("bias %q: widened model has %d features, core's %d; want 10 and 6", bias, m.NumFeatures, want.NumFeatures)
		}
		wantW := append(append([]float32(nil), want.W[:6]...), 0, 0, 0, 0)
		wantW = append(wantW, want.W[6:]...) // the bias weight, if any
		if !slices.Equal(m.W, wantW) {
			t.Errorf("bias %q: weights %v, want %v", bias, m.W, wantW)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("bias %q: widened model: %v", bias, err)
		}
	}
}

// TestRemoveKeepsDualAligned: rows added after a fit have no dual
// variables; removing them and older rows keeps the dual aligned with the
// rows, so the next fit's warm start is accepted.
func TestRemoveKeepsDualAligned(t *testing.T) {
	h, err := newTrainer("-s 3", 8, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	x := []float32{1, 0, 0, 1, -1, 0, 0, -1, 0.5, 0.5, -0.5, -0.5}
	y := []float64{1, 1, -1, -1, 1, -1}
	if err := addDense(h, y[:4], x[:8], 4, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := fit(h); err != nil {
		t.Fatal(err)
	}
	if err := addDense(h, y[4:], x[8:], 2, 2); err != nil {
		t.Fatal(err)
	}
	// Row 5 was added after the fit, row 1 before.
	if err := remove(h, []int{5, 1}); err != nil {
		t.Fatal(err)
	}
	if h.ds.Len() != 4 || len(h.dual.Linear.Alpha[0]) != 3 {
		t.Fatalf("%d rows, dual of %d; want 4 and 3", h.ds.Len(), len(h.dual.Linear.Alpha[0]))
	}
	if _, err := fit(h); err != nil {
		t.Fatal(err)
	}
	if err := remove(h, []int{4}); !errors.Is(err, data.ErrRowPosition) {
		t.Errorf("removing row 4 of 4: %v, want ErrRowPosition", err)
	}
}

// TestTrainerCallsSerialize: calls on one trainer from many goroutines
// are serialized by its lock (the race detector checks).
func TestTrainerCallsSerialize(t *testing.T) {
	h, err := newTrainer("-s 1 -n 1", 400, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	id := newHandle(h)
	defer freeTrainer(id)
	var wg sync.WaitGroup
	var fits atomic.Int32
	for g := range 4 {
		wg.Go(func() {
			for i := range 20 {
				y := []float64{1, -1}
				x := []float32{float32(g + 1), float32(i), -float32(g + 1), -float32(i)}
				withTrainer(id, func(h *trainerHandle) error { return addDense(h, y, x, 2, 2) })
				if i%5 == 4 {
					err := withTrainer(id, func(h *trainerHandle) error {
						if _, err := fit(h); err != nil {
							return err
						}
						return remove(h, []int{0})
					})
					if err != nil {
						t.Error(err)
					}
					fits.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got, want := h.ds.Len(), 4*(40-4); got != want || fits.Load() != 16 {
		t.Errorf("%d rows after %d fits, want %d after 16", got, fits.Load(), want)
	}
}

// fitLinear is fit for a linear trainer, with the model's own type.
func fitLinear(h *trainerHandle) (*linear.LinearModel, error) {
	m, err := fit(h)
	if err != nil {
		return nil, err
	}
	return m.(*linear.LinearModel), nil
}

// fitKernel is fit for a kernel trainer, with the model's own type.
func fitKernel(h *trainerHandle) (*core.KernelModel, error) {
	m, err := fit(h)
	if err != nil {
		return nil, err
	}
	return m.(*core.KernelModel), nil
}
