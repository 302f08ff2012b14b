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

// func gemm8AVX512(c *float32, ldc int, a *float32, lda int, bp *float32, panels, k int, pf *float32, pfStride int)
//
// gemm4AVX512 on eight rows: a 8 × 32 block of C in sixteen accumulators
// (Z0..Z15). Each step's two loads of the panel serve sixteen FMAs instead
// of eight, which lifts the kernel from the load ports' limit towards the
// FMA ports' (rows 4..7 are read through DX = AX + 4·lda). Each step
// also asks for the panel's two cache lines 16 steps (2 KiB) ahead
// (PREFETCHT0), and for one line of the block Gemm takes next into the
// L2 cache (PREFETCHT1 at pf, pfStride bytes further each step): a large
// model's panels come from memory, not the L2 cache (Fashion-MNIST 10k:
// 17 MB), and without that the first rows' pass over each block waited on
// them (Gemm).
TEXT ·gemm8AVX512(SB), NOSPLIT, $0-72
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R8
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R9
	MOVQ bp+32(FP), BX
	MOVQ panels+40(FP), R10
	MOVQ k+48(FP), R11
	MOVQ pf+56(FP), R15
	MOVQ pfStride+64(FP), R13
	SHLQ $2, R8              // strides in bytes
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R12     // 3·lda
	LEAQ (DI)(R8*4), R14     // C's rows 4..7

panel8:
	TESTQ R10, R10
	JZ    done8
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	VXORPS Z5, Z5, Z5
	VXORPS Z6, Z6, Z6
	VXORPS Z7, Z7, Z7
	VXORPS Z8, Z8, Z8
	VXORPS Z9, Z9, Z9
	VXORPS Z10, Z10, Z10
	VXORPS Z11, Z11, Z11
	VXORPS Z12, Z12, Z12
	VXORPS Z13, Z13, Z13
	VXORPS Z14, Z14, Z14
	VXORPS Z15, Z15, Z15
	MOVQ SI, AX
	LEAQ (SI)(R9*4), DX
	MOVQ R11, CX

kloop8:
	PREFETCHT0 2048(BX)
	PREFETCHT0 2112(BX)
	PREFETCHT1 (R15)
	ADDQ R13, R15
	VMOVUPS (BX), Z16
	VMOVUPS 64(BX), Z17
	VBROADCASTSS (AX), Z18
	VBROADCASTSS (AX)(R9*1), Z19
	VBROADCASTSS (AX)(R9*2), Z20
	VBROADCASTSS (AX)(R12*1), Z21
	VBROADCASTSS (DX), Z22
	VBROADCASTSS (DX)(R9*1), Z23
	VBROADCASTSS (DX)(R9*2), Z24
	VBROADCASTSS (DX)(R12*1), Z25
	VFMADD231PS Z18, Z16, Z0
	VFMADD231PS Z18, Z17, Z1
	VFMADD231PS Z19, Z16, Z2
	VFMADD231PS Z19, Z17, Z3
	VFMADD231PS Z20, Z16, Z4
	VFMADD231PS Z20, Z17, Z5
	VFMADD231PS Z21, Z16, Z6
	VFMADD231PS Z21, Z17, Z7
	VFMADD231PS Z22, Z16, Z8
	VFMADD231PS Z22, Z17, Z9
	VFMADD231PS Z23, Z16, Z10
	VFMADD231PS Z23, Z17, Z11
	VFMADD231PS Z24, Z16, Z12
	VFMADD231PS Z24, Z17, Z13
	VFMADD231PS Z25, Z16, Z14
	VFMADD231PS Z25, Z17, Z15
	ADDQ $128, BX
	ADDQ $4, AX
	ADDQ $4, DX
	DECQ CX
	JNZ  kloop8

	LEAQ (R8)(R8*2), CX      // 3·ldc
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, (DI)(R8*1)
	VMOVUPS Z3, 64(DI)(R8*1)
	VMOVUPS Z4, (DI)(R8*2)
	VMOVUPS Z5, 64(DI)(R8*2)
	VMOVUPS Z6, (DI)(CX*1)
	VMOVUPS Z7, 64(DI)(CX*1)
	VMOVUPS Z8, (R14)
	VMOVUPS Z9, 64(R14)
	VMOVUPS Z10, (R14)(R8*1)
	VMOVUPS Z11, 64(R14)(R8*1)
	VMOVUPS Z12, (R14)(R8*2)
	VMOVUPS Z13, 64(R14)(R8*2)
	VMOVUPS Z14, (R14)(CX*1)
	VMOVUPS Z15, 64(R14)(CX*1)
	ADDQ $128, DI
	ADDQ $128, R14
	DECQ R10
	JMP  panel8

done8:
	VZEROUPPER
	RET
