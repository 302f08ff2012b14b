#include "textflag.h"

// The positions of a row's tail terms: (len &^ 3) + 0, 1, 2 (and unused).
DATA sparseTailLanes<>+0(SB)/8, $0
DATA sparseTailLanes<>+8(SB)/8, $1
DATA sparseTailLanes<>+16(SB)/8, $2
DATA sparseTailLanes<>+24(SB)/8, $3
DATA sparseTailLanes<>+32(SB)/8, $4
DATA sparseTailLanes<>+40(SB)/8, $5
DATA sparseTailLanes<>+48(SB)/8, $6
DATA sparseTailLanes<>+56(SB)/8, $7
GLOBL sparseTailLanes<>(SB), RODATA|NOPTR, $64

// A sparse row of L ≤ 16 terms is read without a branch on L: its
// indices, values and w's entries loaded under a mask of L lanes
// (masked-out lanes read nothing and hold +0), the 16 products p in two
// zmm. The whole steps of four (the first L &^ 3 terms) are added lane by
// lane, step after step, to lanes that start at +0: lane k is
// ((0 + p_k) + p_{k+4}) + …, a step past the whole ones masked to +0
// (adding +0 leaves a sum that is never −0 unchanged); the tail's up to
// three products, picked by VPERMI2PD, are added to lane 0 one at a time
// (a missing one +0); then (s0 + s1) + (s2 + s3): the order of
// hvSparseRowsFrom and data.DotSparse. Every product is rounded before
// its sum (no FMA).
//
// Registers: R8 start, R9 index, R10 value, SI w, Z31 n in every dword,
// Z30 sparseTailLanes; row i in AX.

// SPARSEROW: checks row i (AX) — below nRows (the frame's), its entries
// below nIndex, at most 16 of them, every index below n — else jumps to
// stop; then K1 = its lanes (K2 the upper eight), Z0 its indices, Z1 and
// Z2 its values widened, Y8 indices 8..15. Uses DX, R12, R13, R14, K3..K6.
#define SPARSEROW \
	CMPQ AX, nRows+80(FP)          \
	JAE  stop                      \
	MOVQ (R8)(AX*8), R12           \
	MOVQ 8(R8)(AX*8), R13          \
	CMPQ R13, nIndex+88(FP)        \
	JA   stop                      \
	CMPQ R12, R13                  \
	JA   stop                      \
	MOVQ R13, DX                   \
	SUBQ R12, DX                   \
	CMPQ DX, $16                   \
	JA   stop                      \
	MOVL  $0xffff, R13             \
	BZHIL DX, R13, R14             \
	KMOVW R14, K1                  \
	KSHIFTRW $8, K1, K2            \
	MOVQ  DX, R14                  \
	ANDQ  $-4, R14                 \
	BZHIL R14, R13, R13            \
	KMOVW R13, K3                  \
	KSHIFTRW $8, K3, K4            \
	LEAQ (R9)(R12*4), R13          \
	VMOVDQU32.Z (R13), K1, Z0      \
	VPCMPUD $5, Z31, Z0, K1, K6    \
	KORTESTW K6, K6                \
	JNZ  stop                      \
	LEAQ (R10)(R12*4), R13         \
	VCVTPS2PD.Z (R13), K1, Z1      \
	VCVTPS2PD.Z 32(R13), K2, Z2    \
	VEXTRACTI64X4 $1, Z0, Y8

