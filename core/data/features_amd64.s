#include "textflag.h"

// func featuresAVX512(line *byte, n, i int, prev, limit int64, row *float32, index *int32, value *float32, outCap int, pow *float64) (next int, last int64, count int)
//
// The LIBSVM feature loop of features_amd64.go, one token an iteration.
// The 32 bytes at the token's start are classified into bit masks (digits,
// bytes up to ' ', '.'), which give and check the token's layout: index
// digits to k, ':', an optional '-', the value's digits with at most one
// '.' to e, a blank. Then the 16 bytes ending at k (the index's digits,
// right-aligned) and the 16 ending at e (the value's) are loaded as the two
// lanes of one vector, one VPSHUFB moves the value's integer digits over its
// '.' and zeroes what is not a digit, and three multiply-adds turn each
// lane into an integer. The value is then float32Prefix's: m × 10^-frac
// (pow[frac]), refused within 8 ulps of a float32 rounding midpoint; a
// negative value is converted from -m, which gives the same bits, except
// -0, which is refused.
//
// It needs AVX-512 BW and VL, BMI1, BMI2 and POPCNT, not VBMI: the windows
// are loads rather than a cross-lane VPERMB, and the checks of ':', '-' and
// the blank scalar loads rather than more mask compares (a VPERMB version
// measured no faster, 14.3 against 13.9 CPU ns a feature on Fashion-MNIST).
//
// Registers: SI the token's address, DX the last address with 32 bytes
// left (the classified window; a token and its blank take at most 24 of
// them), R9 prev, DI count; AX, BX, CX, R8, R10-R13 scratch.
// Constants: Y16 '0', Y17 10, Y18 '.', Y19 ' ', Y20 0..15 in each lane,
// Y21 ones, Y22 zero, Y24 bytes (10, 1), Y25 words (100, 1), Y26 words
// (10000, 1).
TEXT ·featuresAVX512(SB), NOSPLIT, $0-104
	MOVQ line+0(FP), SI
	MOVQ n+8(FP), DX
	LEAQ -32(SI)(DX*1), DX
	ADDQ i+16(FP), SI
	MOVQ prev+24(FP), R9
	XORL DI, DI

	MOVL $0x30, AX
	VPBROADCASTB AX, Y16
	MOVL $10, AX
	VPBROADCASTB AX, Y17
	MOVL $0x2e, AX
	VPBROADCASTB AX, Y18
	MOVL $0x20, AX
	VPBROADCASTB AX, Y19
	MOVQ $0x0706050403020100, AX
	MOVQ $0x0f0e0d0c0b0a0908, BX
	VMOVQ AX, X0
	VPINSRQ $1, BX, X0, X0
	VINSERTI128 $1, X0, Y0, Y0
	VMOVDQU64 Y0, Y20
	MOVL $1, AX
	VPBROADCASTB AX, Y21
	VPXORQ Y22, Y22, Y22
	MOVQ $0x010a010a010a010a, AX
	VPBROADCASTQ AX, Y24
	MOVQ $0x0001006400010064, AX
	VPBROADCASTQ AX, Y25
	MOVQ $0x0001271000012710, AX
	VPBROADCASTQ AX, Y26

loop:
	CMPQ SI, DX
	JHI  done
	VMOVDQU (SI), Y0
	VPSUBB  Y16, Y0, Y1
	VPCMPUB $1, Y17, Y1, K1 // digits: byte-'0' < 10
	VPCMPUB $2, Y19, Y0, K2 // bytes <= ' ': blanks and control bytes
	VPCMPEQB Y18, Y0, K3    // '.'

	// k, the index's digits, 1 to 7, then ':'
	KMOVD  K1, AX // AX = digits
	MOVL   AX, CX
	NOTL   CX
	TZCNTL CX, CX // CX = k
	LEAL   -1(CX), R8
	CMPL   R8, $6
	JHI    done
	CMPB   (SI)(CX*1), $0x3a
	JNE    done

	// e, the token's end within 24 bytes: a space or a tab
	KMOVD  K2, BX
	TZCNTL BX, BX // BX = e
	CMPL   BX, $23
	JHI    done
	MOVBLZX (SI)(BX*1), R8
	CMPL   R8, $0x20
	JEQ    blank
	CMPL   R8, $0x09
	JNE    done

