package modelfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/tinylib/msgp/msgp"
)

// Frame constants.
const (
	// Magic is the first 8 bytes of every model file.
	Magic = "\x89SVM\r\n\x1a\n"
	// HeaderSize is the size in bytes of the frame before the payload.
	HeaderSize = 24
	// Major is the format major version this package writes and reads.
	Major = 1
	// Minor is the newest format minor version this package writes: 1.1
	// added kernel models, 1.2 the quantized kinds, 1.3 the scaling a
	// model carries (sbody.go). It reads every minor version of Major.
	// Linear models are written as 1.0, kernel models as 1.1, quantized
	// models as 1.2 (see the frame), any model with a scaling as 1.3.
	Minor = 3
	// MaxPayload is the largest payload, in bytes, that Marshal writes and
	// Unmarshal accepts: 4 GiB, which holds about a billion float32 weights
	// (say 100M features × 10 classes). Unmarshal refuses a header that
	// claims more, so a damaged length field cannot make a reader wait for
	// or allocate an absurd amount of data.
	MaxPayload = 1 << 32
)

// maxClasses bounds the number of labels, class weights and subproblem
// results in a file. It equals the body's msgp:limit arrays value, which
// TestGeneratedDecoderLimits checks.
const maxClasses = 1 << 16

// The model kinds Kind reports: core's, which every core.Model reports in
// its ModelInfo.Kind.
const (
	// KindLinear is the kind of a linear model file (Marshal, Unmarshal).
	KindLinear = core.KindLinear
	// KindKernel is the kind of a kernel model file (MarshalKernel,
	// UnmarshalKernel), added in format 1.1.
	KindKernel = core.KindKernel
	// KindQLinear is the kind of a quantized linear model file, added in
	// format 1.2; package quantize reads and writes it.
	KindQLinear = core.KindQLinear
	// KindQKernel is the kind of a quantized kernel model file, added in
	// format 1.2; package quantize reads and writes it.
	KindQKernel = core.KindQKernel
)

// The minor version each kind is written with: the oldest that knows it.
const (
	minorLinear    = 0
	minorKernel    = 1
	minorQuantized = 2
)

// MinorQuantized is the format minor version that added the quantized
// kinds, which package quantize registers them with (Codec.Minor).
const MinorQuantized = minorQuantized

// Errors returned by Unmarshal and ReadFile wrap one of these, so that
// callers can tell them apart with errors.Is.
var (
	// ErrNotModel reports input that does not start with Magic.
	ErrNotModel = errors.New("modelfile: not a model file")
	// ErrVersion reports a format major version this package does not
	// read, or a model kind added by a newer minor version.
	ErrVersion = errors.New("modelfile: unsupported format version")
	// ErrTruncated reports input shorter than its frame says.
	ErrTruncated = errors.New("modelfile: truncated")
	// ErrChecksum reports a payload whose CRC-32C does not match the frame.
	ErrChecksum = errors.New("modelfile: checksum mismatch")
	// ErrKind reports a valid model file of another kind than the reader
	// wants: a kernel model given to Unmarshal, a linear one given to
	// UnmarshalKernel, a quantized one given to either. Kind tells which
	// reader to use.
	ErrKind = errors.New("modelfile: wrong model kind")
	// ErrCorrupt reports input that is not a valid model although nothing
	// is missing: a length field past MaxPayload, bytes after the payload,
	// or a payload that passes its checksum but does not decode, has sizes
	// beyond limits or inconsistent with each other, or holds a model that
	// core's Validate refuses.
	ErrCorrupt = errors.New("modelfile: corrupt model")
)

// Marshal returns the model file bytes of m. The output depends only on m's
// fields (Params.Threads excepted, which does not change a model): the same
// model always gives the same bytes. It returns an error, and no bytes, when
// m fails its Validate or exceeds the format's limits (NumFeatures past
// MaxInt32, more than 65536 labels, class weights or subproblem results, a
// payload past MaxPayload); Validate refuses a non-finite bias or weight.
// It does not modify m and is safe for concurrent use.
func Marshal(m *linear.LinearModel) ([]byte, error) {
	if m == nil {
		return nil, errors.New("modelfile: marshal: nil model")
	}
	if err := check(m); err != nil {
		return nil, fmt.Errorf("modelfile: marshal: %w", err)
	}
	// The weights dominate the payload; refuse an oversized model before
	// allocating its blob.
	if uint64(len(m.W))*4 > MaxPayload {
		return nil, fmt.Errorf("modelfile: marshal: %d weights need more than MaxPayload bytes", len(m.W))
	}
	bd := toBody(m)
	out, err := marshalBody(bd, bd.Kind)
	if err != nil {
		return nil, fmt.Errorf("modelfile: marshal: %w", err)
	}
	return out, nil
}

