package simd

// The features each path needs. In a virtual machine each CPUID traps to
// the hypervisor (7-9 µs each on the quiet 2-core test machine, 76 µs at
// load 30), so where the Go release's CPU feature table is known they are
// read from the one the runtime filled at start (runtimeFeatures, no
// CPUID); otherwise with two CPUID instructions and XGETBV
// (golang.org/x/sys/cpu's init took four and parsed GODEBUG). A path
// counts only when the OS saves its registers too (XCR0).
var hasAVX2, hasAVX512, hasVNNI = startFeatures()

// hasBMI is AVX-512 with POPCNT, BMI1 and BMI2 (HasAVX512BMI), which
// x86Features sets from the same two CPUID reads.
var hasBMI bool

// hasNEON is arm64's.
const hasNEON = false

// cpuid returns the registers CPUID leaf leaf, subleaf sub sets.
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// xgetbv returns the low word of XCR0 (OSXSAVE must be set).
func xgetbv() uint32

// x86Features reports AVX2 with FMA; AVX-512 F, BW, VL and DQ; and
// AVX-512 VNNI, each with the OS's support for its registers.
func x86Features() (avx2, avx512, vnni bool) {
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, fma, avx = 1 << 27, 1 << 12, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false, false, false
	}
	// XSAVE (which OSXSAVE implies) enumerates its state in leaf 0xD, so
	// leaf 7 exists: no leaf 0 for the highest leaf.
	xcr0 := xgetbv()
	const ymmState, zmmState = 0x6, 0xe6 // SSE+AVX; and opmask, ZMM0-15 upper halves, ZMM16-31
	_, ebx7, ecx7, _ := cpuid(7, 0)
	bit := func(r uint32, b uint) bool { return r>>b&1 == 1 }
	avx2 = xcr0&ymmState == ymmState && ecx1&fma != 0 && bit(ebx7, 5)
	avx512 = avx2 && xcr0&zmmState == zmmState && bit(ebx7, 16) && bit(ebx7, 17) && bit(ebx7, 30) && bit(ebx7, 31)
	hasBMI = avx512 && bit(ecx1, 23) && bit(ebx7, 3) && bit(ebx7, 8) // POPCNT, BMI1, BMI2
	return avx2, avx512, avx512 && bit(ecx7, 11)
}
