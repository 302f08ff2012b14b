package simd

import "golang.org/x/sys/cpu"

// The features each path needs; x/sys/cpu sets them only when the OS saves
// the wide registers too.
var (
	hasAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	hasAVX512 = hasAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512DQ
	hasVNNI   = hasAVX512 && cpu.X86.HasAVX512VNNI
)

// hasNEON is arm64's.
const hasNEON = false
