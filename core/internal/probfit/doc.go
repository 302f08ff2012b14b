// Package probfit fits the probability outputs both families share:
// Platt's sigmoid on cross-validated decision values (PlattFit,
// FitBinaryProbability), the Laplace scale of a regression model's
// residuals (FitSVRScale), and pairwise coupling of one-vs-one
// probabilities into class probabilities (PairwiseProbabilities).
//
// # Imports
//
// It may import core/internal/solve.
package probfit
