//go:build unix

package main

import "syscall"

// processCPU returns the CPU seconds (user and system) the process has used,
// and whether the system reports them: quantize's batch timing compares the
// two models by it (batchTiming).
func processCPU() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9, true
}
