#include "textflag.h"

// The constants of the exp kernel (portable.go explains them), eight
// copies each so that AVX2 instructions can take them as 256-bit memory
// operands.
DATA expconst<>+0(SB)/4, $0x42b20000 // hi = 89.0
DATA expconst<>+4(SB)/4, $0x42b20000
DATA expconst<>+8(SB)/4, $0x42b20000
DATA expconst<>+12(SB)/4, $0x42b20000
DATA expconst<>+16(SB)/4, $0x42b20000
DATA expconst<>+20(SB)/4, $0x42b20000
DATA expconst<>+24(SB)/4, $0x42b20000
DATA expconst<>+28(SB)/4, $0x42b20000
DATA expconst<>+32(SB)/4, $0xc2d00000 // lo = -104.0
DATA expconst<>+36(SB)/4, $0xc2d00000
DATA expconst<>+40(SB)/4, $0xc2d00000
DATA expconst<>+44(SB)/4, $0xc2d00000
DATA expconst<>+48(SB)/4, $0xc2d00000
DATA expconst<>+52(SB)/4, $0xc2d00000
DATA expconst<>+56(SB)/4, $0xc2d00000
DATA expconst<>+60(SB)/4, $0xc2d00000
DATA expconst<>+64(SB)/4, $0x3fb8aa3b // log2e = 1.4426950408889634
DATA expconst<>+68(SB)/4, $0x3fb8aa3b
DATA expconst<>+72(SB)/4, $0x3fb8aa3b
DATA expconst<>+76(SB)/4, $0x3fb8aa3b
DATA expconst<>+80(SB)/4, $0x3fb8aa3b
DATA expconst<>+84(SB)/4, $0x3fb8aa3b
DATA expconst<>+88(SB)/4, $0x3fb8aa3b
DATA expconst<>+92(SB)/4, $0x3fb8aa3b
DATA expconst<>+96(SB)/4, $0x3f318000 // ln2hi = 0.693359375
DATA expconst<>+100(SB)/4, $0x3f318000
DATA expconst<>+104(SB)/4, $0x3f318000
DATA expconst<>+108(SB)/4, $0x3f318000
DATA expconst<>+112(SB)/4, $0x3f318000
DATA expconst<>+116(SB)/4, $0x3f318000
DATA expconst<>+120(SB)/4, $0x3f318000
DATA expconst<>+124(SB)/4, $0x3f318000
DATA expconst<>+128(SB)/4, $0xb95e8083 // ln2lo = -0.00021219444
DATA expconst<>+132(SB)/4, $0xb95e8083
DATA expconst<>+136(SB)/4, $0xb95e8083
DATA expconst<>+140(SB)/4, $0xb95e8083
DATA expconst<>+144(SB)/4, $0xb95e8083
DATA expconst<>+148(SB)/4, $0xb95e8083
DATA expconst<>+152(SB)/4, $0xb95e8083
DATA expconst<>+156(SB)/4, $0xb95e8083
DATA expconst<>+160(SB)/4, $0x39506967 // p0 = 0.000198756915
DATA expconst<>+164(SB)/4, $0x39506967
DATA expconst<>+168(SB)/4, $0x39506967
DATA expconst<>+172(SB)/4, $0x39506967
DATA expconst<>+176(SB)/4, $0x39506967
DATA expconst<>+180(SB)/4, $0x39506967
DATA expconst<>+184(SB)/4, $0x39506967
DATA expconst<>+188(SB)/4, $0x39506967
DATA expconst<>+192(SB)/4, $0x3ab743ce // p1 = 0.0013981999507
DATA expconst<>+196(SB)/4, $0x3ab743ce
DATA expconst<>+200(SB)/4, $0x3ab743ce
DATA expconst<>+204(SB)/4, $0x3ab743ce
DATA expconst<>+208(SB)/4, $0x3ab743ce
DATA expconst<>+212(SB)/4, $0x3ab743ce
DATA expconst<>+216(SB)/4, $0x3ab743ce
DATA expconst<>+220(SB)/4, $0x3ab743ce
DATA expconst<>+224(SB)/4, $0x3c088908 // p2 = 0.0083334519073
DATA expconst<>+228(SB)/4, $0x3c088908
DATA expconst<>+232(SB)/4, $0x3c088908
DATA expconst<>+236(SB)/4, $0x3c088908
DATA expconst<>+240(SB)/4, $0x3c088908
DATA expconst<>+244(SB)/4, $0x3c088908
DATA expconst<>+248(SB)/4, $0x3c088908
DATA expconst<>+252(SB)/4, $0x3c088908
DATA expconst<>+256(SB)/4, $0x3d2aa9c1 // p3 = 0.041665795894
DATA expconst<>+260(SB)/4, $0x3d2aa9c1
DATA expconst<>+264(SB)/4, $0x3d2aa9c1
DATA expconst<>+268(SB)/4, $0x3d2aa9c1
DATA expconst<>+272(SB)/4, $0x3d2aa9c1
DATA expconst<>+276(SB)/4, $0x3d2aa9c1
DATA expconst<>+280(SB)/4, $0x3d2aa9c1
DATA expconst<>+284(SB)/4, $0x3d2aa9c1
DATA expconst<>+288(SB)/4, $0x3e2aaaaa // p4 = 0.16666665459
DATA expconst<>+292(SB)/4, $0x3e2aaaaa
DATA expconst<>+296(SB)/4, $0x3e2aaaaa
DATA expconst<>+300(SB)/4, $0x3e2aaaaa
DATA expconst<>+304(SB)/4, $0x3e2aaaaa
DATA expconst<>+308(SB)/4, $0x3e2aaaaa
DATA expconst<>+312(SB)/4, $0x3e2aaaaa
DATA expconst<>+316(SB)/4, $0x3e2aaaaa
DATA expconst<>+320(SB)/4, $0x3f000000 // p5 = 0.50000001201
DATA expconst<>+324(SB)/4, $0x3f000000
DATA expconst<>+328(SB)/4, $0x3f000000
DATA expconst<>+332(SB)/4, $0x3f000000
DATA expconst<>+336(SB)/4, $0x3f000000
DATA expconst<>+340(SB)/4, $0x3f000000
DATA expconst<>+344(SB)/4, $0x3f000000
DATA expconst<>+348(SB)/4, $0x3f000000
DATA expconst<>+352(SB)/4, $0x3f800000 // one = 1.0
DATA expconst<>+356(SB)/4, $0x3f800000
DATA expconst<>+360(SB)/4, $0x3f800000
DATA expconst<>+364(SB)/4, $0x3f800000
DATA expconst<>+368(SB)/4, $0x3f800000
DATA expconst<>+372(SB)/4, $0x3f800000
DATA expconst<>+376(SB)/4, $0x3f800000
DATA expconst<>+380(SB)/4, $0x3f800000
DATA expconst<>+384(SB)/4, $127 // exponent bias
DATA expconst<>+388(SB)/4, $127
DATA expconst<>+392(SB)/4, $127
DATA expconst<>+396(SB)/4, $127
DATA expconst<>+400(SB)/4, $127
DATA expconst<>+404(SB)/4, $127
DATA expconst<>+408(SB)/4, $127
DATA expconst<>+412(SB)/4, $127
GLOBL expconst<>(SB), RODATA|NOPTR, $416

