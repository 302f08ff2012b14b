package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// scalarGradStep is the solver's loop as core/smo.go wrote it before
// GradStepMaxUp, written out independently of gradStepMaxUpPortable: the
// reference both paths are held to, bit for bit.
func scalarGradStep(G []float64, qi, qj []float32, di, dj float64, ny []float64, sets []uint8, mask uint8) (float64, int) {
	m, i := math.Inf(-1), -1
	for t := range G {
		a := float64(qi[t]) * di
		b := float64(qj[t]) * dj
		G[t] = G[t] + (a + b)
		if v := ny[t] * G[t]; v >= m && sets[t]&mask != 0 {
			m, i = v, t
		}
	}
	return m, i
}

// TestGradStepMaxUp checks every level against the scalar loop on every
// length up to 70 (whole steps and tails) and on data built for ties:
// few distinct values (so the maximum repeats and the last index must
// win), signed zeros, infinities and NaN in G.
func TestGradStepMaxUp(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 2))
		pick := []float64{-2, -1, -0.5, math.Copysign(0, -1), 0, 0.5, 1, 2}
		for n := range 71 {
			for trial := range 40 {
				G := make([]float64, n)
				qi, qj := make([]float32, n), make([]float32, n)
				ny, sets := make([]float64, n), make([]uint8, n)
				for k := range n {
					G[k] = pick[r.IntN(len(pick))]
					if trial%2 == 1 { // continuous values: rounding must agree
						G[k] = r.NormFloat64()
					}
					qi[k], qj[k] = float32(r.NormFloat64()), float32(r.NormFloat64())
					if trial%4 == 0 {
						qi[k], qj[k] = 0, 0 // G unchanged: ties among the picks
					}
					ny[k] = float64(1 - 2*r.IntN(2))
					sets[k] = uint8(r.IntN(4))
					switch r.IntN(60) {
					case 0:
						G[k] = math.NaN()
					case 1:
						G[k] = math.Inf(1)
					case 2:
						G[k] = math.Inf(-1)
					}
				}
				di, dj := r.NormFloat64(), r.NormFloat64()
				wantG := append([]float64(nil), G...)
				wm, wi := scalarGradStep(wantG, qi, qj, di, dj, ny, sets, 1)
				gm, gi := GradStepMaxUp(G, qi, qj, di, dj, ny, sets, 1)
				if gi != wi || math.Float64bits(gm) != math.Float64bits(wm) {
					t.Fatalf("n=%d trial %d: (m, i) = (%v, %d), scalar (%v, %d)", n, trial, gm, gi, wm, wi)
				}
				for k := range G {
					if math.Float64bits(G[k]) != math.Float64bits(wantG[k]) && !(math.IsNaN(G[k]) && math.IsNaN(wantG[k])) {
						t.Fatalf("n=%d trial %d: G[%d] = %v, scalar %v", n, trial, k, G[k], wantG[k])
					}
				}
			}
		}
	})
}

func TestGradStepMaxUpNoAllocs(t *testing.T) {
	n := 1000
	G, qi, qj := make([]float64, n), make([]float32, n), make([]float32, n)
	ny, sets := make([]float64, n), make([]uint8, n)
	if a := testing.AllocsPerRun(20, func() { GradStepMaxUp(G, qi, qj, 0.5, -0.5, ny, sets, 1) }); a != 0 {
		t.Errorf("%v allocations a call, want 0", a)
	}
}

func BenchmarkGradStepMaxUp(b *testing.B) {
	for _, l := range available() {
		b.Run(l.String(), func(b *testing.B) {
			defer use(l)()
			n := 4096
			r := rand.New(rand.NewPCG(1, 1))
			G, qi, qj := make([]float64, n), make([]float32, n), make([]float32, n)
			ny, sets := make([]float64, n), make([]uint8, n)
			for k := range n {
				G[k], qi[k], qj[k] = r.NormFloat64(), float32(r.NormFloat64()), float32(r.NormFloat64())
				ny[k], sets[k] = float64(1-2*r.IntN(2)), uint8(r.IntN(4))
			}
			b.SetBytes(int64(n * (8 + 4 + 4 + 8 + 1 + 8)))
			b.ReportAllocs()
			for b.Loop() {
				GradStepMaxUp(G, qi, qj, 1e-9, -1e-9, ny, sets, 1)
			}
		})
	}
}

