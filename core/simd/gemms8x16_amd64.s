#include "textflag.h"

// func gemm8S8x16VNNI(c *int32, ldc int, a *int16, lda int, bp *int8, panels, k2 int)
//
// GemmS8x16's micro-kernel, shaped as gemm8AVX512: an 8 × 32 block of C
// in sixteen int32 accumulators (Z0..Z15), each step taking a pair of
// columns of A (one broadcast dword of two int16 a row; rows 4..7 through
// DX = AX + 4·lda) against the 32 × 2 int8 codes of a packed pair widened
// to words (VPMOVSXBW), VPDPWSSD adding both products into each lane:
// sixteen multiply-adds of 32 products on two loads of B and eight
// broadcasts, twice the products of gemm8AVX512's sixteen FMAs. Each step
// asks for the panel's cache line 16 steps (1 KiB) ahead. The sums wrap
// modulo 2³² (the caller keeps them in range).
TEXT ·gemm8S8x16VNNI(SB), NOSPLIT, $0-56
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R8
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R9
	MOVQ bp+32(FP), BX
	MOVQ panels+40(FP), R10
	MOVQ k2+48(FP), R11
	SHLQ $2, R8              // strides in bytes
	SHLQ $1, R9
	LEAQ (R9)(R9*2), R12     // 3·lda
	LEAQ (R8)(R8*2), R13     // 3·ldc
	LEAQ (DI)(R8*4), R14     // C's rows 4..7

panel:
	TESTQ R10, R10
	JZ    done
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	MOVQ SI, AX
	LEAQ (SI)(R9*4), DX
	MOVQ R11, CX

kloop:
	PREFETCHT0 1024(BX)
	VPMOVSXBW (BX), Z16
	VPMOVSXBW 32(BX), Z17
	VPBROADCASTD (AX), Z18
	VPBROADCASTD (AX)(R9*1), Z19
	VPBROADCASTD (AX)(R9*2), Z20
	VPBROADCASTD (AX)(R12*1), Z21
	VPBROADCASTD (DX), Z22
	VPBROADCASTD (DX)(R9*1), Z23
	VPBROADCASTD (DX)(R9*2), Z24
	VPBROADCASTD (DX)(R12*1), Z25
	VPDPWSSD Z16, Z18, Z0
	VPDPWSSD Z17, Z18, Z1
	VPDPWSSD Z16, Z19, Z2
	VPDPWSSD Z17, Z19, Z3
	VPDPWSSD Z16, Z20, Z4
	VPDPWSSD Z17, Z20, Z5
	VPDPWSSD Z16, Z21, Z6
	VPDPWSSD Z17, Z21, Z7
	VPDPWSSD Z16, Z22, Z8
	VPDPWSSD Z17, Z22, Z9
	VPDPWSSD Z16, Z23, Z10
	VPDPWSSD Z17, Z23, Z11
	VPDPWSSD Z16, Z24, Z12
	VPDPWSSD Z17, Z24, Z13
	VPDPWSSD Z16, Z25, Z14
	VPDPWSSD Z17, Z25, Z15
	ADDQ $64, BX
	ADDQ $4, AX
	ADDQ $4, DX
	DECQ CX
	JNZ  kloop

	VMOVDQU32 Z0, (DI)
	VMOVDQU32 Z1, 64(DI)
	VMOVDQU32 Z2, (DI)(R8*1)
	VMOVDQU32 Z3, 64(DI)(R8*1)
	VMOVDQU32 Z4, (DI)(R8*2)
	VMOVDQU32 Z5, 64(DI)(R8*2)
	VMOVDQU32 Z6, (DI)(R13*1)
	VMOVDQU32 Z7, 64(DI)(R13*1)
	VMOVDQU32 Z8, (R14)
	VMOVDQU32 Z9, 64(R14)
	VMOVDQU32 Z10, (R14)(R8*1)
	VMOVDQU32 Z11, 64(R14)(R8*1)
	VMOVDQU32 Z12, (R14)(R8*2)
	VMOVDQU32 Z13, 64(R14)(R8*2)
	VMOVDQU32 Z14, (R14)(R13*1)
	VMOVDQU32 Z15, 64(R14)(R13*1)
	ADDQ $128, DI
	ADDQ $128, R14
	DECQ R10
	JMP  panel

done:
	VZEROUPPER
	RET
