package core

import (
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/rowscale"
)

// BenchmarkScaledPredict measures what scaling inside the model costs a
// prediction: digits' linear (-s 1) and RBF models, trained on scaled rows,
// predicting one test row at a time, dense and sparse, without their
// scaling (scaled rows in) and with it (raw rows in).
func BenchmarkScaledPredict(b *testing.B) {
	read := func(name string) *data.Dataset {
		ds, err := data.ReadFile("testdata/"+name, data.ReadOptions{ClassLabels: true})
		if err != nil {
			b.Fatal(err)
		}
		return ds
	}
	train, test := read("digits.train"), read("digits.test")
	r, strain, err := ScaleTrainingRows(train, ScaleParams{Enabled: true, Lower: -1, Upper: 1})
	if err != nil {
		b.Fatal(err)
	}
	stest, err := rowscale.ScaleDataset(test, r)
	if err != nil {
		b.Fatal(err)
	}
	lin, _, err := linear.TrainLinear(strain, linear.DefaultLinearParams())
	if err != nil {
		b.Fatal(err)
	}
	ker, err := TrainKernelModel(strain, DefaultKernelParams())
	if err != nil {
		b.Fatal(err)
	}
	slin, sker := *lin, *ker
	if err := slin.SetScale(r); err != nil {
		b.Fatal(err)
	}
	if err := sker.SetScale(r); err != nil {
		b.Fatal(err)
	}
	nf := train.NumFeatures()
	rows := func(ds *data.Dataset) ([][]float32, [][]int32, [][]float32) {
		var d [][]float32
		var si [][]int32
		var sv [][]float32
		for i := range ds.Len() {
			x := make([]float32, nf)
			rowDense(ds, i, x)
			d = append(d, x)
			idx, val := sparseOf(x)
			si, sv = append(si, idx), append(sv, val)
		}
		return d, si, sv
	}
	rd, ri, rv := rows(test)
	sd, si, sv := rows(stest)
	// Each pair runs side by side, alternating rounds of 200 calls of the
	// unscaled and the scaled model, and reports the fastest round of each
	// (ns a call): the best estimate on a loaded machine.
	type call func(i int)
	pair := func(b *testing.B, base, scaled call) {
		const round = 200
		best := [2]float64{1e18, 1e18}
		for b.Loop() {
			for k, f := range [2]call{base, scaled} {
				start := time.Now()
				for i := range round {
					f(i)
				}
				best[k] = min(best[k], float64(time.Since(start).Nanoseconds())/round)
			}
		}
		b.ReportMetric(best[0], "ns/unscaled")
		b.ReportMetric(best[1], "ns/scaled")
		b.ReportMetric(best[1]/best[0], "scaled/unscaled")
	}
	for _, c := range []struct {
		name        string
		base, model Model
	}{{"linear", lin, &slin}, {"rbf", ker, &sker}} {
		b.Run(c.name+"/dense", func(b *testing.B) {
			pair(b, func(i int) { c.base.PredictDense(sd[i%len(sd)]) }, func(i int) { c.model.PredictDense(rd[i%len(rd)]) })
		})
		b.Run(c.name+"/sparse", func(b *testing.B) {
			pair(b, func(i int) { k := i % len(si); c.base.PredictSparse(si[k], sv[k]) },
				func(i int) { k := i % len(ri); c.model.PredictSparse(ri[k], rv[k]) })
		})
	}
}
