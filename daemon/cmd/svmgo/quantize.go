package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/quantize"
)

const quantizeUsage = `usage: svmgo quantize [--bits 8|16] [--check test_file] model_in model_out

Quantizes a float model file (linear or kernel) into a smaller one that
predicts nearly the same, faster (package quantize): linear weights to
symmetric codes with one scale per decision function, support vectors to
per-feature affine codes. model_out is a qlinear or qkernel model file
(format 1.2) that svmgo predict and svmgo inspect read; it is written
atomically, so a failed run leaves none.

Prints the file sizes before and after, and whether batch predictions
with model_out pay on this machine: PredictBatch of both models on the
same rows (test_file's with --check, else a kernel model's own support
vectors), one goroutine, alternated, timed; model_out pays when it takes
no more time than model_in, and when it does not the line says why and
to predict batches with model_in. With --check, also predicts
test_file (LIBSVM format, or CSV when it ends in .csv) with both models and
prints the largest change of a decision value over its rows, the largest
error bound (package quantize's bound on that change; every change must be
within its own) and on how many rows it proves the decision signs
unchanged (none: the bound is vacuous there), and the accuracy of both
models (mean squared error and squared correlation for regression).

flags:
--bits n          width of the codes: 8 (int8, the smallest) or 16 (int16,
                  the most accurate); default 8
--check test_file data to compare the two models on
--max-loss x      with --check, refuse (exit 1, model_out not written) a
                  quantized model that loses more than x accuracy points
                  on test_file (regression: x percent of mean squared error)
--max-line-bytes n refuse a test_file with a line longer than n bytes
                  (default 1048576)
--no-timing       do not time batch predictions (a large model's timing
                  takes a second or more)
--force           write a kernel model whose codes change the labels of
                  more than 1% (and at least 4) of the float model's own
                  support vectors,
                  which is otherwise refused (exit 1, model_out not
                  written, the reason printed: typically features whose
                  range a few outliers stretch, so that int8 leaves their
                  other values a handful of codes; --bits 16 keeps them)
`