// func expAVX512(dst, x, base *float32, n int, scale, offset float32, rbf int)
//
// Sixteen lanes a step, the last step masked (masked lanes neither fault
// nor store). With rbf != 0 the argument is min(0, scale·x + base + offset)
// (the min keeps a NaN). The exponent is applied by VSCALEFPS, which
// overflows to +Inf and underflows gradually to subnormals and 0.
TEXT ·expAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ base+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ rbf+40(FP), R8
	VBROADCASTSS scale+32(FP), Z16
	VBROADCASTSS offset+36(FP), Z17
	VXORPS Z18, Z18, Z18
	VBROADCASTSS expconst<>+0(SB), Z20
	VBROADCASTSS expconst<>+32(SB), Z21
	VBROADCASTSS expconst<>+64(SB), Z22
	VBROADCASTSS expconst<>+96(SB), Z23
	VBROADCASTSS expconst<>+128(SB), Z24
	VBROADCASTSS expconst<>+160(SB), Z25
	VBROADCASTSS expconst<>+192(SB), Z26
	VBROADCASTSS expconst<>+224(SB), Z27
	VBROADCASTSS expconst<>+256(SB), Z28
	VBROADCASTSS expconst<>+288(SB), Z29
	VBROADCASTSS expconst<>+320(SB), Z30
	VBROADCASTSS expconst<>+352(SB), Z31

