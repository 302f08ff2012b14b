#include "textflag.h"

// REDUCE_D_Z0 sums the 16 int32 lanes of Z0 into AX.
#define REDUCE_D_Z0 \
	VEXTRACTI64X4 $1, Z0, Y1; \
	VPADDD Y1, Y0, Y0; \
	VEXTRACTI128 $1, Y0, X1; \
	VPADDD X1, X0, X0; \
	VPSHUFD $0x4e, X0, X1; \
	VPADDD X1, X0, X0; \
	VPSHUFD $0xb1, X0, X1; \
	VPADDD X1, X0, X0; \
	VMOVD X0, AX

// func dotS8AVX512(x, y *int8, n int) int32
// 32 pairs a step: both sign-extended to int16, VPMADDWD adds pairs of
// products into int32 lanes. n is a multiple of 32.
TEXT ·dotS8AVX512(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	VPXORD Z0, Z0, Z0

loop:
	VPMOVSXBW (SI), Z1
	VPMOVSXBW (DI), Z2
	VPMADDWD Z2, Z1, Z3
	VPADDD Z3, Z0, Z0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JNZ  loop
	REDUCE_D_Z0
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// func dotU8S8VNNI(x *uint8, y *int8, n int) int32
// 64 pairs a step with VPDPBUSD. n is a multiple of 64.
TEXT ·dotU8S8VNNI(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	VPXORD Z0, Z0, Z0

loop:
	VMOVDQU32 (SI), Z1
	VPDPBUSD (DI), Z1, Z0
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $64, CX
	JNZ  loop
	REDUCE_D_Z0
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// REDUCE_D_Y0 sums the 8 int32 lanes of Y0 into AX.
#define REDUCE_D_Y0 \
	VEXTRACTI128 $1, Y0, X1; \
	VPADDD X1, X0, X0; \
	VPSHUFD $0x4e, X0, X1; \
	VPADDD X1, X0, X0; \
	VPSHUFD $0xb1, X0, X1; \
	VPADDD X1, X0, X0; \
	VMOVD X0, AX

// func dotS8AVX2(x, y *int8, n int) int32
// 16 pairs a step; n is a multiple of 16.
TEXT ·dotS8AVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0

loop:
	VPMOVSXBW (SI), Y1
	VPMOVSXBW (DI), Y2
	VPMADDWD Y2, Y1, Y3
	VPADDD Y3, Y0, Y0
	ADDQ $16, SI
	ADDQ $16, DI
	SUBQ $16, CX
	JNZ  loop
	REDUCE_D_Y0
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// func dotU8S8AVX2(x *uint8, y *int8, n int) int32
// As dotS8AVX2 with x zero-extended (VPMADDUBSW would saturate).
TEXT ·dotU8S8AVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0

loop:
	VPMOVZXBW (SI), Y1
	VPMOVSXBW (DI), Y2
	VPMADDWD Y2, Y1, Y3
	VPADDD Y3, Y0, Y0
	ADDQ $16, SI
	ADDQ $16, DI
	SUBQ $16, CX
	JNZ  loop
	REDUCE_D_Y0
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET
