#include "textflag.h"

// The constants of math.Exp's exp_amd64.s: log2(e), ln2's upper and lower
// parts, the Taylor coefficients 1/8!, 1/7!, …, 1/3!, 1/2, 1, and 2.
DATA exp64Const<>+0(SB)/8, $1.4426950408889634073599246810018920
DATA exp64Const<>+8(SB)/8, $0.69314718055966295651160180568695068359375
DATA exp64Const<>+16(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA exp64Const<>+24(SB)/8, $2.4801587301587301587e-5
DATA exp64Const<>+32(SB)/8, $1.9841269841269841270e-4
DATA exp64Const<>+40(SB)/8, $1.3888888888888888889e-3
DATA exp64Const<>+48(SB)/8, $8.3333333333333333333e-3
DATA exp64Const<>+56(SB)/8, $4.1666666666666666667e-2
DATA exp64Const<>+64(SB)/8, $1.6666666666666666667e-1
DATA exp64Const<>+72(SB)/8, $0.5
DATA exp64Const<>+80(SB)/8, $1.0
DATA exp64Const<>+88(SB)/8, $2.0
DATA exp64Const<>+96(SB)/8, $0.0625
GLOBL exp64Const<>(SB), RODATA|NOPTR, $104

// func exp64AVX512(dst, x *float64, n int)
//
// exp_amd64.s's fused path (math.useFMA) lane by lane, operation for
// operation: k = round(x·log2e) (VCVTPD2DQ rounds to nearest, as
// CVTSD2SL), r = x − k·ln2U − k·ln2L (two VFNMADD231PD), r/16, the
// polynomial by VFMADD213PD from 1/8! down to 1, y = r·p, three times
// y = y·(y + 2), then y = y·(y + 2) + 1 (VFMADD213PD), times 2^k built in
// the exponent bits (k + 1023 in [1, 2046] on the lanes asked for).
TEXT ·exp64AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD exp64Const<>+0(SB), Z20
	VBROADCASTSD exp64Const<>+8(SB), Z21
	VBROADCASTSD exp64Const<>+16(SB), Z22
	VBROADCASTSD exp64Const<>+24(SB), Z23
	VBROADCASTSD exp64Const<>+32(SB), Z24
	VBROADCASTSD exp64Const<>+40(SB), Z25
	VBROADCASTSD exp64Const<>+48(SB), Z26
	VBROADCASTSD exp64Const<>+56(SB), Z27
	VBROADCASTSD exp64Const<>+64(SB), Z28
	VBROADCASTSD exp64Const<>+72(SB), Z29
	VBROADCASTSD exp64Const<>+80(SB), Z30
	VBROADCASTSD exp64Const<>+88(SB), Z31
	VBROADCASTSD exp64Const<>+96(SB), Z19
	MOVQ $1023, AX
	VPBROADCASTQ AX, Z18

loop:
	VMOVUPD (SI), Z0            // x
	VMULPD Z0, Z20, Z1          // x·log2e
	VCVTPD2DQ Z1, Y2            // k
	VCVTDQ2PD Y2, Z1            // float64(k)
	VFNMADD231PD Z21, Z1, Z0    // x − k·ln2U
	VFNMADD231PD Z22, Z1, Z0    // − k·ln2L
	VMULPD Z19, Z0, Z0          // r/16
	VMOVAPD Z23, Z1
	VFMADD213PD Z24, Z0, Z1     // p = p·r + c
	VFMADD213PD Z25, Z0, Z1
	VFMADD213PD Z26, Z0, Z1
	VFMADD213PD Z27, Z0, Z1
	VFMADD213PD Z28, Z0, Z1
	VFMADD213PD Z29, Z0, Z1
	VFMADD213PD Z30, Z0, Z1
	VMULPD Z1, Z0, Z0           // y = r·p
	VADDPD Z31, Z0, Z1
	VMULPD Z1, Z0, Z0           // y·(y + 2)
	VADDPD Z31, Z0, Z1
	VMULPD Z1, Z0, Z0
	VADDPD Z31, Z0, Z1
	VMULPD Z1, Z0, Z0
	VADDPD Z31, Z0, Z1
	VFMADD213PD Z30, Z1, Z0     // y·(y + 2) + 1
	VPMOVSXDQ Y2, Z3
	VPADDQ Z18, Z3, Z3
	VPSLLQ $52, Z3, Z3          // 2^k
	VMULPD Z3, Z0, Z0
	VMOVUPD Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  loop
	VZEROUPPER
	RET
