package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// scalarGradStep is the solver's loop as core/smo.go wrote it before
// GradStepMaxUp, written out independently of gradStepMaxUpPortable: the
// reference both paths are held to, bit for bit. Every product is
// converted explicitly, which forbids the compiler to fuse it into an
// FMA (arm64 would): the result is amd64's, and LIBSVM's there.
func scalarGradStep(G []float64, qi, qj []float32, di, dj float64, ny []float64, sets []uint8, mask uint8) (float64, int) {
	m, i := math.Inf(-1), -1
	for t := range G {
		a := float64(float64(qi[t]) * di)
		b := float64(float64(qj[t]) * dj)
		G[t] = G[t] + (a + b)
		if v := float64(ny[t] * G[t]); v >= m && sets[t]&mask != 0 {
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
// SelectJ (there yi·2 was spelled 2*yi*ny[t]*float64(Qi[t])), products
// converted explicitly so that no architecture fuses them.
func scalarSelectJ(G, ny, QD []float64, qi []float32, sets []uint8, mask uint8, m, QDi, c2, tau float64) (float64, int) {
	M, _, j := scalarSelectJBest(G, ny, QD, qi, sets, mask, m, QDi, c2, tau)
	return M, j
}

// scalarSelectJBest is scalarSelectJ with the chosen objective.
func scalarSelectJBest(G, ny, QD []float64, qi []float32, sets []uint8, mask uint8, m, QDi, c2, tau float64) (float64, float64, int) {
	M, best, j := math.Inf(1), math.Inf(1), -1
	for t, g := range G {
		if sets[t]&mask == 0 {
			continue
		}
		v := float64(ny[t] * g)
		M = min(M, v)
		b := m - v
		if b <= 0 {
			continue
		}
		p := float64(float64(c2*ny[t]) * float64(qi[t]))
		s := QDi + QD[t]
		a := s + p
		if a <= 0 {
			a = tau
		}
		bb := float64(-b * b)
		if obj := bb / a; obj <= best {
			best, j = obj, t
		}
	}
	return M, best, j
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
				wM, wb, wj := scalarSelectJBest(G, ny, QD, qi, sets, 2, m, QDi, c2, 1e-12)
				gM, gj := SelectJ(G, ny, QD, qi, sets, 2, m, QDi, c2, 1e-12)
				if gj != wj || (gM != wM && !(math.IsNaN(gM) && math.IsNaN(wM))) {
					t.Fatalf("n=%d trial %d: (M, j) = (%v, %d), scalar (%v, %d)", n, trial, gM, gj, wM, wj)
				}
				if _, gb, _ := SelectJBest(G, ny, QD, qi, sets, 2, m, QDi, c2, 1e-12); math.Float64bits(gb) != math.Float64bits(wb) {
					t.Fatalf("n=%d trial %d: best %v, scalar %v", n, trial, gb, wb)
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

// scalarRBFArgs is core's rbfArgsDense loop as it was written before
// RBFArgs (core/kcolumn.go), products converted explicitly so that no
// architecture fuses them.
func scalarRBFArgs(a, x []float64, data []float32, rows []int32, sq []float64, sqi, g float64) {
	n := len(x)
	for t, j := range rows {
		y := data[int(j)*n : int(j)*n+n]
		var s0, s1, s2, s3 float64
		k := 0
		for ; k+4 <= n; k += 4 {
			s0 += float64(x[k] * float64(y[k]))
			s1 += float64(x[k+1] * float64(y[k+1]))
			s2 += float64(x[k+2] * float64(y[k+2]))
			s3 += float64(x[k+3] * float64(y[k+3]))
		}
		for ; k < n; k++ {
			s0 += float64(x[k] * float64(y[k]))
		}
		d := float64(sqi+sq[j]) - float64(2*((s0+s1)+(s2+s3)))
		if d < 0 {
			d = 0
		}
		a[t] = g * d
	}
}

// TestRBFArgs checks every level bit for bit against the scalar loop for
// 0 to 20 features (whole steps of four and every tail) and 0 to 40 rows,
// rows repeated and in any order, values of mixed magnitude, and rows
// equal to x (‖x − x‖² rounding below 0, clamped).
func TestRBFArgs(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 4))
		const l = 50
		for n := range 21 {
			data := make([]float32, l*n)
			for k := range data {
				data[k] = float32(r.NormFloat64() * math.Exp(r.Float64()*6-3))
			}
			sq := make([]float64, l)
			for j := range l {
				for _, v := range data[j*n : j*n+n] {
					sq[j] += float64(v) * float64(v)
				}
			}
			for count := range 41 {
				i := r.IntN(l)
				x := make([]float64, n)
				for k := range x {
					x[k] = float64(data[i*n+k])
				}
				rows := make([]int32, count)
				for k := range rows {
					rows[k] = int32(r.IntN(l))
					if k%5 == 0 {
						rows[k] = int32(i)
					}
				}
				want, got := make([]float64, count), make([]float64, count)
				g := -r.Float64() * 2
				scalarRBFArgs(want, x, data, rows, sq, sq[i], g)
				RBFArgs(got, x, data, rows, sq, sq[i], g)
				for k := range want {
					if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
						t.Fatalf("n=%d count=%d: a[%d] = %v, scalar %v", n, count, k, got[k], want[k])
					}
				}
			}
		}
	})
}