blank:
	// the value, [ds, e): digits and at most one '.', 1 to 16 bytes,
	// after an optional '-' at k+1
	LEAL  1(CX), R10
	XORL  R11, R11
	CMPB  (SI)(R10*1), $0x2d
	SETEQ R11B     // R11 = neg
	ADDL  R11, R10 // R10 = ds
	MOVL  BX, R8
	SUBL  R10, R8
	DECL  R8
	CMPL  R8, $15
	JHI   done     // e-ds is not 1..16
	MOVL  $-1, R8
	BZHIL BX, R8, R12
	BZHIL R10, R8, R13
	XORL  R13, R12 // R12 = the value's bits
	MOVL  AX, R13
	NOTL  R13
	ANDL  R12, R13 // R13 = its non-digits
	KMOVD K3, R8
	NOTL  R8
	TESTL R8, R13
	JNE   done     // a non-digit that is not '.'
	BLSRL R13, R8
	JNE   done     // two '.'
	ANDL  AX, R12
	POPCNTL R12, R12 // R12 = L, the value's digits
	JEQ   done

	// frac, and A: the positions of the value's window at or before its
	// '.', whose digits move up one (none without a '.')
	TZCNTL R13, R10 // the '.', 32 if none
	MOVL  BX, R8
	SUBL  R10, R8
	DECL  R8        // R8 = e-1-'.' = frac if there is a '.'
	MOVL  $16, R13
	SUBL  R8, R13
	MOVL  $-1, AX
	BZHIL R13, AX, AX
	XORL  R13, R13
	CMPL  R10, $32
	CMOVLEQ R13, AX
	CMOVLEQ R13, R8 // R8 = frac
	SHLL  $16, AX
	KMOVD AX, K4

	// V: the digit positions, the last k of the low lane and the last L
	// of the high lane
	MOVL  $-1, AX
	MOVL  $16, R13
	SUBL  CX, R13
	SHLXL R13, AX, R13
	ANDL  $0xffff, R13
	MOVL  $32, R10
	SUBL  R12, R10
	SHLXL R10, AX, R10
	ORL   R10, R13
	KMOVD R13, K5

	LEAQ  -16(SI)(CX*1), R10
	VMOVDQU (R10), X2
	LEAQ  -16(SI)(BX*1), R10
	VINSERTI128 $1, (R10), Y2, Y2
	VPSUBB Y16, Y2, Y2
	VMOVDQU64 Y20, Y3
	VPSUBB Y21, Y3, K4, Y3
	VPSHUFB.Z Y3, Y2, K5, Y2
	VPMADDUBSW Y24, Y2, Y2
	VPMADDWD Y25, Y2, Y2
	VPACKUSDW Y2, Y2, Y2
	VPMADDWD Y26, Y2, Y2
	VMOVQ X2, R13
	SHRQ  $32, R13 // R13 = index
	VEXTRACTI128 $1, Y2, X3
	VMOVQ X3, AX
	MOVL  AX, R10
	SHRQ  $32, AX
	IMULQ $100000000, R10
	ADDQ  R10, AX  // AX = m

	CMPQ  R13, R9
	JLE   done     // not above prev
	CMPQ  R13, limit+32(FP)
	JGT   done
	MOVQ  AX, R10
	SHRQ  $53, R10
	JNE   done     // m >= 2^53
	MOVQ  AX, R10
	NEGQ  R10
	TESTL R11, R11
	CMOVQNE R10, AX // -m for a negative value
	JEQ   positive
	TESTQ AX, AX
	JEQ   done     // -0

positive:
	VCVTSI2SDQ AX, X22, X4
	TESTL R8, R8
	JEQ   convert
	TESTQ AX, AX
	JEQ   convert
	MOVQ  pow+72(FP), R10
	VMULSD (R10)(R8*8), X4, X4
	VMOVQ X4, R10
	ANDQ  $0x1fffffff, R10
	SUBQ  $0x10000000-8, R10
	CMPQ  R10, $16
	JLS   done     // within 8 ulps of a float32 midpoint

convert:
	VCVTSD2SS X4, X4, X4
	MOVQ  row+40(FP), R10
	TESTQ R10, R10
	JEQ   pairs
	VMOVSS X4, -4(R10)(R13*4)
	JMP   next

pairs:
	CMPQ  DI, outCap+64(FP)
	JGE   done
	MOVQ  index+48(FP), R10
	LEAL  -1(R13), R8
	MOVL  R8, (R10)(DI*4)
	MOVQ  value+56(FP), R10
	VMOVSS X4, (R10)(DI*4)

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
