#include "textflag.h"

// func pairDots4AVX512(d *float64, ldd int, x *float32, ldx int, w *float32, nf, nw int)
//
// PairDots64 on four rows (x and d lda/ldd elements apart; 0 repeats one
// row): eight columns of w a step, Z0..Z3 the four rows' sums, K1 masking
// the last step's columns past nw. Per pair of features j, j+1: the two
// columns' weights widened (Z4, Z5), each row's two values broadcast and
// widened, multiplied and added (VMULPD, VMULPD, VADDPD: the portable
// code's roundings), and the pair sum added to the row's sum.
TEXT ·pairDots4AVX512(SB), NOSPLIT, $0-56
	MOVQ d+0(FP), DI
	MOVQ ldd+8(FP), R8
	MOVQ x+16(FP), SI
	MOVQ ldx+24(FP), R9
	MOVQ w+32(FP), BX
	MOVQ nf+40(FP), R10
	MOVQ nw+48(FP), R11
	SHLQ $3, R8              // strides in bytes
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R12     // 3·ldx
	LEAQ (R8)(R8*2), R13     // 3·ldd
	LEAQ 0(R11*4), R14       // one feature's weights, bytes
	MOVQ R11, DX             // columns left

step:
	TESTQ DX, DX
	JLE   done
	MOVQ  $0xff, AX
	CMPQ  DX, $8
	JGE   mask
	MOVQ  DX, CX
	MOVQ  $1, AX
	SHLQ  CX, AX
	DECQ  AX

mask:
	KMOVB AX, K1
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	MOVQ  SI, AX             // x, feature j
	MOVQ  BX, R15            // w, feature j
	MOVQ  R10, CX
	SHRQ  $1, CX             // pairs
	JZ    odd

pair:
	VCVTPS2PD.Z (R15), K1, Z4
	VCVTPS2PD.Z (R15)(R14*1), K1, Z5
	VBROADCASTSS (AX), Y6
	VBROADCASTSS 4(AX), Y7
	VCVTPS2PD Y6, Z6
	VCVTPS2PD Y7, Z7
	VMULPD Z4, Z6, Z6
	VMULPD Z5, Z7, Z7
	VADDPD Z7, Z6, Z6
	VADDPD Z6, Z0, Z0
	VBROADCASTSS (AX)(R9*1), Y8
	VBROADCASTSS 4(AX)(R9*1), Y9
	VCVTPS2PD Y8, Z8
	VCVTPS2PD Y9, Z9
	VMULPD Z4, Z8, Z8
	VMULPD Z5, Z9, Z9
	VADDPD Z9, Z8, Z8
	VADDPD Z8, Z1, Z1
	VBROADCASTSS (AX)(R9*2), Y10
	VBROADCASTSS 4(AX)(R9*2), Y11
	VCVTPS2PD Y10, Z10
	VCVTPS2PD Y11, Z11
	VMULPD Z4, Z10, Z10
	VMULPD Z5, Z11, Z11
	VADDPD Z11, Z10, Z10
	VADDPD Z10, Z2, Z2
	VBROADCASTSS (AX)(R12*1), Y12
	VBROADCASTSS 4(AX)(R12*1), Y13
	VCVTPS2PD Y12, Z12
	VCVTPS2PD Y13, Z13
	VMULPD Z4, Z12, Z12
	VMULPD Z5, Z13, Z13
	VADDPD Z13, Z12, Z12
	VADDPD Z12, Z3, Z3
	ADDQ $8, AX
	LEAQ (R15)(R14*2), R15
	DECQ CX
	JNZ  pair

odd:
	TESTQ $1, R10
	JZ    store
	VCVTPS2PD.Z (R15), K1, Z4
	VBROADCASTSS (AX), Y6
	VCVTPS2PD Y6, Z6
	VMULPD Z4, Z6, Z6
	VADDPD Z6, Z0, Z0
	VBROADCASTSS (AX)(R9*1), Y8
	VCVTPS2PD Y8, Z8
	VMULPD Z4, Z8, Z8
	VADDPD Z8, Z1, Z1
	VBROADCASTSS (AX)(R9*2), Y10
	VCVTPS2PD Y10, Z10
	VMULPD Z4, Z10, Z10
	VADDPD Z10, Z2, Z2
	VBROADCASTSS (AX)(R12*1), Y12
	VCVTPS2PD Y12, Z12
	VMULPD Z4, Z12, Z12
	VADDPD Z12, Z3, Z3

