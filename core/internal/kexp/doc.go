// Package kexp evaluates exp(x) in batches for the RBF kernel columns of
// the SMO trainer (ExpBatch32, Tang's table method), rounding as the
// scalar path does, and says whether this build's vector paths round as
// its scalar code (TrainVectorExact).
//
// # Imports
//
// It may import core/simd.
package kexp