// quantizeCmd is the quantize command.
func quantizeCmd(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		fmt.Fprint(stdout, quantizeUsage)
		return 0
	}
	fs := flag.NewFlagSet("quantize", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the errors are printed below, once
	bitsFlag := fs.String("bits", "8", "")
	checkFile := fs.String("check", "", "")
	maxLoss := fs.Float64("max-loss", -1, "")
	noTiming := fs.Bool("no-timing", false, "")
	force := fs.Bool("force", false, "")
	maxLine := fs.Int(maxLineBytesFlag[2:], data.DefaultMaxLineBytes, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, quantizeUsage)
			return 0
		}
		fmt.Fprintf(stderr, "svmgo quantize: %v\n%s", err, quantizeUsage)
		return 2
	}
	if fs.NArg() != 2 {
		fmt.Fprint(stderr, quantizeUsage)
		return 2
	}
	in, out := fs.Arg(0), fs.Arg(1)
	if *maxLine < 1 {
		return fail(stderr, fmt.Errorf("quantize: %s %d: want a positive number of bytes", maxLineBytesFlag, *maxLine))
	}
	var bits int
	switch *bitsFlag {
	case "8":
		bits = 8
	case "16":
		bits = 16
	default:
		return fail(stderr, fmt.Errorf("quantize: --bits %q: want 8 or 16", *bitsFlag))
	}

	src, err := loadFloatModel(in)
	if err != nil {
		return fail(stderr, err)
	}
	// The check file is read before anything is written, so that a bad
	// one leaves no model_out behind.
	var check *data.Dataset
	if *checkFile != "" {
		if check, err = data.ReadFile(*checkFile, data.ReadOptions{MaxLineBytes: *maxLine}); err != nil {
			return fail(stderr, err)
		}
	}
	q, err := src.quantize(bits)
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", in, err))
	}
	// modelfile.WriteFile's two steps, with a check between them: the bytes
	// must decode, or svmgo predict, the daemon and the C library would
	// refuse the file. The comparison uses the decoded model: the file's.
	b, err := quantize.Marshal(q)
	if err != nil {
		return fail(stderr, fmt.Errorf("%s: %w", in, err))
	}
	if q, err = quantize.Unmarshal(b); err != nil {
		return fail(stderr, fmt.Errorf("%s: the quantized model does not read back, not written: %w", out, err))
	}
	// The support vectors lie where the labels change: a model that
	// changes theirs is not the model it was made from (quantize's
	// CheckFaithful), whatever its bounds say.
	svChanged, svChecked, err := quantize.CheckFaithful(src.model, q)
	if err != nil && !*force {
		return fail(stderr, fmt.Errorf("%s not written: %w (--force writes it anyway)", out, err))
	}
	var cmp checkResult
	if check != nil {
		cmp = compareModels(src, q, check)
		if loss := cmp.loss(q.IsRegression()); *maxLoss >= 0 && loss > *maxLoss {
			return fail(stderr, fmt.Errorf("%s not written: the quantized model loses %.4g %s on %s, more than --max-loss %g",
				out, loss, lossUnit(q.IsRegression()), *checkFile, *maxLoss))
		}
	} else if *maxLoss >= 0 {
		return fail(stderr, errors.New("quantize: --max-loss needs --check test_file to measure the loss on"))
	}
	if err := modelfile.WriteBytes(out, b); err != nil {
		return fail(stderr, err)
	}
	outSize := int64(len(b))

	s := &sheet{}
	s.row("model_in", fmt.Sprintf("%s: %s, %s B", in, src.describe(), commas(src.size)))
	s.row("model_out", fmt.Sprintf("%s: %s int%d, %s B", out, q.Kind(), bits, commas(outSize)))
	size := fmt.Sprintf("%.2f%% of model_in", 100*float64(outSize)/float64(src.size))
	if outSize <= src.size {
		size += fmt.Sprintf(" (%.2f× smaller)", float64(src.size)/float64(outSize))
	} else {
		// Possible for a kernel model of few, sparse support vectors over
		// many features: each feature costs a scale and an offset.
		size += fmt.Sprintf(" (%.2f× larger: the per-feature scales outweigh the codes; keep the float model)",
			float64(outSize)/float64(src.size))
	}
	s.row("size", size)
	s.row("source CRC-32C", crcText(q.SourceCRC())+" (model_in's payload, recorded in model_out)")
	if svChecked > 0 {
		s.row("support vectors", fmt.Sprintf("labels of %d of %d changed (model_in's own support vectors; refused above %g%% without --force)",
			svChanged, svChecked, 100*quantize.MaxSupportVectorChange))
	}
	if *noTiming {
		s.row("batch predict", "not timed (--no-timing)")
	} else {
		s.row("batch predict", batchVerdict(src, q, check, *checkFile))
	}
	if check != nil {
		checkRows(s, *checkFile, cmp, q.IsRegression())
	}
	s.flush()
	if _, err := stdout.Write(s.buf.Bytes()); err != nil {
		return fail(stderr, err)
	}
	return 0
}

// floatModel is a float model file read for quantization.
type floatModel struct {
	model core.Model
	size  int64 // bytes of the file
}

// loadFloatModel reads the float model file at path (once, as every
// loader reads a model file), refusing a quantized one: quantizing codes
// again would only add error.
func loadFloatModel(path string) (*floatModel, error) {
	data, err := modelfile.ReadBytes(path)
	if err != nil {
		return nil, withImportHint(err, path)
	}
	m, err := modelfile.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, path)
	}
	if q, ok := m.(quantize.Model); ok {
		return nil, fmt.Errorf("%s: already quantized (%s, int%d): quantize the float model it was made from "+
			"(payload CRC-32C %s)", path, q.Kind(), q.Bits(), crcText(q.SourceCRC()))
	}
	return &floatModel{model: m, size: int64(len(data))}, nil
}

// quantize returns the model quantized to bits-bit codes; a kind quantize
// has no algorithm for is an error.
func (f *floatModel) quantize(bits int) (quantize.Model, error) {
	return quantize.Quantize(f.model, bits)
}