// putHeader writes the frame for payload into h[:HeaderSize].
func putHeader(h []byte, major, minor uint16, payload []byte) {
	copy(h[0:8], Magic)
	binary.LittleEndian.PutUint16(h[8:10], major)
	binary.LittleEndian.PutUint16(h[10:12], minor)
	binary.LittleEndian.PutUint64(h[12:20], uint64(len(payload)))
	binary.LittleEndian.PutUint32(h[20:24], checksum(payload))
}

// check reports why m cannot be written; Unmarshal applies the same checks,
// so whatever Marshal writes, Unmarshal reads back.
func check(m *linear.LinearModel) error {
	if err := m.Validate(); err != nil {
		return err
	}
	switch {
	case m.NumFeatures > math.MaxInt32:
		return fmt.Errorf("%d features, at most %d allowed", m.NumFeatures, math.MaxInt32)
	case len(m.Labels) > maxClasses:
		return fmt.Errorf("%d labels, at most %d allowed", len(m.Labels), maxClasses)
	case len(m.Params.Weights) > maxClasses:
		return fmt.Errorf("%d class weights, at most %d allowed", len(m.Params.Weights), maxClasses)
	case len(m.Result.Subproblems) > maxClasses:
		return fmt.Errorf("%d subproblem results, at most %d allowed", len(m.Result.Subproblems), maxClasses)
	}
	return nil
}

// toBody converts m to the msgpack body.
func toBody(m *linear.LinearModel) *body {
	bd := &body{
		Kind:        KindLinear,
		Solver:      int64(m.Solver),
		NumFeatures: int64(m.NumFeatures),
		Labels:      make([]byte, 4*len(m.Labels)),
		Bias:        m.Bias,
		NrW:         int64(m.NrW()),
		W:           make([]byte, 4*len(m.W)),
		Params: params{
			Solver:      int64(m.Params.Solver),
			C:           m.Params.C,
			Eps:         m.Params.Eps,
			AbsoluteEps: m.Params.AbsoluteEps,
			P:           m.Params.P,
			Bias:        m.Params.Bias,
			MaxIter:     int64(m.Params.MaxIter),
			Seed:        m.Params.Seed,
			Probability: m.Params.Probability,
		},
		Result: result{
			Iterations:      int64(m.Result.Iterations),
			Updates:         m.Result.Updates,
			DualObjective:   m.Result.DualObjective,
			PrimalObjective: m.Result.PrimalObjective,
			DualityGap:      m.Result.DualityGap,
			NumSV:           int64(m.Result.NumSV),
			Converged:       m.Result.Converged,
		},
		Created: m.Created,
		ProbA:   Float64Blob(m.ProbA),
		ProbB:   Float64Blob(m.ProbB),
		Scale:   NewScaleBody(m.Scale),
	}
	bd.Kind = BodyKind(bd.Kind, bd.Scale)
	for i, l := range m.Labels {
		binary.LittleEndian.PutUint32(bd.Labels[4*i:], uint32(l))
	}
	if wi, wx, ok := sparseWeights(m); ok {
		bd.W, bd.WI, bd.WX = nil, wi, wx
	} else {
		for i, w := range m.W {
			binary.LittleEndian.PutUint32(bd.W[4*i:], math.Float32bits(w))
		}
	}
	if len(m.Params.Weights) > 0 {
		bd.Params.Weights = make([]classWeight, len(m.Params.Weights))
		for i, cw := range m.Params.Weights {
			bd.Params.Weights[i] = classWeight{Label: cw.Label, Weight: cw.Weight}
		}
	}
	if len(m.Result.Subproblems) > 0 {
		bd.Result.Subproblems = make([]subproblem, len(m.Result.Subproblems))
		for i, s := range m.Result.Subproblems {
			bd.Result.Subproblems[i] = subproblem{
				Label:           s.Label,
				Iterations:      int64(s.Iterations),
				Updates:         s.Updates,
				DualObjective:   s.DualObjective,
				PrimalObjective: s.PrimalObjective,
				DualityGap:      s.DualityGap,
				NumSV:           int64(s.NumSV),
				NumBoundSV:      int64(s.NumBoundSV),
				Converged:       s.Converged,
			}
		}
	}
	return bd
}

