package quantize

import (
	"math/rand/v2"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// votesSure is sufficient: whenever it says the vote's winner is settled,
// every way the open decision values can fall (all of them, enumerated)
// gives core.KernelPrediction's label of s.dec; and it settles some rows
// and not others (random decision values of 5 classes, random open sets).
func TestVotesSure(t *testing.T) {
	const nr = 5
	b := &kernelBlocks{ranges: []int{0, 1, 2, 3, 4, 5}}
	for i := range nr {
		for j := i + 1; j < nr; j++ {
			b.pairs = append(b.pairs, pairBound{ci: i, cj: j})
		}
	}
	np := len(b.pairs)
	labels := []int32{7, 3, 9, 1, 4}
	s := &qblockScratch{dec: make([]float64, np), sure: make([]bool, np), vsure: make([]int, nr), vopen: make([]int, nr)}
	votes, alt := make([]float64, nr), make([]float64, np)
	r := rand.New(rand.NewPCG(30, 4))
	settled, open := 0, 0
	for range 20000 {
		var openPairs []int
		for p := range np {
			s.dec[p] = r.Float64()*2 - 1
			s.sure[p] = r.IntN(4) != 0
			if !s.sure[p] {
				openPairs = append(openPairs, p)
			}
		}
		if !b.votesSure(s) {
			open++
			continue
		}
		settled++
		want := core.KernelPrediction(core.CSVC, labels, s.dec, votes)
		for mask := range 1 << len(openPairs) {
			copy(alt, s.dec)
			for k, p := range openPairs {
				alt[p] = -1
				if mask>>k&1 != 0 {
					alt[p] = 1
				}
			}
			if got := core.KernelPrediction(core.CSVC, labels, alt, votes); got != want {
				t.Fatalf("settled, but open pairs %v falling as %b give %v, not %v (dec %v)", openPairs, mask, got, want, s.dec)
			}
		}
	}
	if settled == 0 || open == 0 {
		t.Fatalf("settled %d, open %d: want both", settled, open)
	}
}

// Rows the float32 prefilter leaves in doubt take the exact sums: with ε
// scaled up until every row is in doubt, and as it is, both batch calls'
// labels are the single rows', on the few-feature RBF models at both
// widths.
func TestKernelFloatDoubt(t *testing.T) {
	if !simd.FastInt8() {
		t.Skip("no fast int16 product on this CPU: no blocked path")
	}
	defer func(old float64) { floatSlackScale = old }(floatSlackScale)
	for _, c := range kernelCases {
		if c.name != "breast_cancer" && c.name != "digits" && c.name != "breast_cancer-oneclass" {
			continue
		}
		m := c.model(t)
		te := c.test(t)
		for _, bits := range []int{8, 16} {
			q, err := QuantizeKernel(m, bits)
			if err != nil {
				t.Fatal(err)
			}
			b := q.blk
			if b == nil || b.fl == nil {
				t.Fatalf("%s int%d: no float32 prefilter", c.name, bits)
			}
			floatSlackScale = 1e9
			s := b.pool.Get().(*qblockScratch)
			x := denseRow(te, 0, q.nf)
			xx, up := floatNorm(x)
			s.fxx[0] = xx
			q.floatKernel(b, s, x, 1)
			if q.floatDecide(b, s, 0, b.fl.slack(q.kernel.Gamma, up)) {
				t.Fatalf("%s int%d: row 0 settled with ε scaled by %g", c.name, bits, floatSlackScale)
			}
			b.pool.Put(s)
			// Both batch calls, the dense matrix's too, with every row in
			// doubt and with the bound as it is.
			mat := make([]float32, 0, te.Len()*q.nf)
			for r := range te.Len() {
				mat = append(mat, denseRow(te, r, q.nf)...)
			}
			for _, scale := range []float64{1e9, 1} {
				floatSlackScale = scale
				batch := q.PredictBatch(make([]float64, te.Len()), te)
				dense := q.PredictDenseBatch(make([]float64, te.Len()), mat)
				floatSlackScale = 1
				for r := range te.Len() {
					if want := q.PredictSparse(sparseRow(te, r)); batch[r] != want || dense[r] != want {
						t.Fatalf("%s int%d row %d, ε scaled by %g: batch %v, dense batch %v, single row %v", c.name, bits, r, scale, batch[r], dense[r], want)
					}
				}
			}
		}
	}
}
