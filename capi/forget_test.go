package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/core/options"
)

// TestForgetFromC forgets a batch through the C ABI (forget.c: batch
// numbers, rows removed, errors) and checks the warm fit after it against
// the Go API given the same steps, byte for byte, and against a cold fit
// of the rows that remain: the same optimum, for less work.
func TestForgetFromC(t *testing.T) {
	exe := compileC(t, "forget", false)
	const n1, n2, n3, nf = 120, 60, 90, 13
	for _, c := range []struct{ name, options string }{
		{"linear -s 1", "-s 1 -B 1 -e 0.001"},
		{"linear -s 3", "-s 3 -c 2 -e 0.01"},
		{"kernel RBF", "-t 2 -c 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			labels, x := denseRows(t, filepath.Join("../core/testdata", "heart_scale"), 0, n1+n2+n3, nf)
			dir := t.TempDir()
			dataPath := filepath.Join(dir, "data")
			writeRaw(t, dataPath+".labels", labels)
			writeRaw(t, dataPath+".f32", x)
			x64 := make([]float64, len(x))
			for i, v := range x {
				x64[i] = float64(v)
			}
			writeRaw(t, dataPath+".f64", x64)
			indptr := []int64{0}
			var indices []int32
			var v64 []float64
			for i := range len(labels) {
				for j, v := range x[i*nf : (i+1)*nf] {
					if v != 0 {
						indices = append(indices, int32(j))
						v64 = append(v64, float64(v))
					}
				}
				indptr = append(indptr, int64(len(indices)))
			}
			writeRaw(t, dataPath+".indptr", indptr)
			writeRaw(t, dataPath+".indices", indices)
			writeRaw(t, dataPath+".v64", v64)
			out := filepath.Join(dir, "out")
			runC(t, exe, c.options, strconv.Itoa(nf), dataPath, strconv.Itoa(n1), strconv.Itoa(n2), strconv.Itoa(n3), out)

			// The same steps through the Go API, as the C ABI trainer
			// takes them: dense rows, the incremental defaults.
			o, _, err := options.ParseTrain(strings.Fields(c.options), options.SyntaxAuto)
			if err != nil {
				t.Fatal(err)
			}
			if o.IsKernel() {
				o.Kernel.Params = o.Kernel.Incremental(nf)
			} else {
				o.Linear.Params = o.Linear.Incremental()
			}
			capRows := n1 + n2 + n3 + 10
			tr, err := core.NewDenseTrainer(o.Params(), capRows, nf)
			if err != nil {
				t.Fatal(err)
			}
			ds := data.NewDense(capRows, nf)
			for i := range labels {
				if err := ds.AppendDense(labels[i], x[i*nf:(i+1)*nf]); err != nil {
					t.Fatal(err)
				}
			}
			m1, d1, err := tr.Train(ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			var second []int
			for i := n1; i < n1+n2; i++ {
				second = append(second, i)
			}
			if err := ds.DeleteRows(second); err != nil {
				t.Fatal(err)
			}
			if err := d1.DeleteRows(second); err != nil {
				t.Fatal(err)
			}
			m2, _, err := tr.Train(ds, d1.Extended(ds.Len()))
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range []core.Model{m1, m2} {
				var want []byte
				switch m := m.(type) {
				case *linear.LinearModel:
					want, err = modelfile.Marshal(m)
				case *core.KernelModel:
					want, err = modelfile.MarshalKernel(m)
				}
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(out + ".m" + strconv.Itoa(i+1) + ".svmgo")
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("m%d: the C-trained model file differs from the Go API's", i+1)
				}
			}

			// The warm fit's optimum is the cold fit's of the rows left.
			cold, _, err := tr.Train(ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			cs, _ := core.SummaryOf(cold)
			info := readFloat64s(t, out+".info")
			rel := math.Abs(info[1]-cs.Objective) / math.Abs(cs.Objective)
			t.Logf("warm work %v objective %v; cold work %d objective %v", info[0], info[1], cs.Work, cs.Objective)
			if rel > 1e-3 {
				t.Errorf("objective after the forget %v, a cold fit's %v (relative %g)", info[1], cs.Objective, rel)
			}
		})
	}
}
