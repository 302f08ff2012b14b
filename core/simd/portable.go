package simd

import "math"

// The portable reference of every function: plain Go, the path of every
// architecture but amd64, and what the tests hold the assembly paths to.

func dotPortable(x, y []float32) float32 {
	y = y[:len(x)] // equal lengths: no bounds checks below
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// gemmPortable computes rows [0, m) of C against panels [0, panels) of bp.
func gemmPortable(c []float32, ldc int, a []float32, lda, m int, bp []float32, panels, k int) {
	var acc [PanelWidth]float32
	for i := range m {
		ai := a[i*lda:][:k]
		for p := range panels {
			panel := bp[p*k*PanelWidth:][:k*PanelWidth]
			acc = [PanelWidth]float32{}
			for q, v := range ai {
				b := panel[q*PanelWidth:][:PanelWidth]
				for j := range acc {
					acc[j] += v * b[j]
				}
			}
			copy(c[i*ldc+p*PanelWidth:][:PanelWidth], acc[:])
		}
	}
}

// The exp kernel: n = round(x·log₂e), r = x − n·ln 2 (in two parts, so r
// is exact to float32 rounding), e^r by Cephes' degree-7 minimax
// polynomial (1 + r + r²·p(r)) on |r| ≤ ln2/2, scaled by 2^n in two
// halves so that 2^n's factors stay normal (results overflow to +Inf and
// underflow gradually to subnormals and 0).
const (
	expHi   = 89.0   // e^89 overflows float32
	expLo   = -104.0 // e^-104 rounds to 0
	log2e   = 1.44269504088896341
	ln2Hi   = 0.693359375
	ln2Lo   = -2.12194440e-4
	expP0   = 1.9875691500e-4
	expP1   = 1.3981999507e-3
	expP2   = 8.3334519073e-3
	expP3   = 4.1665795894e-2
	expP4   = 1.6666665459e-1
	expP5   = 5.0000001201e-1
	expBias = 127
	tanhCut = 0.3 // below it tanh is its odd Taylor polynomial
)

func expOne(x float32) float32 {
	if x != x { // NaN
		return x
	}
	x = min(max(x, expLo), expHi)
	n := float32(math.RoundToEven(float64(x * log2e)))
	r := x - n*ln2Hi
	r -= n * ln2Lo
	p := float32(expP0)
	p = p*r + expP1
	p = p*r + expP2
	p = p*r + expP3
	p = p*r + expP4
	p = p*r + expP5
	y := p*(r*r) + r + 1
	ni := int32(n)
	e1 := ni >> 1
	e2 := ni - e1
	y *= math.Float32frombits(uint32(e1+expBias) << 23)
	return y * math.Float32frombits(uint32(e2+expBias)<<23)
}

func expPortable(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = expOne(v)
	}
}

func expRBFPortable(dst, dot, base []float32, scale, offset float32) {
	dst = dst[:len(dot)]
	base = base[:len(dot)]
	for i, v := range dot {
		dst[i] = expOne(rbfArg(v, base[i], scale, offset))
	}
}

// rbfArg returns min(0, scale·dot + base + offset), keeping a NaN.
func rbfArg(dot, base, scale, offset float32) float32 {
	a := scale*dot + base + offset
	if a > 0 {
		return 0
	}
	return a
}

// tanhFinish sets dst[i] = tanh x[i] from e[i] = e^(−2|x[i]|); dst may
// be x (each x[i] is read before dst[i] is written).
func tanhFinish(dst, x, e []float32) {
	dst = dst[:len(x)]
	e = e[:len(x)]
	for i, v := range x {
		a := v
		if a < 0 {
			a = -a
		}
		var t float32
		if a < tanhCut {
			// tanh a = a − a³/3 + 2a⁵/15 − 17a⁷/315 + 62a⁹/2835 − 1382a¹¹/155925;
			// the next term is below 6e-10·a at a = 0.3.
			a2 := a * a
			p := float32(-1382.0 / 155925)
			p = p*a2 + 62.0/2835
			p = p*a2 - 17.0/315
			p = p*a2 + 2.0/15
			p = p*a2 - 1.0/3
			t = a + a*a2*p
		} else {
			t = (1 - e[i]) / (1 + e[i])
		}
		if v < 0 || (v == 0 && math.Signbit(float64(v))) {
			t = -t
		}
		if v != v {
			t = v
		}
		dst[i] = t
	}
}

// tanhArg writes −2|x|, the argument of Tanh's exp.
func tanhArg(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		if v < 0 {
			v = -v
		}
		dst[i] = -2 * v
	}
}
