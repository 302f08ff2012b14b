package main

import (
	"errors"
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
)

// TestSizesPast2GiBRefused is issue 29's 32-bit audit of the C ABI's
// sizes (make cross-armv7 runs it under qemu-arm): a dense predict input
// of rows × features × 8 bytes past the address space, and a trainer whose
// rows would take past 2 GiB on a 32-bit platform, are refused with
// SVMGO_ERR_INVALID_ARGUMENT, never wrapped into a smaller buffer.
func TestSizesPast2GiBRefused(t *testing.T) {
	// 2¹⁴ × 2¹⁵ doubles = 2 GiB on 32-bit; past MaxInt/8 everywhere.
	rows, nf := 1<<14, 1<<15
	if math.MaxInt != math.MaxInt32 {
		rows = math.MaxInt / 8 / nf * 2
	}
	if _, err := product("num_rows × num_features", rows, nf, 8); statusOf(err) != statusInvalidArgument {
		t.Errorf("product(%d, %d, 8): %v, want an invalid argument", rows, nf, err)
	}
	if n, err := product("num_rows × num_features", 1<<10, 1<<10, 8); err != nil || n != 1<<20 {
		t.Errorf("product(2¹⁰, 2¹⁰, 8) = %d, %v", n, err)
	}
	if math.MaxInt != math.MaxInt32 {
		return // below, sizes a 64-bit machine might allocate
	}
	// 2²⁷ rows of 8 features: 2 GiB of labels and batch numbers, 4 GiB of
	// values, within maxCells and, on a large host, within its memory.
	_, err := newTrainer("-s 1", 1<<27, 8, 0)
	if statusOf(err) != statusInvalidArgument || !errors.Is(err, core.ErrTooLarge) {
		t.Errorf("newTrainer(2²⁷ rows × 8) on 32-bit: %v, want an invalid argument wrapping ErrTooLarge", err)
	}
	// 2²⁸ sparse rows with 2²⁸ nonzeros: 6 GiB.
	if _, err := newTrainer("-s 1", 1<<28, 8, 1<<28); statusOf(err) != statusInvalidArgument {
		t.Errorf("newTrainer(2²⁸ rows, 2²⁸ nonzeros) on 32-bit: %v, want an invalid argument", err)
	}
}
