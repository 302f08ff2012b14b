// Package rowscale applies svm-scale's ranges to rows: it fits them on
// training rows (FitScale), scales a data set by them (ScaleDataset), and
// scales raw rows one at a time or in batches into pooled scratch for a
// model that takes raw rows (RowScaler). The ranges themselves and their
// text format are package core/scale's.
//
// # Imports
//
// It may import core/data, core/scale and core/model.
package rowscale
