//go:build amd64 && go1.26 && !go1.27

package simd

import _ "unsafe" // for go:linkname

// runtimeX86 is the runtime's table of x86 features (internal/cpu.X86),
// filled before any package's init from the CPUID instructions the
// runtime executes anyway; internal/cpu marks it for access from outside
// (a one-argument go:linkname). Its layout is this Go release's, hence
// the build constraint; TestStartFeatures holds what it gives to
// x86Features'.
//
//go:linkname runtimeX86 internal/cpu.X86
var runtimeX86 struct {
	_                   [64]byte // cpu.CacheLinePad
	HasAES              bool
	HasADX              bool
	HasAVX              bool
	HasAVXVNNI          bool
	HasAVX2             bool
	HasAVX512           bool // F+CD+BW+DQ+VL, with the OS's ZMM and opmask state
	HasAVX512F          bool
	HasAVX512CD         bool
	HasAVX512BW         bool
	HasAVX512DQ         bool
	HasAVX512VL         bool
	HasAVX512GFNI       bool
	HasAVX512VAES       bool
	HasAVX512VNNI       bool
	HasAVX512VBMI       bool
	HasAVX512VBMI2      bool
	HasAVX512BITALG     bool
	HasAVX512VPOPCNTDQ  bool
	HasAVX512VPCLMULQDQ bool
	HasBMI1             bool
	HasBMI2             bool
	HasERMS             bool
	HasFSRM             bool
	HasFMA              bool // with the OS's YMM state
	HasGFNI             bool
	HasOSXSAVE          bool
	HasPCLMULQDQ        bool
	HasPOPCNT           bool
	HasRDTSCP           bool
	HasSHA              bool
	HasSSE3             bool
	HasSSSE3            bool
	HasSSE41            bool
	HasSSE42            bool
	HasVAES             bool
	_                   [64]byte // cpu.CacheLinePad
}

// startFeatures returns x86Features' results from the runtime's table.
// A GODEBUG=cpu.avx512f=off (or cpu.avx2=off, cpu.fma=off) the runtime
// honoured turns the path off here too.
func startFeatures() (avx2, avx512, vnni bool) {
	x := &runtimeX86
	avx2 = x.HasAVX2 && x.HasFMA
	avx512 = avx2 && x.HasAVX512
	return avx2, avx512, avx512 && x.HasAVX512VNNI
}
