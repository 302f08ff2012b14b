package modelfile

//go:generate go run github.com/tinylib/msgp@v1.6.5 -file qbody.go -o qbody_gen.go -io=false -unexported

// The bodies of the quantized model files (format 1.2, kinds "qlinear" and
// "qkernel"), with the rules of the float bodies (body.go, kbody.go): the
// generated decoder runs only on a payload whose frame, CRC-32C, kind and
// msgpack structure have been checked (Open, then DecodeBody), arrays are
// refused past 65536 elements before allocation, and every blob is
// zero-copy with its own limit, so a blob is checked against the bytes left
// and never allocated by the decoder (package quantize converts it at once
// and keeps nothing). They are exported because the quantized predictors,
// which the bodies are converted to and from, live in package quantize
// (above this one): this package holds every kind's body, quantize the
// conversion that needs its predictors' internals.
// Limits: 4·65536 bytes for per-class blobs, and for the large blobs the
// largest size a msgpack bin32 holds, rounded down to the element size;
// the byte stream si too stops one short of 2^32 − 1, because msgp reads
// limit=4294967295 as "no limit of its own" and falls back to the arrays
// limit (65536 bytes), which refused every sparse model with an index
// stream past 64 KiB (TestQuantizeLargeSparseModel in daemon/cmd/svmgo).
// The quantized bodies keep the encoding they were introduced with (format
// 1.2), which files written since must keep loading with; the differences
// from the float bodies are below.
//
// Floats go through msgp's compactfloats: a float64 that a float32 holds
// exactly (a bias of 1, C = 1) takes 5 bytes instead of 9, and reads back
// bit for bit. The small integer arrays (labels, support vectors per class)
// are msgpack arrays, 1 byte an element for small values, instead of int32
// blobs: a quantized file of a small model is a few dozen bytes, and
// these arrays are a tenth of it.
//
// Fields are written in the order below; the only omitted fields are the
// optional ones marked omitempty, omitted exactly when empty, so equal
// models give equal bytes.

//msgp:limit arrays:65536 maps:256
//msgp:compactfloats

// QLinearBody is the payload of a quantized linear model file (kind
// "qlinear"), as package quantize writes and reads it.
type QLinearBody struct {
	// Kind is "qlinear".
	Kind string `msg:"k" doc:"kind"`
	// Bits is 8 or 16: the width of the weight codes.
	Bits int64 `msg:"qb" doc:"bits"`
	// Solver is linear.LinearSolver: LIBLINEAR's -s number.
	Solver int64 `msg:"s" doc:"solver_type"`
	// NumFeatures is the number of input features, at most MaxInt32.
	NumFeatures int64 `msg:"nf" doc:"nr_feature"`
	// Labels are the class labels in decision-function order; empty for
	// regression.
	Labels []int32 `msg:"l" doc:"labels"`
	// Bias is the bias pseudo-feature's value; absent when the model has
	// no bias row.
	Bias *float64 `msg:"b,omitempty" doc:"bias"`
	// Scales holds s_k of each decision function: float32 little-endian.
	Scales []byte `msg:"sc,zerocopy,limit=262144" doc:"scales s_k"`
	// W holds the weight codes feature-major, NumFeatures × nrW of them:
	// int8, or int16 little-endian; or, with WI, only the nonzero codes
	// WI lists, in its order.
	W []byte `msg:"w,zerocopy,limit=4294967294" doc:"weight codes"`
	// WI, when present, stores the codes sparse (an L1-regularized
	// model's, when that is smaller): the index stream of the nonzero
	// codes over NumFeatures rows × nrW functions (sparsew.go). Absent for
	// dense codes, so their files keep their bytes; a reader older than
	// the field refuses a sparse file (W too short), never misreads it.
	WI []byte `msg:"wi,zerocopy,omitempty,limit=4294967294" doc:"sparse weight code indices"`
	// BiasW holds the bias row's weights, float32 little-endian, one per
	// decision function; absent without a bias.
	BiasW []byte `msg:"bw,zerocopy,omitempty,limit=262144" doc:"bias weights"`
	// SourceCRC is the CRC-32C of the float model file's payload (the
	// frame's checksum field of Marshal's output).
	SourceCRC uint32 `msg:"crc" doc:"source CRC-32C"`
	// Created is the float model's creation time, Unix seconds; absent
	// when 0.
	Created int64 `msg:"t,omitempty" doc:"creation time"`
	// ProbA and ProbB are the float model's Platt sigmoids, one per
	// decision function (an SVC trained with -b 1), float64 little-endian;
	// absent otherwise. Optional, added after format 1.2: a reader that
	// skips them predicts the same labels and offers no probabilities.
	ProbA []byte `msg:"pa,zerocopy,omitempty,limit=524288" doc:"Platt A"`
	ProbB []byte `msg:"pb,zerocopy,omitempty,limit=524288" doc:"Platt B"`
	// Scale is the float model's scaling (format 1.3, sbody.go); absent
	// without.
	Scale *ScaleBody `msg:"xs,omitempty" doc:"scaling ranges"`
}

