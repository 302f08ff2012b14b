package core

import (
	"errors"
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestTrainersRefuseSizesBeyondMemory: capacities whose buffers cannot fit
// in any machine (2³¹−1 features: TRON's ten vectors of 16 GiB a worker;
// 2⁴⁰ rows: 20 bytes a row before any cache) are refused with ErrTooLarge
// by the size query, where before the allocation aborted the process
// (issue 22, fault 6).
func TestTrainersRefuseSizesBeyondMemory(t *testing.T) {
	for _, s := range []linear.LinearSolver{linear.L2LossSVCDual, linear.L2LossSVCPrimal, linear.L2Logistic} {
		p := linear.DefaultLinearParams()
		p.Solver = s
		if _, err := linear.NewLinearTrainer(p, 4, math.MaxInt32); !errors.Is(err, ErrTooLarge) {
			t.Errorf("solver %v, 2³¹−1 features: %v, want ErrTooLarge", s, err)
		}
	}
	p := DefaultKernelParams()
	if _, err := NewKernelTrainer(p, 1<<40, 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("kernel trainer, 2⁴⁰ rows: %v, want ErrTooLarge", err)
	}
	if err := CheckMemory("a negative count", -1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("CheckMemory(-1): %v, want ErrTooLarge", err)
	}
	if err := CheckMemory("a small buffer", 1<<20); err != nil {
		t.Errorf("CheckMemory(1 MiB): %v", err)
	}
}
