// Package solve holds what the solvers of every family share and no
// caller sees: the seeded random source (RNG, SubSeed), instance and class
// weights of the rows (RowWeights, Weighted, CheckCosts), and the word hash
// that tells a warm start whether rows changed (HashWord).
//
// # Imports
//
// It may import core/data, core/model and core/internal/hashword.
package solve
