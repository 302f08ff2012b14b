package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/textmodel"
)

const importUsage = `usage: svmgo import model_in model_out

Converts a LIBSVM (svm-train) or LIBLINEAR (train) text model, or an
ONNX-ML model (skl2onnx, onnxmltools, svmgo export --format onnx), to a
libsvmgo model file, telling them apart by content (an ONNX file's first
bytes; a text model's first line, svm_type or solver_type). An ONNX graph
holds an optional Scaler and one SVMClassifier, SVMRegressor,
LinearClassifier or LinearRegressor (Cast, Identity and ZipMap ignored);
any other operator is refused by name. The model predicts the same labels and decision values (up to
float32 rounding of support vectors and weights), and the same probabilities
(predict -b 1) for LIBSVM models trained with -b 1 and LIBLINEAR logistic
regression models (L2R_LR, L2R_LR_DUAL). model_out is written
atomically: a failed run leaves none. LIBSVM's precomputed kernel and
LIBLINEAR's ONECLASS_SVM are not supported.
SOURCE_DATE_EPOCH, when set, is recorded as the model's creation time.
`

// importModel is the import command.
func importModel(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, importUsage)
		return 0
	}
	if len(args) != 2 {
		fmt.Fprint(stderr, importUsage)
		return 2
	}
	in, out := args[0], args[1]
	f, err := os.Open(in)
	if err != nil {
		return fail(stderr, err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	// Peek at the first line without consuming it; a model's first line is
	// short, so the peek is bounded.
	first, _ := br.Peek(256)
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	created, stamp, err := sourceDateEpoch()
	if err != nil {
		return fail(stderr, err)
	}
	if head, _ := br.Peek(modelfile.HeaderSize); modelfile.IsONNX(head) {
		m, err := modelfile.ReadFile(in)
		if err != nil {
			return fail(stderr, err)
		}
		if stamp {
			m = core.WithCreated(m, created)
		}
		if err := modelfile.WriteFile(out, m); err != nil {
			return fail(stderr, err)
		}
		return 0
	}
	kind, err := textmodel.DetectTextModel(first)
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", in, err))
	}
	// The text model of either kind, stamped unless SOURCE_DATE_EPOCH
	// says otherwise, written through the one model file writer.
	var m core.Model
	switch kind {
	case textmodel.LIBSVMText:
		var km *core.KernelModel
		if km, err = textmodel.ReadLIBSVMModel(br, in); err == nil && stamp {
			km.Created = created
		}
		m = km
	default:
		var lm *linear.LinearModel
		if lm, err = textmodel.ReadLIBLINEARModel(br, in); err == nil && stamp {
			lm.Created = created
		}
		m = lm
	}
	if err != nil {
		return fail(stderr, err)
	}
	if err := modelfile.WriteFile(out, m); err != nil {
		return fail(stderr, err)
	}
	return 0
}
