// Package options reads training option strings as LIBLINEAR's train and
// LIBSVM's svm-train read them, and holds their usage texts: ParseLinear
// and ParseKernel turn a command line into linear.LinearParams or
// core.KernelParams with what the command does besides (-v, -q, -C), and
// ParseTrain, for programs that take either in one string (the C ABI
// trainer, svmgo watch, the command), into core.TrainParams of the family
// the options name. The parameter types and their defaults and checks are
// core's, beside the solvers they drive.
//
// No option string changes the model family silently: a caller fixes the
// syntax (SyntaxLinear, SyntaxKernel), the options name it ("-syntax
// linear|kernel"), or an option that only svm-train has (-t -g -d -r -m
// -h) makes them svm-train's; otherwise they are LIBLINEAR's, and -b,
// which both programs take, is refused without one of these
// (ErrAmbiguousFamily).
//
// # Imports
//
// It may import core; imports point down the package table of DESIGN.md §2,
// never sideways.
package options
