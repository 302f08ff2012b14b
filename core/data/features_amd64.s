#include "textflag.h"

// func featuresVBMI(line *byte, n, i int, prev, limit int64, row *float32, index *int32, value *float32, outCap int, pow *float64) (next int, last int64, count int)
//
// The LIBSVM feature loop of features_amd64.go, one token an iteration:
// 32 bytes at the token's start are classified into bit masks (digits,
// ':', '.', '-', blanks), the masks are checked and give the token's
// layout, one VPERMB gathers the index's digits right-aligned into the low
// 16 bytes and the value's digits (the '.' skipped) into the high 16, and
// three multiply-adds turn both into integers. The value is then
// float32Prefix's: m × inversePow10[frac], refused near a float32 rounding
// midpoint.
//
// Registers: SI the token's address, DX the last address with 48 bytes
// left, R9 prev, DI count; AX, BX, CX, R8, R10-R13 scratch.
// Constants: Y16 '0', Y17 10, Y18 ':', Y19 '.', Y20 ' ', Y21 '\t',
// Y22 '-', Y23 0..15 in each lane, Y24 bytes (10, 1), Y25 words (100, 1),
// Y26 words (10000, 1), Y27 ones, K7 the high lane.
TEXT ·featuresVBMI(SB), NOSPLIT, $0-104
	MOVQ line+0(FP), SI
	MOVQ n+8(FP), DX
	LEAQ -48(SI)(DX*1), DX
	ADDQ i+16(FP), SI
	MOVQ prev+24(FP), R9
	XORL DI, DI

	MOVL $0x30, AX
	VPBROADCASTB AX, Y16
	MOVL $10, AX
	VPBROADCASTB AX, Y17
	MOVL $0x3a, AX
	VPBROADCASTB AX, Y18
	MOVL $0x2e, AX
	VPBROADCASTB AX, Y19
	MOVL $0x20, AX
	VPBROADCASTB AX, Y20
	MOVL $0x09, AX
	VPBROADCASTB AX, Y21
	MOVL $0x2d, AX
	VPBROADCASTB AX, Y22
	MOVQ $0x0706050403020100, AX
	MOVQ $0x0f0e0d0c0b0a0908, BX
	VMOVQ AX, X0
	VPINSRQ $1, BX, X0, X0
	VINSERTI128 $1, X0, Y0, Y0
	VMOVDQU64 Y0, Y23
	MOVQ $0x010a010a010a010a, AX
	VPBROADCASTQ AX, Y24
	MOVQ $0x0001006400010064, AX
	VPBROADCASTQ AX, Y25
	MOVQ $0x0001271000012710, AX
	VPBROADCASTQ AX, Y26
	MOVL $1, AX
	VPBROADCASTB AX, Y27
	MOVL $0xffff0000, AX
	KMOVD AX, K7

