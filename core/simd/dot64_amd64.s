#include "textflag.h"

// func dot64x4AVX2(x, y *float32, n int, s *[4]float64)
//
// Dot64x4's four accumulators in the four float64 lanes of Y0: lane i
// adds the products of terms j ≡ i (mod 4), in order, for j < n (n a
// positive multiple of 4), and s gets the lanes. A float32·float32
// product is exact in float64, so each lane's sums round as the scalar
// loop's do, bit for bit.
TEXT ·dot64x4AVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ s+24(FP), DX
	VXORPD Y0, Y0, Y0

loop:
	VCVTPS2PD (SI), Y1
	VCVTPS2PD (DI), Y2
	VMULPD    Y2, Y1, Y1
	VADDPD    Y1, Y0, Y0
	ADDQ      $16, SI
	ADDQ      $16, DI
	SUBQ      $4, CX
	JNZ       loop

	VMOVUPD Y0, (DX)
	VZEROUPPER
	RET
