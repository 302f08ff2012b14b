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

// func selectJAVX512(G, ny, QD *float64, qi *float32, sets *uint8, mask uint64, n int, m, QDi, c2, tau float64, out *[25]int64)
// Eight float64 lanes a step, the scalar loop's operations in its order
// (no FMA): K1 = I_low, v = ny·G, lane minima of v (masked VMINPD) and a
// NaN flag (K5), b = m − v, K2 = K1 ∧ ¬(b ≤ 0), a = (QDi + QD) + (c2·ny)·qi
// with tau where a ≤ 0, obj = (−b·b)/a (sign flip of b·b, exact), and per
// lane the minimum obj with the last index of obj ≤ minimum (LE_OQ: NaN
// never wins), kept by masked moves. n is a multiple of 8.
TEXT ·selectJAVX512(SB), NOSPLIT, $0-96
	MOVQ G+0(FP), SI
	MOVQ ny+8(FP), R8
	MOVQ QD+16(FP), R9
	MOVQ qi+24(FP), R10
	MOVQ sets+32(FP), R11
	VPBROADCASTQ mask+40(FP), Z24
	MOVQ n+48(FP), CX
	VBROADCASTSD m+56(FP), Z20
	VBROADCASTSD QDi+64(FP), Z21
	VBROADCASTSD c2+72(FP), Z22
	VBROADCASTSD tau+80(FP), Z23
	MOVQ out+88(FP), DI

	MOVQ $0x8000000000000000, AX
	VPBROADCASTQ AX, Z25 // the sign bit
	VPXORQ Z26, Z26, Z26 // +0
	MOVQ $0x7ff0000000000000, AX
	VPBROADCASTQ AX, Z0  // lane minima of v: +Inf
	VMOVDQA64 Z0, Z2     // lane best objectives: +Inf
	VPTERNLOGQ $0xff, Z3, Z3, Z3 // their indices: −1
	VMOVDQU64 iota8<>(SB), Z4
	MOVQ $8, AX
	VPBROADCASTQ AX, Z5
	KXORB K5, K5, K5
	XORQ AX, AX

sjloop:
	CMPQ CX, AX
	JLE  sjdone
	VPMOVZXBQ (R11)(AX*1), Z7
	VPTESTMQ  Z24, Z7, K1
	VMOVUPD   (SI)(AX*8), Z8
	VMULPD    (R8)(AX*8), Z8, Z8 // v
	VMINPD    Z8, Z0, K1, Z0
	VCMPPD    $0x03, Z8, Z8, K1, K3 // UNORD_Q: v is NaN
	KORB      K3, K5, K5
	VSUBPD    Z8, Z20, Z9 // b = m − v
	VCMPPD    $0x06, Z26, Z9, K1, K2 // NLE_UQ: ¬(b ≤ 0)
	VCVTPS2PD (R10)(AX*4), Z10
	VMULPD    (R8)(AX*8), Z22, Z11 // c2·ny
	VMULPD    Z11, Z10, Z10
	VADDPD    (R9)(AX*8), Z21, Z12 // QDi + QD
	VADDPD    Z10, Z12, Z12 // a
	VCMPPD    $0x12, Z26, Z12, K4 // LE_OQ: a ≤ 0
	VMOVAPD   Z23, K4, Z12
	VMULPD    Z9, Z9, Z13
	VPXORQ    Z25, Z13, Z13 // −b·b
	VDIVPD    Z12, Z13, Z13 // obj
	VCMPPD    $0x12, Z2, Z13, K2, K6 // LE_OQ: obj ≤ best
	VMOVAPD   Z13, K6, Z2
	VMOVDQA64 Z4, K6, Z3
	VPADDQ    Z5, Z4, Z4
	ADDQ      $8, AX
	JMP       sjloop

sjdone:
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z2, 64(DI)
	VMOVDQU64 Z3, 128(DI)
	KMOVB     K5, AX
	MOVQ      AX, 192(DI)
	VZEROUPPER
	RET

