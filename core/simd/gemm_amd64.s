#include "textflag.h"

// func gemm4AVX512(c *float32, ldc int, a *float32, lda int, bp *float32, panels, k int)
//
// The micro-kernel of Gemm: a 4 × 32 block of C in eight 16-lane
// accumulators (Z0..Z7). Each step q loads one packed column of the panel
// (32 values of B, two registers), broadcasts a[i][q] of the four rows and
// issues eight FMAs; no horizontal sums are needed, and the only stores are
// the block's 8 registers once per panel.
TEXT ·gemm4AVX512(SB), NOSPLIT, $0-56
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R8
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R9
	MOVQ bp+32(FP), BX
	MOVQ panels+40(FP), R10
	MOVQ k+48(FP), R11
	SHLQ $2, R8              // strides in bytes
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R12     // 3·lda
	LEAQ (R8)(R8*2), R13     // 3·ldc

panel:
	TESTQ R10, R10
	JZ    done
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	VXORPS Z5, Z5, Z5
	VXORPS Z6, Z6, Z6
	VXORPS Z7, Z7, Z7
	MOVQ SI, AX
	MOVQ R11, CX

kloop:
	VMOVUPS (BX), Z8
	VMOVUPS 64(BX), Z9
	VBROADCASTSS (AX), Z10
	VBROADCASTSS (AX)(R9*1), Z11
	VBROADCASTSS (AX)(R9*2), Z12
	VBROADCASTSS (AX)(R12*1), Z13
	VFMADD231PS Z10, Z8, Z0
	VFMADD231PS Z10, Z9, Z1
	VFMADD231PS Z11, Z8, Z2
	VFMADD231PS Z11, Z9, Z3
	VFMADD231PS Z12, Z8, Z4
	VFMADD231PS Z12, Z9, Z5
	VFMADD231PS Z13, Z8, Z6
	VFMADD231PS Z13, Z9, Z7
	ADDQ $128, BX
	ADDQ $4, AX
	DECQ CX
	JNZ  kloop

	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, (DI)(R8*1)
	VMOVUPS Z3, 64(DI)(R8*1)
	VMOVUPS Z4, (DI)(R8*2)
	VMOVUPS Z5, 64(DI)(R8*2)
	VMOVUPS Z6, (DI)(R13*1)
	VMOVUPS Z7, 64(DI)(R13*1)
	ADDQ $128, DI
	DECQ R10
	JMP  panel

done:
	VZEROUPPER
	RET

// func gemm4AVX2(c *float32, ldc int, a *float32, lda int, bp *float32, panels, k int)
//
// The AVX2 micro-kernel: sixteen 8-lane registers cannot hold a 4 × 32
// block, so each panel is done in two halves of 16 columns (eight
// accumulators each).
TEXT ·gemm4AVX2(SB), NOSPLIT, $0-56
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R8
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R9
	MOVQ bp+32(FP), BX
	MOVQ panels+40(FP), R10
	MOVQ k+48(FP), R11
	SHLQ $2, R8
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R12
	LEAQ (R8)(R8*2), R13
	MOVQ R11, R14
	SHLQ $7, R14             // bytes of one panel: k·32·4

panel:
	TESTQ R10, R10
	JZ    done
	MOVQ  $0, R15            // half: byte offset 0 or 64

half:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ SI, AX
	LEAQ (BX)(R15*1), DX
	MOVQ R11, CX

kloop:
	VMOVUPS (DX), Y8
	VMOVUPS 32(DX), Y9
	VBROADCASTSS (AX), Y10
	VFMADD231PS Y10, Y8, Y0
	VFMADD231PS Y10, Y9, Y1
	VBROADCASTSS (AX)(R9*1), Y11
	VFMADD231PS Y11, Y8, Y2
	VFMADD231PS Y11, Y9, Y3
	VBROADCASTSS (AX)(R9*2), Y12
	VFMADD231PS Y12, Y8, Y4
	VFMADD231PS Y12, Y9, Y5
	VBROADCASTSS (AX)(R12*1), Y13
	VFMADD231PS Y13, Y8, Y6
	VFMADD231PS Y13, Y9, Y7
	ADDQ $128, DX
	ADDQ $4, AX
	DECQ CX
	JNZ  kloop

	LEAQ (DI)(R15*1), DX
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, (DX)(R8*1)
	VMOVUPS Y3, 32(DX)(R8*1)
	VMOVUPS Y4, (DX)(R8*2)
	VMOVUPS Y5, 32(DX)(R8*2)
	VMOVUPS Y6, (DX)(R13*1)
	VMOVUPS Y7, 32(DX)(R13*1)
	ADDQ $64, R15
	CMPQ R15, $128
	JL   half

	ADDQ R14, BX
	ADDQ $128, DI
	DECQ R10
	JMP  panel

