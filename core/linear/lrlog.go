//go:build amd64 && !amd64.v3

package linear

import "math"

// The logarithms of -s 7's Newton steps (dcd_lr.go's log(z/(C − z))) are
// math.Log's, bit for bit, computed here in Go instead of through
// math.Log.
//
// On amd64 math.Log is an assembly function (log_amd64.s) behind an ABI
// wrapper: a call that spills the caller's registers, on the critical path
// of -s 7's Newton steps, where the logarithm was a third of the time. The
// function below is the same algorithm (FreeBSD's e_log.c, as Go's log.go
// and log_amd64.s: x = 2^k·(1 + f), s = f/(2 + f), a degree-14 polynomial
// in s) with the same operations in the same order, so with no fused
// multiply-add (GOAMD64 below v3, where the compiler fuses none; elsewhere
// lrlog_other.go uses math.Log) it rounds as log_amd64.s does: a test
// checks it bit for bit. Zero, negative, subnormal, infinite and NaN
// arguments go to math.Log itself (log_amd64.s reads a subnormal's
// exponent as it is, which this port does not copy).
//
// The benefit: about 20% less time per call in a dependent chain, 7% of
// shuttle -s 7 (CPU 320 -> 298 ms, alternating runs); in -s 6's line
// search, whose logarithms are independent, none could be measured.

const (
	logLn2Hi = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
	logLn2Lo = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
	logL1    = 6.666666666666735130e-01   // 0x3FE5555555555593
	logL2    = 3.999999999940941908e-01   // 0x3FD999999997FA04
	logL3    = 2.857142874366239149e-01   // 0x3FD2492494229359
	logL4    = 2.222219843214978396e-01   // 0x3FCC71C51D8E78AF
	logL5    = 1.818357216161805012e-01   // 0x3FC7466496CB03DE
	logL6    = 1.531383769920937332e-01   // 0x3FC39A09D078C69F
	logL7    = 1.479819860511658591e-01   // 0x3FC2F112DF3E5244
)

// lrLog returns math.Log(x), bit for bit.
func lrLog(x float64) float64 {
	bits := math.Float64bits(x)
	e := int(bits>>52) & 0x7ff
	if e == 0 || e == 0x7ff || bits>>63 != 0 {
		return math.Log(x)
	}
	// x = 2^k·f1 with f1 in [½, 1), then f1 in (√2/2, √2]; log_amd64.s
	// doubles f1 = √2/2 too (log.go would not).
	f1 := math.Float64frombits(bits&(1<<52-1) | 0x3fe0000000000000)
	k := float64(e - 0x3fe)
	if f1 <= math.Sqrt2/2 {
		k--
		f1 *= 2
	}
	f := f1 - 1
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := s2 * (logL1 + s4*(logL3+s4*(logL5+s4*logL7)))
	t2 := s4 * (logL2 + s4*(logL4+s4*logL6))
	R := t1 + t2
	hfsq := 0.5 * f * f
	return k*logLn2Hi - ((hfsq - (s*(hfsq+R) + k*logLn2Lo)) - f)
}
