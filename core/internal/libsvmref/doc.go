// Package libsvmref reads core/testdata/libsvm-ref.txt: the figures of
// LIBSVM's svm-train and svm-predict and LIBLINEAR's predict on the test
// data sets (written by core/testdata/libsvm-ref.sh; the file's header
// documents the format), which core's parity tests and core/textmodel's
// import tests compare against. Only tests import it.
//
// # Imports
//
// It may import nothing of this module (a helper of the tests); imports point
// down the package table of DESIGN.md §2, never sideways.
package libsvmref
