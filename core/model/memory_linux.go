package model

import (
	"math"
	"syscall"
)

// physicalMemory returns the machine's RAM in bytes, or MaxInt64 when the
// kernel does not say.
func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil || si.Totalram == 0 {
		return math.MaxInt64
	}
	total := uint64(si.Totalram) * uint64(max(si.Unit, 1))
	return int64(min(total, math.MaxInt64))
}
