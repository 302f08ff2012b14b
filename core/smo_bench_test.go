package core

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// Benchmarks of kernel training on the shared data sets (../shared/data
// from the repository root, as in CI), with the options of make bench's
// SMO table. A set that is not there is skipped. Each iteration is one
// whole Train call on a trainer built once, as a daemon retrains.

// smoBenchCase is one benchmark: a data file and svm-train options.
type smoBenchCase struct {
	name, file string
	options    []string
}

var smoBenchCases = []smoBenchCase{
	{"heart_scale", "heart_scale", nil},
	{"breast_cancer", "breast_cancer.train", nil},
	{"diabetes_svr", "diabetes.train", []string{"-s", "3"}},
	{"digits", "digits.train", nil},
	{"shuttle", "shuttle.train", []string{"-c", "100", "-g", "1"}},
}

// sharedData returns the path of a file of the shared data directory, or
// skips b when it is absent.
func sharedData(b testing.TB, name string) string {
	dir := os.Getenv("SVMGO_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "data")
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		b.Skipf("%s: %v", p, err)
	}
	return p
}

func BenchmarkSMOTrain(b *testing.B) {
	for _, c := range smoBenchCases {
		b.Run(c.name, func(b *testing.B) {
			ds, err := data.ReadFile(sharedData(b, c.file), data.ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			opt, rest, err := ParseKernelOptions(c.options)
			if err != nil || len(rest) != 0 {
				b.Fatal(err, rest)
			}
			t, err := NewKernelTrainer(opt.Params, ds.Len(), ds.NumFeatures())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var iters int
			var evals int64
			for b.Loop() {
				m, _, err := t.Train(ds, nil)
				if err != nil {
					b.Fatal(err)
				}
				iters = m.Result.Iterations
				evals = m.Result.KernelEvals
			}
			b.ReportMetric(float64(iters), "smo-iter/op")
			b.ReportMetric(float64(evals), "kevals/op")
		})
	}
}

// BenchmarkKernelColumnShuttle times one RBF kernel column over the
// shuttle rows (9 dense features): the unit of work of an SMO iteration
// on few-feature data.
func BenchmarkKernelColumnShuttle(b *testing.B) {
	ds, err := data.ReadFile(sharedData(b, "shuttle.train"), data.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	l := ds.Len()
	rows := make([]int32, l)
	for v := range rows {
		rows[v] = int32(v)
	}
	col := make([]float32, l)
	kr := newKernelRows(ds, Kernel{Type: RBFKernel, Gamma: 1}, make([]float64, l))
	kr.scratch = make([]float64, ds.NumFeatures())
	b.SetBytes(int64(l) * 4)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		kr.column(col, (i*7919)%l, rows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(l), "ns/entry")
}