// func rbfArgsAVX2(a, x *float64, data *float32, rows *int32, sq *float64, sqi, gam float64, n, count int)
// A row at a time: Y0's four lanes are s0..s3, each step adding
// cvt(y[k:k+4])·x[k:k+4] (VMULPD then VADDPD: the scalar roundings); the
// n mod 4 last features go to s0 alone (scalar ops on X0's low lane,
// which keep s1 in its high lane); then (s0+s1)+(s2+s3), doubled by a sum
// (exact), subtracted from sqi + sq[row], 0 where < 0 (LT_OQ: NaN and −0
// stay, as in the scalar code), times gam.
TEXT ·rbfArgsAVX2(SB), NOSPLIT, $0-72
	MOVQ   a+0(FP), DI
	MOVQ   x+8(FP), SI
	MOVQ   data+16(FP), R8
	MOVQ   rows+24(FP), R9
	MOVQ   sq+32(FP), R10
	VMOVSD sqi+40(FP), X14
	VMOVSD gam+48(FP), X15
	MOVQ   n+56(FP), R11
	MOVQ   count+64(FP), CX
	MOVQ   R11, R12
	SHRQ   $2, R12 // steps of four features
	VXORPD X13, X13, X13
	XORQ   BX, BX

rarow:
	CMPQ     BX, CX
	JGE      radone
	MOVLQSX  (R9)(BX*4), AX
	VMOVSD   (R10)(AX*8), X12 // sq[row]
	IMULQ    R11, AX
	LEAQ     (R8)(AX*4), DX // &y[0]
	MOVQ     SI, R13        // &x[0]
	VXORPD   Y0, Y0, Y0
	MOVQ     R12, AX

rablk:
	TESTQ     AX, AX
	JZ        rarest
	VCVTPS2PD (DX), Y1
	VMULPD    (R13), Y1, Y1
	VADDPD    Y1, Y0, Y0
	ADDQ      $16, DX
	ADDQ      $32, R13
	DECQ      AX
	JMP       rablk

rarest:
	VEXTRACTF128 $1, Y0, X2 // s2, s3
	MOVQ         R11, AX
	ANDQ         $3, AX

ratail:
	TESTQ     AX, AX
	JZ        rareduce
	VCVTSS2SD (DX), X3, X3
	VMULSD    (R13), X3, X3
	VADDSD    X3, X0, X0 // s0 += x[k]·y[k]; s1 stays in the high lane
	ADDQ      $4, DX
	ADDQ      $8, R13
	DECQ      AX
	JMP       ratail

rareduce:
	VPERMILPD $1, X0, X4
	VADDSD    X4, X0, X0 // s0 + s1
	VPERMILPD $1, X2, X5
	VADDSD    X5, X2, X2 // s2 + s3
	VADDSD    X2, X0, X0
	VADDSD    X0, X0, X0   // 2·dot
	VADDSD    X12, X14, X6 // sqi + sq[row]
	VSUBSD    X0, X6, X6
	VCMPSD    $0x11, X13, X6, X7 // LT_OQ: d < 0
	VANDNPD   X6, X7, X6
	VMULSD    X15, X6, X6
	VMOVSD    X6, (DI)(BX*8)
	INCQ      BX
	JMP       rarow

radone:
	VZEROUPPER
	RET

