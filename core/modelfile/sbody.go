package modelfile

//go:generate go run github.com/tinylib/msgp@v1.6.5 -file sbody.go -o sbody_gen.go -io=false

// The scaling body follows the rules of body.go (see its comment): it is
// decoded only from a CRC-checked payload that scanShape has walked, and
// its blobs are zero-copy with their own limit (the largest multiple of 8 a
// msgpack bin32 holds), converted at once by ScaleBody.Ranges.

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/libsvmgo/libsvmgo/core/scale"
)

//msgp:limit arrays:65536 maps:256

// ScaleBody is the optional "xs" field of every kind's body (format 1.3):
// the scaling a model was trained behind (train --scale), svm-scale's
// interval and per-feature ranges. A model with one is written with the
// kind's name plus ScaledKindSuffix, so that a reader older than 1.3,
// which would skip the field and predict raw rows as scaled ones, refuses
// the file (ErrVersion) instead.
type ScaleBody struct {
	// Lower and Upper are the interval features are scaled to.
	Lower float64 `msg:"l" doc:"lower"`
	Upper float64 `msg:"u" doc:"upper"`
	// Min and Max hold each feature's input range, float64 little-endian,
	// one per feature of the model (nf of them).
	Min []byte `msg:"mn,zerocopy,limit=4294967288" doc:"feature minima"`
	Max []byte `msg:"mx,zerocopy,limit=4294967288" doc:"feature maxima"`
}

// ScaledKindSuffix ends the kind written in the body of a model that
// carries a scaling ("linear+scaled"); Kind and the decoders report the
// kind without it.
const ScaledKindSuffix = "+scaled"

// minorScaled is the minor version models with a scaling are written with.
const minorScaled = 3

// NewScaleBody returns the body field of r, nil for a nil r.
func NewScaleBody(r *scale.Ranges) *ScaleBody {
	if r == nil {
		return nil
	}
	sb := &ScaleBody{Lower: r.Lower, Upper: r.Upper, Min: make([]byte, 8*len(r.Min)), Max: make([]byte, 8*len(r.Max))}
	for j := range r.Min {
		binary.LittleEndian.PutUint64(sb.Min[8*j:], math.Float64bits(r.Min[j]))
		binary.LittleEndian.PutUint64(sb.Max[8*j:], math.Float64bits(r.Max[j]))
	}
	return sb
}

// BodyKind returns the kind to write in the body of a model of kind kind
// with scaling sb: kind, plus ScaledKindSuffix when sb is not nil.
func BodyKind(kind string, sb *ScaleBody) string {
	if sb == nil {
		return kind
	}
	return kind + ScaledKindSuffix
}

// ScaleRanges returns the ranges of the decoded field sb of a body whose
// kind field is bodyKind, for a model of numFeatures features; nil when
// the model has none. It refuses a kind and a field that disagree
// (ScaledKindSuffix without the field, or the reverse) and ranges that
// core.CheckModelScale refuses.
func ScaleRanges(bodyKind string, sb *ScaleBody, numFeatures int) (*scale.Ranges, error) {
	if strings.HasSuffix(bodyKind, ScaledKindSuffix) != (sb != nil) {
		return nil, fmt.Errorf("kind %q and the presence of a scaling disagree", clip(bodyKind))
	}
	if sb == nil {
		return nil, nil
	}
	if len(sb.Min)%8 != 0 || len(sb.Max) != len(sb.Min) || len(sb.Min)/8 != numFeatures {
		return nil, fmt.Errorf("scaling blobs of %d and %d bytes for %d features", len(sb.Min), len(sb.Max), numFeatures)
	}
	r := &scale.Ranges{Lower: sb.Lower, Upper: sb.Upper, Min: make([]float64, numFeatures), Max: make([]float64, numFeatures)}
	for j := range numFeatures {
		r.Min[j] = math.Float64frombits(binary.LittleEndian.Uint64(sb.Min[8*j:]))
		r.Max[j] = math.Float64frombits(binary.LittleEndian.Uint64(sb.Max[8*j:]))
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// scaledMinor returns the minor version to write a kind's model with:
// its own, or minorScaled with a scaling.
func scaledMinor(minor uint16, sb *ScaleBody) uint16 {
	if sb != nil {
		return minorScaled
	}
	return minor
}
