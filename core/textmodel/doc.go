// Package textmodel imports LIBSVM and LIBLINEAR text model files (DESIGN
// §5) as core models, so that a model trained with svm-train or
// LIBLINEAR's train predicts here with the same labels and decision values.
// It sits above core (it builds core.KernelModel and linear.LinearModel);
// the command's import and anything else that reads such files call it.
//
// Both formats are a header of "key value..." lines followed by the
// numbers: LIBSVM's after a line "SV", one support vector a line (its
// nr_class−1 coefficients, then 1-based index:value pairs); LIBLINEAR's
// after a line "w", the weights feature-major (nr_feature rows, plus a bias
// row when bias >= 0, of nr_w values each). The readers follow the files
// svm.cpp's svm_save_model and linear.cpp's save_model write, and refuse
// with a file:line error anything else: a missing or repeated key, counts
// that disagree, a non-finite number.
//
// # Imports
//
// It may import core and core/data; imports point down the package table of
// DESIGN.md §2, never sideways.
package textmodel