store:
	VMOVUPD Z3, K1, (DI)(R13*1)
	VMOVUPD Z2, K1, (DI)(R8*2)
	VMOVUPD Z1, K1, (DI)(R8*1)
	VMOVUPD Z0, K1, (DI)
	ADDQ $64, DI
	ADDQ $32, BX
	SUBQ $8, DX
	JMP  step

done:
	VZEROUPPER
	RET

// func pairDots1AVX512(d *float64, x *float32, w *float32, nf, nw int)
//
// PairDots64 on one row: sixteen columns of w a step, Z0 and Z1 the sums
// of the step's first and second eight, K1 and K2 masking the columns past
// nw (K2 all clear when eight or fewer are left). Per pair of features j,
// j+1: the same instructions per column as pairDots4AVX512's (so the same
// roundings), on the one row. A row's sum is a chain of dependent VADDPDs
// (the contract's order); two chains a step, rather than the four-row
// kernel's four copies of one, halve the steps and the work of a single
// row (10 classes: one step, not two steps of four rows).
TEXT ·pairDots1AVX512(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), BX
	MOVQ nf+24(FP), R10
	MOVQ nw+32(FP), R11
	LEAQ 0(R11*4), R14       // one feature's weights, bytes
	MOVQ R11, DX             // columns left
	MOVQ R10, R12
	SHRQ $1, R12             // pairs of features

step1:
	TESTQ DX, DX
	JLE   done1
	// K1 and K2: the low min(max(c, 0), 8) bits, c the columns left from
	// the step's first and ninth (branch-free).
	MOVQ    $8, R8
	XORQ    R9, R9
	MOVQ    DX, CX
	CMPQ    CX, R8
	CMOVQGT R8, CX           // min(DX, 8)
	MOVQ    $1, AX
	SHLQ    CX, AX
	DECQ    AX
	KMOVB   AX, K1
	MOVQ    DX, CX
	SUBQ    R8, CX
	CMPQ    CX, R9
	CMOVQLT R9, CX           // max(DX-8, 0)
	CMPQ    CX, R8
	CMOVQGT R8, CX           // min(.., 8)
	MOVQ    $1, AX
	SHLQ    CX, AX
	DECQ    AX
	KMOVB   AX, K2
	MOVQ    R12, CX          // pairs
	MOVQ    SI, AX           // x, feature j
	MOVQ    BX, R15          // w, feature j
	VXORPD  Z0, Z0, Z0
	VXORPD  Z1, Z1, Z1
	TESTQ   CX, CX
	JZ      odd1

pair1:
	VBROADCASTSS (AX), Y6
	VBROADCASTSS 4(AX), Y7
	VCVTPS2PD Y6, Z6
	VCVTPS2PD Y7, Z7
	VCVTPS2PD.Z (R15), K1, Z4
	VCVTPS2PD.Z (R15)(R14*1), K1, Z5
	VCVTPS2PD.Z 32(R15), K2, Z8
	VCVTPS2PD.Z 32(R15)(R14*1), K2, Z9
	VMULPD Z4, Z6, Z4
	VMULPD Z5, Z7, Z5
	VMULPD Z8, Z6, Z8
	VMULPD Z9, Z7, Z9
	VADDPD Z5, Z4, Z4
	VADDPD Z9, Z8, Z8
	VADDPD Z4, Z0, Z0
	VADDPD Z8, Z1, Z1
	ADDQ $8, AX
	LEAQ (R15)(R14*2), R15
	DECQ CX
	JNZ  pair1

odd1:
	TESTQ $1, R10
	JZ    store1
	VBROADCASTSS (AX), Y6
	VCVTPS2PD Y6, Z6
	VCVTPS2PD.Z (R15), K1, Z4
	VCVTPS2PD.Z 32(R15), K2, Z8
	VMULPD Z4, Z6, Z4
	VMULPD Z8, Z6, Z8
	VADDPD Z4, Z0, Z0
	VADDPD Z8, Z1, Z1

store1:
	VMOVUPD Z0, K1, (DI)
	VMOVUPD Z1, K2, 64(DI)
	ADDQ $128, DI
	ADDQ $64, BX
	SUBQ $16, DX
	JMP  step1

done1:
	VZEROUPPER
	RET
