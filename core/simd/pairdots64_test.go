package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// pairDotsReference is PairDots64's contract written out for one value;
// the conversions keep each operation rounded on its own.
func pairDotsReference(x []float32, nf int, w []float32, nw, k int) float64 {
	s := 0.0
	j := 0
	for ; j+1 < nf; j += 2 {
		p0 := float64(float64(x[j]) * float64(w[j*nw+k]))
		p1 := float64(float64(x[j+1]) * float64(w[(j+1)*nw+k]))
		pair := p0 + p1
		s += pair
	}
	if j < nf {
		p := float64(float64(x[j]) * float64(w[j*nw+k]))
		s += p
	}
	return s
}

// TestPairDots64 holds every path to the contract's order bit for bit, on
// every shape up to a few steps of each loop (rows past a multiple of four,
// odd features, columns past a multiple of eight), and checks that a row
// gives the same values alone and in a batch.
func TestPairDots64(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 7))
		for _, rows := range []int{1, 3, 4, 5, 9} {
			for _, nf := range []int{0, 1, 2, 7, 64, 785} {
				for _, nw := range []int{1, 2, 7, 8, 10, 16, 17, 33} {
					x := randFloats(r, rows*nf, 0)
					w := randFloats(r, nf*nw, 0)
					dst := make([]float64, rows*nw+1)
					dst[rows*nw] = 42 // a guard past the end
					PairDots64(dst, x, rows, nf, w, nw)
					if dst[rows*nw] != 42 {
						t.Fatalf("rows %d nf %d nw %d: wrote past rows·nw", rows, nf, nw)
					}
					one := make([]float64, nw)
					for i := range rows {
						PairDots64(one, x[i*nf:], 1, nf, w, nw)
						for k := range nw {
							want := pairDotsReference(x[i*nf:], nf, w, nw, k)
							got := dst[i*nw+k]
							if math.Float64bits(got) != math.Float64bits(want) || math.Float64bits(one[k]) != math.Float64bits(want) {
								t.Fatalf("rows %d nf %d nw %d: row %d column %d: batch %v, alone %v, want %v", rows, nf, nw, i, k, got, one[k], want)
							}
						}
					}
				}
			}
		}
	})
}

func TestPairDots64Panics(t *testing.T) {
	for name, f := range map[string]func(){
		"dst": func() { PairDots64(make([]float64, 3), make([]float32, 4), 2, 2, make([]float32, 4), 2) },
		"x":   func() { PairDots64(make([]float64, 4), make([]float32, 3), 2, 2, make([]float32, 4), 2) },
		"w":   func() { PairDots64(make([]float64, 4), make([]float32, 4), 2, 2, make([]float32, 3), 2) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s too short: no panic", name)
				}
			}()
			f()
		}()
	}
}
