package data

// Number parsing for the readers. A data file is mostly numbers, so the
// readers spend their time here; strconv.ParseFloat is correct but wants a
// string (a copy, or unsafe) and runs its general machinery on every call.
//
// Four paths, fastest first, each handing what it does not handle to the
// next:
//
//   - on amd64 with AVX-512 and BMI2, LIBSVM's common features (an index of
//     up to 7 digits, a value of up to 16 digits and one '.') are read by an
//     assembly loop (features_amd64.s) whose values are float32Prefix's,
//     bit for bit: byte masks find a token's parts, and its digits are
//     converted 16 at a time by vector multiply-adds.
//   - digitRun finds and converts up to 8 digits at a time inside a 64-bit
//     word (SWAR), for LIBSVM's hot loop (parseFeatures) and float32Prefix.
//     A float32 result is taken from m × RN(10^-k), a multiplication, and is
//     correct unless it lies within a few float64 ulps of a float32 rounding
//     midpoint, which is tested.
//   - scanDecimal reads any decimal with up to 19 significant digits and an
//     exponent; Clinger's exact path converts it: when m < 2^53 and |e| ≤ 22,
//     both m and 10^|e| are exact float64s, so one IEEE multiply or divide
//     gives the correctly rounded result (W. D. Clinger, "How to read
//     floating point numbers accurately", PLDI 1990).
//   - strconv.ParseFloat takes everything else — more digits, larger
//     exponents, hex floats, inf/nan words, malformed text — and is correct
//     for all inputs.
//
// Values written by %g or %.8g, as data files are, take the first path.

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"unsafe"
)

// exactPow10 holds the powers of ten that float64 represents exactly.
var exactPow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// decimal is a number read by scanDecimal: ±mant × 10^exp, exactly, unless
// slow is set.
type decimal struct {
	mant uint64
	exp  int
	neg  bool
	// slow marks a value the fast path must not convert: nonzero digits
	// past the 19th were dropped, or the exponent was too long to track.
	slow bool
}

// scanDecimal reads the longest prefix of b of the form
// [+-]digits[.digits][(e|E)[+-]digits] (either digit run may be empty, not
// both) and returns it with its length. ok is false if b does not start
// with such a number, or its exponent marker is not followed by digits;
// the caller then hands the whole token to strconv, which either accepts it
// (a hex float, an inf/nan word) or produces the error.
//
// The digit handling mirrors strconv's readFloat, so that the two agree on
// what a token means.
func scanDecimal(b []byte) (d decimal, n int, ok bool) {
	i := 0
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		d.neg = b[0] == '-'
		i = 1
	}
	var m uint64
	nd := 0 // significant digits in m (leading zeros do not count)
	dp := 0 // power of ten to apply to m
	start := i
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		if nd < 19 {
			m = m*10 + uint64(c)
			if m != 0 {
				nd++
			}
		} else {
			// 10^19 would overflow m: keep the magnitude, drop the digit
			dp++
			if c != 0 {
				d.slow = true
			}
		}
	}
	digits := i - start
	if i < len(b) && b[i] == '.' {
		i++
		fstart := i
		for ; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			if nd < 19 {
				m = m*10 + uint64(c)
				dp--
				if m != 0 {
					nd++
				}
			} else if c != 0 {
				d.slow = true
			}
		}
		digits += i - fstart
	}
	if digits == 0 {
		return d, i, false
	}
	if i < len(b) && b[i]|0x20 == 'e' {
		j := i + 1
		esign := 1
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			if b[j] == '-' {
				esign = -1
			}
			j++
		}
		if j >= len(b) || b[j]-'0' > 9 {
			return d, j, false
		}
		e := 0
		for ; j < len(b) && b[j]-'0' <= 9; j++ {
			if e < 10000 {
				e = e*10 + int(b[j]-'0')
			} else {
				// strconv caps the exponent the same way but the value is
				// then far outside the fast path anyway; let it decide.
				d.slow = true
			}
		}
		dp += esign * e
		i = j
	}
	d.mant, d.exp = m, dp
	return d, i, true
}

