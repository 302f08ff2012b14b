// Package onnx reads and writes ONNX-ML model files (DESIGN §5): the
// graphs skl2onnx, onnxmltools and ONNX Runtime use for support vector
// machines and linear models, converted from and to core's models, so a
// model trained here runs wherever ONNX does, and one trained in
// scikit-learn is served by core's predict path (the one opener,
// core/modelfile, detects ONNX files by content and decodes them here).
//
// # Protobuf code
//
// The ModelProto subset used (ModelProto, OperatorSetIdProto, GraphProto,
// NodeProto, AttributeProto, ValueInfoProto with its tensor type and shape)
// is read and written by hand over the wire format (proto.go, wire.go), not
// generated from onnx-ml.proto: about 700 lines instead of 4,000 generated
// ones plus the reflection runtime, and a reader that bounds itself. It
// counts the values of an array attribute without allocating them and decodes
// them only once the converter has checked the count against the shapes the
// graph declares (vectors_per_class, n_supports, the input's width), caps
// nodes, attributes, inputs, outputs and dimensions, and does not recurse
// (sub-graphs and tensors are skipped): memory is bounded by the input's
// length and a hostile file cannot panic it (FuzzDecode). The writer emits
// fields in field-number order with packed arrays, so a model always gives
// the same bytes.
//
// # Mapping
//
// The graph has one input X, float [N, NumFeatures] (LIBSVM index i is
// column i−1). A model with scaling (train --scale) gets a Scaler first:
// ONNX's (x − offset)·scale is x' = Offset + Factor·x with scale = Factor,
// offset = −Offset/Factor (both 0 for a dropped feature); imported, a
// Scaler becomes ranges onto [0, 1] (Min = offset, Max = offset + 1/scale;
// a negative scale is refused).
//
//	model                       operator          attributes
//	linear SVC, LR (binary)     LinearClassifier  two rows w and −w, intercepts
//	                                              [w_b·B, −w_b·B], classlabels_ints
//	                                              Labels: the arg-max is ours, and
//	                                              LOGISTIC gives σ(d), 1 − σ(d)
//	linear SVC, LR (k classes)  LinearClassifier  k rows, classlabels_ints Labels
//	  logistic (-s 0, 6, 7)                       post_transform LOGISTIC, and for
//	                                              k > 2 a Normalizer (norm L1):
//	                                              LIBLINEAR's normalized sigmoids
//	  multinomial (-s 40)                         post_transform SOFTMAX
//	linear SVR                  LinearRegressor   coefficients w, intercepts, targets 1
//	C-SVC, ν-SVC                SVMClassifier     classlabels_ints, vectors_per_class
//	                                              (NumSV), support_vectors (dense),
//	                                              coefficients (sv_coef rows),
//	                                              rho = −ρ, kernel_type, kernel_params
//	                                              [γ, coef0, degree]; prob_a, prob_b
//	                                              for -b 1 (Z is then the probabilities)
//	ε-SVR, ν-SVR                SVMRegressor      n_supports, coefficients, rho = −ρ
//	one-class                   SVMRegressor      as ε-SVR with one_class 1 (outputs ±1)
//
// Outputs: a classifier's "label" (int64 [N]) and "probabilities" (float
// [N, E]: probabilities when the model has them, else decision values, one
// per class pair for a kernel model (−d and d for two classes), d and −d
// for a two-class linear model, whose rows they are); a
// regressor's "variable" (float [N, 1]). Both ONNX's and LIBSVM's binary
// SVMClassifier give the first label a positive decision value, so an
// exported binary model keeps LIBSVM's signs; skl2onnx writes the negated
// coefficients and ρ of scikit-learn's public dual_coef_ and intercept_,
// which are the same numbers. ONNX-ML's attributes are float32:
// coefficients, ρ and Platt's A and B are rounded, so decision values
// differ from ours by a few 1e-6 relative at most in the tests; a linear SVC's Platt
// probabilities (-b 1) and an SVR's Laplace scale have no attribute and are
// left out (Caveats says so).
//
// Quantized models are refused (ErrNotExportable): export their float
// model. Their int8/int16 codes have no ONNX-ML operator, and a graph of
// dequantized float32 values would predict neither as the quantized model
// nor as the float one it came from, silently; the float model exists
// wherever the quantized one was made.
//
// Imported, the operators map back: LinearClassifier with one row and two
// labels (ONNX scores the second label positive), two rows and two labels
// (w and −w as Encode writes them; other pairs become the one function
// row 0 − row 1, an SVC without probabilities, unless SOFTMAX), or one row
// per label; post_transform NONE, LOGISTIC or
// SOFTMAX records an SVC, logistic regression or multinomial logistic
// regression; SVMClassifier as C-SVC, SVMRegressor as ε-SVR or one-class.
// Cast, Identity and ZipMap nodes are ignored; anything else (another
// operator, string class labels, the linear modes of SVMClassifier and
// SVMRegressor, an unknown kernel or post_transform) is refused with an
// error naming the operator or attribute. An exported model imported
// again exports to the same bytes.
//
// # Imports
//
// It may import core, core/linear, core/data and core/scale; core/modelfile imports
// it. Imports point down the package table of DESIGN.md §2, never
// sideways.
package onnx
