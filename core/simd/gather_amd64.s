#include "textflag.h"

// func gatherMarked32AVX512(dst, src *float32, idx *int32, n, srcLen int, marker uint32) int
// Sixteen indices a step: checked against srcLen as unsigned (a negative
// one is huge), gathered (VPGATHERDD), stored, and compared with marker;
// the compare masks are ORed into K5. n is a positive multiple of 16.
TEXT ·gatherMarked32AVX512(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ srcLen+32(FP), AX
	VPBROADCASTD AX, Z2
	MOVL marker+40(FP), AX
	VPBROADCASTD AX, Z3
	XORQ R8, R8
	KXORW K5, K5, K5

loop:
	VMOVDQU32 (DX), Z0
	VPCMPUD   $5, Z2, Z0, K2 // idx ≥ srcLen
	KORTESTW  K2, K2
	JNZ       outside
	KXNORW    K1, K1, K1
	VPGATHERDD (SI)(Z0*4), K1, Z1
	VMOVDQU32 Z1, (DI)
	VPCMPEQD  Z3, Z1, K3
	KORW      K3, K5, K5
	ADDQ      $64, DX
	ADDQ      $64, DI
	SUBQ      $16, CX
	JNZ       loop
	KORTESTW  K5, K5
	JZ        done
	MOVQ      $1, R8

done:
	MOVQ R8, ret+48(FP)
	VZEROUPPER
	RET

outside:
	MOVQ $2, R8
	JMP  done
