package main

import (
	"errors"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
)

// TestTrainerNewRefusesSizesBeyondMemory: svmgo_trainer_new with 2³⁰
// features and 100 nonzeros (issue 22, fault 6) allocated TRON's vectors
// by the feature count and aborted the host; it is refused with
// SVMGO_E_INVALID_ARGUMENT, as are rows the machine cannot hold.
func TestTrainerNewRefusesSizesBeyondMemory(t *testing.T) {
	for _, c := range []struct {
		options                  string
		rows, features, nonzeros uint64
	}{
		{"-s 1", 100, 1 << 30, 100},
		{"-s 2", 100, 1 << 30, 100},
		{"-s 0", 100, 1 << 30, 0},
		{"-t 2", 1 << 39, 10, 100},
		{"-s 3", 100, 10, 1 << 39},
	} {
		h, err := newTrainer(c.options, c.rows, c.features, c.nonzeros)
		if h != nil || statusOf(err) != statusInvalidArgument || !errors.Is(err, core.ErrTooLarge) {
			t.Errorf("%q, %d rows, %d features, %d nonzeros: status %d (%v), want SVMGO_E_INVALID_ARGUMENT wrapping core.ErrTooLarge",
				c.options, c.rows, c.features, c.nonzeros, statusOf(err), err)
		}
	}
}
