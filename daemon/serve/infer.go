package serve

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"google.golang.org/grpc/codes"

	"github.com/libsvmgo/libsvmgo/core"
)

// The output tensors an inference can return. Label is returned when a
// request names no outputs.
const (
	// OutputLabel is the prediction of each row: the class label as INT64
	// (classification; ±1 for a one-class model) or the value as FP64
	// (regression), shape [N].
	OutputLabel = "label"
	// OutputDecision is the decision values of each row as FP64, shape
	// [N, K] (K: one per class pair of a kernel C-SVC model, one per class
	// of a multi-class linear model, else 1), in the order svmgo predict
	// and LIBSVM write them.
	OutputDecision = "decision"
	// OutputProbability is the class probabilities of each row as FP64,
	// shape [N, C], in the order of the model's labels (the metadata's
	// "labels" property), for models trained with probabilities.
	OutputProbability = "probability"
)

// statusError is an error with the HTTP status and gRPC code it is
// answered with.
type statusError struct {
	http int
	code codes.Code
	msg  string
}

func (e *statusError) Error() string { return e.msg }

// badRequestf is a malformed or unservable request: HTTP 400, gRPC
// INVALID_ARGUMENT.
func badRequestf(format string, args ...any) error {
	return &statusError{http.StatusBadRequest, codes.InvalidArgument, fmt.Sprintf(format, args...)}
}

// tooLargef is a request past a size or row limit: HTTP 413, gRPC
// INVALID_ARGUMENT (RESOURCE_EXHAUSTED is kept for the in-flight bound, a
// condition a retry can pass).
func tooLargef(format string, args ...any) error {
	return &statusError{http.StatusRequestEntityTooLarge, codes.InvalidArgument, fmt.Sprintf(format, args...)}
}

// errBusy is the answer past the in-flight bound: HTTP 429, gRPC
// RESOURCE_EXHAUSTED.
var errBusy = &statusError{http.StatusTooManyRequests, codes.ResourceExhausted, "too many requests in flight; retry later"}

// errDraining is the answer to an inference after shutdown began.
var errDraining = &statusError{http.StatusServiceUnavailable, codes.Unavailable, "server is shutting down"}

// statusOf returns the HTTP status and gRPC code err is answered with.
func statusOf(err error) (int, codes.Code) {
	var se *statusError
	switch {
	case errors.As(err, &se):
		return se.http, se.code
	case errors.Is(err, ErrUnknownModel), errors.Is(err, ErrUnknownVersion):
		return http.StatusNotFound, codes.NotFound
	case errors.Is(err, ErrNotReady):
		return http.StatusBadRequest, codes.Unavailable
	}
	return http.StatusInternalServerError, codes.Internal
}

// outputs are the output tensors a request asks for.
type outputs struct {
	label, decision, probability bool
}

// set sets the output name's flag to on; name is one add accepted.
func (o *outputs) set(name string, on bool) {
	switch name {
	case OutputLabel:
		o.label = on
	case OutputDecision:
		o.decision = on
	case OutputProbability:
		o.probability = on
	}
}

// add asks for the output name, refusing a name the server does not give.
func (o *outputs) add(name string) error {
	switch name {
	case OutputLabel:
		o.label = true
	case OutputDecision:
		o.decision = true
	case OutputProbability:
		o.probability = true
	default:
		return badRequestf("unknown output %q: want %q, %q or %q", name, OutputLabel, OutputDecision, OutputProbability)
	}
	return nil
}

// inference is one request's work, protocol-independent: the input rows
// and the outputs computed from them. The buffers are pooled and grow to
// the largest request seen; a request past the row cap never reaches them.
type inference struct {
	id         string // echoed in the answer
	rows, cols int
	x          []float32 // rows×cols, row-major
	want       outputs
	binary     outputs   // the outputs answered as binary tensor data (REST)
	labels     []float64 // rows
	decision   []float64 // rows × K
	prob       []float64 // rows × C
	k, c       int
	// done is the rows whose outputs are computed. helpers are the
	// server's idle helpers, st what a helper predicting with this
	// inference shares with it, helped whether one does (batchstream.go).
	done    int
	helpers chan *inference
	st      *rowStream
	helped  bool
	body    []byte      // the request body (REST)
	req     restRequest // what was decoded of body (REST)
	out     []byte      // the encoded response (REST)
	turn    bool        // it holds a turn (turns.go)
}

