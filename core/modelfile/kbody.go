package modelfile

//go:generate go run github.com/tinylib/msgp@v1.6.5 -file kbody.go -o kbody_gen.go -io=false -unexported

// The kernel body follows the rules of body.go (see its comment): the
// generated decoder runs only on a CRC-checked payload that scanShape has
// walked, arrays are refused past maxClasses elements before allocation,
// and every blob is zero-copy with its own limit, so a blob is checked
// against the bytes left and never allocated by the decoder. The float64
// blobs' limit is the largest multiple of 8 a msgpack bin32 can hold.

//msgp:limit arrays:65536 maps:256

// kbody is the msgpack payload of a kernel model file (format 1.1, kind
// "kernel"). Fields are written in this order, with no omitempty, so equal
// models give equal bytes.
//
// The support vectors are stored in whichever layout is smaller, chosen
// from their content (nonzero count, rows, NumFeatures) and not from the
// layout of the Dataset holding them, so a decoded model re-encodes to the
// same bytes:
//
//	dense  (SVDense true):  SVValues holds rows × NumFeatures float32,
//	                        row-major; SVStarts and SVIndex are empty.
//	sparse (SVDense false): SVStarts holds rows+1 int32 row starts (the
//	                        first 0, the last the nonzero count), SVIndex
//	                        the 0-based int32 feature indices and SVValues
//	                        the float32 values of the nonzeros.
type kbody struct {
	// Kind is "kernel".
	Kind string `msg:"k" doc:"kind"`
	// SVMType is core.SVMType: LIBSVM's -s number.
	SVMType int64 `msg:"st" doc:"svm_type"`
	// KernelType, Degree, Gamma and Coef0 are core.Kernel (Gamma resolved).
	KernelType int64   `msg:"kt" doc:"kernel_type"`
	Degree     int64   `msg:"kd" doc:"degree"`
	Gamma      float64 `msg:"kg" doc:"gamma"`
	Coef0      float64 `msg:"kc" doc:"coef0"`
	// NumFeatures is core.KernelModel.NumFeatures, at most MaxInt32.
	NumFeatures int64 `msg:"nf" doc:"nr_feature"`
	// Labels holds the C-SVC class labels as int32 little-endian; empty
	// for ε-SVR and one-class.
	Labels []byte `msg:"l,zerocopy,limit=262144" doc:"labels"`
	// NumSV holds the support vectors per class as int32 little-endian, in
	// Labels order; empty for ε-SVR and one-class.
	NumSV []byte `msg:"ns,zerocopy,limit=262144" doc:"nr_sv"`
	// SVRows is the number of support vectors.
	SVRows int64 `msg:"sr" doc:"total_sv"`
	// SVDense tells the layout of the support vectors (see above).
	SVDense  bool   `msg:"sd" doc:"SV layout"`
	SVStarts []byte `msg:"sp,zerocopy,limit=4294967292" doc:"SV row starts"`
	SVIndex  []byte `msg:"si,zerocopy,limit=4294967292" doc:"SV indices"`
	SVValues []byte `msg:"sx,zerocopy,limit=4294967292" doc:"SV values"`
	// Coef is sv_coef as float64 little-endian, (nrClass−1) × SVRows,
	// row-major.
	Coef []byte `msg:"c,zerocopy,limit=4294967288" doc:"sv_coef"`
	// Rho is ρ of each decision function, float64 little-endian.
	Rho []byte `msg:"rho,zerocopy,limit=4294967288" doc:"rho"`
	// ProbA and ProbB are the probability model, float64 little-endian;
	// empty when the model has none.
	ProbA []byte `msg:"pa,zerocopy,limit=4294967288" doc:"probA"`
	ProbB []byte `msg:"pb,zerocopy,limit=4294967288" doc:"probB"`
	// Params are the training parameters.
	Params kparams `msg:"p" doc:"training parameters"`
	// Result describes the training run.
	Result kresult `msg:"r" doc:"training result"`
	// Created is the creation time in Unix seconds, 0 when not recorded.
	Created int64 `msg:"t" doc:"creation time"`
	// Scale is the scaling the model was trained behind (format 1.3,
	// sbody.go); absent without.
	Scale *ScaleBody `msg:"xs,omitempty" doc:"scaling ranges"`
}

// kparams mirrors core.KernelParams.
type kparams struct {
	SVMType     int64         `msg:"st"`
	KernelType  int64         `msg:"kt"`
	Degree      int64         `msg:"kd"`
	Gamma       float64       `msg:"kg"`
	Coef0       float64       `msg:"kc"`
	C           float64       `msg:"c"`
	Nu          float64       `msg:"n"`
	P           float64       `msg:"p"`
	Eps         float64       `msg:"e"`
	CacheMB     float64       `msg:"m"`
	Shrinking   bool          `msg:"h"`
	Probability bool          `msg:"b"`
	Weights     []classWeight `msg:"cw"`
	Seed        uint64        `msg:"sd"`
	MaxIter     int64         `msg:"mi"`
}

// kresult mirrors core.KernelTrainResult.
type kresult struct {
	Subproblems []ksubproblem `msg:"sub"`
	Iterations  int64         `msg:"it"`
	KernelEvals int64         `msg:"ke"`
	Objective   float64       `msg:"obj"`
	NumSV       int64         `msg:"sv"`
	NumBoundSV  int64         `msg:"bsv"`
	Converged   bool          `msg:"cv"`
}

// ksubproblem mirrors core.KernelSubproblem.
type ksubproblem struct {
	Pos         int32   `msg:"pos"`
	Neg         int32   `msg:"neg"`
	Rows        int64   `msg:"n"`
	Iterations  int64   `msg:"it"`
	Objective   float64 `msg:"obj"`
	Rho         float64 `msg:"rho"`
	Gap         float64 `msg:"gap"`
	KernelEvals int64   `msg:"ke"`
	NumSV       int64   `msg:"sv"`
	NumBoundSV  int64   `msg:"bsv"`
	Converged   bool    `msg:"cv"`
}