// Unmarshal decodes a linear model file. It never panics, whatever b
// holds, and refuses anything that is not a valid linear model file with an
// error wrapping ErrNotModel (wrong magic), ErrVersion (unknown major
// version, or a model kind added by a newer minor version),
// ErrTruncated (shorter than its frame says), ErrChecksum (payload CRC
// mismatch), ErrKind (a valid file of another kind, such as a kernel model:
// see Kind and UnmarshalKernel) or ErrCorrupt (trailing bytes, an
// undecodable body, sizes beyond limits or inconsistent with each other,
// or a model core refuses), with the detail in the message. The returned
// model shares no memory with b; empty slices (Labels, W, Params.Weights,
// Result.Subproblems) decode as nil, and Params.Threads as 0. It is safe
// for concurrent use.
func Unmarshal(b []byte) (*linear.LinearModel, error) {
	return unmarshalModel(b, KindLinear, fromBody)
}

// unmarshalModel decodes b, a model file of the float kind kind, into its
// body B and converts the body to the model with from, whose refusal is
// ErrCorrupt: Unmarshal and UnmarshalKernel.
func unmarshalModel[B any, PB interface {
	*B
	msgp.Unmarshaler
}, M any](b []byte, kind string, from func(PB) (M, error)) (M, error) {
	var (
		bd   B
		zero M
	)
	if err := decodeBody(b, kind, PB(&bd)); err != nil {
		return zero, err
	}
	m, err := from(PB(&bd))
	if err != nil {
		return zero, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return m, nil
}

// decodeBody checks b's frame and that its body is of kind want, then
// decodes the body into bd.
func decodeBody(b []byte, want string, bd msgp.Unmarshaler) error {
	payload, major, minor, err := openPayload(b)
	if err != nil {
		return err
	}
	kind, err := bodyKind(payload)
	if err != nil {
		return fmt.Errorf("%w: body: %w", ErrCorrupt, err)
	}
	if kind != want {
		return kindError(kind, want, major, minor)
	}
	return DecodeBody(payload, bd)
}

// DecodeBody decodes payload, as Open returns it, into the body bd of its
// kind: the generated decoder's errors and trailing bytes are ErrCorrupt.
func DecodeBody(payload []byte, bd msgp.Unmarshaler) error {
	rest, err := bd.UnmarshalMsg(payload)
	if err != nil {
		return fmt.Errorf("%w: body: %w", ErrCorrupt, err)
	}
	if len(rest) != 0 { // scanShape has checked this already
		return fmt.Errorf("%w: %d bytes after the body", ErrCorrupt, len(rest))
	}
	return nil
}

// The linear kind's entry in the one codec (registry.go).
func init() {
	Register(Codec{
		Kind: KindLinear, Minor: minorLinear, Body: &body{},
		Encode: func(m core.Model) ([]byte, error) { return EncodeAs(m, Marshal) },
		Decode: func(payload []byte) (core.Model, error) { return DecodeAs(payload, fromBody) },
	})
}

// Kind returns the model kind of a model file, KindLinear, KindKernel,
// KindQLinear or KindQKernel, after checking its frame, its checksum and
// the msgpack structure of its body, without decoding the model: the
// kind's decoder (Unmarshal, UnmarshalKernel, or package quantize's for
// the quantized kinds) may still refuse it. Errors are Unmarshal's, a kind this package does not know
// giving ErrVersion (newer minor version) or ErrCorrupt. It never panics
// and, for a known kind, allocates nothing beyond an error.
func Kind(b []byte) (string, error) {
	payload, major, minor, err := openPayload(b)
	if err != nil {
		return "", err
	}
	kind, err := bodyKind(payload)
	if err != nil {
		return "", fmt.Errorf("%w: body: %w", ErrCorrupt, err)
	}
	if knownKind(kind) {
		return kind, nil
	}
	return "", kindError(kind, "", major, minor)
}

// knownKind reports whether the format defines the model kind or a codec
// for it is registered.
func knownKind(kind string) bool {
	_, ok := minorOf(kind)
	return ok
}

// kindError is the error for a body of kind got when a reader wants kind
// want ("" for any known kind): ErrKind for another known kind, ErrVersion
// for an unknown kind in a file newer than this reader, ErrCorrupt for an
// unknown kind otherwise.
func kindError(got, want string, major, minor uint16) error {
	if knownKind(got) {
		return fmt.Errorf("%w: a %s model, want a %s model", ErrKind, got, want)
	}
	if minor > Minor {
		return fmt.Errorf("%w: model kind %q of format %d.%d is not known to this reader (%d.%d)",
			ErrVersion, clip(got), major, minor, Major, Minor)
	}
	if want == "" {
		return fmt.Errorf("%w: model kind %q, want one of %q", ErrCorrupt, clip(got), knownKinds())
	}
	return fmt.Errorf("%w: model kind %q, want %q", ErrCorrupt, clip(got), want)
}

// openPayload checks b's frame and checksum and the msgpack structure of
// its payload, and returns the payload and the format version.
func openPayload(b []byte) (payload []byte, major, minor uint16, err error) {
	if major, minor, _, err = checkFrame(b, uint64(len(b))); err != nil {
		return nil, 0, 0, err
	}
	payload = b[HeaderSize:]
	if want, got := binary.LittleEndian.Uint32(b[20:24]), checksum(payload); got != want {
		return nil, 0, 0, fmt.Errorf("%w: payload CRC-32C %08x, header says %08x", ErrChecksum, got, want)
	}
	if err := scanShape(payload); err != nil {
		return nil, 0, 0, fmt.Errorf("%w: body: %w", ErrCorrupt, err)
	}
	return payload, major, minor, nil
}

// checkFrame checks the frame at the start of h (all of it when h holds at
// least HeaderSize bytes, else as much of the magic as h holds) for a file
// of total bytes, and returns the version and the payload length. Every
// reader of bytes or files checks the frame here, before it reads or
// checksums a payload.
func checkFrame(h []byte, total uint64) (major, minor uint16, size uint64, err error) {
	n := min(len(h), len(Magic))
	if string(h[:n]) != Magic[:n] {
		return 0, 0, 0, fmt.Errorf("%w: bad magic %q", ErrNotModel, h[:n])
	}
	if len(h) < HeaderSize || total < HeaderSize {
		return 0, 0, 0, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrTruncated, min(uint64(len(h)), total), HeaderSize)
	}
	major = binary.LittleEndian.Uint16(h[8:10])
	minor = binary.LittleEndian.Uint16(h[10:12])
	if major != Major {
		return 0, 0, 0, fmt.Errorf("%w: format %d.%d, this reader reads %d.x", ErrVersion, major, minor, Major)
	}
	size = binary.LittleEndian.Uint64(h[12:20])
	have := total - HeaderSize
	switch {
	case size > MaxPayload:
		return 0, 0, 0, fmt.Errorf("%w: header claims a %d-byte payload, more than MaxPayload", ErrCorrupt, size)
	case size > have:
		return 0, 0, 0, fmt.Errorf("%w: payload of %d bytes, header says %d", ErrTruncated, have, size)
	case size < have:
		return 0, 0, 0, fmt.Errorf("%w: %d bytes after the %d-byte payload", ErrCorrupt, have-size, size)
	}
	return major, minor, size, nil
}

