//go:build !amd64.v3

package kexp

// TrainVectorExact reports whether the vector paths of the training
// kernel columns (simd.RBFArgs, simd.ExpTo32) round as this build's
// scalar code does (simd.Dot64x4, ExpFast): on amd64 below GOAMD64=v3 the
// compiler never fuses a product into a sum, and neither do they. With
// v3 (or on arm64) it does, and the columns keep the scalar loops so that
// they stay bit for bit Kernel.eval's.
const TrainVectorExact = true
