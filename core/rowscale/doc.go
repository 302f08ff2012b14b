// Package rowscale applies svm-scale's ranges to rows: it fits them on
// training rows (FitScale), scales a data set by them (ScaleDataset), and
// is the one scaled form of a model that takes raw rows (Scaled): it scales
// them, one at a time or in batches, into pooled scratch for the model it
// wraps. The ranges themselves and their text format are package
// core/scale's.
//
// # Imports
//
// It may import core/data, core/scale and core/model.
package rowscale
