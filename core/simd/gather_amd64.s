#include "textflag.h"

// func gatherMarked32AVX512(dst, src *float32, idx *int32, y *int8, n, srcLen int, marker uint32, yi int32) int
// Sixteen indices a step: checked against srcLen as unsigned (a negative
// one is huge), gathered (VPGATHERDD), compared with marker (the compare
// masks ORed into K5), their sign flipped where y ≠ yi when y is given
// (the labels sign-extended, XOR yi: 0 or −2, whose bit 31 is the flip),
// and stored. n is a positive multiple of 16.
TEXT ·gatherMarked32AVX512(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ y+24(FP), BX
	MOVQ n+32(FP), CX
	MOVQ srcLen+40(FP), AX
	VPBROADCASTD AX, Z2
	MOVL marker+48(FP), AX
	VPBROADCASTD AX, Z3
	MOVL yi+52(FP), AX
	VPBROADCASTD AX, Z5
	MOVL $0x80000000, AX
	VPBROADCASTD AX, Z6
	XORQ R8, R8
	KXORW K5, K5, K5
	TESTQ BX, BX
	JNZ   signed

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
	JMP       flags

signed:
	VMOVDQU32 (DX), Z0
	VPCMPUD   $5, Z2, Z0, K2
	KORTESTW  K2, K2
	JNZ       outside
	KXNORW    K1, K1, K1
	VPGATHERDD (SI)(Z0*4), K1, Z1
	VPMOVSXBD (BX), Z4
	VPCMPEQD  Z3, Z1, K3
	KORW      K3, K5, K5
	VPXORD    Z5, Z4, Z4
	VPANDD    Z6, Z4, Z4
	VPXORD    Z4, Z1, Z1
	VMOVDQU32 Z1, (DI)
	ADDQ      $64, DX
	ADDQ      $64, DI
	ADDQ      $16, BX
	SUBQ      $16, CX
	JNZ       signed

flags:
	KORTESTW  K5, K5
	JZ        done
	MOVQ      $1, R8

done:
	MOVQ R8, ret+56(FP)
	VZEROUPPER
	RET

outside:
	MOVQ $2, R8
	JMP  done

// func gatherMarked32AVX2(dst, src *float32, idx *int32, y *int8, n, srcLen int, marker uint32, yi int32) int
// gatherMarked32AVX512 eight at a time: idx < srcLen as unsigned by
// VPMINUD with srcLen−1 (equal when inside), the marker compares ORed
// into Y4. n is a positive multiple of 8.
TEXT ·gatherMarked32AVX2(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ idx+16(FP), DX
	MOVQ y+24(FP), BX
	MOVQ n+32(FP), CX
	MOVQ srcLen+40(FP), AX
	DECQ AX
	MOVQ AX, X2
	VPBROADCASTD X2, Y2
	MOVL marker+48(FP), AX
	MOVQ AX, X3
	VPBROADCASTD X3, Y3
	MOVL yi+52(FP), AX
	MOVQ AX, X5
	VPBROADCASTD X5, Y5
	MOVL $0x80000000, AX
	MOVQ AX, X6
	VPBROADCASTD X6, Y6
	VPXOR Y4, Y4, Y4
	XORQ  R8, R8

loop2:
	VMOVDQU   (DX), Y0
	VPMINUD   Y2, Y0, Y7
	VPCMPEQD  Y0, Y7, Y7
	VPMOVMSKB Y7, AX
	CMPL      AX, $0xffffffff
	JNE       outside2
	VPCMPEQD  Y8, Y8, Y8
	VPGATHERDD Y8, (SI)(Y0*4), Y1
	VPCMPEQD  Y3, Y1, Y7
	VPOR      Y7, Y4, Y4
	TESTQ     BX, BX
	JZ        store2
	VPMOVSXBD (BX), Y9
	VPXOR     Y5, Y9, Y9
	VPAND     Y6, Y9, Y9
	VPXOR     Y9, Y1, Y1
	ADDQ      $8, BX

store2:
	VMOVDQU Y1, (DI)
	ADDQ    $32, DX
	ADDQ    $32, DI
	SUBQ    $8, CX
	JNZ     loop2
	VPTEST  Y4, Y4
	JZ      done2
	MOVQ    $1, R8

done2:
	MOVQ R8, ret+56(FP)
	VZEROUPPER
	RET

outside2:
	MOVQ $2, R8
	JMP  done2
