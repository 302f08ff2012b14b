//go:build amd64 && !(go1.26 && !go1.27)

package simd

// startFeatures reads the features with CPUID: the runtime's table has a
// layout of its own in each Go release (cpu_amd64_runtime.go).
func startFeatures() (avx2, avx512, vnni bool) { return x86Features() }
