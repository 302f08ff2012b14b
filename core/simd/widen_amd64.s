#include "textflag.h"

// func dotWidenAVX512(x *float32, w *float64, n int) float64
// Four 8-lane float64 accumulators, 32 elements a step: lane l of
// accumulator k holds the terms i with i mod 32 = 8k + l. Each step widens
// x (VCVTPS2PD, exact), multiplies (VMULPD) and adds (VADDPD): no FMA, as
// DotWiden promises. The last n mod 32 terms are added to their lanes
// under masks (a lane without a term is left as it is), then the lanes are
// summed in dotWidenReduce's tree. n > 0.
TEXT ·dotWidenAVX512(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ w+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	MOVQ CX, BX
	ANDQ $31, BX  // the tail's length
	SUBQ BX, CX   // the whole steps' elements
	JZ   tail

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

tail:
	// Accumulator k takes min(8, max(0, BX − 8k)) terms: mask (1<<that)−1.
	MOVQ $0xff, DX
	MOVQ BX, CX
	CMPQ CX, $8
	JGE  tailk0
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX

tailk0:
	KMOVB DX, K1
	VCVTPS2PD.Z (SI), K1, Z4
	VMULPD.Z (DI), Z4, K1, Z4
	VADDPD Z4, Z0, K1, Z0
	SUBQ $8, BX
	JLE  reduce
	MOVQ $0xff, DX
	MOVQ BX, CX
	CMPQ CX, $8
	JGE  tailk1
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX

tailk1:
	KMOVB DX, K1
	VCVTPS2PD.Z 32(SI), K1, Z5
	VMULPD.Z 64(DI), Z5, K1, Z5
	VADDPD Z5, Z1, K1, Z1
	SUBQ $8, BX
	JLE  reduce
	MOVQ $0xff, DX
	MOVQ BX, CX
	CMPQ CX, $8
	JGE  tailk2
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX

tailk2:
	KMOVB DX, K1
	VCVTPS2PD.Z 64(SI), K1, Z6
	VMULPD.Z 128(DI), Z6, K1, Z6
	VADDPD Z6, Z2, K1, Z2
	SUBQ $8, BX
	JLE  reduce
	MOVQ $1, DX
	MOVQ BX, CX
	SHLQ CX, DX
	DECQ DX
	KMOVB DX, K1
	VCVTPS2PD.Z 96(SI), K1, Z7
	VMULPD.Z 192(DI), Z7, K1, Z7
	VADDPD Z7, Z3, K1, Z3

reduce:
	// v_j = (s_j + s_{8+j}) + (s_{16+j} + s_{24+j}); then
	// ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7)).
	VADDPD Z1, Z0, Z0
	VADDPD Z3, Z2, Z2
	VADDPD Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	VMOVSD X0, ret+24(FP)
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

// func axpySquaresWidenAVX512(dst, sq *float64, a, b float64, x *float32, n int)
// dst += a·x and sq += (b·x)·x, 16 elements a step, each product rounded
// before the next operation (no FMA). n is a positive multiple of 16.
TEXT ·axpySquaresWidenAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ sq+8(FP), DX
	VBROADCASTSD a+16(FP), Z8
	VBROADCASTSD b+24(FP), Z9
	MOVQ x+32(FP), SI
	MOVQ n+40(FP), CX

loop:
	VCVTPS2PD (SI), Z4
	VCVTPS2PD 32(SI), Z5
	VMULPD Z8, Z4, Z0
	VMULPD Z8, Z5, Z1
	VMULPD Z9, Z4, Z2
	VMULPD Z9, Z5, Z3
	VMULPD Z4, Z2, Z2
	VMULPD Z5, Z3, Z3
	VADDPD (DI), Z0, Z0
	VADDPD 64(DI), Z1, Z1
	VADDPD (DX), Z2, Z2
	VADDPD 64(DX), Z3, Z3
	VMOVUPD Z0, (DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, (DX)
	VMOVUPD Z3, 64(DX)
	ADDQ $64, SI
	ADDQ $128, DI
	ADDQ $128, DX
	SUBQ $16, CX
	JNZ  loop
	VZEROUPPER
	RET