loop:
	TESTQ CX, CX
	JLE   done
	MOVL  $0xffff, AX
	CMPQ  CX, $16
	JGE   full
	MOVL  $1, AX
	SHLL  CX, AX
	DECL  AX

full:
	KMOVW AX, K1
	VMOVUPS.Z (SI), K1, Z0
	TESTQ R8, R8
	JZ    body
	VMOVUPS.Z (DX), K1, Z1
	VFMADD213PS Z1, Z16, Z0
	VADDPS Z17, Z0, Z0
	VMINPS Z0, Z18, Z0
	ADDQ $64, DX

body:
	VMINPS Z0, Z20, Z0
	VMAXPS Z0, Z21, Z0
	VMULPS Z22, Z0, Z1
	VRNDSCALEPS $0, Z1, Z1
	VFNMADD231PS Z23, Z1, Z0
	VFNMADD231PS Z24, Z1, Z0
	VMOVAPS Z25, Z2
	VFMADD213PS Z26, Z0, Z2
	VFMADD213PS Z27, Z0, Z2
	VFMADD213PS Z28, Z0, Z2
	VFMADD213PS Z29, Z0, Z2
	VFMADD213PS Z30, Z0, Z2
	VMULPS Z0, Z0, Z3
	VFMADD213PS Z0, Z3, Z2
	VADDPS Z31, Z2, Z2
	VSCALEFPS Z1, Z2, Z2
	VMOVUPS Z2, K1, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP  loop

done:
	VZEROUPPER
	RET

// func expAVX2(dst, x, base *float32, n int, scale, offset float32, rbf int)
//
// Eight lanes a step, n a multiple of 8. 2ⁿ is applied as 2^(n>>1) times
// 2^(n−n>>1), two normal factors, so the result overflows and underflows
// as VSCALEFPS would.
TEXT ·expAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ base+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ rbf+40(FP), R8
	VBROADCASTSS scale+32(FP), Y14
	VBROADCASTSS offset+36(FP), Y15
	VXORPS Y13, Y13, Y13

loop:
	TESTQ CX, CX
	JLE   done
	VMOVUPS (SI), Y0
	TESTQ R8, R8
	JZ    body
	VMOVUPS (DX), Y1
	VFMADD213PS Y1, Y14, Y0
	VADDPS Y15, Y0, Y0
	VMINPS Y0, Y13, Y0
	ADDQ $32, DX

body:
	VMOVUPS expconst<>+0(SB), Y1
	VMINPS Y0, Y1, Y0
	VMOVUPS expconst<>+32(SB), Y1
	VMAXPS Y0, Y1, Y0
	VMULPS expconst<>+64(SB), Y0, Y1
	VROUNDPS $0, Y1, Y1
	VFNMADD231PS expconst<>+96(SB), Y1, Y0
	VFNMADD231PS expconst<>+128(SB), Y1, Y0
	VMOVUPS expconst<>+160(SB), Y2
	VFMADD213PS expconst<>+192(SB), Y0, Y2
	VFMADD213PS expconst<>+224(SB), Y0, Y2
	VFMADD213PS expconst<>+256(SB), Y0, Y2
	VFMADD213PS expconst<>+288(SB), Y0, Y2
	VFMADD213PS expconst<>+320(SB), Y0, Y2
	VMULPS Y0, Y0, Y3
	VFMADD213PS Y0, Y3, Y2
	VADDPS expconst<>+352(SB), Y2, Y2
	VCVTPS2DQ Y1, Y4
	VPSRAD $1, Y4, Y5
	VPSUBD Y5, Y4, Y4
	VPADDD expconst<>+384(SB), Y5, Y5
	VPSLLD $23, Y5, Y5
	VPADDD expconst<>+384(SB), Y4, Y4
	VPSLLD $23, Y4, Y4
	VMULPS Y5, Y2, Y2
	VMULPS Y4, Y2, Y2
	VMOVUPS Y2, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  loop

done:
	VZEROUPPER
	RET