var inferencePool = sync.Pool{New: func() any { return new(inference) }}

// release returns inf to the pool, dropping buffers a huge request grew
// so that one such request does not pin its memory for ever.
func (inf *inference) release() {
	const keep = 1 << 20 // elements
	if cap(inf.x) > keep || cap(inf.decision) > keep || cap(inf.prob) > keep || cap(inf.body) > 4*keep || cap(inf.out) > 4*keep {
		return
	}
	inf.want, inf.binary, inf.id, inf.helpers = outputs{}, outputs{}, "", nil
	inferencePool.Put(inf)
}

// input sizes x for rows×cols values, checking the shape against the
// limits and the model. Its error messages quote a copy of shape, so
// that shape does not escape (a caller's stack array).
func (inf *inference) input(shape []int64, v *version, lim *Limits) error {
	if len(shape) != 2 {
		return badRequestf("input shape %v: want [N, F], rank 2", slices.Clone(shape))
	}
	nf := int64(v.info.NumFeatures)
	if shape[1] != nf {
		return badRequestf("input shape %v: model %s version %s takes %d features a row", slices.Clone(shape), v.model, v.name, nf)
	}
	if shape[0] < 1 {
		return badRequestf("input shape %v: want at least one row", slices.Clone(shape))
	}
	if shape[0] > int64(lim.MaxRows) {
		return tooLargef("input shape %v: more than %d rows a request", slices.Clone(shape), lim.MaxRows)
	}
	inf.rows, inf.cols = int(shape[0]), int(nf)
	inf.x = grow(inf.x, inf.rows*inf.cols)
	inf.done = 0
	return nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// run computes the asked outputs of inf.x on version v (label when none
// was asked) for the rows not yet computed while they arrived, a large
// batch's with an idle helper (batchstream.go).
func (inf *inference) run(v *version) error {
	if err := inf.prepare(v); err != nil {
		return err
	}
	if inf.done < inf.rows && !inf.share(v) {
		inf.runRows(v, inf.done, inf.rows)
	}
	inf.done = inf.rows
	return nil
}

// prepare asks for the label when no output was asked, refuses outputs v
// cannot give, and sizes the outputs for inf.rows rows.
func (inf *inference) prepare(v *version) error {
	if !inf.want.label && !inf.want.decision && !inf.want.probability {
		inf.want.label = true
	}
	if inf.want.probability && v.prob == nil {
		return badRequestf("model %s version %s gives no probabilities (train with -b 1, or a logistic regression)", v.model, v.name)
	}
	n := inf.rows
	if inf.want.label {
		inf.labels = grow(inf.labels, n)
	}
	if inf.want.decision {
		inf.k = v.info.NumDecisionValues
		inf.decision = grow(inf.decision, n*inf.k)
	}
	if inf.want.probability {
		inf.c = len(v.info.Labels)
		inf.prob = grow(inf.prob, n*inf.c)
	}
	return nil
}

// runRows computes the asked outputs of rows [from, to) of inf.x on v,
// which prepare has sized. A row's outputs do not depend on the other rows
// of a blocked predict, so the rows may be computed in runs, each long
// enough for the blocked path (batchstream.go's claims).
func (inf *inference) runRows(v *version, from, to int) {
	m, nf := v.Model, inf.cols
	if from >= to {
		return
	}
	if inf.want.label {
		m.PredictDenseBatch(inf.labels[from:to], inf.x[from*nf:to*nf])
	}
	if k := inf.k; inf.want.decision {
		for r := from; r < to; r++ {
			m.DecisionDense(inf.decision[r*k:(r+1)*k], inf.x[r*nf:(r+1)*nf])
		}
	}
	if c := inf.c; inf.want.probability {
		for r := from; r < to; r++ {
			v.prob.ProbabilityDense(inf.prob[r*c:(r+1)*c], inf.x[r*nf:(r+1)*nf])
		}
	}
}

// labelDatatype is the datatype of v's label output: FP64 for
// regression, INT64 for class labels and one-class ±1.
func (v *version) labelDatatype() string {
	if v.info.Task == core.TaskRegression {
		return "FP64"
	}
	return "INT64"
}