// describe names the model's kind and formulation.
func (f *floatModel) describe() string {
	kind := f.model.Info().Kind
	if d, ok := f.model.(interface{ Formulation() string }); ok {
		return fmt.Sprintf("%s (%s)", kind, d.Formulation())
	}
	return kind
}

// numFeatures returns the model's number of input features.
func (f *floatModel) numFeatures() int { return f.model.Info().NumFeatures }

// checkResult is the comparison of a float model and its quantized model
// on the rows of a check file.
type checkResult struct {
	rows int
	// maxChange is the largest |quantized − float| over every decision
	// value of every row, at decision value maxValue of row maxRow.
	maxChange        float64
	maxRow, maxValue int
	// maxBound is the largest error bound; outside counts the decision
	// values whose change exceeds their own bound (0 unless quantize's
	// bound is wrong).
	maxBound float64
	outside  int
	// guaranteed counts the rows where every decision value's bound is
	// below its magnitude: there the bound proves the sign unchanged.
	// None such: the bound is vacuous on these rows.
	guaranteed int
	// changed counts the rows whose prediction differs.
	changed      int
	float, quant core.Score
}

// compareModels predicts every row of ds with the float model f and its
// quantized model q, on all CPUs (the bound costs about two predictions a
// row, so a large check file takes a while on one).
func compareModels(f *floatModel, q quantize.Model, ds *data.Dataset) checkResult {
	fm := f.model
	n := ds.Len()
	nf := f.numFeatures()
	predF, predQ := make([]float64, n), make([]float64, n)
	// A dense row of another width than the model's is passed as a sparse
	// row listing every feature, as the predictors' batch calls read it.
	var all []int32
	if ds.IsDense() && ds.NumFeatures() != nf {
		all = make([]int32, ds.NumFeatures())
		for j := range all {
			all[j] = int32(j)
		}
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), n))
	parts := make([]checkResult, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nd := q.NumDecisionValues()
			decF, decQ, bound := make([]float64, nd), make([]float64, nd), make([]float64, nd)
			r := &parts[w]
			r.maxRow = -1
			for i := w * n / workers; i < (w+1)*n/workers; i++ {
				switch {
				case !ds.IsDense():
					idx, val := ds.SparseRow(i)
					fm.DecisionSparse(decF, idx, val)
					q.DecisionSparse(decQ, idx, val)
					q.ErrorBoundSparse(bound, idx, val)
				case all != nil:
					x := ds.DenseRow(i)
					fm.DecisionSparse(decF, all, x)
					q.DecisionSparse(decQ, all, x)
					q.ErrorBoundSparse(bound, all, x)
				default:
					x := ds.DenseRow(i)
					fm.DecisionDense(decF, x)
					q.DecisionDense(decQ, x)
					q.ErrorBoundDense(bound, x)
				}
				sure := true
				for k := range decQ {
					sure = sure && bound[k] < math.Abs(decF[k])
					d := math.Abs(decQ[k] - decF[k])
					if d > r.maxChange || r.maxRow < 0 {
						r.maxChange, r.maxRow, r.maxValue = d, i, k
					}
					r.maxBound = max(r.maxBound, bound[k])
					if !(d <= bound[k]) {
						r.outside++
					}
				}
				if sure {
					r.guaranteed++
				}
				predF[i], predQ[i] = fm.LabelOf(decF), q.LabelOf(decQ)
			}
		}()
	}
	wg.Wait()
	res := checkResult{rows: n, maxRow: -1}
	for _, p := range parts {
		if p.maxRow >= 0 && (res.maxRow < 0 || p.maxChange > res.maxChange) {
			res.maxChange, res.maxRow, res.maxValue = p.maxChange, p.maxRow, p.maxValue
		}
		res.maxBound = max(res.maxBound, p.maxBound)
		res.outside += p.outside
		res.guaranteed += p.guaranteed
	}
	for i := range predF {
		if predF[i] != predQ[i] {
			res.changed++
		}
	}
	res.float = core.ScorePredictions(predF, ds.Labels(), q.IsRegression())
	res.quant = core.ScorePredictions(predQ, ds.Labels(), q.IsRegression())
	return res
}

