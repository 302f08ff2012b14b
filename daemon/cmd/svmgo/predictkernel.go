package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// kernelPredictor is a kernel model as predict uses it: a
// *core.KernelModel or a *quantize.Kernel.
type kernelPredictor interface {
	probabilities
	HasProbability() bool
	IsRegression() bool
	PredictBatchParallel(dst []float64, ds *core.Dataset, workers int) []float64
}

// kernelFile is a kernel model file read for predict, float or quantized,
// with the fields the two kinds expose differently.
type kernelFile struct {
	m       kernelPredictor
	svmType core.SVMType
	labels  []int32
	nf      int
	probA   []float64
}

// readKernelFile reads the kernel model file at path, of kind
// modelfile.KindKernel or KindQKernel.
func readKernelFile(path, kind string) (kernelFile, error) {
	if kind == modelfile.KindQKernel {
		q, err := quantize.ReadFile(path)
		if err != nil {
			return kernelFile{}, err
		}
		k, ok := q.(*quantize.Kernel)
		if !ok { // quantize.ReadFile decodes a qkernel file to a *Kernel
			return kernelFile{}, fmt.Errorf("%s: %w: a %s file decoded as %T", path, modelfile.ErrCorrupt, kind, q)
		}
		return kernelFile{k, k.SVMType(), k.Labels(), k.NumFeatures(), k.ProbA()}, nil
	}
	m, err := modelfile.ReadKernelFile(path)
	if err != nil {
		return kernelFile{}, err
	}
	return kernelFile{m, m.SVMType, m.Labels, m.NumFeatures, m.ProbA}, nil
}

// predictKernel is svm-predict for a kernel model file of the given kind,
// float or quantized: one prediction a line, or with prob (-b 1) for C-SVC
// svm-predict's layout — a "labels" line, then the predicted label and
// each class's probability (%.6g) a row; for ε-SVR -b 1 it prints the
// Laplace model's note and predicts values.
func predictKernel(kind, testFile, modelFile, outFile string, prob, quiet bool, stdout, stderr io.Writer) int {
	f, err := readKernelFile(modelFile, kind)
	if err != nil {
		return fail(stderr, err)
	}
	m := f.m
	switch {
	case prob && !m.HasProbability():
		// svm-predict's words, spelling corrected.
		return fail(stderr, fmt.Errorf("%s: model does not support probability estimates", modelFile))
	case !prob && m.HasProbability() && !quiet:
		fmt.Fprintln(stdout, "Model supports probability estimates, but disabled in prediction.")
	case prob && f.svmType == core.EpsSVR && !quiet:
		fmt.Fprintf(stdout, "Prob. model for test data: target value = predicted value + z,\nz: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma=%.6g\n", f.probA[0])
	}
	ds, err := core.ReadFile(testFile, core.ReadOptions{})
	if err != nil {
		return fail(stderr, err)
	}

	var pred []float64
	if prob && f.svmType == core.CSVC {
		var out bytes.Buffer
		pred = probabilityLines(&out, m, f.labels, f.nf, ds)
		err = fileio.WriteFile(outFile, out.Bytes())
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

// probabilities is a C-SVC model with probability estimates: a
// *core.KernelModel or a *quantize.Kernel.
type probabilities interface {
	ProbabilityDense(dst []float64, x []float32) []float64
	ProbabilitySparse(dst []float64, index []int32, value []float32) []float64
}

// probabilityLines writes svm-predict -b 1's output for a C-SVC model m,
// of the given classes and number of features, to out and returns the
// predicted labels: the label of highest probability, the first in labels
// order on a tie.
func probabilityLines(out *bytes.Buffer, m probabilities, labels []int32, nf int, ds *core.Dataset) []float64 {
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