// bodyKind returns the value of the body's "k" key, "" when it has none.
// The payload must have passed scanShape. The kind string is copied only
// when it is returned, and it is never longer than the payload.
func bodyKind(payload []byte) (string, error) {
	n, b, err := msgp.ReadMapHeaderBytes(payload)
	if err != nil {
		return "", err
	}
	for range n {
		var key []byte
		if key, b, err = msgp.ReadMapKeyZC(b); err != nil {
			return "", err
		}
		if string(key) != "k" {
			if b, err = msgp.Skip(b); err != nil {
				return "", err
			}
			continue
		}
		var kind []byte
		if kind, _, err = msgp.ReadStringZC(b); err != nil {
			return "", fmt.Errorf("kind: %w", err)
		}
		// No allocation for a known kind; a scaled model's kind
		// (ScaledKindSuffix) is its kind's.
		base, _ := bytes.CutSuffix(kind, []byte(ScaledKindSuffix))
		if k, ok := kindName(base); ok {
			return k, nil
		}
		return string(kind), nil
	}
	return "", nil
}

// clip shortens a string read from a file for an error message.
func clip(s string) string {
	const limit = 40
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}

// fromBody converts a decoded body to a model and checks it as Marshal does.
func fromBody(bd *body) (*linear.LinearModel, error) {
	// toInt converts a stored integer, refusing one that does not fit an
	// int (possible on 32-bit platforms) rather than wrapping it.
	var ints fieldErrs
	toInt := ints.get
	if bd.NumFeatures < 0 || bd.NumFeatures > math.MaxInt32 {
		return nil, fmt.Errorf("feature count %d outside 0..%d", bd.NumFeatures, math.MaxInt32)
	}
	if len(bd.Labels)%4 != 0 {
		return nil, fmt.Errorf("labels blob of %d bytes is not a whole number of int32", len(bd.Labels))
	}
	if len(bd.W)%4 != 0 {
		return nil, fmt.Errorf("weights blob of %d bytes is not a whole number of float32", len(bd.W))
	}
	m := &linear.LinearModel{
		Solver:      linear.LinearSolver(toInt("solver", bd.Solver)),
		NumFeatures: int(bd.NumFeatures),
		Bias:        bd.Bias,
		Params: linear.LinearParams{
			Solver:      linear.LinearSolver(toInt("params solver", bd.Params.Solver)),
			C:           bd.Params.C,
			Eps:         bd.Params.Eps,
			AbsoluteEps: bd.Params.AbsoluteEps,
			P:           bd.Params.P,
			Bias:        bd.Params.Bias,
			MaxIter:     toInt("max iterations", bd.Params.MaxIter),
			Seed:        bd.Params.Seed,
			Probability: bd.Params.Probability,
		},
		Result: linear.TrainResult{
			Iterations:      toInt("iterations", bd.Result.Iterations),
			Updates:         bd.Result.Updates,
			DualObjective:   bd.Result.DualObjective,
			PrimalObjective: bd.Result.PrimalObjective,
			DualityGap:      bd.Result.DualityGap,
			NumSV:           toInt("support vector count", bd.Result.NumSV),
			Converged:       bd.Result.Converged,
		},
		Created: bd.Created,
	}
	if k := len(bd.Labels) / 4; k > 0 {
		m.Labels = make([]int32, k)
		for i := range m.Labels {
			m.Labels[i] = int32(binary.LittleEndian.Uint32(bd.Labels[4*i:]))
		}
	}
	if len(bd.Params.Weights) > 0 {
		m.Params.Weights = make([]core.ClassWeight, len(bd.Params.Weights))
		for i, cw := range bd.Params.Weights {
			m.Params.Weights[i] = core.ClassWeight{Label: cw.Label, Weight: cw.Weight}
		}
	}
	if len(bd.Result.Subproblems) > 0 {
		m.Result.Subproblems = make([]linear.SolveResult, len(bd.Result.Subproblems))
		for i, s := range bd.Result.Subproblems {
			m.Result.Subproblems[i] = linear.SolveResult{
				Label:           s.Label,
				Iterations:      toInt("subproblem iterations", s.Iterations),
				Updates:         s.Updates,
				DualObjective:   s.DualObjective,
				PrimalObjective: s.PrimalObjective,
				DualityGap:      s.DualityGap,
				NumSV:           toInt("subproblem support vector count", s.NumSV),
				NumBoundSV:      toInt("subproblem bound support vector count", s.NumBoundSV),
				Converged:       s.Converged,
			}
		}
	}
	var err error
	if m.ProbA, err = float64s("Platt A", bd.ProbA); err != nil {
		ints.add(err)
	}
	if m.ProbB, err = float64s("Platt B", bd.ProbB); err != nil {
		ints.add(err)
	}
	if err := ints.err(); err != nil {
		return nil, err
	}
	// The weights blob is at most the payload's size, so converting it
	// before checking its length allocates no more than the input holds;
	// Validate then reports the first inconsistency among solver, labels,
	// feature count, bias and weight count.
	if len(bd.W) > 0 {
		m.W = make([]float32, len(bd.W)/4)
	}
	for i := range m.W {
		m.W[i] = math.Float32frombits(binary.LittleEndian.Uint32(bd.W[4*i:]))
	}
	if len(bd.WI) > 0 || len(bd.WX) > 0 {
		w, err := denseWeights(bd, m)
		if err != nil {
			return nil, err
		}
		m.W = w
	}
	if m.Scale, err = ScaleRanges(bd.Kind, bd.Scale, m.NumFeatures); err != nil {
		return nil, err
	}
	if err := check(m); err != nil {
		return nil, err
	}
	if nrW := int64(m.NrW()); bd.NrW != nrW {
		return nil, fmt.Errorf("body says %d decision functions, solver %v with %d labels has %d",
			bd.NrW, m.Solver, len(m.Labels), nrW)
	}
	if m.Solver.IsL1() {
		m.IndexNonzeroRows()
	}
	return m, nil
}
