package simd

import "sync"

// HasAVX512BMI reports whether this machine runs the package's AVX512
// level and also BMI1, BMI2 and POPCNT: the instructions of the LIBSVM
// reader's feature loop (core/data), which mixes AVX-512 byte masks with
// bit scans of them. It reads CPUID on its first call, not at start-up, so
// that commands which never parse a file do not pay for it (a CPUID traps to
// the hypervisor in a virtual machine: see cpu_amd64.go).
func HasAVX512BMI() bool { return hasBMI() }

var hasBMI = sync.OnceValue(func() bool {
	if !hasAVX512 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	_, ebx7, _, _ := cpuid(7, 0)
	const popcnt, bmi1, bmi2 = 1 << 23, 1 << 3, 1 << 8
	return ecx1&popcnt != 0 && ebx7&bmi1 != 0 && ebx7&bmi2 != 0
})
