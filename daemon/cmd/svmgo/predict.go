package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/fileio"
)

const predictUsage = `usage: svmgo predict [options] test_file model_file output_file
options:
-b probability_estimates : whether to predict probability estimates, 0 or 1
   (default 0): kernel C-SVC and epsilon-SVR models trained with -b 1, linear
   logistic regression models (-s 0, -s 7) and linear SVC models trained with
   -b 1 (float or quantized). The output file then starts with a "labels" line
   and holds the predicted label and each class's probability a row.
-q : quiet mode (no outputs)
` + readFlagsUsage + `
model_file is a libsvmgo model file: linear or kernel, float or quantized
(svmgo quantize). test_file is in LIBSVM format (or CSV when it ends in
.csv); its labels are compared with the predictions. output_file gets one
prediction a line; it is written atomically, so a failed run leaves none.
`

func predict(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, predictUsage)
		return 0
	}
	args, readOpt, err := takeReadFlags(args)
	if err != nil {
		return fail(stderr, fmt.Errorf("predict: %w", err))
	}
	quiet, prob := false, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		switch args[0] {
		case "-q":
			quiet = true
		case "-b":
			if len(args) < 2 || (args[1] != "0" && args[1] != "1") {
				return fail(stderr, fmt.Errorf("predict: option -b wants 0 or 1"))
			}
			prob = args[1] == "1"
			args = args[1:]
		default:
			return fail(stderr, fmt.Errorf("predict: unknown option %s", args[0]))
		}
		args = args[1:]
	}
	if len(args) != 3 {
		fmt.Fprint(stderr, predictUsage)
		return 2
	}
	testFile, modelFile, outFile := args[0], args[1], args[2]
	// One read of the file, whatever its kind, validated as every loader
	// validates it.
	m, err := readModelFile(modelFile)
	if err != nil {
		return fail(stderr, err)
	}
	info := m.Info()
	if info.Kernel {
		return predictKernel(m, info, testFile, modelFile, outFile, readOpt, prob, quiet, stdout, stderr)
	}
	if prob && !info.Probability {
		return fail(stderr, fmt.Errorf("%s: probability output (-b 1) needs a logistic regression model (-s 0, -s 7) or an SVC model trained with -b 1", modelFile))
	}
	ds, err := data.ReadFile(testFile, readOpt)
	if err != nil {
		return fail(stderr, err)
	}
	var pred []float64
	if prob {
		// liblinear-predict -b 1's layout, which is svm-predict's.
		var out bytes.Buffer
		pred = probabilityLines(&out, m.(core.ProbabilityModel), info.Labels, info.NumFeatures, ds)
		err = fileio.WriteFile(outFile, out.Bytes())
	} else {
		pred = m.PredictBatch(make([]float64, ds.Len()), ds)
		err = writeLines(outFile, pred)
	}
	if err != nil {
		return fail(stderr, err)
	}
	if !quiet {
		printScore(stdout, core.ScorePredictions(pred, ds.Labels(), info.Task == core.TaskRegression), "")
	}
	return 0
}

// writeLines writes one value a line ("%g", as liblinear-predict and
// svm-predict do) to path, atomically.
func writeLines(path string, values []float64) error {
	buf := make([]byte, 0, 8*len(values))
	for _, v := range values {
		buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		buf = append(buf, '\n')
	}
	return fileio.WriteFile(path, buf)
}

// printScore prints the report of liblinear-predict and svm-predict: MSE
// and squared correlation for regression, else the accuracy line followed
// by suffix (svm-predict adds " (classification)").
func printScore(w io.Writer, s core.Score, suffix string) {
	if s.Regression {
		fmt.Fprintf(w, "Mean squared error = %.6g (regression)\n", s.MSE)
		fmt.Fprintf(w, "Squared correlation coefficient = %.6g (regression)\n", s.SquaredCorrelation)
		return
	}
	fmt.Fprintf(w, "Accuracy = %.6g%% (%d/%d)%s\n", 100*s.Accuracy(), s.Correct, s.Total, suffix)
}
