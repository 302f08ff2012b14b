package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/textmodel"
)

const exportUsage = `usage: svmgo export --format libsvm|liblinear|onnx model_file out_file

Writes a libsvmgo model as a LIBSVM (svm-predict) or LIBLINEAR
(liblinear-predict) text model, which those tools read with the labels
svmgo predict gives: --format libsvm for a kernel model, liblinear for a
linear one. Probability parameters go along where the format has them
(LIBSVM's probA/probB); a linear SVC's Platt parameters and the softmax of
a multinomial model (-s 40, written as L2R_LR: same labels, other
probabilities) do not. Quantized models and models trained with --scale
are refused: export the float model, and scale rows with svm-scale.
svmgo import converts the other way.

--format onnx writes an ONNX-ML graph of any float model (see
core/onnx's documentation for the mapping) and prints on stderr what the
graph leaves out; quantized models are refused. --format c writes C for
a microcontroller (svmgo export --format c --help).
`

// exportFormats are the formats beside the text ones, each in its own
// file, registered there by name.
var exportFormats = map[string]func(m core.Model, in, out string, stderr io.Writer) error{}

// exportModel is svmgo export.
func exportModel(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, exportUsage)
		return 0
	}
	format := ""
	if len(args) > 0 {
		if v, ok := cutFlag(args[0], "--format"); ok {
			format, args = v, args[1:]
		} else if args[0] == "--format" || args[0] == "-format" {
			if len(args) < 2 {
				fmt.Fprint(stderr, exportUsage)
				return 2
			}
			format, args = args[1], args[2:]
		}
	}
	if format == "c" { // a directory of two files and its own flags: not a (model, out) writer
		return exportC(args, stdout, stderr)
	}
	write, other := exportFormats[format]
	if len(args) != 2 || (format != "libsvm" && format != "liblinear" && !other) {
		fmt.Fprint(stderr, exportUsage)
		return 2
	}
	in, out := args[0], args[1]
	m, err := readModelFile(in)
	if err != nil {
		return fail(stderr, err)
	}
	if other {
		if err := write(m, in, out, stderr); err != nil {
			return fail(stderr, err)
		}
		return 0
	}
	switch want := textmodel.Format(m); {
	case want == "":
		return fail(stderr, fmt.Errorf("%s: a %s model (quantized): export its float model", in, m.Info().Kind))
	case want != format:
		return fail(stderr, fmt.Errorf("%s: a %s model: export it with --format %s", in, m.Info().Kind, want))
	}
	var buf bytes.Buffer
	err = textmodel.Write(&buf, m)
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", in, err))
	}
	if err := fileio.WriteFile(out, buf.Bytes()); err != nil {
		return fail(stderr, err)
	}
	return 0
}

// cutFlag returns the value of arg when it is "name=value" or "-name=value"
// without the first dash.
func cutFlag(arg, name string) (string, bool) {
	for _, n := range []string{name, name[1:]} {
		if v, ok := strings.CutPrefix(arg, n+"="); ok {
			return v, true
		}
	}
	return "", false
}