// func expTo32AVX512(dst *float32, x *float64, n int, c *[12]float64, table *[32]float64) int
// Eight float64 lanes a step, expTo32Portable's operations in its order
// (VMULPD/VADDPD/VSUBPD, no FMA): kd = x·c0 + c1 (its low bits are k),
// r = (x − (kd−c1)·c2) − (kd−c1)·c3, Horner's p, 2^(int32(k)>>5) built in
// the exponent bits, table[k&31] gathered, e = (table·p)·scale rounded to
// float32 (VCVTPD2PS, round to nearest even as Go's conversion). K7
// collects the lanes outside [c10, c11] (or NaN) for the return value.
TEXT ·expTo32AVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), DX
	MOVQ table+32(FP), R8
	VBROADCASTSD 0(DX), Z20
	VBROADCASTSD 8(DX), Z21
	VBROADCASTSD 16(DX), Z22
	VBROADCASTSD 24(DX), Z23
	VBROADCASTSD 32(DX), Z24
	VBROADCASTSD 40(DX), Z25
	VBROADCASTSD 48(DX), Z26
	VBROADCASTSD 56(DX), Z27
	VBROADCASTSD 64(DX), Z28
	VBROADCASTSD 72(DX), Z29
	VBROADCASTSD 80(DX), Z30
	VBROADCASTSD 88(DX), Z31
	MOVQ $1023, AX
	VPBROADCASTQ AX, Z18
	MOVQ $31, AX
	VPBROADCASTQ AX, Z19
	KXORB K7, K7, K7
	XORQ AX, AX

exloop:
	CMPQ CX, AX
	JLE  exdone
	VMOVUPD (SI)(AX*8), Z0
	VCMPPD  $0x1d, Z30, Z0, K1     // GE_OQ: x ≥ −708
	VCMPPD  $0x12, Z31, Z0, K1, K2 // LE_OQ: and x ≤ 700
	KNOTB   K2, K3
	KORB    K3, K7, K7
	VMULPD  Z20, Z0, Z1
	VADDPD  Z21, Z1, Z1 // kd, bits hold k
	VSUBPD  Z21, Z1, Z2 // kd − shift
	VMULPD  Z22, Z2, Z3
	VSUBPD  Z3, Z0, Z3  // x − kd·hi
	VMULPD  Z23, Z2, Z4
	VSUBPD  Z4, Z3, Z3  // r
	VMULPD  Z24, Z3, Z5
	VADDPD  Z25, Z5, Z5
	VMULPD  Z5, Z3, Z5
	VADDPD  Z26, Z5, Z5
	VMULPD  Z5, Z3, Z5
	VADDPD  Z27, Z5, Z5
	VMULPD  Z5, Z3, Z5
	VADDPD  Z28, Z5, Z5
	VMULPD  Z5, Z3, Z5
	VADDPD  Z29, Z5, Z5
	VMULPD  Z5, Z3, Z5
	VADDPD  Z29, Z5, Z5 // p
	VPSLLQ  $32, Z1, Z6
	VPSRAQ  $37, Z6, Z6 // int64(int32(k) >> 5)
	VPADDQ  Z18, Z6, Z6
	VPSLLQ  $52, Z6, Z6 // scale
	VPANDQ  Z19, Z1, Z7 // k & 31
	KXNORB  K4, K4, K4
	VGATHERQPD (R8)(Z7*8), K4, Z8
	VMULPD  Z5, Z8, Z8
	VMULPD  Z6, Z8, Z8
	VCVTPD2PS Z8, Y9
	VMOVUPS Y9, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     exloop

exdone:
	KMOVB   K7, AX
	MOVQ    AX, ret+40(FP)
	VZEROUPPER
	RET

// func rbfArgs4AVX512(a, x *float64, data *float32, rows *int32, sq *float64, sqi, gam float64, n, count int)
// Four rows a step, each row's s0..s3 the four lanes of its own register
// (Y0..Y3), so the four sums run side by side: eight features a step
// (VCVTPS2PD into a ZMM, VMULPD by x[k:k+8], then the low four lanes
// added, then the high four: s_r += p_(k+r), then s_r += p_(k+4+r), the
// scalar order), a step of four when n mod 8 ≥ 4, and the n mod 4 last
// features added to lane 0 alone (masked VADDPD). Then (s0+s1)+(s2+s3) of
// the four rows by a transpose (VUNPCKLPD/VUNPCKHPD, VPERM2F128), doubled
// by a sum (exact), subtracted from sqi + sq[row], 0 where < 0 (LT_OQ: NaN
// and −0 stay), times gam: rbfArgsAVX2's operations, four rows at once.
// No FMA. count is a multiple of 4; the caller checked every row index.
TEXT ·rbfArgs4AVX512(SB), NOSPLIT, $0-72
	MOVQ         a+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         data+16(FP), R8
	MOVQ         rows+24(FP), R9
	MOVQ         sq+32(FP), R15
	VBROADCASTSD sqi+40(FP), Y14
	VBROADCASTSD gam+48(FP), Y15
	MOVQ         n+56(FP), R14
	MOVQ         count+64(FP), CX
	VXORPD       Y13, Y13, Y13
	MOVL         $1, AX
	KMOVB        AX, K1 // lane 0
	XORQ         BX, BX

