package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// scalarDotWiden is DotWiden's contract written out independently: term i
// in lane i mod 32, product rounded then added, lanes summed in the stated
// tree. Every level is held to it bit for bit.
func scalarDotWiden(x []float32, w []float64) float64 {
	var s [32]float64
	for i := range x {
		p := float64(float64(x[i]) * w[i])
		s[i%32] = s[i%32] + p
	}
	var v [8]float64
	for j := range 8 {
		v[j] = (s[j] + s[j+8]) + (s[j+16] + s[j+24])
	}
	return ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]))
}

// TestDotWiden checks every level against the scalar contract on every
// length up to 100 and on a Fashion-MNIST row's 785, bit for bit, and
// against an exact-enough sum (float64 terms, compensated) to 1e-13 of
// Σ|terms|.
func TestDotWiden(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(14, 2))
		for _, n := range append(lengths(100), 785, 1024) {
			for trial := range 10 {
				x, w := make([]float32, n), make([]float64, n+trial%3)
				var sum, comp, abs float64
				for i := range x {
					x[i] = float32(r.NormFloat64())
					if trial%4 == 0 && i%3 == 0 {
						x[i] = 0
					}
				}
				for i := range w {
					w[i] = r.NormFloat64() * 100
				}
				for i := range x { // Kahan summation of the exact products
					p := float64(x[i]) * w[i]
					abs += math.Abs(p)
					y := p - comp
					s := sum + y
					comp = (s - sum) - y
					sum = s
				}
				got, want := DotWiden(x, w), scalarDotWiden(x, w[:n])
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("n=%d trial %d: %v, scalar contract %v", n, trial, got, want)
				}
				if math.Abs(got-sum) > 1e-13*abs+1e-300 {
					t.Fatalf("n=%d trial %d: %v, compensated sum %v", n, trial, got, sum)
				}
			}
		}
	})
}

// TestAxpyWiden: every level against dst[i] + a·x[i], bit for bit.
func TestAxpyWiden(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(14, 3))
		for _, n := range append(lengths(100), 785) {
			x, dst := make([]float32, n), make([]float64, n+1)
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			for i := range dst {
				dst[i] = r.NormFloat64()
			}
			a := r.NormFloat64()
			want := append([]float64(nil), dst...)
			for i := range x {
				p := float64(a * float64(x[i]))
				want[i] = want[i] + p
			}
			AxpyWiden(dst, a, x)
			for i := range dst {
				if math.Float64bits(dst[i]) != math.Float64bits(want[i]) {
					t.Fatalf("n=%d: dst[%d] = %v, want %v", n, i, dst[i], want[i])
				}
			}
		}
	})
}

func TestWidenPanicsAndAllocs(t *testing.T) {
	for name, f := range map[string]func(){
		"DotWiden":  func() { DotWiden(make([]float32, 3), make([]float64, 2)) },
		"AxpyWiden": func() { AxpyWiden(make([]float64, 2), 1, make([]float32, 3)) },
		"AxpySquaresWiden": func() {
			AxpySquaresWiden(make([]float64, 3), make([]float64, 2), 1, 1, make([]float32, 3))
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on short slice", name)
				}
			}()
			f()
		}()
	}
	x, w := make([]float32, 785), make([]float64, 785)
	if a := testing.AllocsPerRun(20, func() {
		DotWiden(x, w)
		AxpyWiden(w, 0.5, x)
		AxpySquaresWiden(w, w, 0.5, 0.5, x)
	}); a != 0 {
		t.Errorf("%v allocations a call, want 0", a)
	}
}

// lengths returns 0..n-1.
func lengths(n int) []int {
	l := make([]int, n)
	for i := range l {
		l[i] = i
	}
	return l
}

func BenchmarkDotWiden(b *testing.B) {
	for _, l := range available() {
		b.Run(l.String(), func(b *testing.B) {
			defer use(l)()
			x, w := make([]float32, 785), make([]float64, 785)
			b.SetBytes(785 * 12)
			for b.Loop() {
				DotWiden(x, w)
			}
		})
	}
}

// BenchmarkDotWidenBaseline is the baseline DotWiden replaced on the
// primal Newton method's dense rows: a plain four-accumulator Go loop.
func BenchmarkDotWidenBaseline(b *testing.B) {
	x, w := make([]float32, 785), make([]float64, 785)
	b.SetBytes(785 * 12)
	for b.Loop() {
		var s0, s1, s2, s3 float64
		j := 0
		for ; j+4 <= len(x); j += 4 {
			s0 += float64(x[j]) * w[j]
			s1 += float64(x[j+1]) * w[j+1]
			s2 += float64(x[j+2]) * w[j+2]
			s3 += float64(x[j+3]) * w[j+3]
		}
		for ; j < len(x); j++ {
			s0 += float64(x[j]) * w[j]
		}
		sink = (s0 + s1) + (s2 + s3)
	}
}

var sink float64

// TestAxpySquaresWiden: every level against dst[i] + a·x[i] and
// sq[i] + (b·x[i])·x[i], bit for bit, past the end untouched.
func TestAxpySquaresWiden(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(14, 4))
		for _, n := range append(lengths(100), 785) {
			x, dst, sq := make([]float32, n), make([]float64, n+1), make([]float64, n+1)
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			for i := range dst {
				dst[i], sq[i] = r.NormFloat64(), r.ExpFloat64()
			}
			a, b := r.NormFloat64(), r.ExpFloat64()
			wantD, wantS := append([]float64(nil), dst...), append([]float64(nil), sq...)
			for i := range x {
				v := float64(x[i])
				p, q := float64(a*v), float64(b*v)
				wantD[i] = wantD[i] + p
				wantS[i] = wantS[i] + float64(q*v)
			}
			AxpySquaresWiden(dst, sq, a, b, x)
			for i := range dst {
				if math.Float64bits(dst[i]) != math.Float64bits(wantD[i]) || math.Float64bits(sq[i]) != math.Float64bits(wantS[i]) {
					t.Fatalf("n=%d: [%d] = %v, %v, want %v, %v", n, i, dst[i], sq[i], wantD[i], wantS[i])
				}
			}
		}
	})
}
