#include "textflag.h"

// The positions of a row's tail terms: (len &^ 3) + 0, 1, 2 (and unused).
DATA hvTailLanes<>+0(SB)/8, $0
DATA hvTailLanes<>+8(SB)/8, $1
DATA hvTailLanes<>+16(SB)/8, $2
DATA hvTailLanes<>+24(SB)/8, $3
DATA hvTailLanes<>+32(SB)/8, $4
DATA hvTailLanes<>+40(SB)/8, $5
DATA hvTailLanes<>+48(SB)/8, $6
DATA hvTailLanes<>+56(SB)/8, $7
GLOBL hvTailLanes<>(SB), RODATA|NOPTR, $64

// func hvSparseRowsAVX512(Hs, s *float64, start *int, index *int32, value *float32, n int, rows *int32, lo, hi int, a *float64, nRows, nIndex int, scale, bias, sb float64, hasBias int) int
//
// A row of L ≤ 16 terms without a branch on L: its indices, values and
// s's entries loaded under a mask of L lanes (masked-out lanes read
// nothing and hold +0), the 16 products p in two zmm. The whole steps of
// four (the first L &^ 3 terms) are added lane by lane, step after step,
// to lanes that start at +0: lane k is ((0 + p_k) + p_{k+4}) + …, a step
// past the whole ones masked to +0 (adding +0 leaves a sum that is never
// −0 unchanged); the tail's up to three products, picked by VPERMI2PD,
// are added to lane 0 one at a time (a missing one +0); then
// (s0 + s1) + (s2 + s3) + sb — the order of hvSparseRowsFrom. The update
// gathers Hs's entries, adds c·x and scatters them back (indices distinct
// within a row). Every product is rounded before its sum (no FMA).
TEXT ·hvSparseRowsAVX512(SB), NOSPLIT, $0-136
	MOVQ Hs+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ start+16(FP), R8
	MOVQ index+24(FP), R9
	MOVQ value+32(FP), R10
	MOVQ rows+48(FP), BX
	MOVQ lo+56(FP), CX
	MOVQ a+72(FP), R11
	VMOVSD scale+96(FP), X5
	VMOVSD bias+104(FP), X7
	VMOVSD sb+112(FP), X6
	MOVQ n+40(FP), AX
	VPBROADCASTD AX, Z31
	VMOVDQU64 hvTailLanes<>(SB), Z30

row:
	CMPQ CX, hi+64(FP)
	JGE  stop
	MOVQ CX, AX
	TESTQ BX, BX
	JZ   2(PC)
	MOVLQSX (BX)(CX*4), AX
	CMPQ AX, nRows+80(FP)
	JAE  stop                  // i < 0 or past the rows
	MOVQ (R8)(AX*8), R12       // start[i]
	MOVQ 8(R8)(AX*8), R13      // start[i+1]
	CMPQ R13, nIndex+88(FP)
	JA   stop
	CMPQ R12, R13
	JA   stop
	MOVQ R13, DX
	SUBQ R12, DX               // L
	CMPQ DX, $16
	JA   stop

	MOVL  $0xffff, R13
	BZHIL DX, R13, R14
	KMOVW R14, K1              // the row's lanes
	KSHIFTRW $8, K1, K2
	MOVQ  DX, R14
	ANDQ  $-4, R14             // the whole steps' terms
	BZHIL R14, R13, R13
	KMOVW R13, K3
	KSHIFTRW $8, K3, K4
	MOVQ  DX, R13
	ANDQ  $3, R13
	MOVL  $7, DX
	BZHIL R13, DX, DX
	KMOVW DX, K5               // the tail's lanes

	LEAQ (R9)(R12*4), R13
	VMOVDQU32.Z (R13), K1, Z0
	VPCMPUD $5, Z31, Z0, K1, K6 // an index ≥ n
	KORTESTW K6, K6
	JNZ  stop
	LEAQ (R10)(R12*4), R13
	VCVTPS2PD.Z (R13), K1, Z1
	VCVTPS2PD.Z 32(R13), K2, Z2
	VEXTRACTI64X4 $1, Z0, Y8

	KMOVW K1, K6
	VXORPD Z3, Z3, Z3
	VGATHERDPD (SI)(Y0*8), K6, Z3
	VXORPD Z4, Z4, Z4
	KORTESTW K2, K2
	JZ   2(PC)
	KMOVW K2, K6
	VGATHERDPD (SI)(Y8*8), K6, Z4
	VMULPD Z3, Z1, Z3          // p0..p7
	VMULPD Z4, Z2, Z4          // p8..p15

	VPBROADCASTQ R14, Z9
	VPADDQ Z30, Z9, Z9
	VPERMI2PD.Z Z4, Z3, K5, Z9 // the tail's products, else +0

	VMOVAPD.Z Z3, K3, Z10
	VMOVAPD.Z Z4, K4, Z11
	VXORPD Y12, Y12, Y12
	VADDPD Y10, Y12, Y12
	VEXTRACTF64X4 $1, Z10, Y13
	VADDPD Y13, Y12, Y12
	VADDPD Y11, Y12, Y12
	VEXTRACTF64X4 $1, Z11, Y13
	VADDPD Y13, Y12, Y12       // lanes s0..s3

	VADDSD X9, X12, X13        // s0 + t0; s1 stays in the upper lane
	VPERMILPD $1, X9, X14
	VADDSD X14, X13, X13
	VEXTRACTF128 $1, Y9, X14
	VADDSD X14, X13, X13
	VEXTRACTF128 $1, Y12, X14  // s2, s3
	VHADDPD X13, X13, X13      // s0 + s1
	VHADDPD X14, X14, X14      // s2 + s3
	VADDSD X14, X13, X13
	VADDSD X6, X13, X13        // + sb
	VMULSD (R11)(AX*8), X5, X14 // scale·a[i]
	VMULSD X13, X14, X14       // c

	VBROADCASTSD X14, Z15
	VMULPD Z15, Z1, Z1
	VMULPD Z15, Z2, Z2
	KMOVW K1, K6
	VGATHERDPD (DI)(Y0*8), K6, Z16
	VADDPD Z1, Z16, Z16
	KMOVW K1, K6
	VSCATTERDPD Z16, K6, (DI)(Y0*8)
	KORTESTW K2, K2
	JZ   bias
	KMOVW K2, K6
	VGATHERDPD (DI)(Y8*8), K6, Z17
	VADDPD Z2, Z17, Z17
	KMOVW K2, K6
	VSCATTERDPD Z17, K6, (DI)(Y8*8)

bias:
	CMPQ hasBias+120(FP), $0
	JE   next
	MOVQ n+40(FP), R13
	VMULSD X7, X14, X15        // c·bias
	VADDSD (DI)(R13*8), X15, X15
	VMOVSD X15, (DI)(R13*8)

next:
	INCQ CX
	JMP  row

stop:
	MOVQ CX, ret+128(FP)
	VZEROUPPER
	RET
