package model

import (
	"errors"
	"math"
	"strings"
	"testing"
)

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
