package quantize

import (
	"math"
	"testing"
)

func TestCheckBits(t *testing.T) {
	for _, bits := range []int{0, 1, 4, 7, 9, 12, 15, 17, 32, -8} {
		if checkBits(bits) == nil {
			t.Errorf("checkBits(%d) accepted", bits)
		}
	}
	for _, bits := range []int{8, 16} {
		if err := checkBits(bits); err != nil {
			t.Errorf("checkBits(%d): %v", bits, err)
		}
	}
}

func TestSymmetricHand(t *testing.T) {
	// max |w| = 127/128: s = 1/128 exactly, and w = k/128 has code k.
	s := symmetricScale(127.0/128, 127)
	if s != 1.0/128 {
		t.Fatalf("scale %v, want 1/128", s)
	}
	for _, c := range []struct {
		v    float64
		want int32
	}{
		{127.0 / 128, 127}, {-127.0 / 128, -127}, {0, 0},
		{-0.5, -64}, {0.25 + 1.0/512, 32}, // 32.25 steps → 32
		{3.5 / 128, 4}, {-3.5 / 128, -4}, // ties round away from zero
		{2.49 / 128, 2}, {-2.51 / 128, -3},
	} {
		if got := symmetricCode(c.v, s, 127); got != c.want {
			t.Errorf("code of %v = %d, want %d", c.v, got, c.want)
		}
	}
	// 1/127 is not a float32: the scale is the next float32 up, so that
	// 127·s ≥ 1, and 1 has code 127 within s/2.
	s = symmetricScale(1, 127)
	if float64(s)*127 < 1 || float64(math.Nextafter32(s, 0))*127 >= 1 {
		t.Errorf("scale %v is not the least float32 with 127·s >= 1", s)
	}
	if q := symmetricCode(1, s, 127); q != 127 || math.Abs(1-float64(s)*127) > float64(s)/2 {
		t.Errorf("code of 1 = %d", q)
	}
	if s := symmetricScale(0, 127); s != 0 || symmetricCode(0, 0, 127) != 0 {
		t.Errorf("all-zero group: scale %v", s)
	}
	// A magnitude so small that maxAbs/qmax underflows float32 still gets
	// a positive scale that covers it.
	tiny := float64(math.SmallestNonzeroFloat32) * 3
	if s := symmetricScale(tiny, 127); !(s > 0) || float64(s)*127 < tiny {
		t.Errorf("tiny group: scale %v", s)
	}
}

// TestSymmetricErrorBound checks |v − s·q| ≤ s/2 over many values, for
// both widths, with ties and values at the range's ends.
func TestSymmetricErrorBound(t *testing.T) {
	for _, qmax := range []int32{127, 32767} {
		for _, maxAbs := range []float64{1, 0.1, 3.7e-5, 1234.5678, float64(float32(0.3))} {
			s := symmetricScale(maxAbs, qmax)
			sf := float64(s)
			for k := -1000; k <= 1000; k++ {
				v := float64(float32(maxAbs * float64(k) / 1000))
				q := symmetricCode(v, s, qmax)
				if q < -qmax || q > qmax || math.Abs(v-sf*float64(q)) > sf/2 {
					t.Fatalf("qmax %d, max %v: v = %v has code %d, error %g > s/2 = %g",
						qmax, maxAbs, v, q, math.Abs(v-sf*float64(q)), sf/2)
				}
			}
		}
	}
}