r4blk:
	CMPQ    BX, CX
	JGE     r4done
	MOVLQSX (R9)(BX*4), AX
	IMULQ   R14, AX
	LEAQ    (R8)(AX*4), DX
	MOVLQSX 4(R9)(BX*4), AX
	IMULQ   R14, AX
	LEAQ    (R8)(AX*4), R10
	MOVLQSX 8(R9)(BX*4), AX
	IMULQ   R14, AX
	LEAQ    (R8)(AX*4), R11
	MOVLQSX 12(R9)(BX*4), AX
	IMULQ   R14, AX
	LEAQ    (R8)(AX*4), R12
	MOVQ    SI, R13
	VXORPD  Y0, Y0, Y0
	VXORPD  Y1, Y1, Y1
	VXORPD  Y2, Y2, Y2
	VXORPD  Y3, Y3, Y3
	MOVQ    R14, AX
	SHRQ    $3, AX

r4eight:
	TESTQ         AX, AX
	JZ            r4four
	VMOVUPD       (R13), Z8
	VCVTPS2PD     (DX), Z4
	VCVTPS2PD     (R10), Z5
	VCVTPS2PD     (R11), Z6
	VCVTPS2PD     (R12), Z7
	VMULPD        Z8, Z4, Z4
	VMULPD        Z8, Z5, Z5
	VMULPD        Z8, Z6, Z6
	VMULPD        Z8, Z7, Z7
	VADDPD        Y4, Y0, Y0
	VADDPD        Y5, Y1, Y1
	VADDPD        Y6, Y2, Y2
	VADDPD        Y7, Y3, Y3
	VEXTRACTF64X4 $1, Z4, Y4
	VEXTRACTF64X4 $1, Z5, Y5
	VEXTRACTF64X4 $1, Z6, Y6
	VEXTRACTF64X4 $1, Z7, Y7
	VADDPD        Y4, Y0, Y0
	VADDPD        Y5, Y1, Y1
	VADDPD        Y6, Y2, Y2
	VADDPD        Y7, Y3, Y3
	ADDQ          $32, DX
	ADDQ          $32, R10
	ADDQ          $32, R11
	ADDQ          $32, R12
	ADDQ          $64, R13
	DECQ          AX
	JMP           r4eight

r4four:
	TESTQ     $4, R14
	JZ        r4one
	VMOVUPD   (R13), Y8
	VCVTPS2PD (DX), Y4
	VCVTPS2PD (R10), Y5
	VCVTPS2PD (R11), Y6
	VCVTPS2PD (R12), Y7
	VMULPD    Y8, Y4, Y4
	VMULPD    Y8, Y5, Y5
	VMULPD    Y8, Y6, Y6
	VMULPD    Y8, Y7, Y7
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	VADDPD    Y6, Y2, Y2
	VADDPD    Y7, Y3, Y3
	ADDQ      $16, DX
	ADDQ      $16, R10
	ADDQ      $16, R11
	ADDQ      $16, R12
	ADDQ      $32, R13

r4one:
	MOVQ R14, AX
	ANDQ $3, AX

