// Package core trains and predicts: the kernel family (SMO, kernels and
// kernel cache, one-vs-one multi-class, cross-validation and grid search,
// the kernel model and its predictors and probability estimates) and the
// one Trainer over both families, which dispatches linear training to
// package core/linear (LIBLINEAR's solvers and the linear model); the
// vocabulary both share (Model, ModelInfo, ...) is package core/model's,
// kept here as aliases. Package core/options reads the training parameters
// from LIBLINEAR's and svm-train's option strings. Everything
// that trains or predicts — the command, the daemon and the C ABI — calls
// this package; nothing here prints, reads globals or grows a buffer behind
// the caller's back. Its data sets and readers are package core/data's.
//
// Where to start (example_test.go shows each at work):
//
//   - data.ReadFile (package core/data) reads a LIBSVM text or CSV file into
//     a data.Dataset; data.NewSparse and data.NewDense make an empty one of
//     fixed capacity to append rows to.
//   - linear.NewLinearTrainer and LinearTrainer.Train (package core/linear)
//     train a linear model (LIBLINEAR's solvers, DefaultLinearParams);
//     NewTrainer trains either family; NewKernelTrainer and
//     KernelTrainer.Train a kernel one (LIBSVM's, DefaultKernelParams).
//     Passing the previous run's dual variables retrains warm.
//   - Model is the one interface every model kind implements (these two,
//     and the quantized ones of package quantize): Info, decision values,
//     predictions, dense or sparse, one row or a batch.
//   - Package core/modelfile writes and opens model files of any kind
//     (WriteFile, ReadFile; each kind registers its codec there); package
//     daemon/modeldir publishes versions into a directory and watches one
//     (Publish, Watch); package quantize makes int8 or int16 models.
//
// Conventions: feature values are float32 and feature indices int32,
// 0-based in every API (LIBSVM text files are 1-based; the readers convert).
// Labels and regression targets are float64. Dual variables, gradients and
// weights being accumulated are float64; models store float32.
//
// # Imports
//
// It may import core/data, core/scale, core/simd, core/model, core/linear
// and core/internal/...; imports point down the package table of DESIGN.md
// §2, never sideways.
package core
