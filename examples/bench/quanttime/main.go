// Command quanttime measures a float model and its int8 and int16
// quantizations (svmgo quantize) on the same test rows, in process, so that
// examples/bench/quantize.sh can put them side by side.
//
// Usage:
//
//	quanttime [-target 500ms] [-repeat 5] [-max-rows n] test_file float_model int8_model int16_model
//
// The models are model files of one kind: a linear model and its two qlinear
// files, or a kernel model and its two qkernel files; each quantized file must
// record the float file's payload CRC-32C (quantize.Model.SourceCRC), so the
// three are the same model. For each model it measures:
//
//   - accuracy: every row of test_file predicted by the model's batch call
//     (PredictBatchParallel on all CPUs for kernel models, PredictBatch for
//     linear ones), scored by core.ScorePredictions;
//   - batch throughput: one goroutine calling PredictBatch over every test
//     row, calls repeated so that a timing of the float model takes about
//     -target of CPU time; a warm-up call of each model, then -repeat rounds
//     alternating the models (float, int8, int16, then the other way
//     round), median ns per row, wall and CPU time; and per round the
//     model's CPU time over the float model's in that round: the median of
//     those ratios, their least and largest, and how many rounds were ≤ 1;
//   - throughput: one goroutine calling PredictDense (PredictSparse for sparse
//     rows) row after row over the same rows for every model: the first
//     test rows, as many as the float model predicts in -target (at most
//     -max-rows, when positive), in passes repeated so that a timing of the float model
//     lasts about -target. One untimed timing of each model warms it up;
//     then -repeat rounds time the three models in turn (float, int8,
//     int16: a load change hits all three alike) and the median per model
//     gives ns per row and rows per second.
//
// The timed calls must return, row for row, the batch call's predictions; a
// difference is an error. Regression values may differ by the float32
// rounding of a blocked batch (core/linear's blocked dense product, like
// core's blocked kernel path, sums in float32 where a single row sums in
// float64): within regressionTol of their magnitude.
//
// It prints one line of space-separated key=value fields per model:
//
//	model=int8 file_bytes=82750 correct=351 total=360 acc=0.975000 rows=360 passes=3 repeats=5 ns_per_row=26155.2 rows_per_s=38233 batch_calls=40 batch_ns_per_row=12500.0 batch_rows_per_s=80000 batch_cpu_ns_per_row=12400.0 batch_cpu_ratio=0.420 batch_cpu_ratio_min=0.401 batch_cpu_ratio_max=0.455 batch_rounds_le1=5
//
// with mse= and scc= (squared correlation) instead of acc for regression.
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/quantize"
)

func main() {
	target := flag.Duration("target", 500*time.Millisecond, "length of one timing of the float model")
	repeat := flag.Int("repeat", 5, "timed rounds; the median is reported")
	maxRows := flag.Int("max-rows", 0, "most test rows in the throughput set (0: all)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: quanttime [-target 500ms] [-repeat 5] [-max-rows n] test_file float_model int8_model int16_model")
	}
	flag.Parse()
	if flag.NArg() != 4 || *repeat < 1 || *maxRows < 0 || *target <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Arg(0), flag.Args()[1:], *target, *repeat, *maxRows); err != nil {
		fmt.Fprintf(os.Stderr, "quanttime: %v\n", err)
		os.Exit(1)
	}
}

// regressionTol is how far, relative to 1 + |value|, a regression model's
// batch value may be from its single-row value (the quantize package's
// tests allow the same).
const regressionTol = 1e-5

// same reports whether a single-row prediction a and a batch one b agree:
// equal (NaN alike), or for regression within regressionTol.
func same(a, b float64, regression bool) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b) || regression && math.Abs(a-b) <= regressionTol*(1+math.Abs(b))
}

// model is one of the three models under test, as the measurements call it.
type model struct {
	name      string
	fileBytes int
	predict   interface {
		PredictDense(x []float32) float64
		PredictSparse(index []int32, value []float32) float64
		IsRegression() bool
	}
	// batch predicts every row of ds into dst, on all CPUs where the
	// model offers it.
	batch func(dst []float64, ds *data.Dataset) []float64
	// batch1 is PredictBatch: every row of ds on the calling goroutine.
	batch1 func(dst []float64, ds *data.Dataset) []float64
}

// load reads the float model file and its two quantized files.
func load(paths []string) ([]model, int, error) {
	names := []string{"float32", "int8", "int16"}
	b, err := modelfile.ReadBytes(paths[0])
	if err != nil {
		return nil, 0, err
	}
	crc := binary.LittleEndian.Uint32(b[20:24])
	kind, err := modelfile.Kind(b)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", paths[0], err)
	}
	models := make([]model, 3)
	var nf int
	switch kind {
	case modelfile.KindLinear:
		m, err := modelfile.Unmarshal(b)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", paths[0], err)
		}
		models[0] = model{predict: m, batch: m.PredictBatch, batch1: m.PredictBatch}
		nf = m.NumFeatures
	case modelfile.KindKernel:
		m, err := modelfile.UnmarshalKernel(b)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", paths[0], err)
		}
		models[0] = model{predict: m, batch1: m.PredictBatch, batch: func(dst []float64, ds *data.Dataset) []float64 {
			return m.PredictBatchParallel(dst, ds, 0)
		}}
		nf = m.NumFeatures
	default:
		return nil, 0, fmt.Errorf("%s: a %s model, not a float one", paths[0], kind)
	}
	models[0].fileBytes = len(b)
	for i, bits := range []int{8, 16} {
		path := paths[i+1]
		qb, err := modelfile.ReadBytes(path)
		if err != nil {
			return nil, 0, err
		}
		q, err := quantize.Unmarshal(qb)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", path, err)
		}
		switch {
		case q.Bits() != bits:
			return nil, 0, fmt.Errorf("%s: %d-bit codes, want %d", path, q.Bits(), bits)
		case q.SourceCRC() != crc:
			return nil, 0, fmt.Errorf("%s: made from the model of payload CRC %#08x, not %s (%#08x)", path, q.SourceCRC(), paths[0], crc)
		case q.NumFeatures() != nf:
			return nil, 0, fmt.Errorf("%s: %d features, the float model %d", path, q.NumFeatures(), nf)
		}
		models[i+1] = model{predict: q, batch: q.PredictBatch, batch1: q.PredictBatch, fileBytes: len(qb)}
		if k, ok := q.(*quantize.Kernel); ok {
			models[i+1].batch = func(dst []float64, ds *data.Dataset) []float64 { return k.PredictBatchParallel(dst, ds, 0) }
		}
	}
	for i := range models {
		models[i].name = names[i]
	}
	return models, nf, nil
}

// rowSet is the throughput rows: dense rows of the models' width, or
// sparse rows.
type rowSet struct {
	n      int
	nf     int
	dense  []float32 // n × nf, row-major; nil for sparse rows
	index  [][]int32
	values [][]float32
}

// newRowSet takes the first n rows of ds: dense rows as wide as the models
// (a narrower dense row padded with zeros, which the predictors read as
// missing features), or sparse rows, a dense row wider than the models
// listing every feature as the batch calls read it.
func newRowSet(ds *data.Dataset, n, nf int) rowSet {
	r := rowSet{n: n, nf: nf}
	if ds.IsDense() && ds.NumFeatures() <= nf {
		r.dense = make([]float32, n*nf)
		for i := range n {
			copy(r.dense[i*nf:], ds.DenseRow(i))
		}
		return r
	}
	r.index, r.values = make([][]int32, n), make([][]float32, n)
	for i := range n {
		if ds.IsDense() {
			x := ds.DenseRow(i)
			r.index[i], r.values[i] = make([]int32, len(x)), x
			for j := range x {
				r.index[i][j] = int32(j)
			}
			continue
		}
		r.index[i], r.values[i] = ds.SparseRow(i)
	}
	return r
}

// pass predicts rows [0, n) with m, one call a row, into dst.
func (r *rowSet) pass(m *model, n int, dst []float64) {
	p := m.predict
	if r.dense != nil {
		for i := range n {
			dst[i] = p.PredictDense(r.dense[i*r.nf : (i+1)*r.nf])
		}
		return
	}
	for i := range n {
		dst[i] = p.PredictSparse(r.index[i], r.values[i])
	}
}

// pass1 predicts row i with m into dst[i].
func (r *rowSet) pass1(m *model, i int, dst []float64) {
	if r.dense != nil {
		dst[i] = m.predict.PredictDense(r.dense[i*r.nf : (i+1)*r.nf])
		return
	}
	dst[i] = m.predict.PredictSparse(r.index[i], r.values[i])
}