r4tail:
	TESTQ     AX, AX
	JZ        r4reduce
	VMOVSD    (R13), X8
	VCVTSS2SD (DX), X4, X4
	VCVTSS2SD (R10), X5, X5
	VCVTSS2SD (R11), X6, X6
	VCVTSS2SD (R12), X7, X7
	VMULSD    X8, X4, X4
	VMULSD    X8, X5, X5
	VMULSD    X8, X6, X6
	VMULSD    X8, X7, X7
	VADDPD    Y4, Y0, K1, Y0 // s0 += x[k]·y[k]; s1..s3 stay
	VADDPD    Y5, Y1, K1, Y1
	VADDPD    Y6, Y2, K1, Y2
	VADDPD    Y7, Y3, K1, Y3
	ADDQ      $4, DX
	ADDQ      $4, R10
	ADDQ      $4, R11
	ADDQ      $4, R12
	ADDQ      $8, R13
	DECQ      AX
	JMP       r4tail

r4reduce:
	VUNPCKLPD  Y1, Y0, Y4       // a0 b0 a2 b2
	VUNPCKHPD  Y1, Y0, Y5       // a1 b1 a3 b3
	VADDPD     Y5, Y4, Y4       // a0+a1 b0+b1 a2+a3 b2+b3
	VUNPCKLPD  Y3, Y2, Y6
	VUNPCKHPD  Y3, Y2, Y7
	VADDPD     Y7, Y6, Y6       // c0+c1 d0+d1 c2+c3 d2+d3
	VPERM2F128 $0x20, Y6, Y4, Y7 // s0+s1 of a, b, c, d
	VPERM2F128 $0x31, Y6, Y4, Y8 // s2+s3 of a, b, c, d
	VADDPD     Y8, Y7, Y7
	VADDPD     Y7, Y7, Y7       // 2·dot
	VMOVDQU    (R9)(BX*4), X9
	KXNORB     K2, K2, K2
	VGATHERDPD (R15)(X9*8), K2, Y10 // sq[row]
	VADDPD     Y10, Y14, Y10        // sqi + sq[row]
	VSUBPD     Y7, Y10, Y10
	VCMPPD     $0x11, Y13, Y10, K3 // LT_OQ: d < 0
	VMOVAPD    Y13, K3, Y10
	VMULPD     Y15, Y10, Y10
	VMOVUPD    Y10, (DI)(BX*8)
	ADDQ       $4, BX
	JMP        r4blk

r4done:
	VZEROUPPER
	RET

