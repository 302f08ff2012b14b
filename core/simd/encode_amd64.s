#include "textflag.h"

// LOADPAIR widens the 16 float32 at (SI) and (DX) into float64: x in Z0
// (elements 0–7) and Z1 (8–15), a in Z2 and Z3; K4 masks the loads (all
// ones in the loops, the remainder's lanes in the tails, zeros elsewhere).
#define LOADPAIR \
	VMOVUPS.Z (SI), K4, Z0 \
	VMOVUPS.Z (DX), K4, Z2 \
	VEXTRACTF32X8 $1, Z0, Y1 \
	VEXTRACTF32X8 $1, Z2, Y3 \
	VCVTPS2PD Y0, Z0 \
	VCVTPS2PD Y1, Z1 \
	VCVTPS2PD Y2, Z2 \
	VCVTPS2PD Y3, Z3

// ABSMAX folds |x·a| of the loaded 16 into the lane maxima Z20, Z21 and
// NaN products into K3 (VMAXPD would drop them).
#define ABSMAX \
	VMULPD Z2, Z0, Z0 \
	VMULPD Z3, Z1, Z1 \
	VANDPD Z28, Z0, Z0 \
	VANDPD Z28, Z1, Z1 \
	VCMPPD $3, Z0, Z0, K1 \
	VCMPPD $3, Z1, Z1, K2 \
	KORW K1, K3, K3 \
	KORW K2, K3, K3 \
	VMAXPD Z0, Z20, Z20 \
	VMAXPD Z1, Z21, Z21

// func maxAbsProdAVX512(x, a *float32, n int) float64
// Two 8-lane float64 maxima, 16 elements a step, the last 1–15 under a
// mask (masked lanes load 0, which leaves a maximum of |·| unchanged):
// widen x and a (exact), multiply (exact: 24-bit mantissas), clear the
// sign, VMAXPD; then the lanes' maximum, or NaN when a product was.
TEXT ·maxAbsProdAVX512(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ a+8(FP), DX
	MOVQ n+16(FP), CX
	MOVQ $0x7FFFFFFFFFFFFFFF, BX
	VPBROADCASTQ BX, Z28
	VXORPD Z20, Z20, Z20
	VXORPD Z21, Z21, Z21
	KXORW K3, K3, K3
	KXNORW K4, K4, K4
	CMPQ CX, $16
	JLT  mtail

mloop:
	LOADPAIR
	ABSMAX
	ADDQ $64, SI
	ADDQ $64, DX
	SUBQ $16, CX
	CMPQ CX, $16
	JGE  mloop

mtail:
	TESTQ CX, CX
	JZ    mreduce
	MOVQ  $1, BX
	SHLQ  CX, BX
	DECQ  BX
	KMOVW BX, K4
	LOADPAIR
	ABSMAX

mreduce:
	VMAXPD Z21, Z20, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VMAXPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VMAXPD X1, X0, X0
	KMOVW K3, AX
	TESTW AX, AX
	JZ    mdone
	MOVQ  $0x7FF8000000000001, AX
	MOVQ  AX, X0

mdone:
	MOVSD X0, ret+24(FP)
	VZEROUPPER
	RET

// ROUNDSTORE rounds y = x·a·inv of the loaded 16 to integers and stores
// their limbs under K4: q = trunc(y) + copysign(1, y) where |y − trunc(y)|
// ≥ 1/2 (both exact: math.Round), converted to int32 (VCVTTPD2DQ: q is an
// integer), lo = q << (32−shift) >> (32−shift), hi = (q − lo) >> shift
// (arithmetic), narrowed to int16 by truncation (VPMOVDW).
#define ROUNDSTORE \
	VMULPD Z2, Z0, Z0 \
	VMULPD Z3, Z1, Z1 \
	VMULPD Z31, Z0, Z0 \
	VMULPD Z31, Z1, Z1 \
	VRNDSCALEPD $11, Z0, Z2 \
	VRNDSCALEPD $11, Z1, Z3 \
	VSUBPD Z2, Z0, Z4 \
	VSUBPD Z3, Z1, Z5 \
	VANDPD Z28, Z4, Z4 \
	VANDPD Z28, Z5, Z5 \
	VCMPPD $13, Z29, Z4, K1 \
	VCMPPD $13, Z29, Z5, K2 \
	VANDPD Z27, Z0, Z6 \
	VANDPD Z27, Z1, Z7 \
	VORPD  Z30, Z6, Z6 \
	VORPD  Z30, Z7, Z7 \
	VADDPD Z6, Z2, K1, Z2 \
	VADDPD Z7, Z3, K2, Z3 \
	VCVTTPD2DQ Z2, Y2 \
	VCVTTPD2DQ Z3, Y3 \
	VINSERTI64X4 $1, Y3, Z2, Z2 \
	VPSLLD X8, Z2, Z4 \
	VPSRAD X8, Z4, Z4 \
	VPSUBD Z4, Z2, Z5 \
	VPSRAD X9, Z5, Z5 \
	VPMOVDW Z4, K4, (R8) \
	VPMOVDW Z5, K4, (DI)

// func roundLimbsAVX512(hi, lo *int16, x, a *float32, n int, inv float64, shift int)
// RoundLimbs, 16 elements a step, the last 1–15 under a mask.
TEXT ·roundLimbsAVX512(SB), NOSPLIT, $0-56
	MOVQ hi+0(FP), DI
	MOVQ lo+8(FP), R8
	MOVQ x+16(FP), SI
	MOVQ a+24(FP), DX
	MOVQ n+32(FP), CX
	VBROADCASTSD inv+40(FP), Z31
	MOVQ shift+48(FP), AX
	MOVQ $32, BX
	SUBQ AX, BX
	VMOVQ AX, X9
	VMOVQ BX, X8
	MOVQ $0x7FFFFFFFFFFFFFFF, BX
	VPBROADCASTQ BX, Z28
	MOVQ $0x8000000000000000, BX
	VPBROADCASTQ BX, Z27
	MOVQ $0x3FF0000000000000, BX
	VPBROADCASTQ BX, Z30
	MOVQ $0x3FE0000000000000, BX
	VPBROADCASTQ BX, Z29
	KXNORW K4, K4, K4
	CMPQ CX, $16
	JLT  rtail

rloop:
	LOADPAIR
	ROUNDSTORE
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $32, DI
	ADDQ $32, R8
	SUBQ $16, CX
	CMPQ CX, $16
	JGE  rloop

rtail:
	TESTQ CX, CX
	JZ    rdone
	MOVQ  $1, BX
	SHLQ  CX, BX
	DECQ  BX
	KMOVW BX, K4
	LOADPAIR
	ROUNDSTORE

rdone:
	VZEROUPPER
	RET

// func widenShiftAVX512(dst *int64, src *int32, n, shift int, add int64)
// 16 elements a step: sign-extend (VPMOVSXDQ), shift left (VPSLLQ), add.
TEXT ·widenShiftAVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ shift+24(FP), AX
	VMOVQ AX, X9
	VPBROADCASTQ add+32(FP), Z8

wloop:
	VPMOVSXDQ (SI), Z0
	VPMOVSXDQ 32(SI), Z1
	VPSLLQ X9, Z0, Z0
	VPSLLQ X9, Z1, Z1
	VPADDQ Z8, Z0, Z0
	VPADDQ Z8, Z1, Z1
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, 64(DI)
	ADDQ $64, SI
	ADDQ $128, DI
	SUBQ $16, CX
	JNZ  wloop
	VZEROUPPER
	RET
