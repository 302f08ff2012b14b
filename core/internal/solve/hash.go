package solve

import "github.com/libsvmgo/libsvmgo/core/internal/hashword"

// The constants of HashWord: where a hash starts and its multiplier.
const (
	HashSeed  = hashword.Seed
	HashPrime = hashword.Prime
)

// HashWord folds the 64-bit word v into h (hashword.Word): on few-feature
// data the hash of every row, taken each Train, was visible next to the
// solve, so it is a multiply and a shift per word.
func HashWord(h, v uint64) uint64 { return hashword.Word(h, v) }
