// Package hashword is the word hash that tells a warm start whether rows
// and their dual variables changed: a multiply and a shift per 64-bit
// word. It sits below core/data, which keeps each row's hash
// (Dataset.KeepRowHashes), and core/internal/solve, which re-exports it to
// the solvers.
//
// # Imports
//
// It imports nothing.
package hashword

// Seed is where a hash starts (FNV-1a's offset basis); Prime its
// multiplier (2⁶⁴/φ, odd).
const (
	Seed  = 14695981039346656037
	Prime = 0x9e3779b97f4a7c15
)

// Word folds the 64-bit word v into h: a multiply and a shift per word,
// where FNV-1a took eight multiplies (one per byte). It only has to tell
// whether rows and α changed, not resist an adversary.
func Word(h, v uint64) uint64 {
	h = (h ^ v) * Prime
	return h ^ h>>29
}
