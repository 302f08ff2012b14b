#include "textflag.h"

// iota8: the lane numbers 0..7 as int64.
DATA iota8<>+0(SB)/8, $0
DATA iota8<>+8(SB)/8, $1
DATA iota8<>+16(SB)/8, $2
DATA iota8<>+24(SB)/8, $3
DATA iota8<>+32(SB)/8, $4
DATA iota8<>+40(SB)/8, $5
DATA iota8<>+48(SB)/8, $6
DATA iota8<>+56(SB)/8, $7
GLOBL iota8<>(SB), RODATA|NOPTR, $64

// func gradStepMaxUpAVX512(G *float64, qi, qj *float32, di, dj float64, ny *float64, sets *uint8, mask uint64, n int, out *[16]int64)
// Eight float64 lanes a step: G += cvt(qi)·di + cvt(qj)·dj (VMULPD,
// VMULPD, VADDPD, VADDPD: the scalar loop's roundings, no FMA), v = ny·G,
// and per lane the running maximum of v over set elements with the index
// of the last v ≥ maximum (VCMPPD GE_OQ: NaN never wins), kept by masked
// moves. n is a multiple of 8.
TEXT ·gradStepMaxUpAVX512(SB), NOSPLIT, $0-80
	MOVQ G+0(FP), SI
	MOVQ qi+8(FP), R8
	MOVQ qj+16(FP), R9
	VBROADCASTSD di+24(FP), Z20
	VBROADCASTSD dj+32(FP), Z21
	MOVQ ny+40(FP), R10
	MOVQ sets+48(FP), R11
	VPBROADCASTQ mask+56(FP), Z22
	MOVQ n+64(FP), CX
	MOVQ out+72(FP), DI

	// Z0: lane maxima (−Inf), Z1: their indices (−1), Z2: this step's
	// indices (0..7), Z3: 8 in every lane.
	MOVQ $0xfff0000000000000, AX
	VPBROADCASTQ AX, Z0
	VPTERNLOGQ $0xff, Z1, Z1, Z1
	MOVQ $8, AX
	VPBROADCASTQ AX, Z3
	VMOVDQU64 iota8<>(SB), Z2
	XORQ AX, AX

loop:
	CMPQ CX, AX
	JLE  done
	VCVTPS2PD (R8)(AX*4), Z4
	VCVTPS2PD (R9)(AX*4), Z5
	VMULPD    Z20, Z4, Z4
	VMULPD    Z21, Z5, Z5
	VADDPD    Z5, Z4, Z4
	VADDPD    (SI)(AX*8), Z4, Z4
	VMOVUPD   Z4, (SI)(AX*8)
	VMULPD    (R10)(AX*8), Z4, Z6
	VPMOVZXBQ (R11)(AX*1), Z7
	VPTESTMQ  Z22, Z7, K1
	VCMPPD    $0x1d, Z0, Z6, K1, K2
	VMOVAPD   Z6, K2, Z0
	VMOVDQA64 Z2, K2, Z1
	VPADDQ    Z3, Z2, Z2
	ADDQ      $8, AX
	JMP       loop

done:
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, 64(DI)
	VZEROUPPER
	RET
