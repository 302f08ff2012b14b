// Package scale is LIBSVM's svm-scale: per-feature affine scaling of a
// data set to [lower, upper], the range file that carries it from training
// data to test data, and the scaling of LIBSVM text files byte for byte as
// Debian's svm-scale (libsvm-tools 3.24) writes them.
//
// Feature j is mapped from its range [Min[j], Max[j]] (taken over the
// training rows, absent features counting as 0) onto [Lower, Upper]:
//
//	x' = Lower + (Upper − Lower)·(x − Min[j]) / (Max[j] − Min[j])
//
// with x = Min[j] giving exactly Lower and x = Max[j] exactly Upper, as
// svm-scale computes it. A feature with Min[j] == Max[j] (constant on the
// training rows, or unknown to the range) is dropped: it scales to 0.
// Values outside [Min[j], Max[j]] are not clipped: they map linearly
// outside [Lower, Upper], as svm-scale does. Scaling maps 0 to a nonzero
// value unless Lower = 0 and Min[j] = 0, so a scaled sparse row is in
// general dense.
//
// The package knows no data set type: package core fits Ranges on its
// Dataset and stores them in models, which apply them to raw inputs.
//
// # Imports
//
// It may import nothing of this module; imports point down the package table
// of DESIGN.md §2, never sideways.
package scale
