package solve

// The constants of HashWord: where a hash starts and its multiplier.
const (
	HashSeed  = 14695981039346656037 // FNV-1a's offset basis
	HashPrime = 0x9e3779b97f4a7c15   // 2⁶⁴/φ, odd
)

// HashWord folds the 64-bit word v into h: a multiply and a shift per
// word, where FNV-1a took eight multiplies (one per byte); on few-feature
// data the hash of every row, taken each Train, was visible next to the
// solve. It only has to tell whether rows and α changed.
func HashWord(h, v uint64) uint64 {
	h = (h ^ v) * HashPrime
	return h ^ h>>29
}
