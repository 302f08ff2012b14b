// Package quantize turns trained models into int8 or int16 ones that are
// smaller and predict faster, with a computable bound on how far each
// decision value can move (DESIGN §2, issue 6).
//
//	q, err := quantize.QuantizeKernel(m, 8)      // or QuantizeLinear; 8 or 16 bits
//	label := q.PredictDense(x)                    // allocation-free, as core's
//	bound := q.ErrorBoundDense(dst, x)            // |q's decision − m's| ≤ bound
//	err = modelfile.WriteFile("m.svmgo", q)        // model file format 1.2
//	model, err := modelfile.ReadFile("m.svmgo")    // any kind: a core.Model
//
// Linear and Kernel mirror linear.LinearModel and core.KernelModel: the same
// decision values in the same order, the same predictions from them (core's
// LinearPrediction, KernelPrediction, LinearProbabilities and
// PairwiseProbabilities: LIBLINEAR's arg-max, LIBSVM's one-vs-one vote and
// tie rule, logistic regression's and Platt's sigmoids, pairwise coupling),
// the same batch and width rules. They are immutable and safe
// for concurrent use, and report the float model's metadata (solver or SVM
// type, kernel, labels, support vectors per class, ρ, probability
// parameters, creation time) plus the CRC-32C of its model file payload
// (SourceCRC) as provenance.
//
// # Schemes
//
// Linear weights: symmetric, one scale per decision function k (a class
// of one-vs-rest, or the single function of two classes and of SVR):
//
//	s_k = max_j |w_jk| / (2^(b−1) − 1),   q_jk = round(w_jk / s_k) ∈ [−(2^(b−1) − 1), 2^(b−1) − 1],
//
// so |w_jk − s_k·q_jk| ≤ s_k/2. The bias row keeps its float32 weights: it
// is one weight per function, and its magnitude, often larger than the
// features', would widen s_k for every feature.
//
// Support vectors: affine, one scale a_j ≥ 0 and offset o_j per feature
// (their ranges differ by orders of magnitude between features, and RBF
// distances add every feature's error):
//
//	sv_ij ≈ o_j + a_j·q_ij,   a_j = (hi_j − lo_j)/(2^b − 1),   q_ij ∈ [−2^(b−1), 2^(b−1) − 1],
//
// where [lo_j, hi_j] is the feature's range over the support vectors. When
// the feature has a zero, the range is widened to include 0 and the offset
// is nudged to o_j = −a_j·z_j for an integer zero point
// z_j = round(−2^(b−1) − lo_j/a_j) (the nudging of B. Jacob et al.,
// "Quantization and training of neural networks for efficient
// integer-arithmetic-only inference", CVPR 2018, Section 2.1, as TFLite
// does), so zeros decode exactly: image pixels, bag-of-words counts.
// Without zeros o_j = lo_j + 2^(b−1)·a_j and the whole range serves the
// values (a year column 1990–2020 keeps 0.12-year steps, not 8). A
// constant feature has a_j = 0 and o_j = its value. Each code is within
// a_j/2 of its value. Scales are float32, so that a_j·q and s_k·q are exact
// in float64 (24 + 16 bits); offsets float64, so that −a_j·z_j is exact.
//
// The support vector codes are stored dense (every code) or sparse (the
// nonzero ones with a varint index, below), whichever is smaller: dense for
// Fashion-MNIST and digits at 8 bits (half the pixels are zero, and an
// index byte costs what a code does), sparse for text. In the sparse
// layout every feature's range includes 0, since absent entries are zeros.
//
// sv_coef (LIBSVM's dual coefficients y·α): int16 codes with one
// symmetric scale per row, |c_ki − σ_k·p_ki| ≤ σ_k/2; int16 because the
// coefficients are a tenth of the file at most (digits: 9 rows × 992) and
// their error enters every decision value unscaled. ρ and the probability
// parameters stay float64: one per class pair.
//
// # Predictors
//
// Linear (dense and sparse rows): dec_k = s_k·Σ_j x_j·q_jk + bias·bw_k in
// float64, the input left as it is. int8 codes are read through a
// 256-entry float64 table, faster than converting the integer (CVTSI2SD
// carries a false dependency on its register); int16 codes are held as
// float32, exact, for the same reason. With several functions the row's
// zero features are skipped (listed 256 at a time, branch-free), as image
// rows are half zeros. Dense batches (linearblock.go) keep the codes as
// their products read them, built at the first batch: one function's as
// float64 for simd.DotRows64x4, 64 rows a call and the single rows' values
// bit for bit; several functions' packed as float32 for simd.Gemm (float32
// sums, as the float model's batches).
//
// Kernel: the dot products with every decoded support vector are
//
//	x·sv'_i = Σ_j x_j·o_j + Σ_j x̃_j·q_ij,   x̃_j = x_j·a_j,
//
// (the first sum vanishes in the sparse layout, whose codes are centred:
// q_ij − z_j). The input row is quantized once, symmetric: x̃_j ≈ t·xq_j
// with t = max_j |x̃_j| / Q and Q = 2^24 (less for rows so long that the
// sums could pass 2^62), and Σ_j xq_j·q_ij is an exact int64 sum,
// accumulated a column at a time for all support vectors at once (the
// codes are held feature-major): for each nonzero x_j, acc_i += xq_j·q_ij
// over i, four columns per sweep. Zero features cost nothing, and the
// inner loop is an integer multiply-add over contiguous bytes. Then
// x·sv'_i ≈ Σ_j x_j·o_j + t·acc_i, ‖x − sv'_i‖² uses ‖sv'_i‖² of the
// decoded vectors (precomputed), and the kernel is core's
// (core.Kernel.FromDot).
//
// Those are the decision values and probabilities of every model, and
// the predictions of single rows. Batches of dense-layout models (and of
// sparse-layout ones dense enough, data.PreferDense) on AVX-512 VNNI CPUs
// compute the same int64 sums, bit for bit, as one blocked integer matrix
// product (kernelblock.go: the rows encoded vectorized, two 16-bit limbs
// of the input codes against the codes widened to int16,
// simd.GemmS16Limbs); their labels are those of the exact sums (float32
// kernel values and sums, with a stated bound on their error, and the
// exact path for the rows a bound leaves in doubt), so a row gets the same
// label alone or in a batch, and in C generated from the model. 8-bit RBF
// classifiers of 256 features or more first try the high limbs alone
// (simd.GemmS8x16, twice the float32 product's multiply-adds an
// instruction) under a bound widened for the missing low limbs; only the
// rows it leaves in doubt add the low limbs' product. RBF classifiers of
// fewer features (either width) first take the float model's product on
// their decoded support vectors (kernelfloat.go), under a bound on its
// distance from the exact sums; only the rows it leaves in doubt are
// encoded. A row is settled when no decision value near 0 can change the
// vote's winner. ε-SVR batches of those few-feature RBF models take the
// float32 path's values, within its stated bound of the exact single-row
// ones (as a float model's batch values are core's blocked float32 path's);
// other ε-SVR batches take the exact path whole. Kernel.BatchPays (and
// svmgo quantize, which times both models) says which forms are no slower
// than the float model, and why the others are not.
//
// A model can keep every bound and still lose its labels: when a few
// outlying support vectors stretch a feature's range, int8 leaves the
// values that decide a handful of codes (shuttle at -c 100 -g 1: 74% test
// accuracy against 99.8%). CheckFaithful predicts the float model's own
// support vectors with both models, and svmgo quantize refuses a model
// that changes more than 1% of their labels, naming the features
// (faithful.go).
// Where float32 batch speed matters more than exactness and memory,
// Kernel.DecodedModel gives the float32 model of the decoded support
// vectors, an explicit opt-in.
//
// Measured on the machine the package was written on (2 cores, AMD EPYC
// class, Go 1.26; ns a row, one goroutine), to choose the paths:
//
//	kernel dot products, 5556 support vectors × 784 features (int8 codes), Fashion-MNIST test rows:
//	  float32 vectors, float64 dot per vector (core's)          1 970 000
//	  int8 codes × float input, dot per vector                  1 920 000
//	  int8 columns × float input, float32 sums, 4 per sweep      1 050 000
//	  int8 columns × quantized input, int64 sums, 1 per sweep      860 000
//	  int8 columns × quantized input, int64 sums, 4 per sweep      610 000–690 000  (chosen)
//	  same, 8 per sweep (registers spill)                          890 000
//	  int16 columns × quantized input, 4 per sweep               1 360 000
//	linear, 10 functions × 784 features (Fashion rows):
//	  float32 weights (core's)                                     2 860
//	  int8 codes × float input, converted                          3 800
//	  int8 codes × float input, table                              2 680
//	  int8 codes × float input, table, zeros skipped               2 030  (chosen)
//	  int8 codes × quantized input, int64 sums, zeros skipped      7 000
//	linear, 1 function × 784 / 30 features: float32 339 / 13.1, int8 converted
//	  703 / 17.3, int8 table 272 / 13.5 (chosen), quantized input 3 800 / 127
//	linear, 10 functions × 64 features (digits-like rows): float32 236,
//	  table 239, table with zeros skipped 181 (chosen), quantized input 580
//
// For linear models quantizing the input costs more than it saves: the
// rounding pass over the row is as long as the dot products of a few
// functions. For kernel models it is done once for thousands of dot
// products, and it turns them into integer multiply-adds.
//
// # Error bound
//
// ErrorBoundDense and ErrorBoundSparse return, for each decision value, a
// bound B on |f̂ − f|, where f̂ is what this package's predictor returns for
// the row and f what core's predictor returns under the float model: both
// computed in float64, so the bound covers the quantization and the
// roundings of both computations. Notation: u = 2^-53, γ_n = n·u/(1 − n·u)
// (N. J. Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
// Lemma 3.1: a float64 sum of n terms is within γ_{n−1}·Σ|terms| of the
// exact one; float32 × float32 and float32 × code products are exact in
// float64), n the number of terms of the longest sum.
//
// Linear, function k:
//
//	B_k = (s_k/2)·Σ_j |x_j|  +  γ_{2n+4}·(2·s_k·Σ_j |x_j||q_jk| + (s_k/2)·Σ_j |x_j| + 2|bias·bw_k|).
//
// The first term is |Σ_j x_j·(w_jk − s_k·q_jk)|; the second bounds both
// float64 evaluations, using |w_jk| ≤ s_k|q_jk| + s_k/2. It is reached:
// a debdesc_bin row with one word whose weight sits near a rounding
// midpoint shows an error of 0.99988·B.
//
// Kernel, per support vector i, with e_j = a_j/2 and u_ij the code the sums
// use: the decoded dot product is off by at most
//
//	Δ_SV = Σ_j |x_j|·e_j                          (support vector rounding)
//	Δ_x,i = (t/2)(1 + 2^-20)·Σ_{x_j≠0} |u_ij|      (input rounding; xq_j is the nearest
//	                                                 integer to x̃_j·(Q/max|x̃|), both rounded once)
//	fl_i = 2γ_n·(Σ_j |x_j||sv'_ij| + Δ_SV + Σ_j |x_j·o_j| + t·Σ_j |xq_j||u_ij|)
//
// For RBF, with D = ‖x − sv_i‖² and D̂ the distance the predictor used,
// ‖u‖² − ‖u'‖² = δ·(2u' + δ) for u = x − sv_i, u' = x − sv'_i, δ = sv'_i − sv_i
// gives
//
//	|D − D̂| ≤ ΔD_i = 2·Σ_j e_j·|x_j − sv'_ij| + Σ_j e_j² + 2·Δ_x,i
//	                 + 2γ_n·(‖x‖² + (‖sv'_i‖ + ‖e‖)² + 2·(Σ_j |x_j||sv'_ij| + Δ_SV) + 2·Σ_j |x_j o_j| + 2t·Σ_j |xq_j||u_ij|),
//
// which uses the decoded vector's ‖sv'_i‖² rather than the original's:
// it is tighter exactly where RBF matters, for support vectors near x,
// where |x_j − sv'_ij| is small (with the original norm the first term
// would be 2·Σ_j e_j·|x_j| whatever the distance). Since exp(−γD) is
// decreasing and convex and core clamps D at 0,
//
//	|K − K̂_i| ≤ κ_i = max(e^(−γ·max(0, D̂ − ΔD_i)) − K̂_i,  K̂_i − e^(−γ·(D̂ + ΔD_i))) + 8u,
//
// tighter than e^(−γ·min(D, D̂))·γ·|D − D̂|. For the other kernels, with
// Δ_i = Δ_SV + Δ_x,i + fl_i and y = γ·(x·sv') + coef0: linear κ_i = Δ_i;
// polynomial κ_i = (|ŷ| + h)^d − |ŷ|^d + 8(d+1)u·(|ŷ| + h)^d with
// h = γΔ_i + 4u(|γ·x·sv'| + |coef0|) (expanding y^d − ŷ^d); sigmoid
// κ_i = min(2, γΔ_i + …) + 8u (tanh is 1-Lipschitz). Finally, for a decision
// value with coefficients c'_i = σ·p_i over its support vectors,
//
//	B = Σ_i [ |c'_i|·κ_i + (σ/2)·(|K̂_i| + κ_i) ]  +  γ_{l+4}·(2·Σ_i (|c'_i| + σ/2)(|K̂_i| + κ_i) + 2|ρ|),
//
// from |c_i K_i − c'_i K̂_i| ≤ |c_i − c'_i||K_i| + |c'_i||K_i − K̂_i|. Every
// quantization term is multiplied by 1 + 2^-28 for the rounding of the
// decoded values and of the bound itself. Computing B visits every support
// vector feature once: about the cost of one float32 prediction.
//
// The tests check |f̂ − f| ≤ B for every decision value of every test row,
// dense and sparse, at 8 and 16 bits, for the linear models (breast_cancer,
// digits, debdesc_bin, digits -s 3 -B 1, diabetes -s 12 and -s 13 -B 1)
// and the kernel models (RBF C-SVC on breast_cancer and digits, ε-SVR on
// diabetes, one-class, polynomial, sigmoid, a linear kernel with -b 1, and
// a sparse-layout RBF model of debdesc_bin). The largest error/bound ratios
// seen: linear 0.99988 (int8) and 0.98 (int16) on debdesc_bin, 0.26–0.74
// elsewhere; kernel 0.0007–0.10 (a worst-case bound over rounding errors
// that mostly cancel: digits RBF int8, largest error 0.0047, bound 0.14).
//
// # Model files
//
// A quantized model is a model file of format 1.2 (core/modelfile's frame:
// magic, version, length, CRC-32C), of kind "qlinear" or "qkernel", which
// 1.0 and 1.1 readers refuse with ErrVersion and modelfile's Unmarshal and
// UnmarshalKernel refuse with ErrKind. The body is a msgpack map with short
// keys (generated by msgp; core/modelfile's qbody.go holds every kind's
// body), numeric arrays as little-endian bin
// blobs, floats in their shortest exact form (a bias of 1 takes 5 bytes),
// fields in a fixed order, so the same model gives the same bytes. The
// quantization scheme is the kind's; qb records the width and the blobs the
// scales.
//
//	qlinear                               qkernel
//	k    "qlinear"                        k    "qkernel"
//	qb   bits, 8 or 16                    qb   bits, 8 or 16
//	s    solver (LIBLINEAR's -s)          st   SVM type (LIBSVM's -s)
//	nf   number of features               kt, kd, kg, kc   kernel: -t, degree, gamma, coef0
//	l    labels, msgpack array            nf   number of features
//	b    bias value; absent: no bias      l, ns   labels, support vectors per class (arrays)
//	sc   s_k: float32 × nrW               sr   number of support vectors
//	w    codes, feature-major:            fa   a_j: float32 × nf
//	     int8 or int16 × nf·nrW, or       fo   o_j: float64 × nf
//	     the codes wi lists
//	wi   sparse codes (when smaller: L1
//	     models): per function a uvarint
//	     count, then uvarint feature gaps
//	     (absent when dense)
//	bw   bias weights: float32 × nrW      sd   true: dense layout
//	     (absent without a bias)          si   sparse layout: per support vector a uvarint
//	crc  CRC-32C of the float model's          count n, then n uvarint gaps (index − previous,
//	     file payload                          the first from −1); empty when dense
//	t    creation time (absent when 0)    sq   codes: sr × nf row-major (dense), or the
//	pa, pb  Platt sigmoids of an SVC          listed entries' codes (sparse)
//	     trained with -b 1: float64 × nrW
//	     each (absent otherwise)
//	                                      cs   σ_k: float32 × (nrClass − 1)
//	                                      c    sv_coef codes: int16 × (nrClass − 1)·sr
//	                                      rho, pa, pb   float64 blobs (pa, pb empty if none)
//	                                      sum  {c, n, p, e, it, obj, bsv, cv}: C, ν, p, eps,
//	                                           iterations, objective, bound SVs, converged
//	                                      crc, t   as qlinear
//
// A quantized file keeps what predicting and a report need, not the float
// file's training parameters and per-subproblem results: those take 240 of
// the 390 bytes of breast_cancer's linear file, whose int8 file must stay
// under 117. A kernel file keeps the summary sum; a linear one only the
// provenance crc, by which the float model (and all it recorded) is found.
//
// Unmarshal never panics, allocates in proportion to its input (after
// modelfile.Open's structural walk, every blob is checked against the sizes
// before anything is allocated from them), and refuses inconsistent files
// with errors wrapping modelfile.ErrCorrupt: widths other than 8 and 16,
// NaN, infinite or negative scales, codes out of range (−128 in the
// symmetric scheme) or nonzero under a zero scale, blob lengths that do not
// match the counts, labels repeated or disagreeing with the per-class
// counts, sparse offsets that are not an integer zero point, sparse
// indices out of order or past the features, stored codes that decode to
// 0. FuzzUnmarshal and FuzzBody fuzz it; their seed corpus is in
// testdata/fuzz/FuzzUnmarshal.
//
// # Measured (tests and benchmarks of this package, go test -bench .)
//
// Sizes (int8 ≤ 30% of float32 is the goal) and test accuracy:
//
//	model                       float32       int8            int16           accuracy float32 / int8 / int16
//	linear breast_cancer            390        103 (26.4%)     133 (34.1%)    95.6140 / 95.6140 / 95.6140
//	linear digits                 3 465        758 (21.9%)   1 398 (40.3%)    98.0556 / 98.0556 / 98.0556
//	linear debdesc_bin           36 809      9 208 (25.0%)  18 340 (49.8%)    93.5522 / 93.5129 / 93.5522
//	RBF breast_cancer            15 371      4 334 (28.2%)   7 844 (51.0%)    96.4912 / 96.4912 / 96.4912
//	RBF digits                  329 650     82 750 (25.1%) 117 263 (35.6%)    97.5000 / 97.5000 / 97.5000
//	RBF Fashion-MNIST 10k    17 828 176  4 465 986 (25.1%) 7 064 316 (39.6%)  86.97 / 86.96 / 86.96
//
// (Fashion-MNIST: svmgo train -c 10 -g 0.03 on the first 10000 training
// rows, 5556 support vectors, the 10000 test rows; one prediction of 10000
// changes at either width; the int16 file takes the sparse layout.)
//
// Predict throughput against the float32 model on the same rows (one row
// a call, ns):
//
//	RBF Fashion-MNIST 10k, PredictBatchParallel, 2 workers, 10000 rows:
//	                            float32 10.4 s, int8 4.4 s (2.37×), int16 5.9 s (1.78×)
//	RBF Fashion-MNIST 2000-row model (bench):  float32 562 500, int8 230 600 (2.44×), int16 285 600
//	RBF digits:                 float32 59 600, int8 26 200 (2.28×), int16 30 100
//	RBF breast_cancer:          float32 4 100, int8 3 080, int16 2 840 (117 support
//	                            vectors of 30 features: the 117 exp() weigh)
//	linear Fashion 2000-row, 10 classes:  float32 2 930, int8 2 520, int16 2 250
//	linear digits:              float32 281, int8 261, int16 245
//	linear debdesc_bin (sparse rows):  float32 29.4, int8 11.9, int16 11.7
//	linear breast_cancer:       float32 26.7, int8 24.8, int16 25.7
//
// Every predictor allocates nothing once warm (testing.AllocsPerRun, for
// models on the stack and the pooled paths).
//
// # Imports
//
// It may import core, core/data, core/modelfile, core/scale and core/simd
// (never daemon/); imports point down the package table of DESIGN.md §2,
// never sideways.
package quantize