func TestAffineHand(t *testing.T) {
	// [0, 1] with zeros, 8 bits: a = 1/255 (raised to a float32 that
	// covers the range), zero point −128, so 0 ↔ −128 exactly and 1 ↔ 127.
	a, o := affineFeature(0.25, 1, true, 8)
	if float64(a)*255 < 1 || float64(math.Nextafter32(a, 0))*255 >= 1 {
		t.Errorf("scale %v is not the least float32 with 255·a >= 1", a)
	}
	if o != 128*float64(a) {
		t.Errorf("offset %v, want 128·a = %v", o, 128*float64(a))
	}
	if z, ok := zeroPoint(a, o, 8); !ok || z != -128 {
		t.Errorf("zero point %d, %v; want -128", z, ok)
	}
	for _, c := range []struct {
		v    float64
		want int32
	}{{0, -128}, {1, 127}, {0.25, -64}} { // 0.25·255 = 63.75 steps above −128
		q, ok := affineCode(c.v, a, o, 8)
		if !ok || q != c.want {
			t.Errorf("code of %v = %d, %v; want %d", c.v, q, ok, c.want)
		}
	}
	if q, _ := affineCode(0, a, o, 8); o+float64(a)*float64(q) != 0 {
		t.Errorf("0 decodes to %v", o+float64(a)*float64(q))
	}

	// [2, 4] without zeros: a = 2/255, o = 2 + 128a, so 2 ↔ −128, 4 ↔ 127,
	// 2.5 ↔ −64 (63.75 steps).
	a, o = affineFeature(2, 4, false, 8)
	if float64(a)*255 < 2 || float64(math.Nextafter32(a, 0))*255 >= 2 {
		t.Errorf("scale %v is not the least float32 with 255·a >= 2", a)
	}
	if o != 2+128*float64(a) {
		t.Errorf("offset %v, want 2 + 128·a", o)
	}
	for _, c := range []struct {
		v    float64
		want int32
	}{{2, -128}, {4, 127}, {2.5, -64}} {
		q, ok := affineCode(c.v, a, o, 8)
		if !ok || q != c.want {
			t.Errorf("code of %v = %d, %v; want %d", c.v, q, ok, c.want)
		}
	}

	// [−3, 1] with zeros, 16 bits: a = 4/65535, zero point
	// round(−32768 + 3/a) = 16384 (49151.25 steps from −32768 to 0 → 16383.25).
	a, o = affineFeature(-3, 1, true, 16)
	z, ok := zeroPoint(a, o, 16)
	if want := int32(math.Round(-32768 + 3/float64(a))); !ok || z != want || want != 16383 {
		t.Errorf("zero point %d, %v; want %d = 16383", z, ok, want)
	}
	// Constant features.
	if a, o := affineFeature(0, 0, true, 8); a != 0 || o != 0 {
		t.Errorf("all-zero feature: %v, %v", a, o)
	}
	if a, o := affineFeature(2.5, 2.5, false, 8); a != 0 || o != 2.5 {
		t.Errorf("constant feature: %v, %v", a, o)
	}
	if a, _ := affineFeature(2.5, 2.5, true, 8); a == 0 {
		t.Error("constant feature with zeros has no scale")
	}
}

// TestAffineErrorBound checks |v − (o + a·q)| ≤ a/2 (up to tol) and exact
// zeros over many ranges and values.
func TestAffineErrorBound(t *testing.T) {
	ranges := [][2]float64{{0, 1}, {-1, 1}, {0, 255}, {-0.7, 0.001}, {1990, 2020}, {-1e-3, -1e-4}, {3, 3.0000005}}
	for _, bits := range []int{8, 16} {
		for _, r := range ranges {
			for _, hasZero := range []bool{false, true} {
				a, o := affineFeature(r[0], r[1], hasZero, bits)
				if hasZero {
					if _, ok := zeroPoint(a, o, bits); !ok {
						t.Fatalf("%d bits %v: no zero point", bits, r)
					}
					if q, ok := affineCode(0, a, o, bits); !ok || o+float64(a)*float64(q) != 0 {
						t.Fatalf("%d bits %v: 0 is not exact", bits, r)
					}
				}
				for k := 0; k <= 1000; k++ {
					v := float64(float32(r[0] + (r[1]-r[0])*float64(k)/1000))
					q, ok := affineCode(v, a, o, bits)
					d := math.Abs(v - (o + float64(a)*float64(q)))
					if !ok || d > float64(a)/2*(1+tol) {
						t.Fatalf("%d bits %v zero %v: %v → %d, error %g > a/2 = %g", bits, r, hasZero, v, q, d, float64(a)/2)
					}
				}
			}
		}
	}
}

func TestZeroPoint(t *testing.T) {
	a := float32(0.01)
	for _, c := range []struct {
		o    float64
		z    int32
		ok   bool
		bits int
	}{
		{-float64(a) * 5, 5, true, 8},
		{float64(a) * 128, -128, true, 8},
		{float64(a) * 129, 0, false, 8}, // past the 8-bit range
		{float64(a) * 129, -129, true, 16},
		{float64(a) * 2.5, 0, false, 8}, // not an integer
		{0.0123, 0, false, 8},
	} {
		z, ok := zeroPoint(a, c.o, c.bits)
		if ok != c.ok || (ok && z != c.z) {
			t.Errorf("zeroPoint(%v, %v, %d) = %d, %v; want %d, %v", a, c.o, c.bits, z, ok, c.z, c.ok)
		}
	}
	if _, ok := zeroPoint(0, 1, 8); ok {
		t.Error("zero scale with a nonzero offset has a zero point")
	}
}

func TestGamma(t *testing.T) {
	if g := gamma(10); g < 10*u || g > 10*u*1.0001 {
		t.Errorf("gamma(10) = %g", g)
	}
}
