#include "textflag.h"

// SPILL widens one accumulator pair (hi limb ZH/YH, lo limb ZL/YL: 16 int32
// sums each) into the 16 int64 sums at ADDR: ADDR += (hi << shift) + lo,
// the shift counts in Z31.
#define SPILL(ZH, YH, ZL, YL, ADDR) \
	VPMOVSXDQ     YH, Z26          \
	VEXTRACTI64X4 $1, ZH, Y27      \
	VPMOVSXDQ     Y27, Z27         \
	VPSLLVQ       Z31, Z26, Z26    \
	VPSLLVQ       Z31, Z27, Z27    \
	VPMOVSXDQ     YL, Z28          \
	VEXTRACTI64X4 $1, ZL, Y29      \
	VPMOVSXDQ     Y29, Z29         \
	VPADDQ        Z28, Z26, Z26    \
	VPADDQ        Z29, Z27, Z27    \
	VPADDQ        ADDR, Z26, Z26   \
	VPADDQ        64+ADDR, Z27, Z27 \
	VMOVDQU64     Z26, ADDR        \
	VMOVDQU64     Z27, 64+ADDR

// SPILLSET is SPILL for a panel's first chunk: ADDR = (hi << shift) + lo.
#define SPILLSET(ZH, YH, ZL, YL, ADDR) \
	VPMOVSXDQ     YH, Z26          \
	VEXTRACTI64X4 $1, ZH, Y27      \
	VPMOVSXDQ     Y27, Z27         \
	VPSLLVQ       Z31, Z26, Z26    \
	VPSLLVQ       Z31, Z27, Z27    \
	VPMOVSXDQ     YL, Z28          \
	VEXTRACTI64X4 $1, ZL, Y29      \
	VPMOVSXDQ     Y29, Z29         \
	VPADDQ        Z28, Z26, Z26    \
	VPADDQ        Z29, Z27, Z27    \
	VMOVDQU64     Z26, ADDR        \
	VMOVDQU64     Z27, 64+ADDR

// ZERO16 clears the sixteen accumulators.
#define ZERO16 \
	VPXORD Z0, Z0, Z0    \
	VPXORD Z1, Z1, Z1    \
	VPXORD Z2, Z2, Z2    \
	VPXORD Z3, Z3, Z3    \
	VPXORD Z4, Z4, Z4    \
	VPXORD Z5, Z5, Z5    \
	VPXORD Z6, Z6, Z6    \
	VPXORD Z7, Z7, Z7    \
	VPXORD Z14, Z14, Z14 \
	VPXORD Z15, Z15, Z15 \
	VPXORD Z16, Z16, Z16 \
	VPXORD Z17, Z17, Z17 \
	VPXORD Z18, Z18, Z18 \
	VPXORD Z19, Z19, Z19 \
	VPXORD Z20, Z20, Z20 \
	VPXORD Z21, Z21, Z21

// LOAD16 and LOAD8 put one packed pair of 32 values of B, at BX, in Z8
// and Z9 as int16 words (LOAD8 sign-extends int8 codes) and move BX on.
#define LOAD16 \
	VMOVDQU32 (BX), Z8   \
	VMOVDQU32 64(BX), Z9 \
	ADDQ $128, BX

#define LOAD8 \
	VPMOVSXBW (BX), Z8   \
	VPMOVSXBW 32(BX), Z9 \
	ADDQ $64, BX

