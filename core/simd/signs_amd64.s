#include "textflag.h"

// func flipSigns32AVX2(v *float32, y *int8, n int, yi int32)
// Eight values a step XOR a sign mask: bit 31 alone without y, else the
// labels sign-extended XOR yi (0 or −2, bit 31 the flip) AND bit 31.
// n is a positive multiple of 8.
TEXT ·flipSigns32AVX2(SB), NOSPLIT, $0-28
	MOVQ v+0(FP), DI
	MOVQ y+8(FP), BX
	MOVQ n+16(FP), CX
	MOVL yi+24(FP), AX
	MOVQ AX, X5
	VPBROADCASTD X5, Y5
	MOVL $0x80000000, AX
	MOVQ AX, X6
	VPBROADCASTD X6, Y6
	TESTQ BX, BX
	JNZ   labels

all:
	VPXOR   (DI), Y6, Y1
	VMOVDQU Y1, (DI)
	ADDQ    $32, DI
	SUBQ    $8, CX
	JNZ     all
	VZEROUPPER
	RET

labels:
	VPMOVSXBD (BX), Y0
	VPXOR     Y5, Y0, Y0
	VPAND     Y6, Y0, Y0
	VPXOR     (DI), Y0, Y1
	VMOVDQU   Y1, (DI)
	ADDQ      $32, DI
	ADDQ      $8, BX
	SUBQ      $8, CX
	JNZ       labels
	VZEROUPPER
	RET
