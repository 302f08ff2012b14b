//go:build !amd64.v3

#include "textflag.h"

// func log1pAVX512(dst, x *float64, n int)
// math/log1p.go for x in [2⁻²⁹, 1 − 2⁻⁴⁸), eight lanes a step, each
// operation log1p.go's in its order, rounded alone (no FMA):
//   x < √2−1:  k = 0, f = x
//   else:      u = 1 + x, c = (x − (u − 1))/u; m = u's mantissa bits;
//              m < √2's: k = 0, f = u − 1; else k = 1, f = (u/2) − 1
//   hfsq = (0.5·f)·f, s = f/(2 + f), z = s·s, R = z·(Lp1 + z·(… + z·Lp7))
//   k = 0: f − (hfsq − s·(hfsq + R))
//   k = 1: Ln2Hi − ((hfsq − (s·(hfsq + R) + (Ln2Lo + c))) − f)
// n is a positive multiple of 8.
TEXT ·log1pAVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ $0x3ff0000000000000, AX // 1.0
	VPBROADCASTQ AX, Z16
	MOVQ $0x4000000000000000, AX // 2.0
	VPBROADCASTQ AX, Z17
	MOVQ $0x3fe0000000000000, AX // 0.5, and u/2's exponent bits
	VPBROADCASTQ AX, Z18
	MOVQ $0x3fda827999fcef32, AX // Sqrt2M1 as log1p.go's literal rounds
	VPBROADCASTQ AX, Z19
	MOVQ $0x000fffffffffffff, AX // mantissa
	VPBROADCASTQ AX, Z20
	MOVQ $0x0006a09e667f3bcd, AX // √2's mantissa
	VPBROADCASTQ AX, Z21
	MOVQ $0x3fe62e42fee00000, AX // Ln2Hi
	VPBROADCASTQ AX, Z22
	MOVQ $0x3dea39ef35793c76, AX // Ln2Lo
	VPBROADCASTQ AX, Z23
	MOVQ $0x3fe5555555555593, AX // Lp1
	VPBROADCASTQ AX, Z24
	MOVQ $0x3fd999999997fa04, AX // Lp2
	VPBROADCASTQ AX, Z25
	MOVQ $0x3fd2492494229359, AX // Lp3
	VPBROADCASTQ AX, Z26
	MOVQ $0x3fcc71c51d8e78af, AX // Lp4
	VPBROADCASTQ AX, Z27
	MOVQ $0x3fc7466496cb03de, AX // Lp5
	VPBROADCASTQ AX, Z28
	MOVQ $0x3fc39a09d078c69f, AX // Lp6
	VPBROADCASTQ AX, Z29
	MOVQ $0x3fc2f112df3e5244, AX // Lp7
	VPBROADCASTQ AX, Z30

loop:
	VMOVUPD (SI), Z0             // x
	VADDPD  Z0, Z16, Z1          // u = 1 + x
	VSUBPD  Z16, Z1, Z5          // u − 1
	VSUBPD  Z5, Z0, Z2           // x − (u − 1)
	VDIVPD  Z1, Z2, Z2           // c
	VPANDQ  Z20, Z1, Z3          // m
	VCMPPD  $0x1d, Z19, Z0, K1   // x ≥ √2−1
	VPCMPUQ $5, Z21, Z3, K2      // m ≥ √2's
	KANDW   K1, K2, K2           // k = 1
	VPORQ   Z18, Z3, Z4          // u/2
	VSUBPD  Z16, Z4, Z4          // u/2 − 1
	VBLENDMPD Z5, Z0, K1, Z6     // f
	VBLENDMPD Z4, Z6, K2, Z6
	VMULPD  Z6, Z18, Z7          // 0.5·f
	VMULPD  Z6, Z7, Z7           // hfsq
	VADDPD  Z6, Z17, Z8          // 2 + f
	VDIVPD  Z8, Z6, Z8           // s
	VMULPD  Z8, Z8, Z9           // z
	VMULPD  Z30, Z9, Z10         // z·Lp7
	VADDPD  Z10, Z29, Z10
	VMULPD  Z10, Z9, Z10
	VADDPD  Z10, Z28, Z10
	VMULPD  Z10, Z9, Z10
	VADDPD  Z10, Z27, Z10
	VMULPD  Z10, Z9, Z10
	VADDPD  Z10, Z26, Z10
	VMULPD  Z10, Z9, Z10
	VADDPD  Z10, Z25, Z10
	VMULPD  Z10, Z9, Z10
	VADDPD  Z10, Z24, Z10
	VMULPD  Z10, Z9, Z10         // R
	VADDPD  Z10, Z7, Z11         // hfsq + R
	VMULPD  Z11, Z8, Z11         // s·(hfsq + R)
	VSUBPD  Z11, Z7, Z12         // hfsq − s·(hfsq + R)
	VSUBPD  Z12, Z6, Z12         // k = 0's result
	VADDPD  Z2, Z23, Z13         // Ln2Lo + c
	VADDPD  Z13, Z11, Z13        // s·(hfsq + R) + (Ln2Lo + c)
	VSUBPD  Z13, Z7, Z13         // hfsq − (…)
	VSUBPD  Z6, Z13, Z13         // (…) − f
	VSUBPD  Z13, Z22, Z13        // k = 1's result
	VBLENDMPD Z13, Z12, K2, Z12
	VMOVUPD Z12, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  loop
	VZEROUPPER
	RET
