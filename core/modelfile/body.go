package modelfile

//go:generate go run github.com/tinylib/msgp@v1.6.5 -file body.go -o body_gen.go -io=false -unexported

// The decoder generated from this file (body_gen.go) is used only through
// UnmarshalMsg on a payload whose CRC has been checked and whose msgpack
// structure scanShape has walked, so every array header it meets claims at
// most as many elements as there are bytes left. The limit directive below is
// the second line of defence: arrays (class weights, subproblem results) are
// refused past maxClasses elements before the decoder allocates them.
//
// The directive applies to []byte fields too, and for a non-zero-copy []byte
// field the generated code allocates the claimed size before checking it
// against the input. The blobs are therefore "zerocopy" (they alias the
// payload; Unmarshal converts them at once and keeps nothing) and carry their
// own limit: 4 bytes a label for the labels, and for the weights the largest
// multiple of 4 a msgpack bin32 can hold. A zero-copy blob is checked against
// the bytes left and never allocated.
//
// No -io: the streaming decoder would read claimed sizes from an unbounded
// reader, and nothing here needs it. -unexported: the body types are this
// package's own business.

//msgp:limit arrays:65536 maps:256

// body is the msgpack payload of a model file. Keys are short because they
// are repeated in every subproblem result; the generated encoder writes the
// fields in this order, so equal models give equal bytes. The fields of
// format 1.0 are always written; those added since are optional
// (omitempty), omitted exactly when empty, so a model without them is
// written as it was before they existed.
//
// Compatibility: a later minor version may add fields, which the generated
// decoder of this version skips. A model that a reader of this version could
// not predict with correctly by ignoring the new fields (kernel models,
// quantized weights) must use a new Kind, which this reader refuses.
type body struct {
	// Kind is the model kind; format 1.0 knows only "linear".
	Kind string `msg:"k" doc:"kind"`
	// Solver is linear.LinearSolver: LIBLINEAR's -s number.
	Solver int64 `msg:"s" doc:"solver_type"`
	// NumFeatures is linear.LinearModel.NumFeatures, at most MaxInt32.
	NumFeatures int64 `msg:"nf" doc:"nr_feature"`
	// Labels holds the class labels as int32 little-endian, 4 bytes each;
	// empty for regression.
	Labels []byte `msg:"l,zerocopy,limit=262144" doc:"labels"`
	// Bias is the bias pseudo-feature's value, negative for none.
	Bias float64 `msg:"b" doc:"bias"`
	// NrW is the number of decision functions; it must agree with Solver
	// and Labels.
	NrW int64 `msg:"nw" doc:"decision functions"`
	// W holds the weights feature-major as float32 little-endian, exactly
	// rows × NrW × 4 bytes (rows = NumFeatures, plus one with a bias);
	// empty when the weights are stored sparse (WI, WX).
	W []byte `msg:"w,zerocopy,limit=4294967292" doc:"weights"`
	// WI and WX store the weights sparse, in place of W, when that is
	// smaller (the L1-regularized solvers' models): WI is an index
	// stream, for each decision function in turn a uvarint count n, then
	// n uvarint gaps (row index minus the previous one, the first counted
	// from −1, so every gap is ≥ 1); WX holds the weights it lists,
	// float32 little-endian, in the same order. Both absent for dense
	// weights, so dense files keep the bytes they had before the fields
	// existed. A reader older than them finds no W and refuses the file
	// as corrupt rather than misreading it.
	WI []byte `msg:"wi,zerocopy,omitempty,limit=4294967294" doc:"sparse weight indices"`
	WX []byte `msg:"wx,zerocopy,omitempty,limit=4294967292" doc:"sparse weight values"`
	// Params are the training parameters, without Threads (it does not
	// change the model, so it must not change the file).
	Params params `msg:"p" doc:"training parameters"`
	// Result describes the training run.
	Result result `msg:"r" doc:"training result"`
	// Created is the creation time in Unix seconds, 0 when not recorded.
	Created int64 `msg:"t" doc:"creation time"`
	// ProbA and ProbB hold Platt's sigmoid of each decision function of an
	// SVC model trained with -b 1 (linear.LinearModel.ProbA, ProbB), float64
	// little-endian, NrW values each; absent otherwise. Optional: a reader
	// that skips them predicts the same labels and decision values, and
	// offers no probabilities.
	ProbA []byte `msg:"pa,zerocopy,omitempty,limit=524288" doc:"Platt A"`
	ProbB []byte `msg:"pb,zerocopy,omitempty,limit=524288" doc:"Platt B"`
	// Scale is the scaling the model was trained behind (format 1.3,
	// sbody.go); absent without.
	Scale *ScaleBody `msg:"xs,omitempty" doc:"scaling ranges"`
}

// params mirrors linear.LinearParams less Threads.
type params struct {
	Solver      int64         `msg:"s"`
	C           float64       `msg:"c"`
	Eps         float64       `msg:"e"`
	AbsoluteEps bool          `msg:"ae"`
	P           float64       `msg:"p"`
	Bias        float64       `msg:"b"`
	Weights     []classWeight `msg:"cw"`
	MaxIter     int64         `msg:"mi"`
	Seed        uint64        `msg:"sd"`
	// Probability is -b 1 (optional: absent when false).
	Probability bool `msg:"pr,omitempty"`
}

// classWeight mirrors core.ClassWeight.
type classWeight struct {
	Label  int32   `msg:"l"`
	Weight float64 `msg:"w"`
}

// result mirrors linear.TrainResult.
type result struct {
	Iterations      int64        `msg:"it"`
	Updates         int64        `msg:"up"`
	DualObjective   float64      `msg:"do"`
	PrimalObjective float64      `msg:"po"`
	DualityGap      float64      `msg:"gap"`
	NumSV           int64        `msg:"sv"`
	Converged       bool         `msg:"cv"`
	Subproblems     []subproblem `msg:"sub"`
}

// subproblem mirrors linear.SolveResult.
type subproblem struct {
	Label           int32   `msg:"l"`
	Iterations      int64   `msg:"it"`
	Updates         int64   `msg:"up"`
	DualObjective   float64 `msg:"do"`
	PrimalObjective float64 `msg:"po"`
	DualityGap      float64 `msg:"gap"`
	NumSV           int64   `msg:"sv"`
	NumBoundSV      int64   `msg:"bsv"`
	Converged       bool    `msg:"cv"`
}