// scalarSelectJ is selectPair's j loop as core/smo.go wrote it before
// SelectJ (there yi·2 was spelled 2*yi*ny[t]*float64(Qi[t])).
func scalarSelectJ(G, ny, QD []float64, qi []float32, sets []uint8, mask uint8, m, QDi, c2, tau float64) (float64, int) {
	M, best, j := math.Inf(1), math.Inf(1), -1
	for t, g := range G {
		if sets[t]&mask == 0 {
			continue
		}
		v := ny[t] * g
		M = min(M, v)
		b := m - v
		if b <= 0 {
			continue
		}
		p := c2 * ny[t]
		p *= float64(qi[t])
		s := QDi + QD[t]
		a := s + p
		if a <= 0 {
			a = tau
		}
		bb := -b * b
		if obj := bb / a; obj <= best {
			best, j = obj, t
		}
	}
	return M, j
}

// TestSelectJ checks every level against the scalar loop on every length
// up to 70 and on data built for ties (few distinct G, QD and Q values,
// so equal objectives repeat and the last index must win), non-positive
// curvature (tau), signed zeros, infinities and NaN in G.
func TestSelectJ(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 3))
		pick := []float64{-2, -1, -0.5, math.Copysign(0, -1), 0, 0.5, 1, 2}
		for n := range 71 {
			for trial := range 60 {
				G, ny, QD := make([]float64, n), make([]float64, n), make([]float64, n)
				qi, sets := make([]float32, n), make([]uint8, n)
				cont := trial%2 == 1
				for k := range n {
					G[k], QD[k], qi[k] = pick[r.IntN(len(pick))], 1, float32(pick[r.IntN(len(pick))])
					if cont {
						G[k], QD[k], qi[k] = r.NormFloat64(), r.Float64()*2, float32(r.NormFloat64())
					}
					ny[k] = float64(1 - 2*r.IntN(2))
					sets[k] = uint8(r.IntN(4))
					switch r.IntN(60) {
					case 0:
						G[k] = math.NaN()
					case 1:
						G[k] = math.Inf(1)
					case 2:
						G[k] = math.Inf(-1)
					}
				}
				m, QDi := pick[r.IntN(len(pick))], 1.0
				if cont {
					m, QDi = r.NormFloat64(), r.Float64()*2
				}
				if trial%3 == 0 {
					QDi = -3 // a ≤ 0 often: tau
				}
				c2 := float64(2 - 4*r.IntN(2))
				wM, wj := scalarSelectJ(G, ny, QD, qi, sets, 2, m, QDi, c2, 1e-12)
				gM, gj := SelectJ(G, ny, QD, qi, sets, 2, m, QDi, c2, 1e-12)
				if gj != wj || (gM != wM && !(math.IsNaN(gM) && math.IsNaN(wM))) {
					t.Fatalf("n=%d trial %d: (M, j) = (%v, %d), scalar (%v, %d)", n, trial, gM, gj, wM, wj)
				}
			}
		}
	})
}

func TestSelectJNoAllocs(t *testing.T) {
	n := 1000
	G, ny, QD := make([]float64, n), make([]float64, n), make([]float64, n)
	qi, sets := make([]float32, n), make([]uint8, n)
	if a := testing.AllocsPerRun(20, func() { SelectJ(G, ny, QD, qi, sets, 2, 1, 1, 2, 1e-12) }); a != 0 {
		t.Errorf("%v allocations a call, want 0", a)
	}
}

func BenchmarkSelectJ(b *testing.B) {
	for _, l := range available() {
		b.Run(l.String(), func(b *testing.B) {
			defer use(l)()
			n := 4096
			r := rand.New(rand.NewPCG(1, 2))
			G, ny, QD := make([]float64, n), make([]float64, n), make([]float64, n)
			qi, sets := make([]float32, n), make([]uint8, n)
			for k := range n {
				G[k], QD[k], qi[k] = r.NormFloat64(), 1, float32(r.NormFloat64())
				ny[k], sets[k] = float64(1-2*r.IntN(2)), uint8(r.IntN(4))
			}
			b.SetBytes(int64(n * (8 + 8 + 8 + 4 + 1)))
			b.ReportAllocs()
			for b.Loop() {
				SelectJ(G, ny, QD, qi, sets, 2, 0.5, 1, 2, 1e-12)
			}
		})
	}
}
