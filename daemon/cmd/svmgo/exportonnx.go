package main

import (
	"fmt"
	"io"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/onnx"
)

func init() { exportFormats["onnx"] = exportONNX }

// exportONNX is svmgo export --format onnx: the ONNX-ML graph of m,
// written atomically, with what it leaves out said on stderr.
func exportONNX(m core.Model, in, out string, stderr io.Writer) error {
	b, err := onnx.Encode(m)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if err := fileio.WriteFile(out, b); err != nil {
		return err
	}
	for _, c := range onnx.Caveats(m) {
		fmt.Fprintf(stderr, "svmgo export: note: %s\n", c)
	}
	return nil
}
