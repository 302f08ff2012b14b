#include "textflag.h"

// func dotWidenAVX512(x *float32, w *float64, n int, out *[32]float64)
// Four 8-lane float64 accumulators, 32 elements a step: lane l of
// accumulator k holds the terms i with i mod 32 = 8k + l. Each step widens
// x (VCVTPS2PD, exact), multiplies (VMULPD) and adds (VADDPD): no FMA, as
// DotWiden promises. n is a positive multiple of 32.
TEXT ·dotWidenAVX512(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ w+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ out+24(FP), DX
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3

loop:
	VCVTPS2PD (SI), Z4
	VCVTPS2PD 32(SI), Z5
	VCVTPS2PD 64(SI), Z6
	VCVTPS2PD 96(SI), Z7
	VMULPD (DI), Z4, Z4
	VMULPD 64(DI), Z5, Z5
	VMULPD 128(DI), Z6, Z6
	VMULPD 192(DI), Z7, Z7
	VADDPD Z4, Z0, Z0
	VADDPD Z5, Z1, Z1
	VADDPD Z6, Z2, Z2
	VADDPD Z7, Z3, Z3
	ADDQ $128, SI
	ADDQ $256, DI
	SUBQ $32, CX
	JNZ  loop

	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	VMOVUPD Z2, 128(DX)
	VMOVUPD Z3, 192(DX)
	VZEROUPPER
	RET

// func axpyWidenAVX512(dst *float64, a float64, x *float32, n int)
// dst += a·x, 32 elements a step: widen (exact), VMULPD, VADDPD (no FMA).
// n is a positive multiple of 32.
TEXT ·axpyWidenAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	VBROADCASTSD a+8(FP), Z8
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), CX

loop:
	VCVTPS2PD (SI), Z4
	VCVTPS2PD 32(SI), Z5
	VCVTPS2PD 64(SI), Z6
	VCVTPS2PD 96(SI), Z7
	VMULPD Z8, Z4, Z4
	VMULPD Z8, Z5, Z5
	VMULPD Z8, Z6, Z6
	VMULPD Z8, Z7, Z7
	VADDPD (DI), Z4, Z4
	VADDPD 64(DI), Z5, Z5
	VADDPD 128(DI), Z6, Z6
	VADDPD 192(DI), Z7, Z7
	VMOVUPD Z4, (DI)
	VMOVUPD Z5, 64(DI)
	VMOVUPD Z6, 128(DI)
	VMOVUPD Z7, 192(DI)
	ADDQ $128, SI
	ADDQ $256, DI
	SUBQ $32, CX
	JNZ  loop
	VZEROUPPER
	RET