// toFloat64 returns d as the correctly rounded float64 when the exact fast
// path applies, and ok = false when the caller must use strconv.
func (d decimal) toFloat64() (f float64, ok bool) {
	if d.slow || d.mant>>53 != 0 {
		return 0, false
	}
	f = float64(int64(d.mant)) // exact: mant < 2^53; the signed conversion is one instruction
	if d.neg {
		f = -f // also makes "-0" negative zero, as strconv does
	}
	e := d.exp
	switch {
	case e == 0 || d.mant == 0:
	case e < 0 && e >= -22:
		f /= exactPow10[-e]
	case e > 0 && e <= 15+22:
		if e > 22 {
			// 123e30 = 123e8 × 1e22: move zeros into the mantissa while
			// it stays an exact integer (≤ 1e15 < 2^53).
			f *= exactPow10[e-22]
			if f > 1e15 || f < -1e15 {
				return 0, false
			}
			e = 22
		}
		f *= exactPow10[e]
	default:
		return 0, false
	}
	return f, true
}

// toFloat32 returns d as the correctly rounded float32 when that is certain,
// and ok = false when the caller must use strconv.
//
// Rounding the correctly rounded float64 to float32 is correct except when
// that float64 is itself a float32 rounding midpoint (then the decimal may
// have been just above or below it): every such midpoint has 25 significant
// bits, so in float64's 53-bit mantissa its low 29 bits read exactly 1<<28.
// The test is only valid where float32 has its full 24 bits, so subnormal
// and overflowing magnitudes go to strconv too (the exact path cannot reach
// them today — 1e-22 and 2^53·1e22 are well inside float32's normal range —
// but the check keeps this true if the fast path is ever widened).
func (d decimal) toFloat32() (float32, bool) {
	f, ok := d.toFloat64()
	if !ok {
		return 0, false
	}
	bits := math.Float64bits(f)
	if bits&(1<<29-1) == 1<<28 {
		return 0, false
	}
	if a := math.Abs(f); a != 0 && (a < 0x1p-126 || a > math.MaxFloat32) {
		return 0, false
	}
	return float32(f), true
}

// inversePow10[k] is 10^-k rounded to float64.
var inversePow10 = [...]float64{
	1e-0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11,
	1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22,
}

// float32Prefix parses the plain decimal at the start of b — [-]digits[.digits],
// no exponent, at most 19 digits — as a float32, and returns its length. It
// takes the values parseFeatures leaves (a line's last few) and CSV
// fields. ok = false means "not handled here" (not "invalid"): the caller
// retries the whole token with parseFloat32.
//
// For a float32 result the correctly rounded float64 is more than needed:
// RN(m) × RN(10^-k) is within 3 float64 ulps of m × 10^-k (three roundings
// of relative size 2^-53 each at most: RN(m) = m below 2^53, which the 17
// to 19 digits of %.17g or numpy's output often pass), and rounding it to
// float32 gives the correctly rounded float32 unless a float32 rounding
// midpoint lies within those 3 ulps. Midpoints have low 29 mantissa bits
// equal to 1<<28 (see toFloat32), so a result within 8 ulps of one goes to
// the exact path. This trades a
// division (about 13 cycles, on the critical path) for a multiplication.
func float32Prefix(b []byte) (f float32, n int, ok bool) {
	i := 0
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg = true
		i = 1
	}
	start := i
	m, i := digitRun(b, i, 0)
	digits := i - start
	frac := 0
	if i < len(b) && b[i] == '.' {
		i++
		fstart := i
		m, i = digitRun(b, i, m)
		frac = i - fstart
		digits += frac
	}
	// Leading zeros count as digits here, so 19 digits cannot overflow m.
	if digits == 0 || digits > 19 || m>>63 != 0 || frac > 22 || (i < len(b) && b[i]|0x20 == 'e') {
		return 0, i, false
	}
	x := float64(int64(m)) // exact when m < 2^53, else one more rounding
	if (frac > 0 || m>>53 != 0) && m != 0 {
		x *= inversePow10[frac]
		if d := int64(math.Float64bits(x)&(1<<29-1)) - 1<<28; d >= -8 && d <= 8 {
			return 0, i, false
		}
	}
	if neg {
		x = -x
	}
	return float32(x), i, true
}