// KSTEP multiplies one pair of columns of the four rows' limbs (AX, R14)
// with the pair of B in Z8, Z9, and moves on.
#define KSTEP \
	VPBROADCASTD (AX), Z10          \
	VPBROADCASTD (AX)(R9*1), Z11    \
	VPBROADCASTD (AX)(R9*2), Z12    \
	VPBROADCASTD (AX)(R12*1), Z13   \
	VPBROADCASTD (R14), Z22         \
	VPBROADCASTD (R14)(R9*1), Z23   \
	VPBROADCASTD (R14)(R9*2), Z24   \
	VPBROADCASTD (R14)(R12*1), Z25  \
	VPDPWSSD Z8, Z10, Z0            \
	VPDPWSSD Z9, Z10, Z1            \
	VPDPWSSD Z8, Z11, Z2            \
	VPDPWSSD Z9, Z11, Z3            \
	VPDPWSSD Z8, Z12, Z4            \
	VPDPWSSD Z9, Z12, Z5            \
	VPDPWSSD Z8, Z13, Z6            \
	VPDPWSSD Z9, Z13, Z7            \
	VPDPWSSD Z8, Z22, Z14           \
	VPDPWSSD Z9, Z22, Z15           \
	VPDPWSSD Z8, Z23, Z16           \
	VPDPWSSD Z9, Z23, Z17           \
	VPDPWSSD Z8, Z24, Z18           \
	VPDPWSSD Z9, Z24, Z19           \
	VPDPWSSD Z8, Z25, Z20           \
	VPDPWSSD Z9, Z25, Z21           \
	ADDQ $4, AX                     \
	ADDQ $4, R14

// KERNEL is the body of both micro-kernels (LOAD their load of B, the rest
// their labels). Per panel of 32 columns of C: chunks of at most chunk
// steps; the first chunk's sums set C's block (SPILLSET), later ones add
// to it (SPILL); R13 counts a chunk's steps, then holds 3·ldc.
#define KERNEL(LOAD, PANEL, KFIRST, CHUNK, KLOOP, NEXT, DONE) \
	MOVQ c+0(FP), DI \
	MOVQ ldc+8(FP), R8 \
	MOVQ hi+16(FP), SI \
	MOVQ lo+24(FP), DX \
	MOVQ lda+32(FP), R9 \
	MOVQ bp+40(FP), BX \
	MOVQ panels+48(FP), R10 \
	MOVQ k2+56(FP), R11 \
	VPBROADCASTQ shift+72(FP), Z31 \
	SHLQ $3, R8 \
	SHLQ $1, R9 \
	LEAQ (R9)(R9*2), R12 \
PANEL: \
	TESTQ R10, R10 \
	JZ    DONE \
	MOVQ  SI, AX \
	MOVQ  DX, R14 \
	MOVQ  R11, CX \
	ZERO16 \
	MOVQ    chunk+64(FP), R13 \
	CMPQ    R13, CX \
	CMOVQGT CX, R13 \
	SUBQ    R13, CX \
KFIRST: \
	LOAD \
	KSTEP \
	DECQ R13 \
	JNZ  KFIRST \
	LEAQ (R8)(R8*2), R13 \
	SPILLSET(Z0, Y0, Z14, Y14, 0(DI)) \
	SPILLSET(Z1, Y1, Z15, Y15, 128(DI)) \
	SPILLSET(Z2, Y2, Z16, Y16, 0(DI)(R8*1)) \
	SPILLSET(Z3, Y3, Z17, Y17, 128(DI)(R8*1)) \
	SPILLSET(Z4, Y4, Z18, Y18, 0(DI)(R8*2)) \
	SPILLSET(Z5, Y5, Z19, Y19, 128(DI)(R8*2)) \
	SPILLSET(Z6, Y6, Z20, Y20, 0(DI)(R13*1)) \
	SPILLSET(Z7, Y7, Z21, Y21, 128(DI)(R13*1)) \
	TESTQ CX, CX \
	JZ    NEXT \
CHUNK: \
	ZERO16 \
	MOVQ    chunk+64(FP), R13 \
	CMPQ    R13, CX \
	CMOVQGT CX, R13 \
	SUBQ    R13, CX \
KLOOP: \
	LOAD \
	KSTEP \
	DECQ R13 \
	JNZ  KLOOP \
	LEAQ (R8)(R8*2), R13 \
	SPILL(Z0, Y0, Z14, Y14, 0(DI)) \
	SPILL(Z1, Y1, Z15, Y15, 128(DI)) \
	SPILL(Z2, Y2, Z16, Y16, 0(DI)(R8*1)) \
	SPILL(Z3, Y3, Z17, Y17, 128(DI)(R8*1)) \
	SPILL(Z4, Y4, Z18, Y18, 0(DI)(R8*2)) \
	SPILL(Z5, Y5, Z19, Y19, 128(DI)(R8*2)) \
	SPILL(Z6, Y6, Z20, Y20, 0(DI)(R13*1)) \
	SPILL(Z7, Y7, Z21, Y21, 128(DI)(R13*1)) \
	TESTQ CX, CX \
	JNZ   CHUNK \
