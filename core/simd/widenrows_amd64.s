#include "textflag.h"

// DTAILSTEP: the dot's next tail step of min(8, BX) terms at xoff(SI)
// and woff(DI) into acc under a mask, then BX −= 8. Uses CX, DX, K1.
#define DTAILSTEP(xoff, woff, tmp, acc) \
	MOVQ $8, DX                      \
	CMPQ BX, $8                      \
	CMOVQLT BX, DX                   \
	MOVL $0xff, CX                   \
	BZHIL DX, CX, CX                 \
	KMOVB CX, K1                     \
	VCVTPS2PD.Z xoff(SI), K1, tmp    \
	VMULPD.Z woff(DI), tmp, K1, tmp  \
	VADDPD tmp, acc, K1, acc         \
	SUBQ $8, BX

// WIDENDOT: X0 = the row at SI against DI, n = R9 entries, summed as
// dotWidenAVX512 sums (four 8-lane accumulators, 32 terms a step, the last
// n mod 32 under masks, dotWidenReduce's tree). Uses BX, CX, DX, Z0..Z7,
// K1; its labels are the function's (one use a function).
#define WIDENDOT \
	VXORPD Z0, Z0, Z0 \
	VXORPD Z1, Z1, Z1 \
	VXORPD Z2, Z2, Z2 \
	VXORPD Z3, Z3, Z3 \
	MOVQ R9, CX \
	MOVQ CX, BX \
	ANDQ $31, BX \
	SUBQ BX, CX \
	JZ   dtail \
dloop: \
	VCVTPS2PD (SI), Z4 \
	VCVTPS2PD 32(SI), Z5 \
	VCVTPS2PD 64(SI), Z6 \
	VCVTPS2PD 96(SI), Z7 \
	VMULPD (DI), Z4, Z4 \
	VMULPD 64(DI), Z5, Z5 \
	VMULPD 128(DI), Z6, Z6 \
	VMULPD 192(DI), Z7, Z7 \
	VADDPD Z4, Z0, Z0 \
	VADDPD Z5, Z1, Z1 \
	VADDPD Z6, Z2, Z2 \
	VADDPD Z7, Z3, Z3 \
	ADDQ $128, SI \
	ADDQ $256, DI \
	SUBQ $32, CX \
	JNZ  dloop \
dtail: \
	TESTQ BX, BX \
	JZ   reduce \
	DTAILSTEP(0, 0, Z4, Z0) \
	JLE  reduce \
	DTAILSTEP(32, 64, Z5, Z1) \
	JLE  reduce \
	DTAILSTEP(64, 128, Z6, Z2) \
	JLE  reduce \
	DTAILSTEP(96, 192, Z7, Z3) \
reduce: \
	VADDPD Z1, Z0, Z0 \
	VADDPD Z3, Z2, Z2 \
	VADDPD Z2, Z0, Z0 \
	VEXTRACTF64X4 $1, Z0, Y1 \
	VADDPD Y1, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPD X1, X0, X0 \
	VPERMILPD $1, X0, X1 \
	VADDSD X1, X0, X0

// func hvWidenRowsAVX512(Hs, s *float64, X *float32, n int, rows *int32, lo, hi int, a *float64, scale, sb, bias float64, hasBias int)
//
// Row by row: x_iᵀs as dotWidenAVX512 sums it (four 8-lane accumulators,
// 32 terms a step, the last n mod 32 under masks, dotWidenReduce's tree),
// c = (scale·a[i])·(x_iᵀs + sb), then Hs += c·x_i 32 entries a step and
// the rest 8 at a time under a mask (axpyWidenAVX512's arithmetic), then
// Hs[n] += c·bias when hasBias ≠ 0. Every product is rounded before its
// sum (no FMA).
TEXT ·hvWidenRowsAVX512(SB), NOSPLIT, $0-96
	MOVQ X+16(FP), R8
	MOVQ n+24(FP), R9
	MOVQ R9, R10
	SHLQ $2, R10                // a row's bytes
	MOVQ lo+40(FP), R11
	MOVQ hi+48(FP), R12
	MOVQ a+56(FP), R13
	MOVQ Hs+0(FP), R14
	VMOVSD scale+64(FP), X9
	VMOVSD sb+72(FP), X10
	VMOVSD bias+80(FP), X11

row:
	CMPQ R11, R12
	JGE  done
	MOVQ R11, AX
	MOVQ rows+32(FP), DX
	TESTQ DX, DX
	JZ   2(PC)
	MOVLQSX (DX)(R11*4), AX     // i
	MOVQ AX, DX
	IMULQ R10, DX
	LEAQ (R8)(DX*1), SI         // x_i
	MOVQ s+8(FP), DI

	WIDENDOT
	VADDSD X10, X0, X0          // + sb
	VMULSD (R13)(AX*8), X9, X1  // scale·a[i]
	VMULSD X0, X1, X1           // c

	VBROADCASTSD X1, Z12
	MOVQ AX, DX
	IMULQ R10, DX
	LEAQ (R8)(DX*1), SI         // x_i again
	MOVQ R14, DI
	MOVQ R9, CX
	MOVQ CX, BX
	ANDQ $31, BX
	SUBQ BX, CX
	JZ   atail

aloop:
	VCVTPS2PD (SI), Z4
	VCVTPS2PD 32(SI), Z5
	VCVTPS2PD 64(SI), Z6
	VCVTPS2PD 96(SI), Z7
	VMULPD Z12, Z4, Z4
	VMULPD Z12, Z5, Z5
	VMULPD Z12, Z6, Z6
	VMULPD Z12, Z7, Z7
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
	JNZ  aloop

atail:
	TESTQ BX, BX
	JLE  abias
	MOVQ $8, DX
	CMPQ BX, $8
	CMOVQLT BX, DX
	MOVL $0xff, CX
	BZHIL DX, CX, CX
	KMOVB CX, K1
	VCVTPS2PD.Z (SI), K1, Z4
	VMULPD Z12, Z4, Z4
	VMOVUPD.Z (DI), K1, Z5
	VADDPD Z4, Z5, Z5
	VMOVUPD Z5, K1, (DI)
	ADDQ $32, SI
	ADDQ $64, DI
	SUBQ $8, BX
	JMP  atail

abias:
	CMPQ hasBias+88(FP), $0
	JE   next
	VMULSD X11, X1, X2          // c·bias
	VADDSD (R14)(R9*8), X2, X2
	VMOVSD X2, (R14)(R9*8)

next:
	INCQ R11
	JMP  row

done:
	VZEROUPPER
	RET

// func dotWidenRowsAVX512(dst, s *float64, X *float32, n, lo, hi int)
//
// dst[i] = x_iᵀs (WIDENDOT) for rows i = lo..hi−1.
TEXT ·dotWidenRowsAVX512(SB), NOSPLIT, $0-48
	MOVQ X+16(FP), R8
	MOVQ n+24(FP), R9
	MOVQ R9, R10
	SHLQ $2, R10
	MOVQ lo+32(FP), R11
	MOVQ hi+40(FP), R12
	MOVQ dst+0(FP), R13

row:
	CMPQ R11, R12
	JGE  done
	MOVQ R11, DX
	IMULQ R10, DX
	LEAQ (R8)(DX*1), SI
	MOVQ s+8(FP), DI
	WIDENDOT
	VMOVSD X0, (R13)(R11*8)
	INCQ R11
	JMP  row

done:
	VZEROUPPER
	RET