// func addScaled32AVX512(dst *float64, c float64, q *float32, n int)
// Eight lanes a step: dst += cvt(q)·c (VMULPD then VADDPD, no FMA). n is a
// multiple of 8.
TEXT ·addScaled32AVX512(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	VBROADCASTSD c+8(FP), Z0
	MOVQ         q+16(FP), SI
	MOVQ         n+24(FP), CX
	XORQ         AX, AX

asloop:
	CMPQ      AX, CX
	JGE       asdone
	VCVTPS2PD (SI)(AX*4), Z1
	VMULPD    Z0, Z1, Z1
	VADDPD    (DI)(AX*8), Z1, Z1
	VMOVUPD   Z1, (DI)(AX*8)
	ADDQ      $8, AX
	JMP       asloop

asdone:
	VZEROUPPER
	RET

// Four-lane constants of the AVX2 paths.
DATA signbit4<>+0(SB)/8, $0x8000000000000000
DATA signbit4<>+8(SB)/8, $0x8000000000000000
DATA signbit4<>+16(SB)/8, $0x8000000000000000
DATA signbit4<>+24(SB)/8, $0x8000000000000000
GLOBL signbit4<>(SB), RODATA|NOPTR, $32

DATA four4<>+0(SB)/8, $4
DATA four4<>+8(SB)/8, $4
DATA four4<>+16(SB)/8, $4
DATA four4<>+24(SB)/8, $4
GLOBL four4<>(SB), RODATA|NOPTR, $32

// func gradStepMaxUpAVX2(G *float64, qi, qj *float32, di, dj float64, ny *float64, sets *uint8, mask uint64, n int, out *[16]int64)
// gradStepMaxUpAVX512 in four lanes: the same operations in the same
// order (no FMA); set membership and v ≥ maximum (GE_OQ: NaN never wins)
// as lane masks, the running maximum and its index kept by VBLENDVPD.
// Writes the lane maxima to out[0:4] and their indices to out[8:12]. n is
// a multiple of 4.
TEXT ·gradStepMaxUpAVX2(SB), NOSPLIT, $0-80
	MOVQ         G+0(FP), SI
	MOVQ         qi+8(FP), R8
	MOVQ         qj+16(FP), R9
	VBROADCASTSD di+24(FP), Y10
	VBROADCASTSD dj+32(FP), Y11
	MOVQ         ny+40(FP), R10
	MOVQ         sets+48(FP), R11
	VPBROADCASTQ mask+56(FP), Y12
	MOVQ         n+64(FP), CX
	MOVQ         out+72(FP), DI

	MOVQ         $0xfff0000000000000, AX
	MOVQ         AX, X0
	VPBROADCASTQ X0, Y0          // lane maxima: −Inf
	VPCMPEQQ     Y1, Y1, Y1      // their indices: −1
	VMOVDQU      iota8<>(SB), Y2 // this step's indices: 0..3
	VPXOR        Y13, Y13, Y13
	XORQ         AX, AX

g2loop:
	CMPQ      CX, AX
	JLE       g2done
	VCVTPS2PD (R8)(AX*4), Y4
	VCVTPS2PD (R9)(AX*4), Y5
	VMULPD    Y10, Y4, Y4
	VMULPD    Y11, Y5, Y5
	VADDPD    Y5, Y4, Y4
	VADDPD    (SI)(AX*8), Y4, Y4
	VMOVUPD   Y4, (SI)(AX*8)
	VMULPD    (R10)(AX*8), Y4, Y6 // v
	VPMOVZXBQ (R11)(AX*1), Y7
	VPAND     Y12, Y7, Y7
	VPCMPEQQ  Y13, Y7, Y7         // not in the set
	VCMPPD    $0x1d, Y0, Y6, Y8   // GE_OQ: v ≥ maximum
	VPANDN    Y8, Y7, Y8
	VBLENDVPD Y8, Y6, Y0, Y0
	VBLENDVPD Y8, Y2, Y1, Y1
	VPADDQ    four4<>(SB), Y2, Y2
	ADDQ      $4, AX
	JMP       g2loop

g2done:
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 64(DI)
	VZEROUPPER
	RET

// func selectJAVX2(G, ny, QD *float64, qi *float32, sets *uint8, mask uint64, n int, m, QDi, c2, tau float64, out *[25]int64)
// selectJAVX512 in four lanes, the same operations in the same order (no
// FMA), lane masks for I_low, ¬(b ≤ 0), a ≤ 0 (tau by VBLENDVPD) and
// obj ≤ best (LE_OQ: NaN never wins). Writes the lane minima of v to
// out[0:4], the best objectives to out[8:12], their indices to
// out[16:20] and in out[24] a nonzero value when a v in I_low was NaN. n
// is a multiple of 4.
TEXT ·selectJAVX2(SB), NOSPLIT, $0-96
	MOVQ         G+0(FP), SI
	MOVQ         ny+8(FP), R8
	MOVQ         QD+16(FP), R9
	MOVQ         qi+24(FP), R10
	MOVQ         sets+32(FP), R11
	VPBROADCASTQ mask+40(FP), Y12
	MOVQ         n+48(FP), CX
	VBROADCASTSD m+56(FP), Y10
	VBROADCASTSD QDi+64(FP), Y11
	VBROADCASTSD c2+72(FP), Y14
	VBROADCASTSD tau+80(FP), Y15
	MOVQ         out+88(FP), DI

	VPXOR        Y13, Y13, Y13   // +0
	MOVQ         $0x7ff0000000000000, AX
	MOVQ         AX, X0
	VPBROADCASTQ X0, Y0          // lane minima of v: +Inf
	VMOVDQA      Y0, Y2          // lane best objectives: +Inf
	VPCMPEQQ     Y3, Y3, Y3      // their indices: −1
	VMOVDQU      iota8<>(SB), Y4 // this step's indices: 0..3
	VPXOR        Y1, Y1, Y1      // NaN seen in I_low
	XORQ         AX, AX

s2loop:
	CMPQ      CX, AX
	JLE       s2done
	VPMOVZXBQ (R11)(AX*1), Y7
	VPAND     Y12, Y7, Y7
	VPCMPEQQ  Y13, Y7, Y7        // not in I_low
	VMOVUPD   (SI)(AX*8), Y8
	VMULPD    (R8)(AX*8), Y8, Y8 // v
	VMINPD    Y8, Y0, Y5
	VBLENDVPD Y7, Y0, Y5, Y0     // the minimum over I_low
	VCMPPD    $0x03, Y8, Y8, Y5  // UNORD_Q: v is NaN
	VPANDN    Y5, Y7, Y5
	VPOR      Y5, Y1, Y1
	VSUBPD    Y8, Y10, Y9        // b = m − v
	VCMPPD    $0x06, Y13, Y9, Y6 // NLE_UQ: ¬(b ≤ 0)
	VPANDN    Y6, Y7, Y6         // and in I_low
	VCVTPS2PD (R10)(AX*4), Y5
	VMULPD    (R8)(AX*8), Y14, Y8 // c2·ny
	VMULPD    Y8, Y5, Y5
	VADDPD    (R9)(AX*8), Y11, Y8 // QDi + QD
	VADDPD    Y5, Y8, Y8          // a
	VCMPPD    $0x12, Y13, Y8, Y5  // LE_OQ: a ≤ 0
	VBLENDVPD Y5, Y15, Y8, Y8
	VMULPD    Y9, Y9, Y9
	VXORPD    signbit4<>(SB), Y9, Y9 // −b·b
	VDIVPD    Y8, Y9, Y9             // obj
	VCMPPD    $0x12, Y2, Y9, Y5      // LE_OQ: obj ≤ best
	VPAND     Y6, Y5, Y5
	VBLENDVPD Y5, Y9, Y2, Y2
	VBLENDVPD Y5, Y4, Y3, Y3
	VPADDQ    four4<>(SB), Y4, Y4
	ADDQ      $4, AX
	JMP       s2loop

s2done:
	VMOVDQU   Y0, (DI)
	VMOVDQU   Y2, 64(DI)
	VMOVDQU   Y3, 128(DI)
	VMOVMSKPD Y1, AX
	MOVQ      AX, 192(DI)
	VZEROUPPER
	RET

// func addScaled32AVX2(dst *float64, c float64, q *float32, n int)
// Four lanes a step: dst += cvt(q)·c (VMULPD then VADDPD, no FMA). n is a
// multiple of 4.
TEXT ·addScaled32AVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	VBROADCASTSD c+8(FP), Y0
	MOVQ         q+16(FP), SI
	MOVQ         n+24(FP), CX
	XORQ         AX, AX

a2loop:
	CMPQ      AX, CX
	JGE       a2done
	VCVTPS2PD (SI)(AX*4), Y1
	VMULPD    Y0, Y1, Y1
	VADDPD    (DI)(AX*8), Y1, Y1
	VMOVUPD   Y1, (DI)(AX*8)
	ADDQ      $4, AX
	JMP       a2loop

a2done:
	VZEROUPPER
	RET

DATA int1023x4<>+0(SB)/8, $1023
DATA int1023x4<>+8(SB)/8, $1023
DATA int1023x4<>+16(SB)/8, $1023
DATA int1023x4<>+24(SB)/8, $1023
GLOBL int1023x4<>(SB), RODATA|NOPTR, $32

DATA int31x4<>+0(SB)/8, $31
DATA int31x4<>+8(SB)/8, $31
DATA int31x4<>+16(SB)/8, $31
DATA int31x4<>+24(SB)/8, $31
GLOBL int31x4<>(SB), RODATA|NOPTR, $32

// func expTo32AVX2(dst *float32, x *float64, n int, c *[12]float64, table *[32]float64) int
// expTo32AVX512 in four lanes, the same operations in the same order (no
// FMA); c0..c3 stay in registers, the other constants are broadcast from
// c where used. 2^(int32(k)>>5) is built with VPSRAD on the low dword (only
// the low 12 bits of the biased exponent reach the result, so the high
// dword needs no sign extension). Returns nonzero when some x was outside
// [c10, c11] or NaN. n is a multiple of 4.
TEXT ·expTo32AVX2(SB), NOSPLIT, $0-48
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         c+24(FP), DX
	MOVQ         table+32(FP), R8
	VBROADCASTSD 0(DX), Y10
	VBROADCASTSD 8(DX), Y11
	VBROADCASTSD 16(DX), Y12
	VBROADCASTSD 24(DX), Y13
	VPCMPEQQ     Y15, Y15, Y15 // every lane in range so far
	XORQ         AX, AX

e2loop:
	CMPQ         CX, AX
	JLE          e2done
	VMOVUPD      (SI)(AX*8), Y0
	VBROADCASTSD 80(DX), Y14
	VCMPPD       $0x1d, Y14, Y0, Y4 // GE_OQ: x ≥ −708
	VBROADCASTSD 88(DX), Y14
	VCMPPD       $0x12, Y14, Y0, Y9 // LE_OQ: x ≤ 700
	VANDPD       Y9, Y4, Y4
	VANDPD       Y4, Y15, Y15
	VMULPD       Y10, Y0, Y1
	VADDPD       Y11, Y1, Y1 // kd, bits hold k
	VSUBPD       Y11, Y1, Y2 // kd − shift
	VMULPD       Y12, Y2, Y3
	VSUBPD       Y3, Y0, Y3 // x − kd·hi
	VMULPD       Y13, Y2, Y4
	VSUBPD       Y4, Y3, Y3 // r
	VBROADCASTSD 32(DX), Y14
	VMULPD       Y14, Y3, Y5
	VBROADCASTSD 40(DX), Y14
	VADDPD       Y14, Y5, Y5
	VMULPD       Y5, Y3, Y5
	VBROADCASTSD 48(DX), Y14
	VADDPD       Y14, Y5, Y5
	VMULPD       Y5, Y3, Y5
	VBROADCASTSD 56(DX), Y14
	VADDPD       Y14, Y5, Y5
	VMULPD       Y5, Y3, Y5
	VBROADCASTSD 64(DX), Y14
	VADDPD       Y14, Y5, Y5
	VMULPD       Y5, Y3, Y5
	VBROADCASTSD 72(DX), Y14
	VADDPD       Y14, Y5, Y5
	VMULPD       Y5, Y3, Y5
	VADDPD       Y14, Y5, Y5 // p
	VPSRAD       $5, Y1, Y6  // low dword: int32(k) >> 5
	VPADDQ       int1023x4<>(SB), Y6, Y6
	VPSLLQ       $52, Y6, Y6 // scale
	VPAND        int31x4<>(SB), Y1, Y7 // k & 31
	VPCMPEQQ     Y9, Y9, Y9
	VGATHERQPD   Y9, (R8)(Y7*8), Y8
	VMULPD       Y5, Y8, Y8
	VMULPD       Y6, Y8, Y8
	VCVTPD2PSY   Y8, X8
	VMOVUPS      X8, (DI)(AX*4)
	ADDQ         $4, AX
	JMP          e2loop

e2done:
	VMOVMSKPD Y15, AX
	XORQ      $15, AX
	MOVQ      AX, ret+40(FP)
	VZEROUPPER
	RET
