package modelfile

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/onnx"
)

// ONNX model files are read by the same opener (DESIGN §5): Decode,
// ReadFile and ReadBytes tell an ONNX-ML file from a model file by its
// first bytes (a model file starts with Magic, an ONNX ModelProto with
// its ir_version field), so an ONNX file published in a model directory,
// given to svmgo predict or to svmgo_model_load is served like any model.
// What package onnx imports is a float linear or kernel model, checked as
// the model file decoders check theirs; writing stays the model file's
// (svmgo import converts, svmgo export --format onnx writes ONNX).

// MaxONNXBytes bounds the size of an ONNX file the opener reads, as
// MaxPayload bounds a model file's payload.
const MaxONNXBytes = MaxPayload

// IsONNX reports whether b starts as an ONNX model file does (onnx.Sniff)
// rather than as a model file; a prefix of HeaderSize bytes is enough.
func IsONNX(b []byte) bool { return onnx.Sniff(b) }

// decodeONNX decodes an ONNX model file. Its errors wrap ErrCorrupt and
// package onnx's ErrMalformed or ErrUnsupported, which name the operator
// or attribute refused.
func decodeONNX(b []byte) (core.Model, error) {
	m, err := onnx.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%w: ONNX: %w", ErrCorrupt, err)
	}
	return m, nil
}
