package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/fileio"
)

// predictKernel is svm-predict for a kernel model m, float or quantized:
// one prediction a line, or with prob (-b 1) for C-SVC svm-predict's
// layout — a "labels" line, then the predicted label and each class's
// probability (%.6g) a row; for ε-SVR -b 1 it prints the Laplace model's
// note and predicts values.
func predictKernel(m core.Model, info core.ModelInfo, testFile, modelFile, outFile string, readOpt data.ReadOptions, prob, quiet bool, stdout, stderr io.Writer) int {
	regression := info.Task == core.TaskRegression
	hasProb := info.Probability || info.LaplaceScale != 0
	switch {
	case prob && !hasProb:
		// svm-predict's words, spelling corrected.
		return fail(stderr, fmt.Errorf("%s: model does not support probability estimates", modelFile))
	case !prob && hasProb && !quiet:
		fmt.Fprintln(stdout, "Model supports probability estimates, but disabled in prediction.")
	case prob && regression && !quiet:
		fmt.Fprintf(stdout, "Prob. model for test data: target value = predicted value + z,\nz: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma=%.6g\n", info.LaplaceScale)
	}
	ds, err := data.ReadFile(testFile, readOpt)
	if err != nil {
		return fail(stderr, err)
	}

	var pred []float64
	if prob && info.Probability {
		var out bytes.Buffer
		pred = probabilityLines(&out, m.(core.ProbabilityModel), info.Labels, info.NumFeatures, ds)
		err = fileio.WriteFile(outFile, out.Bytes())
	} else {
		pred = predictBatch(m, ds)
		err = writeLines(outFile, pred)
	}
	if err != nil {
		return fail(stderr, err)
	}
	if !quiet {
		printScore(stdout, core.ScorePredictions(pred, ds.Labels(), regression), " (classification)")
	}
	return 0
}

// predictBatch predicts every row of ds, on every CPU when the model can
// (a kernel model predicts a row in time proportional to its support
// vectors, so a large batch is worth the goroutines).
func predictBatch(m core.Model, ds *data.Dataset) []float64 {
	dst := make([]float64, ds.Len())
	if p, ok := m.(interface {
		PredictBatchParallel(dst []float64, ds *data.Dataset, workers int) []float64
	}); ok {
		return p.PredictBatchParallel(dst, ds, 0)
	}
	return m.PredictBatch(dst, ds)
}

// probabilityLines writes svm-predict -b 1's output (liblinear-predict
// -b 1's has the same layout) for a model m with class probabilities, of
// the given classes and number of features, to out and returns the
// predicted labels: the label of highest probability, the first in labels
// order on a tie.
func probabilityLines(out *bytes.Buffer, m core.ProbabilityModel, labels []int32, nf int, ds *data.Dataset) []float64 {
	out.WriteString("labels")
	for _, l := range labels {
		fmt.Fprintf(out, " %d", l)
	}
	out.WriteByte('\n')
	pred := make([]float64, ds.Len())
	p := make([]float64, len(labels))
	var all []int32 // 0, 1, …: a dense row of another width, read as sparse
	if ds.IsDense() && ds.NumFeatures() != nf {
		all = make([]int32, ds.NumFeatures())
		for k := range all {
			all[k] = int32(k)
		}
	}
	for i := range pred {
		switch {
		case !ds.IsDense():
			idx, val := ds.SparseRow(i)
			m.ProbabilitySparse(p, idx, val)
		case all != nil:
			m.ProbabilitySparse(p, all, ds.DenseRow(i))
		default:
			m.ProbabilityDense(p, ds.DenseRow(i))
		}
		best := 0
		for c, v := range p {
			if v > p[best] {
				best = c
			}
		}
		pred[i] = float64(labels[best])
		fmt.Fprintf(out, "%d", labels[best])
		for _, v := range p {
			fmt.Fprintf(out, " %.6g", v)
		}
		out.WriteByte('\n')
	}
	return pred
}
