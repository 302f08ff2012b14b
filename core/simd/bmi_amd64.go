package simd

// HasAVX512BMI reports whether this machine runs the package's AVX512
// level and also BMI1, BMI2 and POPCNT: the instructions of the LIBSVM
// reader's feature loop (core/data), which mixes AVX-512 byte masks with
// bit scans of them. It costs no CPUID of its own (cpu_amd64.go).
func HasAVX512BMI() bool { return hasBMI }
