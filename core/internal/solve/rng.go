package solve

import "math/bits"

// RNG is the solvers' random source: SplitMix64 (Steele, Lea & Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014). It is
// defined here rather than taken from math/rand so that a seed yields the
// same permutations, and so the same model file, on every Go release.
type RNG struct{ state uint64 }

// NewRNG returns the generator seeded with seed.
func NewRNG(seed uint64) RNG { return RNG{state: seed} }

// Next returns the next 64 random bits.
func (r *RNG) Next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Intn returns a uniform integer in [0, n) by Lemire's multiply-and-reject
// ("Fast random integer generation in an interval", TOMACS 2019).
// It panics if n <= 0.
func (r *RNG) Intn(n int) int {
	if n <= 0 {
		panic("core: RNG.Intn: n <= 0")
	}
	hi, lo := bits.Mul64(r.Next(), uint64(n))
	if lo < uint64(n) {
		thresh := -uint64(n) % uint64(n)
		for lo < thresh {
			hi, lo = bits.Mul64(r.Next(), uint64(n))
		}
	}
	return int(hi)
}

// SubSeed derives the seed of subproblem k from a training seed, so that
// every one-vs-rest subproblem has its own stream whichever goroutine
// solves it.
func SubSeed(seed uint64, k int) uint64 {
	r := NewRNG(seed ^ (uint64(k)+1)*0xd1b54a32d192ed03)
	return r.Next()
}
