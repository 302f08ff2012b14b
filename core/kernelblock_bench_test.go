package core

import (
	"os"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// BenchmarkKernelPredict times the blocked predictors against the
// row-at-a-time float64 path of the same model (the baseline, "rowwise"),
// on the shared data sets' models: a single dense row (the C ABI's
// single-row call) and a whole test set. SetBytes is the kernel
// evaluation's FLOPs (2·rows·SVs·features), so MB/s reads as MFLOP/s.
func BenchmarkKernelPredict(b *testing.B) {
	for _, c := range sharedCases() {
		if c.name != "digits" && c.name != "shuttle" {
			continue
		}
		if _, err := os.Stat(c.train); err != nil {
			b.Skipf("no %s", c.train)
		}
		train, err := data.ReadFile(c.train, data.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		test, err := data.ReadFile(c.test, data.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		p := DefaultKernelParams()
		if c.params != nil {
			c.params(&p)
		}
		m, _, err := TrainKernel(train, p)
		if err != nil {
			b.Fatal(err)
		}
		ref := *m
		ref.pre = nil
		if err := ref.Init(); err != nil {
			b.Fatal(err)
		}
		noBlocks(ref.pre)
		flops := int64(2 * m.SV.Len() * m.NumFeatures)
		for _, v := range []struct {
			name string
			m    *KernelModel
		}{{"rowwise", &ref}, {"blocked", m}} {
			x := test.DenseRow(7)
			b.Run(c.name+"/row/"+v.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(flops)
				for b.Loop() {
					v.m.PredictDense(x)
				}
			})
			dst := make([]float64, test.Len())
			b.Run(c.name+"/batch/"+v.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(flops * int64(test.Len()))
				for b.Loop() {
					v.m.PredictBatch(dst, test)
				}
			})
		}
	}
}