// checkRows adds the comparison on the check file to s.
func checkRows(s *sheet, path string, r checkResult, regression bool) {
	s.row("check", fmt.Sprintf("%s: %s rows", path, commas(r.rows)))
	if r.rows == 0 {
		return
	}
	s.row("largest decision value change", fmt.Sprintf("%.6g (row %d, decision value %d)", r.maxChange, r.maxRow+1, r.maxValue+1))
	within := "every change within its bound"
	if r.outside > 0 {
		within = fmt.Sprintf("%d changes OUTSIDE their bound", r.outside)
	}
	s.row("largest error bound", fmt.Sprintf("%.6g (%s)", r.maxBound, within))
	switch {
	case regression:
	case r.guaranteed == 0:
		s.row("bound guarantees", "nothing here: it exceeds a decision value of every row (vacuous; judge by the measured change and accuracy)")
	default:
		s.row("bound guarantees", fmt.Sprintf("the decision signs of %d of %d rows", r.guaranteed, r.rows))
	}
	if regression {
		s.row("mean squared error", fmt.Sprintf("float %.6g, quantized %.6g", r.float.MSE, r.quant.MSE))
		s.row("squared correlation", fmt.Sprintf("float %.6g, quantized %.6g", r.float.SquaredCorrelation, r.quant.SquaredCorrelation))
		return
	}
	s.row("accuracy", fmt.Sprintf("float %.6g%% (%d/%d), quantized %.6g%% (%d/%d)",
		100*r.float.Accuracy(), r.float.Correct, r.float.Total, 100*r.quant.Accuracy(), r.quant.Correct, r.quant.Total))
	s.row("predictions changed", fmt.Sprintf("%d of %d", r.changed, r.rows))
}

// loss is what --max-loss compares: the accuracy lost in percentage
// points (classification), or the mean squared error's increase in percent
// (regression); negative when the quantized model does better.
func (r checkResult) loss(regression bool) float64 {
	if regression {
		if r.float.MSE == 0 {
			return 100 * r.quant.MSE
		}
		return 100 * (r.quant.MSE - r.float.MSE) / r.float.MSE
	}
	return 100 * (r.float.Accuracy() - r.quant.Accuracy())
}

// lossUnit names loss's unit.
func lossUnit(regression bool) string {
	if regression {
		return "% of mean squared error"
	}
	return "accuracy points"
}

// crcText prints a CRC-32C as inspect and quantize show it.
func crcText(c uint32) string { return fmt.Sprintf("0x%08x", c) }

// batchRounds and batchRoundTime shape batchTiming: alternated rounds of
// each model, each at least batchRoundTime of the float model's calls, on
// at most batchSampleRows rows, fewer (see batchMinRows) when a call of
// either model takes longer than a round; the whole timing then takes
// about 2·batchRounds·batchRoundTime, more for a large model.
const (
	batchRounds     = 5
	batchRoundTime  = 10 * time.Millisecond
	batchSampleRows = 512
	// batchMinRows keeps a block of rows (the blocked products take 64 to
	// 128) where a call on them takes at most ten rounds' time, so that a
	// large model's timing times its blocks.
	batchMinRows = 128
	// batchNoise is how far apart alternated timings of one model fell
	// on the 2-core machine under load (digits linear, 5 rounds, wall
	// time; CPU time and paired rounds fall closer).
	batchNoise = 0.05
)

