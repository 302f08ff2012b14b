package simd

// finiteLenAVX2 returns how many of the first n values of x (n a positive
// multiple of 32) come before the first block of 32 holding a NaN or an
// infinity: n when none does.
//
//go:noescape
func finiteLenAVX2(x *float32, n int) int