done:
	VZEROUPPER
	RET

// func gemm4U16S8VNNI(c *int32, ldc int, hi, lo *uint8, lda int, bp *int8, panels, k4 int)
//
// GemmU16S8's micro-kernel: as gemm4AVX512, with a step taking four
// columns of A (one broadcast dword of four u8) against 32 × 4 packed int8
// values of B, and VPDPBUSD adding the four products into each int32 lane;
// over two byte planes of A at once, each step's packed values of B loaded
// once for both: sixteen
// accumulators (Z0..Z7 for the high bytes, Z14..Z21 for the low ones),
// stored as 256·high + low (VPSLLD, VPADDD: int32, wrapping).
TEXT ·gemm4U16S8VNNI(SB), NOSPLIT, $0-64
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R8
	MOVQ hi+16(FP), SI
	MOVQ lo+24(FP), DX
	MOVQ lda+32(FP), R9
	MOVQ bp+40(FP), BX
	MOVQ panels+48(FP), R10
	MOVQ k4+56(FP), R11
	SHLQ $2, R8
	LEAQ (R9)(R9*2), R12
	LEAQ (R8)(R8*2), R13

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
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	MOVQ SI, AX
	MOVQ DX, R14
	MOVQ R11, CX

kloop:
	VMOVDQU32 (BX), Z8
	VMOVDQU32 64(BX), Z9
	VPBROADCASTD (AX), Z10
	VPBROADCASTD (AX)(R9*1), Z11
	VPBROADCASTD (AX)(R9*2), Z12
	VPBROADCASTD (AX)(R12*1), Z13
	VPBROADCASTD (R14), Z22
	VPBROADCASTD (R14)(R9*1), Z23
	VPBROADCASTD (R14)(R9*2), Z24
	VPBROADCASTD (R14)(R12*1), Z25
	VPDPBUSD Z8, Z10, Z0
	VPDPBUSD Z9, Z10, Z1
	VPDPBUSD Z8, Z11, Z2
	VPDPBUSD Z9, Z11, Z3
	VPDPBUSD Z8, Z12, Z4
	VPDPBUSD Z9, Z12, Z5
	VPDPBUSD Z8, Z13, Z6
	VPDPBUSD Z9, Z13, Z7
	VPDPBUSD Z8, Z22, Z14
	VPDPBUSD Z9, Z22, Z15
	VPDPBUSD Z8, Z23, Z16
	VPDPBUSD Z9, Z23, Z17
	VPDPBUSD Z8, Z24, Z18
	VPDPBUSD Z9, Z24, Z19
	VPDPBUSD Z8, Z25, Z20
	VPDPBUSD Z9, Z25, Z21
	ADDQ $128, BX
	ADDQ $4, AX
	ADDQ $4, R14
	DECQ CX
	JNZ  kloop

	VPSLLD $8, Z0, Z0
	VPSLLD $8, Z1, Z1
	VPSLLD $8, Z2, Z2
	VPSLLD $8, Z3, Z3
	VPSLLD $8, Z4, Z4
	VPSLLD $8, Z5, Z5
	VPSLLD $8, Z6, Z6
	VPSLLD $8, Z7, Z7
	VPADDD Z14, Z0, Z0
	VPADDD Z15, Z1, Z1
	VPADDD Z16, Z2, Z2
	VPADDD Z17, Z3, Z3
	VPADDD Z18, Z4, Z4
	VPADDD Z19, Z5, Z5
	VPADDD Z20, Z6, Z6
	VPADDD Z21, Z7, Z7
	VMOVDQU32 Z0, (DI)
	VMOVDQU32 Z1, 64(DI)
	VMOVDQU32 Z2, (DI)(R8*1)
	VMOVDQU32 Z3, 64(DI)(R8*1)
	VMOVDQU32 Z4, (DI)(R8*2)
	VMOVDQU32 Z5, 64(DI)(R8*2)
	VMOVDQU32 Z6, (DI)(R13*1)
	VMOVDQU32 Z7, 64(DI)(R13*1)
	ADDQ $128, DI
	DECQ R10
	JMP  panel

done:
	VZEROUPPER
	RET
