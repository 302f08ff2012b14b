package core

import (
	"errors"
	"math"
	"strings"
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
	// 2³¹−1 rows on a 32-bit machine (40 GiB before any cache in a 4 GiB
	// address space).
	if _, err := NewKernelTrainer(p, min(1<<40, math.MaxInt), 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("kernel trainer, %d rows: %v, want ErrTooLarge", min(1<<40, math.MaxInt), err)
	}
	if err := CheckMemory("a negative count", -1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("CheckMemory(-1): %v, want ErrTooLarge", err)
	}
	if err := CheckMemory("a small buffer", 1<<20); err != nil {
		t.Errorf("CheckMemory(1 MiB): %v", err)
	}
}

// TestCheckMemoryPastAddressSpace: a size an int cannot count is refused
// whatever the machine's memory (issue 29's 32-bit audit: on 32-bit
// platforms every buffer past 2 GiB, whose sizes would wrap in int
// arithmetic; make cross-armv7 runs it under qemu-arm).
func TestCheckMemoryPastAddressSpace(t *testing.T) {
	if math.MaxInt == math.MaxInt32 {
		if err := CheckMemory("2 GiB", 1<<31); !errors.Is(err, ErrTooLarge) {
			t.Errorf("CheckMemory(2³¹) on a 32-bit platform: %v, want ErrTooLarge", err)
		}
		if err := CheckMemory("2 GiB − 1", 1<<31-1); errors.Is(err, ErrTooLarge) && !strings.Contains(err.Error(), "the machine has") {
			t.Errorf("CheckMemory(2³¹−1) refused for the address space: %v", err)
		}
	}
	if err := CheckMemory("2⁶³−1 bytes", math.MaxInt64); !errors.Is(err, ErrTooLarge) {
		t.Errorf("CheckMemory(2⁶³−1): %v, want ErrTooLarge", err)
	}
}
