package simd

import "sync"

// HasAVX512VBMI reports whether this machine runs the package's AVX512
// level and also AVX-512 VBMI (VPERMB) and BMI2: the instructions of the
// LIBSVM reader's feature loop (core/data), which shuffles a token's digit
// bytes into place. It reads CPUID on its first call, not at start-up, so
// that commands which never parse a file do not pay for it (a CPUID traps to
// the hypervisor in a virtual machine: see cpu_amd64.go).
func HasAVX512VBMI() bool { return hasVBMI() }

var hasVBMI = sync.OnceValue(func() bool {
	if !hasAVX512 {
		return false
	}
	_, ebx7, ecx7, _ := cpuid(7, 0)
	const bmi2, vbmi = 1 << 8, 1 << 1
	return ebx7&bmi2 != 0 && ecx7&vbmi != 0
})
