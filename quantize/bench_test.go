package quantize

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// The benchmarks predict one test row per op with the float32 model (the
// baseline) and its int8 and int16 quantizations, over core/testdata and,
// when it is there, Fashion-MNIST ($SVMGO_DATA or ~/.cache/libsvmgo,
// fashion.test: the models train on its first 2000 rows and predict the
// rest).

// predictor is what the benchmarks call, of core's models and ours.
type predictor interface {
	PredictDense(x []float32) float64
	PredictSparse(index []int32, value []float32) float64
}

// benchPredict predicts rows of te from first on (up to 1000 of them,
// round and round), one row per op.
func benchPredict(b *testing.B, p predictor, te *data.Dataset, first, nf int, sparse bool) {
	type row struct {
		x   []float32
		idx []int32
		val []float32
	}
	var rows []row
	for i := first; i < te.Len() && len(rows) < 1000; i++ {
		r := row{x: denseRow(te, i, nf)}
		r.idx, r.val = sparseRow(te, i)
		rows = append(rows, r)
	}
	b.ReportAllocs()
	b.SetBytes(int64(4 * nf))
	i := 0
	for b.Loop() {
		r := &rows[i%len(rows)]
		if sparse {
			p.PredictSparse(r.idx, r.val)
		} else {
			p.PredictDense(r.x)
		}
		i++
	}
}

// benchModels runs the three widths of one float model.
func benchModels(b *testing.B, float predictor, q8, q16 predictor, te *data.Dataset, first, nf int, sparse bool) {
	for _, c := range []struct {
		name string
		p    predictor
	}{{"float32", float}, {"int8", q8}, {"int16", q16}} {
		b.Run(c.name, func(b *testing.B) { benchPredict(b, c.p, te, first, nf, sparse) })
	}
}

// both returns the int8 and int16 quantizations of a float model.
func both[F any, Q predictor](b *testing.B, m F, quantize func(F, int) (Q, error)) (predictor, predictor) {
	q8, err := quantize(m, 8)
	if err != nil {
		b.Fatal(err)
	}
	q16, err := quantize(m, 16)
	if err != nil {
		b.Fatal(err)
	}
	return q8, q16
}

func BenchmarkKernelPredict(b *testing.B) {
	for _, c := range kernelCases[:2] {
		m := c.model(b)
		b.Run(c.name, func(b *testing.B) {
			q8, q16 := both(b, m, QuantizeKernel)
			benchModels(b, m, q8, q16, c.test(b), 0, m.NumFeatures, false)
		})
	}
	te := fashion(b)
	if te == nil {
		return
	}
	m := cached(b, "kernel/fashion-2000", func() (*core.KernelModel, error) {
		p := core.DefaultKernelParams()
		p.C, p.Kernel.Gamma = 10, 0.03 // make bench's Fashion-MNIST options
		ds := subset(te, 2000)
		tr, err := core.NewKernelTrainer(p, ds.Len(), ds.NumFeatures())
		if err != nil {
			return nil, err
		}
		m, _, err := tr.Train(ds, nil)
		return m, err
	})
	b.Run("fashion-2000", func(b *testing.B) {
		q8, q16 := both(b, m, QuantizeKernel)
		benchModels(b, m, q8, q16, te, 2000, m.NumFeatures, false)
	})
}

func BenchmarkLinearPredict(b *testing.B) {
	for _, c := range linearCases[:3] {
		m := c.model(b)
		b.Run(c.name, func(b *testing.B) {
			q8, q16 := both(b, m, QuantizeLinear)
			benchModels(b, m, q8, q16, c.test(b), 0, m.NumFeatures, !c.test(b).IsDense())
		})
	}
	te := fashion(b)
	if te == nil {
		return
	}
	m := cached(b, "linear/fashion-2000", func() (*linear.LinearModel, error) {
		ds := subset(te, 2000)
		tr, err := linear.NewLinearTrainer(linear.DefaultLinearParams(), ds.Len(), ds.NumFeatures())
		if err != nil {
			return nil, err
		}
		m, _, err := tr.Train(ds, nil)
		return m, err
	})
	b.Run("fashion-2000", func(b *testing.B) {
		q8, q16 := both(b, m, QuantizeLinear)
		benchModels(b, m, q8, q16, te, 2000, m.NumFeatures, false)
	})
}

// fashion returns Fashion-MNIST's test set, or nil (the benchmark skips
// those rows) when it is not there.
func fashion(b *testing.B) *data.Dataset {
	dir := os.Getenv("SVMGO_DATA")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(home, ".cache", "libsvmgo")
	}
	path := filepath.Join(dir, "fashion.test")
	if _, err := os.Stat(path); err != nil {
		b.Logf("no %s: Fashion-MNIST rows skipped", path)
		return nil
	}
	return cached(b, "data/fashion.test", func() (*data.Dataset, error) {
		return data.ReadFile(path, data.ReadOptions{})
	})
}

// processCPU returns the process's user and system CPU time in
// nanoseconds: on a shared machine, run pinned (taskset -c 0), it counts
// the work, where wall time counts the neighbours too.
func processCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkKernelBatch predicts a whole test set per op with
// PredictBatch, one goroutine, for the float32 model (the baseline) and
// its int8 and int16 quantizations: issue 30's "a quantized model is
// never the slow choice" (go test -bench KernelBatch ./quantize).
func BenchmarkKernelBatch(b *testing.B) {
	for _, c := range kernelCases {
		m := c.model(b)
		te := c.test(b)
		b.Run(c.name, func(b *testing.B) {
			q8, q16 := both(b, m, QuantizeKernel)
			dst := make([]float64, te.Len())
			for _, p := range []struct {
				name string
				p    interface {
					PredictBatch(dst []float64, ds *data.Dataset) []float64
				}
			}{{"float32", m}, {"int8", q8.(*Kernel)}, {"int16", q16.(*Kernel)}} {
				b.Run(p.name, func(b *testing.B) {
					b.ReportAllocs()
					cpu0 := processCPU(b)
					for b.Loop() {
						p.p.PredictBatch(dst, te)
					}
					b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
				})
			}
		})
	}
}