loop:
	CMPQ SI, DX
	JHI  done
	VMOVDQU (SI), Y0
	VPSUBB  Y16, Y0, Y1       // digit values where digits
	VPCMPUB $1, Y17, Y1, K1   // digits: Y1 < 10 unsigned
	VPCMPEQB Y20, Y0, K4
	VPCMPEQB Y21, Y0, K5
	KORD    K5, K4, K4        // blanks
	VPCMPEQB Y18, Y0, K2      // ':'
	VPCMPEQB Y19, Y0, K3      // '.'
	VPCMPEQB Y22, Y0, K6      // '-'

	// k, the index's digits: 1 to 7, then ':'
	KMOVD K1, AX              // AX = digits
	MOVL  AX, CX
	NOTL  CX
	TZCNTL CX, CX             // CX = k
	LEAL  -1(CX), R8
	CMPL  R8, $6
	JHI   done
	KMOVD K2, R8
	BTL   CX, R8
	JCC   done

	// e, the token's end: the first blank, within the first 24 bytes
	KMOVD K4, BX
	TZCNTL BX, BX             // BX = e
	CMPL  BX, $23
	JHI   done

	// the value: an optional '-' at k+1, then digits and at most one '.'
	// up to e, at least one digit and at most 16
	LEAL  1(CX), R10          // R10 = k+1
	KMOVD K6, R8
	XORL  R11, R11
	BTL   R10, R8
	SETCS R11B                // R11 = neg
	ADDL  R11, R10            // R10 = ds, the digits' start
	MOVL  $-1, R8
	BZHIL BX, R8, R12         // bits below e
	BZHIL R10, R8, R13        // bits below ds
	NOTL  R13
	ANDL  R13, R12            // R12 = the value's bits [ds, e)
	MOVL  AX, R13
	NOTL  R13
	ANDL  R12, R13            // R13 = its non-digits
	KMOVD K3, R8
	NOTL  R8
	TESTL R8, R13
	JNE   done                // a non-digit that is not '.'
	BLSRL R13, R8
	JNE   done                // two '.'
	ANDL  AX, R12
	POPCNTL R12, R12          // R12 = digits of the value
	JEQ   done
	CMPL  R12, $16
	JHI   done

	// dp, the '.' (ds-1 when there is none, which keeps every position
	// from ds on), and frac, the digits after it
	LEAL  -1(R10), AX
	TZCNTL R13, R8
	CMOVLCC R8, AX            // AX = dp (TZCNT sets CF when R13 is 0)
	MOVL  BX, R12
	SUBL  AX, R12
	DECL  R12                 // R12 = e-1-dp
	XORL  R8, R8
	TESTL R13, R13
	CMOVLEQ R8, R12           // R12 = frac

	// VPERMB indices: low lane o-16+k (the index right-aligned), high lane
	// t = o-16+e, less one where t <= dp (skipping the '.'); positions
	// below 0 (low lane) or ds (high lane) are zeroed.
	LEAL  -16(CX), R8
	VPBROADCASTB R8, Y3
	LEAL  -16(BX), R8
	VPBROADCASTB R8, K7, Y3
	VPADDB Y23, Y3, Y4
	VPBROADCASTB AX, Y5
	VPCMPB $2, Y5, Y4, K7, K5 // high lane, t <= dp
	VPSUBB Y27, Y4, K5, Y4
	VPBROADCASTB.Z R10, K7, Y6
	VPCMPB $5, Y6, Y4, K5     // t >= start (signed)
	VPERMB.Z Y1, Y4, K5, Y2
	VPMADDUBSW Y24, Y2, Y2
	VPMADDWD Y25, Y2, Y2
	VPACKUSDW Y2, Y2, Y2
	VPMADDWD Y26, Y2, Y2
	VPEXTRD $1, X2, R13       // R13 = index
	VEXTRACTI128 $1, Y2, X3
	VMOVQ X3, AX
	MOVL  AX, R8
	SHRQ  $32, AX
	IMULQ $100000000, R8
	ADDQ  R8, AX              // AX = m

	CMPQ  R13, R9
	JLE   done                // not above prev
	CMPQ  R13, limit+32(FP)
	JGT   done
	MOVQ  AX, R8
	SHRQ  $53, R8
	JNE   done                // m >= 2^53

	VCVTSI2SDQ AX, X4, X4
	TESTL R12, R12
	JEQ   signed
	TESTQ AX, AX
	JEQ   signed
	MOVQ  pow+72(FP), R8
	VMULSD (R8)(R12*8), X4, X4
	VMOVQ X4, R8
	ANDQ  $0x1fffffff, R8
	SUBQ  $0x10000000-8, R8
	CMPQ  R8, $16
	JLS   done                // within 8 ulps of a float32 midpoint

signed:
	VMOVQ X4, R8
	SHLQ  $63, R11
	XORQ  R11, R8
	VMOVQ R8, X4
	VCVTSD2SS X4, X4, X4

	MOVQ  row+40(FP), R8
	TESTQ R8, R8
	JEQ   appendix
	VMOVSS X4, -4(R8)(R13*4)
	JMP   next

appendix:
	CMPQ  DI, outCap+64(FP)
	JGE   done
	MOVQ  index+48(FP), R8
	LEAL  -1(R13), R10
	MOVL  R10, (R8)(DI*4)
	MOVQ  value+56(FP), R8
	VMOVSS X4, (R8)(DI*4)

next:
	MOVQ  R13, R9
	INCQ  DI
	LEAQ  1(SI)(BX*1), SI
	JMP   loop

done:
	VZEROUPPER
	SUBQ  line+0(FP), SI
	MOVQ  SI, next+80(FP)
	MOVQ  R9, last+88(FP)
	MOVQ  DI, count+96(FP)
	RET
