package core

import (
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// TestAfterRemovalsInPlace: the in-place cut gives the warm start the
// copying one gives (α, the kernel gradient and its check, the linear
// primal Newton state), over two removals in a row (the window's, then a
// forgotten batch's), for a 10-class kernel run on digits and a linear
// -s 1 run on debdesc_bin; the runs that start from either, each on a
// trainer that made the same first run, do the same work to the same
// objective. The cut dual keeps its vector headers; the copying one leaves
// the dual's kernel gradient as it was.
func TestAfterRemovalsInPlace(t *testing.T) {
	removed := [][]int{{0, 1, 2, 3, 4, 5}, {9, 40, 41, 300}}
	for _, c := range []struct{ name, file, options string }{
		{"kernel", "digits.train", "-t 2 -c 4"},
		{"linear", "debdesc_bin.train", "-s 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			all := readTestdata(t, c.file)
			const rows = 400
			var p TrainParams
			if c.name == "kernel" {
				o, _, err := ParseKernelOptions(strings.Fields(c.options))
				if err != nil {
					t.Fatal(err)
				}
				p = TrainParams{Family: KernelFamily, Kernel: o.Params}
			} else {
				o, _, err := ParseLinearOptions(strings.Fields(c.options))
				if err != nil {
					t.Fatal(err)
				}
				p = TrainParams{Family: LinearFamily, Linear: o.Incremental()}
			}
			// Two trainers that make the same first run: each warm run
			// then starts from the same trainer state.
			first := func() (Trainer, *data.Dataset, *Dual) {
				tr, err := NewTrainer(p, rows, all.NumFeatures())
				if err != nil {
					t.Fatal(err)
				}
				var ds *data.Dataset
				if all.IsDense() {
					ds = data.NewDense(rows, all.NumFeatures())
					for i := range rows {
						if err := ds.AppendDense(all.Label(i), all.DenseRow(i)); err != nil {
							t.Fatal(err)
						}
					}
				} else {
					ds = data.NewSparse(rows, all.Nonzeros(), all.NumFeatures())
					appendRows(t, ds, all, 0, rows)
				}
				_, dual, err := tr.Train(ds, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !dual.HasGradient() {
					t.Fatal("the first run kept no gradient")
				}
				for _, r := range removed {
					if err := ds.DeleteRows(r); err != nil {
						t.Fatal(err)
					}
				}
				return tr, ds, dual
			}
			trCopy, ds, dual := first()
			var kept *KernelGradient // the kernel gradient as it was
			if c.name == "kernel" {
				kept = dual.Kernel.Gradient.clone()
			}
			want := dual.AfterRemovals(removed)
			if g := dual.Kernel.gradient(); kept != nil && (g.Rows != kept.Rows || g.Check != kept.Check ||
				!slices.EqualFunc(g.G, kept.G, slices.Equal) || !slices.Equal(g.rows.hash, kept.rows.hash)) {
				t.Fatal("AfterRemovals changed the gradient of the dual it copies")
			}
			trIn, _, dualIn := first()
			lens := make([]int, len(dualIn.alpha()))
			for k, a := range dualIn.alpha() {
				lens[k] = len(a)
			}
			got := dualIn.AfterRemovalsInPlace(removed)
			for k, a := range dualIn.alpha() {
				if len(a) != lens[k] {
					t.Fatalf("vector %d of the cut dual: %d values after, %d before", k, len(a), lens[k])
				}
			}
			if !got.HasGradient() || !want.HasGradient() {
				t.Fatalf("gradient kept: in place %v, copying %v", got.HasGradient(), want.HasGradient())
			}
			if got.Rows() != rows-10 || want.Rows() != rows-10 {
				t.Fatalf("rows: in place %d, copying %d, want %d", got.Rows(), want.Rows(), rows-10)
			}
			for k, a := range want.alpha() {
				if !slices.Equal(got.alpha()[k], a) {
					t.Fatalf("α vector %d differs from AfterRemovals'", k)
				}
			}
			if c.name == "kernel" {
				gk, wk := got.Kernel.Gradient, want.Kernel.Gradient
				if gk.Check != wk.Check || gk.Rows != wk.Rows {
					t.Fatalf("gradient check %x over %d rows, want %x over %d", gk.Check, gk.Rows, wk.Check, wk.Rows)
				}
				for v := range wk.G {
					if !slices.Equal(gk.G[v], wk.G[v]) || !slices.Equal(gk.Gbar[v], wk.Gbar[v]) {
						t.Fatalf("subproblem %d: G or Gbar differs", v)
					}
				}
			} else if gl, wl := got.Linear.Gradient, want.Linear.Gradient; gl.Rows != wl.Rows || gl.Check != wl.Check {
				t.Fatalf("primal Newton state over %d rows (check %x), want %d (%x)", gl.Rows, gl.Check, wl.Rows, wl.Check)
			}
			mw, _, err := trCopy.Train(ds, want)
			if err != nil {
				t.Fatal(err)
			}
			mg, _, err := trIn.Train(ds, got)
			if err != nil {
				t.Fatal(err)
			}
			sw, _ := SummaryOf(mw)
			sg, _ := SummaryOf(mg)
			if sg.Work != sw.Work || sg.Objective != sw.Objective || sg.Work == 0 {
				t.Fatalf("from the in-place cut: work %d, objective %v; from the copy: %d, %v", sg.Work, sg.Objective, sw.Work, sw.Objective)
			}
		})
	}
}
