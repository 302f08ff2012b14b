package solve

// GlibcRand is glibc's rand() (random(3)'s TYPE_3 generator: an additive
// lagged Fibonacci generator, r_i = r_{i−3} + r_{i−31} mod 2³², output
// r_i >> 1; r_0..r_30 a Lehmer sequence from the seed, r_31..r_33 copies
// of r_0..r_2, and r_34..r_343 discarded).
type GlibcRand struct {
	r [34]uint32
	i int
}

// Seed starts the generator as glibc's srand(s) does.
func (g *GlibcRand) Seed(s uint32) {
	var init [31]int64
	init[0] = int64(s)
	for i := 1; i < 31; i++ {
		init[i] = 16807 * init[i-1] % 2147483647
		if init[i] < 0 {
			init[i] += 2147483647
		}
	}
	for i := range 31 {
		g.r[i] = uint32(init[i])
	}
	g.r[31], g.r[32], g.r[33] = g.r[0], g.r[1], g.r[2] // r_31..r_33 copy r_0..r_2
	g.i = 0                                            // r_34 lands in slot 34 mod 34
	for range 310 {
		g.step()
	}
}

// step computes the next r_i in a ring of 34 slots (r_i in slot i mod 34,
// enough for lags 3 and 31); g.i is the slot of the next one.
func (g *GlibcRand) step() uint32 {
	v := g.r[(g.i+34-31)%34] + g.r[(g.i+34-3)%34]
	g.r[g.i] = v
	g.i = (g.i + 1) % 34
	return v
}

// Next returns the next output, as rand() does.
func (g *GlibcRand) Next() uint32 { return g.step() >> 1 }
