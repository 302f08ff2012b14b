package quantize

import (
	"fmt"
	"math"
)

// The two quantization schemes (see the package documentation for the
// maths and the choices):
//
//   - symmetric: v ≈ s·q with one scale s > 0 per group (a decision
//     function's weights, a row of sv_coef) and codes q in [−qmax, qmax],
//     qmax = 2^(b−1) − 1, so that 0 is exact and the range is symmetric;
//   - affine: v ≈ o + a·q with a scale a ≥ 0 and an offset o per feature
//     (support vectors), codes in [qmin, qmax] = [−2^(b−1), 2^(b−1) − 1],
//     and, when the feature has zeros, o = −a·z for an integer zero point z
//     (TFLite's nudging), so that q = z decodes to exactly 0.
//
// Scales are float32, so that s·q and a·q (24 + 16 significant bits) are
// exact in float64; offsets are float64, so that −a·z is exact too. Every
// code is checked when it is made: |v − s·q| ≤ s/2 (exactly: the products
// are exact and Sterbenz's lemma makes the difference exact), and
// |v − (o + a·q)| ≤ a/2 up to one float64 rounding of o + a·q. The error
// bounds rest on these checks, not on the rounding arithmetic.

// codeRange returns the smallest and largest code of bits-bit codes.
func codeRange(bits int) (qmin, qmax int32) {
	return -1 << (bits - 1), 1<<(bits-1) - 1
}

// checkBits reports bits other than 8 and 16, which arrive from command
// lines and files.
func checkBits(bits int) error {
	if bits != 8 && bits != 16 {
		return fmt.Errorf("quantize: %d bits, want 8 or 16", bits)
	}
	return nil
}

// symmetricScale returns the scale of a group whose largest magnitude is
// maxAbs: the float32 nearest maxAbs/qmax, raised to the next float32 when
// it falls short, so that every |v| ≤ maxAbs has |v|/s ≤ qmax. It returns
// 0 for maxAbs = 0 (an all-zero group, whose codes are all 0).
func symmetricScale(maxAbs float64, qmax int32) float32 {
	if maxAbs == 0 {
		return 0
	}
	s := float32(maxAbs / float64(qmax))
	for s == 0 || float64(s)*float64(qmax) < maxAbs {
		s = math.Nextafter32(s, float32(math.Inf(1)))
	}
	return s
}

// symmetricCode returns the code q of v under scale s (|v| ≤ qmax·s, or
// s = 0 and v = 0): the nearest integer to v/s, checked so that
// |v − s·q| ≤ s/2 holds exactly.
func symmetricCode(v float64, s float32, qmax int32) int32 {
	if s == 0 {
		return 0
	}
	sf := float64(s)
	q := int32(max(-float64(qmax), min(float64(qmax), math.Round(v/sf))))
	// v/s is rounded before math.Round sees it; a tie or a last-bit error
	// can land one code off. The products and differences below are exact.
	for range 2 {
		d := v - sf*float64(q)
		switch {
		case 2*d > sf && q < qmax:
			q++
		case 2*d < -sf && q > -qmax:
			q--
		default:
			return q
		}
	}
	return q
}

// affineFeature returns the scale a and offset o of a feature whose values
// span [lo, hi]; hasZero says whether 0 is among them (or must be
// representable, as in the sparse layout), which puts 0 in the range and
// makes o = −a·z for an integer zero point z in [qmin, qmax]. A constant
// feature gets a = 0 and o = its value (0 when hasZero).
func affineFeature(lo, hi float64, hasZero bool, bits int) (a float32, o float64) {
	if hasZero {
		lo, hi = min(lo, 0), max(hi, 0)
	}
	if lo == hi {
		return 0, lo
	}
	qmin, qmax := codeRange(bits)
	steps := float64(qmax) - float64(qmin)
	a = symmetricScale(hi-lo, int32(steps))
	if hasZero {
		z := math.Round(float64(qmin) - lo/float64(a))
		z = max(float64(qmin), min(float64(qmax), z))
		return a, -float64(a) * z
	}
	return a, lo - float64(a)*float64(qmin)
}

// zeroPoint returns the integer z with o = −a·z exactly, and whether there
// is one in [qmin, qmax] (a = 0 counts when o = 0, with z = 0).
func zeroPoint(a float32, o float64, bits int) (int32, bool) {
	if a == 0 {
		return 0, o == 0
	}
	qmin, qmax := codeRange(bits)
	z := -o / float64(a)
	if z != math.Trunc(z) || z < float64(qmin) || z > float64(qmax) || -float64(a)*z != o {
		return 0, false
	}
	return int32(z), true
}

// affineCode returns the code q of v under (a, o): the nearest code to
// (v − o)/a in [qmin, qmax], checked so that v is within a/2 of o + a·q
// (up to the rounding of that sum), and whether the check held. It fails
// only if v lies outside the range affineFeature was given.
func affineCode(v float64, a float32, o float64, bits int) (int32, bool) {
	if a == 0 {
		return 0, v == o
	}
	qmin, qmax := codeRange(bits)
	af := float64(a)
	q := int32(max(float64(qmin), min(float64(qmax), math.Round((v-o)/af))))
	for range 2 {
		d := v - (o + af*float64(q))
		switch {
		case 2*d > af*(1+tol) && q < qmax:
			q++
		case 2*d < -af*(1+tol) && q > qmin:
			q--
		default:
			return q, 2*math.Abs(v-(o+af*float64(q))) <= af*(1+tol)
		}
	}
	return q, 2*math.Abs(v-(o+af*float64(q))) <= af*(1+tol)
}

// tol is the relative slack of affineCode's check: the decoded value
// o + a·q is rounded once in float64, and v − (o + a·q) once more, which
// can add a few units in the last place of |v| + |o| to the a/2 of the
// scheme. The error bounds carry the same slack (see boundSlack).
const tol = 1.0 / (1 << 30)

// u is the unit roundoff of float64.
const u = 1.0 / (1 << 53)

// gamma returns γ_n = n·u/(1 − n·u), the bound of Higham's Lemma 3.1 on
// the relative error of n successive float64 roundings (a sum of n terms
// accumulated in any order is within γ_{n−1}·Σ|terms| of the exact sum).
func gamma(n int) float64 {
	nu := float64(n) * u
	return nu / (1 - nu)
}

// boundSlack is the relative margin the error bounds add to every
// quantization term: tol for the decoded values' roundings, and room for
// the rounding of the bound's own arithmetic.
const boundSlack = 1 + 4*tol
