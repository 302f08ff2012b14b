// Package data is libsvmgo's data layer: data sets of fixed capacity
// (Dataset, sparse CSR or row-major dense, float32 values and int32
// indices), the readers of LIBSVM text and CSV files (ReadFile, ReadInto,
// Scan, with their line and feature limits and file:line errors), the
// number parsing they use, and the row operations the solvers and
// predictors build on (Dot, AddScaledTo, views such as Prefix and
// RowRange, DeleteRows, AppendRowOf), and the rows' hashes a warm start
// checks them by (RowHash, KeepRowHashes). It depends on nothing of the
// solvers: package core and everything above it import it.
//
// Conventions: feature values are float32 and feature indices int32,
// 0-based in every API (LIBSVM text files are 1-based; the readers convert).
// Labels and regression targets are float64.
//
// # Imports
//
// It may import core/fileio, core/internal/hashword and core/simd (for
// its CPU features only); imports point down the package table of
// DESIGN.md §2, never sideways.
package data