// SPARSEDOT: X13 = the row's xᵀw (SPARSEROW's registers, L in DX, its
// whole steps' terms in R14). Uses Z3, Z4, Z9..Z14, K5, K6.
#define SPARSEDOT \
	ANDQ  $3, DX                   \
	MOVL  $7, R13                  \
	BZHIL DX, R13, R13             \
	KMOVW R13, K5                  \
	KMOVW K1, K6                   \
	VXORPD Z3, Z3, Z3              \
	VGATHERDPD (SI)(Y0*8), K6, Z3  \
	VXORPD Z4, Z4, Z4              \
	KORTESTW K2, K2                \
	JZ   3(PC)                     \
	KMOVW K2, K6                   \
	VGATHERDPD (SI)(Y8*8), K6, Z4  \
	VMULPD Z3, Z1, Z3              \
	VMULPD Z4, Z2, Z4              \
	VPBROADCASTQ R14, Z9           \
	VPADDQ Z30, Z9, Z9             \
	VPERMI2PD.Z Z4, Z3, K5, Z9     \
	VMOVAPD.Z Z3, K3, Z10          \
	VMOVAPD.Z Z4, K4, Z11          \
	VXORPD Y12, Y12, Y12           \
	VADDPD Y10, Y12, Y12           \
	VEXTRACTF64X4 $1, Z10, Y13     \
	VADDPD Y13, Y12, Y12           \
	VADDPD Y11, Y12, Y12           \
	VEXTRACTF64X4 $1, Z11, Y13     \
	VADDPD Y13, Y12, Y12           \
	VADDSD X9, X12, X13            \
	VPERMILPD $1, X9, X14          \
	VADDSD X14, X13, X13           \
	VEXTRACTF128 $1, Y9, X14       \
	VADDSD X14, X13, X13           \
	VEXTRACTF128 $1, Y12, X14      \
	VHADDPD X13, X13, X13          \
	VHADDPD X14, X14, X14          \
	VADDSD X14, X13, X13

// SPARSESETUP loads the registers SPARSEROW and SPARSEDOT share but SI.
#define SPARSESETUP \
	MOVQ start+16(FP), R8                \
	MOVQ index+24(FP), R9                \
	MOVQ value+32(FP), R10               \
	MOVQ n+40(FP), AX                    \
	VPBROADCASTD AX, Z31                 \
	VMOVDQU64 sparseTailLanes<>(SB), Z30

// ROWINDEX: AX = rows[CX] (BX the list), or CX when BX = 0.
#define ROWINDEX \
	MOVQ CX, AX            \
	TESTQ BX, BX           \
	JZ   2(PC)             \
	MOVLQSX (BX)(CX*4), AX

// ADDTO: base[idx_j] += add_j in the lanes of mask (gathered, added and
// scattered back; a row's indices are distinct). Uses K6.
#define ADDTO(base, idx, add, tmp, mask) \
	KMOVW mask, K6                   \
	VGATHERDPD (base)(idx*8), K6, tmp \
	VADDPD add, tmp, tmp             \
	KMOVW mask, K6                   \
	VSCATTERDPD tmp, K6, (base)(idx*8)

// func hvSparseRowsAVX512(Hs, s *float64, start *int, index *int32, value *float32, n int, rows *int32, lo, hi int, a *float64, nRows, nIndex int, scale, bias, sb float64, hasBias int, dots *float64) int
//
// A row's dot as above, + sb (stored at dots[k] when dots is not nil),
// c = (scale·a[i]) times that; the update gathers Hs's entries, adds c·x
// and scatters them back (indices distinct within a row).
TEXT ·hvSparseRowsAVX512(SB), NOSPLIT, $0-144
	SPARSESETUP
	MOVQ s+8(FP), SI
	MOVQ Hs+0(FP), DI
	MOVQ rows+48(FP), BX
	MOVQ lo+56(FP), CX
	MOVQ a+72(FP), R11
	VMOVSD scale+96(FP), X5
	VMOVSD bias+104(FP), X7
	VMOVSD sb+112(FP), X6

row:
	CMPQ CX, hi+64(FP)
	JGE  stop
	ROWINDEX
	SPARSEROW
	SPARSEDOT
	VADDSD X6, X13, X13         // + sb
	MOVQ dots+128(FP), R12
	TESTQ R12, R12
	JZ   2(PC)
	VMOVSD X13, (R12)(CX*8)     // dots[k]
	VMULSD (R11)(AX*8), X5, X14 // scale·a[i]
	VMULSD X13, X14, X14        // c

	VBROADCASTSD X14, Z15
	VMULPD Z15, Z1, Z1
	VMULPD Z15, Z2, Z2
	ADDTO(DI, Y0, Z1, Z16, K1)
	KORTESTW K2, K2
	JZ   bias
	ADDTO(DI, Y8, Z2, Z17, K2)

