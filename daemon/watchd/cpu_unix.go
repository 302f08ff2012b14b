//go:build unix

package watchd

import "syscall"

// processCPU returns the CPU seconds (user and system) the process has used,
// and whether the system reports them. The retrain and cold-solve records
// log the difference over a solve ("cpu_seconds"): the wall time a loaded
// machine stretches, CPU time much less, and the benchmarks compare the
// daemon's retrains with in-process ones by CPU.
func processCPU() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9, true
}
