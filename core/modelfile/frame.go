package modelfile

import (
	"fmt"
	"strings"
)

// Seal and Open frame and unframe a body of any kind: the magic, the
// version rule, the length and CRC checks, MaxPayload and the
// allocation-free structural walk of the body (scanShape) exist once,
// here. The quantized bodies (qbody.go) are encoded and decoded with them
// by MarshalQLinear, MarshalQKernel and UnmarshalQuantized.

// Seal completes a model file whose body has been appended after HeaderSize
// reserved bytes: it writes the frame into file[:HeaderSize] for the
// payload file[HeaderSize:], with the minor version kind is written with
// (the oldest that knows it: 1.2 for the quantized kinds). An encoder
// reserves the header, appends its msgpack body (whose "k" key must be
// kind) and calls Seal:
//
//	out := make([]byte, modelfile.HeaderSize, modelfile.HeaderSize+body.Msgsize())
//	out, err = body.MarshalMsg(out)
//	err = modelfile.Seal(out, modelfile.KindQLinear)
//
// A model with a scaling is sealed with its body's kind, the kind plus
// ScaledKindSuffix, which sets format 1.3.
// It returns an error when the payload is longer than MaxPayload. It panics,
// as for a caller bug, if file is shorter than HeaderSize or kind is not a
// kind this package knows.
func Seal(file []byte, kind string) error {
	if err := seal(file, kind); err != nil {
		return fmt.Errorf("modelfile: %w", err)
	}
	return nil
}

// seal is Seal, its error without the package prefix.
func seal(file []byte, kind string) error {
	if len(file) < HeaderSize {
		panic(fmt.Sprintf("modelfile: Seal: %d bytes, shorter than the %d-byte header", len(file), HeaderSize))
	}
	base, scaled := strings.CutSuffix(kind, ScaledKindSuffix)
	minor, ok := minorOf(base)
	if !ok {
		panic(fmt.Sprintf("modelfile: Seal: unknown model kind %q", kind))
	}
	if scaled {
		minor = minorScaled
	}
	payload := file[HeaderSize:]
	if uint64(len(payload)) > MaxPayload {
		return fmt.Errorf("payload of %d bytes exceeds MaxPayload", len(payload))
	}
	putHeader(file[:HeaderSize], Major, minor, payload)
	return nil
}

// Open checks a model file's frame, its checksum and the msgpack structure
// of its body, as every decoder of this package does, and returns the
// payload (the body, aliasing b) and its kind, one of the Kind constants.
// After Open succeeds, no msgpack array, map, string or bin header in the
// payload claims more elements or bytes than follow it, and containers nest
// at most 32 deep, so a generated decoder run on it allocates in proportion
// to len(b). Errors are Kind's: ErrNotModel, ErrVersion (unknown major
// version, or an unknown kind in a newer minor version), ErrTruncated,
// ErrChecksum or ErrCorrupt (including an unknown kind in a version this
// package knows), each with the detail in the message. It never panics and,
// for a known kind, allocates nothing beyond an error.
func Open(b []byte) (payload []byte, kind string, err error) {
	payload, major, minor, err := openPayload(b)
	if err != nil {
		return nil, "", err
	}
	kind, err = bodyKind(payload)
	if err != nil {
		return nil, "", fmt.Errorf("%w: body: %w", ErrCorrupt, err)
	}
	if !knownKind(kind) {
		return nil, "", kindError(kind, "", major, minor)
	}
	return payload, kind, nil
}

// MarshalQLinear returns the model file bytes of the quantized linear body
// bd (kind "qlinear", format 1.2). It checks only the format's size limit:
// package quantize, which makes the body from its model, is responsible for
// the rest, and UnmarshalQuantized's caller for checking it on the way back.
func MarshalQLinear(bd *QLinearBody) ([]byte, error) { return marshalQuantized(bd, bd.Kind) }

// MarshalQKernel is MarshalQLinear for a quantized kernel body (kind
// "qkernel").
func MarshalQKernel(bd *QKernelBody) ([]byte, error) { return marshalQuantized(bd, bd.Kind) }

// marshalQuantized is marshalBody with its error prefixed by the package.
func marshalQuantized(bd msgpBody, kind string) ([]byte, error) {
	out, err := marshalBody(bd, kind)
	if err != nil {
		return nil, fmt.Errorf("modelfile: %w", err)
	}
	return out, nil
}

// msgpBody is a generated msgp encoder: what marshalBody encodes.
type msgpBody interface {
	MarshalMsg([]byte) ([]byte, error)
	Msgsize() int
}

// marshalBody frames the msgpack encoding of bd, a body whose "k" key is
// kind: every kind's encoder ends here. Its errors carry no package prefix.
func marshalBody(bd msgpBody, kind string) ([]byte, error) {
	out := make([]byte, HeaderSize, HeaderSize+bd.Msgsize())
	out, err := bd.MarshalMsg(out)
	if err != nil {
		return nil, err
	}
	if err := seal(out, kind); err != nil {
		return nil, err
	}
	return out, nil
}