NEXT: \
	ADDQ $256, DI \
	DECQ R10 \
	JMP  PANEL \
DONE: \
	VZEROUPPER \
	RET

// func gemm4S16VNNI(c *int64, ldc int, hi, lo *int16, lda int, bp *int16, panels, k2, chunk, shift int)
//
// GemmS16Limbs' micro-kernel, shaped as gemm4AVX512: a 4 × 32 block of
// C, each step taking a pair of columns of A (one broadcast dword of two
// int16) of both limbs against 32 × 2 packed int16 values of B, VPDPWSSD
// adding the two products into each int32 lane: sixteen accumulators
// (Z0..Z7 hi, Z14..Z21 lo). Every chunk steps (fewer at the end) the
// accumulators are widened into C (SPILLSET for a panel's first chunk,
// then SPILL) and cleared.
TEXT ·gemm4S16VNNI(SB), NOSPLIT, $0-80
	KERNEL(LOAD16, panel16, kfirst16, chunk16, kloop16, next16, done16)

// func gemm4S8VNNI(c *int64, ldc int, hi, lo *int16, lda int, bp *int8, panels, k2, chunk, shift int)
//
// gemm4S16VNNI for int8 codes of B, packed as PackS8Pairs does: each
// step's 64 bytes widened to words (VPMOVSXBW) as they are loaded.
TEXT ·gemm4S8VNNI(SB), NOSPLIT, $0-80
	KERNEL(LOAD8, panel8, kfirst8, chunk8, kloop8, next8, done8)

// func rbfArgsS64AVX512(dst *float32, s *int64, ss *float64, n int, xx, c0, t, gamma float64) float64
//
// RBFArgsS64, 8 lanes a step: VCVTQQ2PD (exact below 2⁵³), then
// d = (xx + ss) − 2·(c0 + t·s) with separate multiplies and adds, clamped
// by VMAXPD(0, d) (which keeps a NaN d), times −γ; the running maximum
// VMAXPD(e, mx) keeps mx for a NaN e.
TEXT ·rbfArgsS64AVX512(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ ss+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSD xx+32(FP), Z1
	VBROADCASTSD c0+40(FP), Z2
	VBROADCASTSD t+48(FP), Z3
	VBROADCASTSD gamma+56(FP), Z4
	VXORPD       Z5, Z5, Z5       // 0
	VSUBPD       Z4, Z5, Z4       // −γ
	MOVQ         $0xfff0000000000000, AX
	VPBROADCASTQ AX, Z0           // running maximum, −Inf

loop:
	VCVTQQ2PD (SI), Z6
	VMULPD    Z3, Z6, Z6          // t·s
	VADDPD    Z2, Z6, Z6          // c0 + t·s
	VADDPD    Z6, Z6, Z6          // 2·(…), exact
	VADDPD    (DX), Z1, Z7        // xx + ss
	VSUBPD    Z6, Z7, Z7          // d
	VMAXPD    Z7, Z5, Z7          // max(0, d), NaN kept
	VMULPD    Z4, Z7, Z7          // e = −γ·d
	VMAXPD    Z0, Z7, Z0          // mx = max(e, mx), NaN e ignored
	VCVTPD2PS Z7, Y8
	VMOVUPS   Y8, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DX
	ADDQ      $32, DI
	SUBQ      $8, CX
	JNZ       loop

	VEXTRACTF64X4 $1, Z0, Y1
	VMAXPD        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VMAXPD        X1, X0, X0
	VPERMILPD     $1, X0, X1
	VMAXPD        X1, X0, X0
	VMOVSD        X0, ret+64(FP)
	VZEROUPPER
	RET
