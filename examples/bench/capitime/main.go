// Command capitime times the Go API's linear predictors on the model and
// rows that examples/bench/capi_latency.c used through the C ABI, so that
// examples/bench/capi.sh can put the two side by side.
//
// Usage:
//
//	capitime [-batch] DIR
//
// DIR holds capi_latency's outputs: model.svmgo, rows.f32 (little-endian
// float32, row-major, NumFeatures a row) and labels.f64 (the labels the
// ABI's batch call returned). It measures, with the monotonic clock:
//
//   - batch: one PredictDenseBatch call over all rows, repeated; the median
//     gives rows per second (the same work as one svmgo_predict_dense_f32
//     call over all rows);
//   - decision: DecisionDense row after row over all rows, repeated, for
//     the cost of the decision values alone;
//   - single: PredictDense of one row, timed in batches of 16 calls as the
//     C benchmark does (cycling through its first 100 rows), median and 99th
//     percentile per call.
//
// It checks that PredictDenseBatch returns exactly the ABI's labels and
// prints one line of key=value fields. With -batch it times the batch
// alone, for capi.sh to alternate with capi_latency --batch.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

const (
	repeats = 21     // batch timings; the median is reported
	calls   = 200000 // single-row calls
	batch   = 16     // calls per clock reading
	// latencyRows is how many rows the single-row calls cycle through, as
	// in capi_latency.c: rows in cache, as an application's fresh row is.
	latencyRows = 100
)

func main() {
	batchOnly := flag.Bool("batch", false, "time PredictDenseBatch only")
	flag.Usage = func() { fmt.Fprintln(os.Stderr, "usage: capitime [-batch] DIR") }
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *batchOnly, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "capitime: %v\n", err)
		os.Exit(1)
	}
}

func run(dir string, batchOnly bool, stdout io.Writer) error {
	m, err := modelfile.ReadFileAs[*linear.LinearModel](filepath.Join(dir, "model.svmgo"))
	if err != nil {
		return err
	}
	nf := m.NumFeatures
	rows, err := readFloat32s(filepath.Join(dir, "rows.f32"))
	if err != nil {
		return err
	}
	if nf == 0 || len(rows)%nf != 0 {
		return fmt.Errorf("rows.f32 holds %d values, not whole rows of %d features", len(rows), nf)
	}
	n := len(rows) / nf
	want, err := readFloat64s(filepath.Join(dir, "labels.f64"))
	if err != nil {
		return err
	}
	if len(want) != n {
		return fmt.Errorf("labels.f64 holds %d labels for %d rows", len(want), n)
	}

	dst := make([]float64, n)
	batchNs := make([]float64, repeats)
	for r := range batchNs {
		t0 := time.Now()
		m.PredictDenseBatch(dst, rows)
		batchNs[r] = float64(time.Since(t0).Nanoseconds())
	}
	agree := 0
	for i, v := range dst {
		if v == want[i] {
			agree++
		}
	}
	if agree != n {
		return fmt.Errorf("the Go API and the C ABI disagree on %d of %d labels", n-agree, n)
	}
	bm := median(batchNs)
	if batchOnly {
		fmt.Fprintf(stdout, "go_batch_median_ms=%.3f go_batch_rows_per_s=%.0f\n", bm/1e6, float64(n)/(bm/1e9))
		return nil
	}

	dec := make([]float64, m.NumDecisionValues())
	decNs := make([]float64, repeats)
	var sink float64
	for r := range decNs {
		t0 := time.Now()
		for i := 0; i < n; i++ {
			sink += m.DecisionDense(dec, rows[i*nf:(i+1)*nf])[0]
		}
		decNs[r] = float64(time.Since(t0).Nanoseconds())
	}

	single := make([]float64, calls/batch)
	ln := min(n, latencyRows)
	for i := 0; i < 1000; i++ {
		sink += m.PredictDense(rows[(i%ln)*nf : (i%ln+1)*nf])
	}
	for b, i := 0, 0; b < len(single); b++ {
		t0 := time.Now()
		for k := 0; k < batch; k, i = k+1, i+1 {
			r := i % ln
			sink += m.PredictDense(rows[r*nf : (r+1)*nf])
		}
		single[b] = float64(time.Since(t0).Nanoseconds()) / batch
	}
	if math.IsNaN(sink) {
		return fmt.Errorf("non-finite predictions")
	}

	dm := median(decNs)
	fmt.Fprintf(stdout, "go_rows=%d go_agree=%d go_batch_median_ms=%.3f go_batch_rows_per_s=%.0f "+
		"go_decision_median_ms=%.3f go_decision_rows_per_s=%.0f go_single_median_ns=%.1f go_single_p99_ns=%.1f\n",
		n, agree, bm/1e6, float64(n)/(bm/1e9), dm/1e6, float64(n)/(dm/1e9),
		quantile(single, 0.5), quantile(single, 0.99))
	return nil
}

func median(v []float64) float64 { return quantile(v, 0.5) }

// quantile returns the nearest-rank q-quantile of v (sorted in place), as
// the C benchmark computes it.
func quantile(v []float64, q float64) float64 {
	slices.Sort(v)
	k := int(q*float64(len(v)-1) + 0.5)
	return v[min(k, len(v)-1)]
}

func readFloat32s(path string) ([]float32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("%s: %d bytes is not a whole number of float32", path, len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

func readFloat64s(path string) ([]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("%s: %d bytes is not a whole number of float64", path, len(b))
	}
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v, nil
}
