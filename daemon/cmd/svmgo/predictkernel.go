package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/internal/durable"
)

// predictKernel is svm-predict for a kernel model file: one prediction a
// line, or with prob (-b 1) for C-SVC svm-predict's layout — a "labels"
// line, then the predicted label and each class's probability (%.6g) a row;
// for ε-SVR -b 1 it prints the Laplace model's note and predicts values.
func predictKernel(testFile, modelFile, outFile string, prob, quiet bool, stdout, stderr io.Writer) int {
	m, err := modelfile.ReadKernelFile(modelFile)
	if err != nil {
		return fail(stderr, err)
	}
	switch {
	case prob && !m.HasProbability():
		// svm-predict's words, spelling corrected.
		return fail(stderr, fmt.Errorf("%s: model does not support probability estimates", modelFile))
	case !prob && m.HasProbability() && !quiet:
		fmt.Fprintln(stdout, "Model supports probability estimates, but disabled in prediction.")
	case prob && m.SVMType == core.EpsSVR && !quiet:
		fmt.Fprintf(stdout, "Prob. model for test data: target value = predicted value + z,\nz: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma=%.6g\n", m.ProbA[0])
	}
	ds, err := core.ReadFile(testFile, core.ReadOptions{})
	if err != nil {
		return fail(stderr, err)
	}

	var pred []float64
	if prob && m.SVMType == core.CSVC {
		var out bytes.Buffer
		pred = probabilityLines(&out, m, ds)
		err = durable.WriteFile(outFile, out.Bytes())
	} else {
		pred = m.PredictBatchParallel(make([]float64, ds.Len()), ds, 0)
		err = writeLines(outFile, pred)
	}
	if err != nil {
		return fail(stderr, err)
	}
	if !quiet {
		printScore(stdout, core.ScorePredictions(pred, ds.Labels(), m.IsRegression()), " (classification)")
	}
	return 0
}

// probabilityLines writes svm-predict -b 1's output for a C-SVC model to
// out and returns the predicted labels: the label of highest probability,
// the first in Labels order on a tie.
func probabilityLines(out *bytes.Buffer, m *core.KernelModel, ds *core.Dataset) []float64 {
	out.WriteString("labels")
	for _, l := range m.Labels {
		fmt.Fprintf(out, " %d", l)
	}
	out.WriteByte('\n')
	pred := make([]float64, ds.Len())
	p := make([]float64, m.NumClasses())
	var all []int32 // 0, 1, …: a dense row of another width, read as sparse
	if ds.IsDense() && ds.NumFeatures() != m.NumFeatures {
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
		pred[i] = float64(m.Labels[best])
		fmt.Fprintf(out, "%d", m.Labels[best])
		for _, v := range p {
			fmt.Fprintf(out, " %.6g", v)
		}
		out.WriteByte('\n')
	}
	return pred
}
