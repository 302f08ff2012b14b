package main

import (
	"errors"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/onnx"
)

// exportONNX writes m's ONNX-ML graph (onnx.Encode) into dst and returns
// its length, which it also returns with SVMGO_E_CAPACITY when it does not
// fit (dst is then left as it was). A model ONNX-ML cannot hold (the
// quantized kinds) is SVMGO_E_UNSUPPORTED.
func exportONNX(m core.Model, dst []byte) (int, error) {
	b, err := onnx.Encode(m)
	if errors.Is(err, onnx.ErrNotExportable) {
		return 0, errorf(statusUnsupported, "%w", err)
	}
	if err != nil {
		return 0, err
	}
	if len(b) > len(dst) {
		return len(b), errorf(statusCapacity, "dst_cap is %d, %d bytes needed", len(dst), len(b))
	}
	return copy(dst, b), nil
}