// QKernelBody is the payload of a quantized kernel model file (kind
// "qkernel"), as package quantize writes and reads it.
type QKernelBody struct {
	// Kind is "qkernel".
	Kind string `msg:"k" doc:"kind"`
	// Bits is 8 or 16: the width of the support vector codes.
	Bits int64 `msg:"qb" doc:"bits"`
	// SVMType is core.SVMType: LIBSVM's -s number.
	SVMType int64 `msg:"st" doc:"svm_type"`
	// KernelType, Degree, Gamma and Coef0 are core.Kernel (Gamma resolved).
	KernelType int64   `msg:"kt" doc:"kernel_type"`
	Degree     int64   `msg:"kd" doc:"degree"`
	Gamma      float64 `msg:"kg" doc:"gamma"`
	Coef0      float64 `msg:"kc" doc:"coef0"`
	// NumFeatures is the number of input features, at most MaxInt32.
	NumFeatures int64 `msg:"nf" doc:"nr_feature"`
	// Labels are the C-SVC classes in LIBSVM's order; empty otherwise.
	Labels []int32 `msg:"l" doc:"labels"`
	// NumSV counts the support vectors of each class (C-SVC only).
	NumSV []int32 `msg:"ns" doc:"nr_sv"`
	// SVRows is the number of support vectors.
	SVRows int64 `msg:"sr" doc:"total_sv"`
	// FScale holds each feature's scale a_j ≥ 0, float32 little-endian.
	FScale []byte `msg:"fa,zerocopy,limit=4294967292" doc:"feature scales a_j"`
	// FOffset holds each feature's offset o_j, float64 little-endian.
	FOffset []byte `msg:"fo,zerocopy,limit=4294967288" doc:"feature offsets o_j"`
	// SVDense tells the layout of SVCodes: true for SVRows × NumFeatures
	// codes row-major, false for the codes of the entries SVIndex lists.
	SVDense bool `msg:"sd" doc:"SV layout"`
	// SVIndex is the sparse layout's index stream: for each support
	// vector, a uvarint count n, then n uvarint gaps (feature index minus
	// the previous one, the first counted from −1). Empty when dense.
	SVIndex []byte `msg:"si,zerocopy,limit=4294967294" doc:"SV indices"`
	// SVCodes holds the support vector codes, int8 or int16 little-endian.
	SVCodes []byte `msg:"sq,zerocopy,limit=4294967294" doc:"SV codes"`
	// CoefScale holds σ_k of each row of sv_coef, float32 little-endian.
	CoefScale []byte `msg:"cs,zerocopy,limit=262144" doc:"sv_coef scales"`
	// Coef holds the sv_coef codes, int16 little-endian, (nrClass−1) ×
	// SVRows, row-major.
	Coef []byte `msg:"c,zerocopy,limit=4294967294" doc:"sv_coef codes"`
	// Rho is ρ of each decision function, float64 little-endian.
	Rho []byte `msg:"rho,zerocopy,limit=4294967288" doc:"rho"`
	// ProbA and ProbB are the probability model, float64 little-endian,
	// empty when absent.
	ProbA []byte `msg:"pa,zerocopy,limit=4294967288" doc:"probA"`
	ProbB []byte `msg:"pb,zerocopy,limit=4294967288" doc:"probB"`
	// Summary keeps a few training parameters and results.
	Summary QKernelSummary `msg:"sum" doc:"training summary"`
	// SourceCRC is the CRC-32C of the float model file's payload.
	SourceCRC uint32 `msg:"crc" doc:"source CRC-32C"`
	// Created is the float model's creation time; absent when 0.
	Created int64 `msg:"t,omitempty" doc:"creation time"`
	// Scale is the float model's scaling (format 1.3, sbody.go); absent
	// without.
	Scale *ScaleBody `msg:"xs,omitempty" doc:"scaling ranges"`
}

// QKernelSummary mirrors quantize.TrainSummary: a few training parameters
// and results of the float model.
type QKernelSummary struct {
	C          float64 `msg:"c"`
	Nu         float64 `msg:"n"`
	P          float64 `msg:"p"`
	Eps        float64 `msg:"e"`
	Iterations int64   `msg:"it"`
	Objective  float64 `msg:"obj"`
	NumBoundSV int64   `msg:"bsv"`
	Converged  bool    `msg:"cv"`
}
