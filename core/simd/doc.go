// Package simd holds the hot loops of prediction and kernel evaluation:
// float32 dot products, a blocked matrix product C = A·Bᵀ over packed
// panels of B, vectorized exp (the RBF kernel's) and tanh, the int16×int8
// matrix product of quantized kernel models, float32 rows against float64
// vectors (DotWiden, AxpyWiden), float64 dot products of rows with a
// feature-major matrix in a fixed order (PairDots64, linear models'
// decision values), narrow float32 rows against float64 vectors many rows
// a call (DotRows64x4, AxpyRows64, HvRows64x4: the primal Newton method's
// passes), math.Log1p eight lanes at a time with its bits (Log1p) and the
// SMO solver's loops. Each has a
// portable pure-Go reference and, on amd64, AVX-512 and AVX2+FMA paths
// written in Go assembly, chosen once at start-up from the CPU's features
// (CPUID and XGETBV, cpu_amd64.go). The integer matrix product uses AVX-512 VNNI
// only (VPDPBUSD; without it, the portable code). On arm64 the float32 matrix product has a
// NEON micro-kernel (the rest is portable code there); every other
// architecture runs the portable code. make test runs the arm64 paths under
// qemu.
//
// Why Go assembly and not simd/archsimd: archsimd exists only under
// GOEXPERIMENT=simd, so a user's plain `go build` (and the C library built
// by `make`) would not get it; Go assembly builds everywhere with the
// standard toolchain, and the few kernels here are short.
//
// # Accuracy
//
// Integer paths are exact (sums wrap modulo 2³² as int32 arithmetic does,
// on every path alike). Float paths accumulate float32 in another order than
// the portable code: a dot product of n terms differs from the exact sum by
// at most about n·2⁻²⁴·Σ|x_i·y_i| on any path (the tests hold every path to
// 4·2⁻²⁴·√n·Σ|x_i·y_i| + 1e-30 against a float64 reference). exp's
// relative error is at most ExpMaxRelError for results ≥ 2⁻¹²⁶ (x ≥
// −87.33); smaller results may be flushed to zero or returned as
// subnormals. Tanh's error is at most TanhMaxRelError relative to |tanh x|.
//
// # Allocation and aliasing
//
// No function allocates. Length mismatches are programmer errors and
// panic with a "simd:" message, before any memory is touched.
//
// # Imports
//
// It may import nothing of this module (the standard library only; its
// tests check the CPU features against golang.org/x/sys/cpu); imports point down the package table of
// DESIGN.md §2, never sideways.
package simd