// digitRun appends the digits at b[i:] to m (m = m·10^k + digits) and
// returns m and the index after them. m wraps past 19 digits; callers count
// digits and refuse such runs.
//
// Where b has 8 bytes left it takes up to 8 digits per step, found and
// converted without a branch per digit: a byte loop pays a multiply-add
// latency per digit and, worse, a mispredicted exit whenever the number of
// digits changes from one number to the next, as it does in every file.
func digitRun(b []byte, i int, m uint64) (uint64, int) {
	for i+8 <= len(b) {
		v := binary.LittleEndian.Uint64(b[i : i+8])  // b[i] in the low byte
		k := bits.TrailingZeros64(nonDigits(v)) >> 3 // digits before the first non-digit: 0..8
		if k == 0 {
			return m, i
		}
		// Keep the k digit bytes, moved to the top so that the bytes
		// below read as leading zeros. Borrows from non-digit bytes in
		// the subtraction only run upwards, into bytes shifted out.
		m = m*exactPow10Int[k] + eightDigitsValue((v-0x3030303030303030)<<(64-8*k))
		i += k
		if k < 8 {
			return m, i
		}
	}
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		m = m*10 + uint64(c)
	}
	return m, i
}

// exactPow10Int[k] is 10^k.
var exactPow10Int = [9]uint64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000}

// nonDigits returns v's bytes with the high nibble of each byte that is
// not an ASCII digit set, at least for the lowest such byte: a byte is a
// digit when its high nibble is 3 and adding 6 does not carry out of its
// low nibble. (A carry out of a byte ≥ 0xFA can spoil the test of the
// bytes above it; they come after a non-digit, so no caller looks.)
func nonDigits(v uint64) uint64 {
	const high = 0xF0F0F0F0F0F0F0F0
	return (v&high ^ 0x3030303030303030) | ((v+0x0606060606060606)&high ^ 0x3030303030303030)
}

// eightDigitsValue returns the number written by the 8 bytes of v, each
// a digit value 0..9, the first (most significant) in the low byte. It is
// the SWAR conversion of fast_float (D. Lemire, "Number parsing at a
// gigabyte per second", Software: Practice and Experience, 2021): digits
// are combined pairwise inside the word, in three multiplications.
func eightDigitsValue(v uint64) uint64 {
	v = v*10 + v>>8 // bytes 0, 2, 4, 6 now hold two-digit values
	const mask = 0x000000FF000000FF
	const mul1 = 100 + 1000000<<32
	const mul2 = 1 + 10000<<32
	return (v&mask*mul1 + v>>16&mask*mul2) >> 32
}

// bytesString views b as a string without copying. The result must not
// outlive b's contents, so it is only passed to functions that do not keep
// it (strconv copies the text into any error it returns, and callers here
// drop that error anyway).
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// parseFloat64 parses b as strconv.ParseFloat(string(b), 64) does, but
// accepts only finite results: it returns ok = false for text strconv
// rejects, for inf and nan, and for values that overflow float64.
func parseFloat64(b []byte) (float64, bool) {
	if d, n, ok := scanDecimal(b); ok && n == len(b) {
		if f, ok := d.toFloat64(); ok {
			return f, true
		}
	}
	return slowFloat(b, 64)
}

// parseFloat32 parses b as strconv.ParseFloat(string(b), 32) does, but
// accepts only finite results: it returns ok = false for text strconv
// rejects, for inf and nan, and for values that overflow float32.
func parseFloat32(b []byte) (float32, bool) {
	if d, n, ok := scanDecimal(b); ok && n == len(b) {
		if f, ok := d.toFloat32(); ok {
			return f, true
		}
	}
	f, ok := slowFloat(b, 32)
	return float32(f), ok
}

// slowFloat is the strconv fallback of parseFloat32 and parseFloat64.
func slowFloat(b []byte, bitSize int) (float64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(bytesString(b), bitSize)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// maxIndex is the largest 1-based feature index a file may hold: 0-based
// indices are int32.
const maxIndex = math.MaxInt32

// scanIndex reads the run of decimal digits at the start of b and returns
// its value, saturated at maxIndex+1 so that a run of any length cannot
// wrap around, and the run's length.
func scanIndex(b []byte) (v int64, n int) {
	m, n := digitRun(b, 0, 0)
	if n <= 18 { // m < 10^18: no wrap
		return int64(min(m, maxIndex+1)), n
	}
	for k := range n { // leading zeros can make a long run small
		v = min(v*10+int64(b[k]-'0'), maxIndex+1)
	}
	return v, n
}
