package model

import (
	"errors"
	"fmt"
)

// ErrTooLarge reports sizes whose buffers would take more memory than the
// machine has. Go cannot recover from running out of memory (the runtime
// aborts the process, a C host included), so such sizes are refused with
// this error before anything is allocated.
var ErrTooLarge = errors.New("core: sizes need more memory than the machine has")

// CheckMemory returns an error wrapping ErrTooLarge when bytes, the memory
// what would allocate, is more than the machine's physical memory (on
// Linux; elsewhere it refuses only a negative count, the sign of an
// overflow). A size query (LinearTrainerBytes, KernelTrainerBytes) gives
// bytes; the trainers check theirs themselves.
func CheckMemory(what string, bytes int64) error {
	if total := physicalMemory(); bytes < 0 || bytes > total {
		return fmt.Errorf("%w: %s needs %d bytes, the machine has %d", ErrTooLarge, what, bytes, total)
	}
	return nil
}