// timing runs passes passes over n rows and returns the nanoseconds a row.
func (r *rowSet) timing(m *model, n, passes int, dst []float64) float64 {
	t0 := time.Now()
	for range passes {
		r.pass(m, n, dst)
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(n*passes)
}

func run(w io.Writer, testFile string, modelFiles []string, target time.Duration, repeat, maxRows int) error {
	models, nf, err := load(modelFiles)
	if err != nil {
		return err
	}
	ds, err := data.ReadFile(testFile, data.ReadOptions{})
	if err != nil {
		return err
	}
	if ds.Len() == 0 {
		return errors.New(testFile + ": no rows")
	}
	regression := models[0].predict.IsRegression()

	// Accuracy on every row, with the batch calls.
	preds := make([][]float64, len(models))
	scores := make([]core.Score, len(models))
	for i := range models {
		preds[i] = models[i].batch(make([]float64, ds.Len()), ds)
		scores[i] = core.ScorePredictions(preds[i], ds.Labels(), regression)
	}

	// The throughput rows: as many as the float model predicts in about
	// target (which also warms it up), up to maxRows; then as many passes
	// over them as make a timing of the float model last about target.
	limit := ds.Len()
	if maxRows > 0 {
		limit = min(limit, maxRows)
	}
	rows := newRowSet(ds, limit, nf)
	dst := make([]float64, rows.n)
	n, t0 := 0, time.Now()
	for n < rows.n && time.Since(t0) < target {
		rows.pass1(&models[0], n, dst)
		n++
	}
	onePass := time.Since(t0)
	passes := max(1, int(math.Round(float64(target)/float64(onePass))))

	// A warm-up timing of each model, checked against its batch call;
	// then the rounds.
	for i := range models {
		rows.timing(&models[i], n, 1, dst)
		for r := range n {
			if !same(dst[r], preds[i][r], regression) {
				return fmt.Errorf("%s: row %d: PredictDense/PredictSparse gives %v, the batch call %v", models[i].name, r+1, dst[r], preds[i][r])
			}
		}
	}
	ns := make([][]float64, len(models))
	for range repeat {
		for i := range models {
			ns[i] = append(ns[i], rows.timing(&models[i], n, passes, dst))
		}
	}

	// Batch throughput: PredictBatch over every test row on one
	// goroutine, as many calls a timing as make the float model's last
	// about target; a warm-up call, then rounds alternating the models.
	// The calls are counted from the first call's CPU time, not its wall
	// time: at a load of 10–20 on two cores the wall time was 3–10× the
	// CPU time, so a round of linear-fashion was 2 calls, 13 ms of CPU,
	// and its ratios spread 0.81–1.14 around the same instructions
	// (float32 and int8 run the one simd.Gemm over the same panels). The
	// least of three calls: one call, in a quiet minute, once took 125 ms
	// of CPU for 4.7 (a collection, or the runtime's start-up threads).
	all := make([]float64, ds.Len())
	one := int64(math.MaxInt64)
	for range 3 {
		c0 := processCPU()
		models[0].batch1(all, ds)
		one = min(one, max(processCPU()-c0, 1))
	}
	calls := max(1, int(math.Round(float64(target)/float64(one))))
	for i := range models {
		models[i].batch1(all, ds)
		for r := range all {
			if !same(all[r], preds[i][r], regression) {
				return fmt.Errorf("%s: row %d: PredictBatch gives %v, PredictBatchParallel %v", models[i].name, r+1, all[r], preds[i][r])
			}
		}
	}
	bns := make([][]float64, len(models))
	bcpu := make([][]float64, len(models))
	for round := range repeat {
		for k := range models {
			i := k
			if round%2 == 1 { // every other round the other way round: no model always goes first
				i = len(models) - 1 - k
			}
			t, c := time.Now(), processCPU()
			for range calls {
				models[i].batch1(all, ds)
			}
			bns[i] = append(bns[i], float64(time.Since(t).Nanoseconds())/float64(calls*ds.Len()))
			bcpu[i] = append(bcpu[i], float64(processCPU()-c)/float64(calls*ds.Len()))
		}
	}
	// Each round's CPU time against the float model's in the same round:
	// a neighbour's burst hits a round's timings alike, so the spread of
	// these ratios says whether a median below 1 is more than noise.
	ratios := make([][]float64, len(models))
	for i := range models {
		for r := range repeat {
			ratios[i] = append(ratios[i], bcpu[i][r]/bcpu[0][r])
		}
	}

	for i, m := range models {
		med := median(ns[i])
		s := scores[i]
		score := fmt.Sprintf("correct=%d total=%d acc=%.6f", s.Correct, s.Total, s.Accuracy())
		if regression {
			score = fmt.Sprintf("total=%d mse=%.6g scc=%.6g", len(preds[i]), s.MSE, s.SquaredCorrelation)
		}
		bmed := median(bns[i])
		q := ratios[i]
		below := 0
		for _, v := range q {
			if v <= 1 {
				below++
			}
		}
		fmt.Fprintf(w, "model=%s file_bytes=%d %s rows=%d passes=%d repeats=%d ns_per_row=%.1f rows_per_s=%.0f batch_calls=%d batch_ns_per_row=%.1f batch_rows_per_s=%.0f batch_cpu_ns_per_row=%.1f batch_cpu_ratio=%.3f batch_cpu_ratio_min=%.3f batch_cpu_ratio_max=%.3f batch_rounds_le1=%d\n",
			m.name, m.fileBytes, score, n, passes, repeat, med, 1e9/med, calls, bmed, 1e9/bmed, median(bcpu[i]),
			median(q), slices.Min(q), slices.Max(q), below)
	}
	return nil
}

// processCPU returns the process's user and system CPU time in
// nanoseconds: pinned to one core (taskset -c 0) on a shared machine, the
// batch's work without its neighbours' (batch_cpu_ns_per_row).
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// median returns the median of v, sorting it.
func median(v []float64) float64 {
	slices.Sort(v)
	k := len(v) / 2
	if len(v)%2 == 1 {
		return v[k]
	}
	return (v[k-1] + v[k]) / 2
}