bias:
	CMPQ hasBias+120(FP), $0
	JE   next
	MOVQ n+40(FP), R13
	VMULSD X7, X14, X15         // c·bias
	VADDSD (DI)(R13*8), X15, X15
	VMOVSD X15, (DI)(R13*8)

next:
	INCQ CX
	JMP  row

stop:
	MOVQ CX, ret+136(FP)
	VZEROUPPER
	RET

// func dotSparseRowsAVX512(dst, s *float64, start *int, index *int32, value *float32, n int, lo, hi int, sb float64, hasBias int, nRows, nIndex int, rows *int32) int
//
// dst[i] = a row's dot as above, + sb when hasBias ≠ 0, i = rows[k]
// (rows nil: k) at position k.
TEXT ·dotSparseRowsAVX512(SB), NOSPLIT, $0-112
	SPARSESETUP
	MOVQ s+8(FP), SI
	MOVQ dst+0(FP), DI
	MOVQ lo+48(FP), CX
	VMOVSD sb+64(FP), X6
	MOVQ hasBias+72(FP), BX
	MOVQ rows+96(FP), R11

row:
	CMPQ CX, hi+56(FP)
	JGE  stop
	MOVQ CX, AX
	TESTQ R11, R11
	JZ   2(PC)
	MOVLQSX (R11)(CX*4), AX
	SPARSEROW
	SPARSEDOT
	TESTQ BX, BX
	JZ   2(PC)
	VADDSD X6, X13, X13         // + sb
	VMOVSD X13, (DI)(AX*8)
	INCQ CX
	JMP  row

stop:
	MOVQ CX, ret+104(FP)
	VZEROUPPER
	RET

// func axpySquaresSparseRowsAVX512(grad, diag *float64, start *int, index *int32, value *float32, n int, rows *int32, lo, hi int, a *float64, nRows, nIndex int, b *float64, bias float64, hasBias int, bScale float64) int
//
// For position k, row i: grad += a[i]·x_i and diag += ((bScale·b[i])·x_i)·x_i,
// each gathered, added to and scattered back (indices distinct within a
// row); the pseudo-feature n when hasBias ≠ 0. Returns the position it
// stopped at.
TEXT ·axpySquaresSparseRowsAVX512(SB), NOSPLIT, $0-136
	SPARSESETUP
	MOVQ grad+0(FP), DI
	MOVQ diag+8(FP), SI
	MOVQ rows+48(FP), BX
	MOVQ lo+56(FP), CX
	MOVQ a+72(FP), R11
	VMOVSD bias+104(FP), X7
	VMOVSD bScale+120(FP), X6

row:
	CMPQ CX, hi+64(FP)
	JGE  stop
	ROWINDEX
	SPARSEROW
	VBROADCASTSD (R11)(AX*8), Z15
	MOVQ b+96(FP), R13
	VMULSD (R13)(AX*8), X6, X16 // bScale·b[i]
	VBROADCASTSD X16, Z16
	VMULPD Z15, Z1, Z3          // a·x
	VMULPD Z16, Z1, Z4
	VMULPD Z1, Z4, Z4           // (b·x)·x
	ADDTO(DI, Y0, Z3, Z5, K1)
	ADDTO(SI, Y0, Z4, Z17, K1)
	KORTESTW K2, K2
	JZ   bias
	VMULPD Z15, Z2, Z3
	VMULPD Z16, Z2, Z4
	VMULPD Z2, Z4, Z4
	ADDTO(DI, Y8, Z3, Z5, K2)
	ADDTO(SI, Y8, Z4, Z17, K2)

bias:
	CMPQ hasBias+112(FP), $0
	JE   next
	MOVQ n+40(FP), R13
	VMULSD X7, X15, X3          // a·bias
	VADDSD (DI)(R13*8), X3, X3
	VMOVSD X3, (DI)(R13*8)
	VMULSD X7, X16, X4          // (b·bias)·bias
	VMULSD X7, X4, X4
	VADDSD (SI)(R13*8), X4, X4
	VMOVSD X4, (SI)(R13*8)

next:
	INCQ CX
	JMP  row

stop:
	MOVQ CX, ret+128(FP)
	VZEROUPPER
	RET
