// Package cgen generates C for microcontrollers from a model (DESIGN §2,
// issue 29): a header and a source file in C99 that allocate nothing, call
// no library (the kernels' exp and tanh are the file's own; only
// <stdint.h> and <stddef.h> are included) and hold the model as const
// arrays, which a linker places in flash. Every kind the one model
// interface serves is generated: float and quantized (int8, int16), linear
// and kernel, classification, regression and one-class, with a model's
// input scaling folded into the weights (float linear) or applied to the
// row (the others).
//
//	src, err := cgen.Generate(m, cgen.Options{Name: "digits"})
//	// src.Header is digits.h, src.Source digits.c:
//	//   double digits_predict(const float *x);
//	//   double digits_decision(const float *x, float *out); // and the prediction
//
// # Identical to the library
//
// The generated code computes in double what the library computes in
// float64, in the library's order wherever the order can change a
// rounding: the float kernel dot products with four accumulators as
// core/simd's Dot64x4 sums, the kernel's formula as core's, the decision
// values support vector by support vector in LIBSVM's sv_coef order (one
// pass over the support vectors accumulates every class pair in the order
// core's KernelDecisions adds, and a pair votes once its second class is
// done, so a k-class model keeps only the sums of the pairs in progress,
// (c+1)·(k−c)−1 at the middle class c, 29 of 45 for 10 classes: most of
// a prediction's RAM), LIBSVM's vote and tie rule, LIBLINEAR's arg-max. A
// scaled float linear model's weights are folded as core folds
// them (w_j·s_j as float32, the constant in float64), a scaled row as
// rowscale.Scaled scales it (float32(o_j + s_j·x_j)). A quantized kernel
// model's integer path is the library's: the row quantized with the same
// scale t and round-half-away codes, exact int64 sums of codes, the same
// decoded ‖sv'‖² and coefficients σ_k·p_ki. What can still differ is the
// last bits of exp and tanh (each within a few units in the last place of
// the exact value) and, for the float linear kinds and the float
// kernel models of sparse support vectors, the order of a float64 sum:
// decision values agree to about 1e-15 relative, far inside the 1e-6 the
// tests hold them to, and labels are those of the library but at exact
// float64 ties. The tests compare both over every test row of every
// shared data set.
//
// # Imports
//
// It may import core, core/linear, core/scale, core/simd and quantize (it
// reads the kinds through the model interface and each kind's exported
// accessors, as core/textmodel does), never daemon/.
package cgen