func TestRBFArgsNoAllocs(t *testing.T) {
	n, l := 9, 300
	x, data, sq := make([]float64, n), make([]float32, n*l), make([]float64, l)
	rows, a := make([]int32, l), make([]float64, l)
	for k := range rows {
		rows[k] = int32(k)
	}
	if al := testing.AllocsPerRun(20, func() { RBFArgs(a, x, data, rows, sq, 1, -1) }); al != 0 {
		t.Errorf("%v allocations a call, want 0", al)
	}
}

func BenchmarkRBFArgs(b *testing.B) {
	for _, l := range available() {
		b.Run(l.String(), func(b *testing.B) {
			defer use(l)()
			const n, rowsN = 9, 256
			r := rand.New(rand.NewPCG(1, 3))
			data := make([]float32, 40000*n)
			for k := range data {
				data[k] = float32(r.NormFloat64())
			}
			x, sq := make([]float64, n), make([]float64, 40000)
			rows, a := make([]int32, rowsN), make([]float64, rowsN)
			for k := range rows {
				rows[k] = int32(k * 150)
			}
			b.ReportAllocs()
			for b.Loop() {
				RBFArgs(a, x, data, rows, sq, 1, -1)
			}
		})
	}
}

// TestExpTo32 checks every level bit for bit against the portable path
// (itself held to core's expFast in core/kexp_test.go) on arguments across
// the fast range, near its ends and outside it (math.Exp), NaN and ±Inf,
// at every length up to 40 and on a long batch; and the values against
// math.Exp within a float32 ulp.
func TestExpTo32(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 5))
	x := make([]float64, 4000)
	for i := range x {
		switch i % 5 {
		case 0:
			x[i] = -r.Float64() * 750
		case 1:
			x[i] = -r.Float64() * 20
		case 2:
			x[i] = -r.Float64() * 1e-6
		case 3:
			x[i] = (r.Float64() - 0.5) * 1420
		default:
			x[i] = []float64{0, -708, 700, -708.0000001, 700.0000001, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)}[r.IntN(9)]
		}
	}
	want := make([]float32, len(x))
	expTo32Portable(want, x)
	for i, v := range x {
		e := math.Exp(v)
		w, e32 := float64(want[i]), float64(float32(e))
		if w != e32 && !(math.IsNaN(w) && math.IsNaN(e)) && (math.IsInf(e32, 0) || math.Abs(w-e) > 1.2e-7*e) {
			t.Fatalf("portable exp(%v) = %v, math.Exp %v", v, w, e)
		}
	}
	forEachLevel(t, func(t *testing.T) {
		got := make([]float32, len(x))
		check := func(n int) {
			clear(got)
			ExpTo32(got[:n], x[:n])
			for i := range n {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want[i]))) {
					t.Fatalf("n=%d: exp(%v) = %v, portable %v", n, x[i], got[i], want[i])
				}
			}
		}
		for n := range 41 {
			check(n)
		}
		check(len(x))
	})
}

func TestExpTo32NoAllocs(t *testing.T) {
	x, dst := make([]float64, 256), make([]float32, 256)
	if a := testing.AllocsPerRun(20, func() { ExpTo32(dst, x) }); a != 0 {
		t.Errorf("%v allocations a call, want 0", a)
	}
}

func BenchmarkExpTo32(b *testing.B) {
	for _, l := range available() {
		b.Run(l.String(), func(b *testing.B) {
			defer use(l)()
			r := rand.New(rand.NewPCG(1, 5))
			x, dst := make([]float64, 256), make([]float32, 256)
			for i := range x {
				x[i] = -r.Float64() * 20
			}
			b.ReportAllocs()
			for b.Loop() {
				ExpTo32(dst, x)
			}
		})
	}
}

// TestAddScaled32 checks every level bit for bit against the scalar loop
// (products converted explicitly: never fused) at every length up to 40,
// with values of mixed magnitude, signed zeros, infinities and NaN.
func TestAddScaled32(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 6))
		for n := range 41 {
			for trial := range 20 {
				dst, q := make([]float64, n), make([]float32, n)
				for k := range n {
					dst[k] = r.NormFloat64() * math.Exp(r.Float64()*20-10)
					q[k] = float32(r.NormFloat64() * math.Exp(r.Float64()*20-10))
					switch r.IntN(30) {
					case 0:
						dst[k] = math.Copysign(0, -1)
						q[k] = 0
					case 1:
						q[k] = float32(math.Inf(1))
					case 2:
						dst[k] = math.NaN()
					}
				}
				c := r.NormFloat64()
				want := append([]float64(nil), dst...)
				for k := range want {
					p := float64(c * float64(q[k]))
					want[k] = want[k] + p
				}
				AddScaled32(dst, c, q)
				for k := range want {
					if math.Float64bits(dst[k]) != math.Float64bits(want[k]) && !(math.IsNaN(dst[k]) && math.IsNaN(want[k])) {
						t.Fatalf("n=%d trial %d: dst[%d] = %v, scalar %v", n, trial, k, dst[k], want[k])
					}
				}
			}
		}
	})
}

func TestAddScaled32NoAllocs(t *testing.T) {
	dst, q := make([]float64, 1000), make([]float32, 1000)
	if a := testing.AllocsPerRun(20, func() { AddScaled32(dst, 0.5, q) }); a != 0 {
		t.Errorf("%v allocations a call, want 0", a)
	}
}