// batchVerdict is the quantizer's statement on batch speed (issue 30: a
// quantized model should never be the slow choice, or the quantizer says
// so and why): the measured ratio of q's batch time to the float model's
// on check's rows, or on a kernel model's support vectors without check,
// and whether q pays; a linear model without check is not timed.
func batchVerdict(src *floatModel, q quantize.Model, check *data.Dataset, checkFile string) string {
	rows, what := check, "rows of "+checkFile
	if rows == nil {
		km, ok := src.model.(*core.KernelModel)
		if !ok || km.SV.Len() == 0 {
			return "not timed (give --check test_file to time PredictBatch of both models)"
		}
		rows, what = km.SV, "support vectors of model_in"
	}
	if rows.Len() == 0 {
		return "not timed (no rows)"
	}
	ratio, n, clock := batchTiming(src.model, q, rows.Prefix(min(rows.Len(), batchSampleRows)))
	measured := fmt.Sprintf("%.2f× model_in's %s time (PredictBatch on %d %s, one goroutine, median of %d alternated rounds' ratios)",
		ratio, clock, n, what, batchRounds)
	switch {
	case ratio <= 1:
		return measured + ": pays"
	case ratio <= 1+batchNoise:
		return measured + fmt.Sprintf(": on a par with model_in (within %.0f%%, this timing's noise)", 100*batchNoise)
	}
	why := "the quantized product and its per-row input encoding cost more than the float32 product here"
	if _, ok := q.(*quantize.Linear); ok {
		why = "its batches do the float model's products on the codes (quantize/linearblock.go), measured no slower on every shared set; here and now the timing met a load it did not cancel"
	}
	if k, ok := q.(*quantize.Kernel); ok {
		var pays bool
		if pays, why = k.BatchPays(); pays {
			why = "slower here and now than the quieter measurement behind quantize.Kernel.BatchPays: " + why
		}
	}
	return measured + ": does not pay (" + why + "); quantize for size, predict batches with model_in for speed"
}

// batchTiming returns the median over batchRounds rounds of q's time for
// PredictBatch over rows (or its first rows, see batchRoundTime) divided
// by the float model f's in the same round, one goroutine, each round as
// many calls of each as make batchRoundTime of f's, f first in even rounds
// and q in odd ones; the number of rows timed; and the clock, "CPU" (the
// process's, which a neighbour's load does not stretch) where the system
// reports it, else "wall". A load burst stretches both halves of a round
// alike, so the round's ratio survives it where a median of each model's
// times does not (a 24.9× verdict on heart_scale's linear model at load 16).
func batchTiming(f, q core.Model, rows *data.Dataset) (float64, int, string) {
	dst := make([]float64, rows.Len())
	once := func(m core.Model) time.Duration {
		t := time.Now()
		m.PredictBatch(dst, rows)
		return time.Since(t)
	}
	// One call of each (which warms pools and packed panels) sizes the rows.
	rows = rows.Prefix(timedRows(rows.Len(), max(once(f), once(q))))
	calls, t0 := 0, time.Now()
	for calls == 0 || time.Since(t0) < batchRoundTime {
		f.PredictBatch(dst, rows)
		calls++
	}
	clock := "CPU"
	if _, ok := processCPU(); !ok {
		clock = "wall"
	}
	elapsed := func(m core.Model) float64 {
		c0, _ := processCPU()
		t := time.Now()
		for range calls {
			m.PredictBatch(dst, rows)
		}
		if c1, ok := processCPU(); ok {
			return c1 - c0
		}
		return time.Since(t).Seconds()
	}
	ratios := make([]float64, batchRounds)
	for r := range ratios {
		if r%2 == 0 {
			tf := elapsed(f)
			ratios[r] = elapsed(q) / tf
		} else {
			tq := elapsed(q)
			ratios[r] = tq / elapsed(f)
		}
	}
	return medianOf(ratios), rows.Len(), clock
}

// timedRows returns how many of n rows to time when one call on all n
// took d: all when that is at most batchRoundTime, else as many as take
// about batchRoundTime, but a block (batchMinRows) where that takes at most
// ten rounds' time; at least 1, at most n.
func timedRows(n int, d time.Duration) int {
	if d <= batchRoundTime {
		return n
	}
	per := float64(n) / float64(d) // rows a nanosecond
	k := int(per * float64(batchRoundTime))
	if k < batchMinRows {
		k = min(batchMinRows, int(per*float64(10*batchRoundTime)))
	}
	return max(1, min(k, n))
}

// medianOf returns the median of v, sorting it.
func medianOf(v []float64) float64 {
	slices.Sort(v)
	return (v[(len(v)-1)/2] + v[len(v)/2]) / 2
}
