package quantize

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/simd"
)

// The blocked sums are the exact column sums, bit for bit: for every test
// case, both code widths, dense and sparse rows, the int64 sums of each
// row in a block (and its scale, ‖x‖² and c0) equal sumsDense's and sumsSparse's, and so do the labels
// and ε-SVR values of the batch predictors and of single rows.
func TestKernelBlockExact(t *testing.T) {
	const prefilter = 1 << 8 // a third pass over each case: 8-bit codes with blockPredictPre
	if !simd.FastInt8() {
		t.Skip("no fast int16 product on this CPU: batches take the column sums")
	}
	for _, c := range kernelCases {
		m := c.model(t)
		te := c.test(t)
		for _, bits := range []int{8, 16, 8 + prefilter} {
			q, err := QuantizeKernel(m, bits&^prefilter)
			if err != nil {
				t.Fatal(err)
			}
			if bits&prefilter != 0 { // the prefilter on these small models too
				old := preMinFeatures
				preMinFeatures = 0
				q.blk = newKernelBlocks(q)
				preMinFeatures = old
				if q.blk == nil || !q.blk.pre {
					continue
				}
				bits = 8
			}
			b := q.blk
			if want := q.dense || data.PreferDense(q.l, q.nf, len(q.colRow)); (b != nil) != want {
				t.Fatalf("%s int%d: blocked path %v, want %v (dense layout %v)", c.name, bits, b != nil, want, q.dense)
			}
			if b == nil {
				continue
			}
			n := min(te.Len(), 3*b.rows+3) // a last block of 3 rows
			ks := q.getScratch()
			s := b.pool.Get().(*qblockScratch)
			for _, sparse := range []bool{false, true} {
				for r0 := 0; r0 < n; r0 += b.rows {
					nb := min(b.rows, n-r0)
					if sparse {
						for r := range nb {
							idx, val := sparseRow(te, r0+r)
							q.encodeSparse(b, s, r, idx, val)
						}
					} else {
						q.encodeDenseRows(b, s, nb, func(r int) []float32 { return denseRow(te, r0+r, q.nf) })
					}
					b.blockSums(s, nb)
					for r := range nb {
						if sparse {
							idx, val := sparseRow(te, r0+r)
							in := q.scanSparse(idx, val)
							q.sumsSparse(ks, idx, val, &in)
						} else {
							x := denseRow(te, r0+r, q.nf)
							in := q.scanDense(x)
							if s.in[r] != in { // scanDense4's rows are scanDense's
								t.Fatalf("%s int%d row %d: block scan %+v, scanDense %+v", c.name, bits, r0+r, s.in[r], in)
							}
							q.sumsDense(ks, x, &in)
						}
						if got := s.c[r*b.lp:][:q.l]; !slices.Equal(got, ks.acc) {
							t.Fatalf("%s int%d sparse %v row %d: blocked sums differ from the column sums", c.name, bits, sparse, r0+r)
						}
					}
				}
			}
			// The bound holds: every float32 decision value is within E_p of
			// the exact one, and the rows it sends to the exact path are few.
			worst, refined := 0.0, 0
			worstPre, doubtful := 0.0, 0
			dec := make([]float64, q.NumDecisionValues())
			for r := range te.Len() {
				if q.IsRegression() {
					break
				}
				x := denseRow(te, r, q.nf)
				q.encodeDense(b, s, 0, x)
				b.blockSums(s, 1)
				if _, ok := q.fastLabel(b, s, s.c[:q.l], &s.in[0], 0); !ok {
					refined++
				}
				q.DecisionDense(dec, x)
				for p, want := range dec {
					e := b.bound(s, p, 0, s.w)
					if d := math.Abs(s.dec[p] - want); d > e {
						t.Fatalf("%s int%d row %d value %d: float32 %v, exact %v: off by %g, bound %g", c.name, bits, r, p, s.dec[p], want, d, e)
					} else if e > 0 {
						worst = max(worst, d/e)
					}
				}
				if !b.pre {
					continue
				}
				// The prefilter's sums 2^10·S_hi: its widened bound holds.
				b.preSums(s, 1)
				g := q.preSlack(b, &s.in[0])
				if _, ok := q.fastLabel(b, s, s.c[:q.l], &s.in[0], g); !ok {
					doubtful++
				}
				for p, want := range dec {
					e := b.bound(s, p, g, s.w)
					if d := math.Abs(s.dec[p] - want); d > e {
						t.Fatalf("%s int%d row %d value %d: prefilter %v, exact %v: off by %g, bound %g (g %g)", c.name, bits, r, p, s.dec[p], want, d, e, g)
					} else if e > 0 {
						worstPre = max(worstPre, d/e)
					}
				}
			}
			// The float32 prefilter's widened bound holds against the exact
			// decision values, and leaves few rows in doubt.
			worstFl, doubtfulFl := 0.0, 0
			for r := range te.Len() {
				if b.fl == nil {
					break
				}
				x := denseRow(te, r, q.nf)
				xx, up := floatNorm(x)
				s.fxx[0] = xx
				q.floatKernel(b, s, x, 1)
				g := b.fl.slack(q.kernel.Gamma, up)
				if !q.floatDecide(b, s, 0, g) {
					doubtfulFl++
				}
				q.DecisionDense(dec, x)
				for p, want := range dec {
					e := b.fl.e[p] + g*b.fl.f[p] // floatDecide's threshold
					if d := math.Abs(s.dec[p] - want); d > e {
						t.Fatalf("%s int%d row %d value %d: float prefilter %v, exact %v: off by %g, bound %g (g %g)", c.name, bits, r, p, s.dec[p], want, d, e, g)
					} else if e > 0 {
						worstFl = max(worstFl, d/e)
					}
				}
			}
			if b.fl != nil {
				t.Logf("%-22s int%-2d: float prefilter: largest error/bound %.3f, %d of %d rows to the exact sums", c.name, bits, worstFl, doubtfulFl, te.Len())
			}
			t.Logf("%-22s int%-2d: largest error/bound %.3f, %d of %d rows to the exact path", c.name, bits, worst, refined, te.Len())
			if b.pre {
				t.Logf("%-22s int%-2d: prefilter: largest error/bound %.3f, %d of %d rows to the exact sums", c.name, bits, worstPre, doubtful, te.Len())
			}
			b.pool.Put(s)
			q.pool.Put(ks)
			batch := q.PredictBatch(make([]float64, te.Len()), te)
			if (b.pre || b.fl != nil) && !raceEnabled { // the prefilters' buffers are the block scratch's
				out := make([]float64, te.Len())
				if a := testing.AllocsPerRun(3, func() { q.PredictBatch(out, te) }); a != 0 {
					t.Fatalf("%s: prefilter batch allocates %v times", c.name, a)
				}
				if te.IsDense() && te.NumFeatures() == q.nf {
					if a := testing.AllocsPerRun(3, func() { q.PredictDenseBatch(out, te.DenseMatrix()) }); a != 0 {
						t.Fatalf("%s: prefilter dense batch allocates %v times", c.name, a)
					}
				}
			}
			par := q.PredictBatchParallel(make([]float64, te.Len()), te, 3)
			for r := range te.Len() {
				idx, val := sparseRow(te, r)
				want := q.PredictSparse(idx, val)
				if b.fl != nil && q.IsRegression() {
					// ε-SVR batch values are the float32 path's, within its
					// bound of the exact single-row value.
					_, up := floatNorm(denseRow(te, r, q.nf))
					if e := q.floatRegressionBound(up); !(math.Abs(batch[r]-want) <= e) || par[r] != batch[r] {
						t.Fatalf("%s int%d row %d: batch %v, parallel %v, single row %v: off by more than %g", c.name, bits, r, batch[r], par[r], want, e)
					}
					continue
				}
				if batch[r] != want || par[r] != want {
					t.Fatalf("%s int%d row %d: batch %v, parallel %v, single row %v", c.name, bits, r, batch[r], par[r], want)
				}
			}
		}
	}
}

// On shuttle (14,500 test rows, where the decoded float32 twin that
// predicted int8 batches before changed 1 label of the exact sums'), every
// batch label of both widths is the single-row exact path's. About 10 s
// of CPU (training shuttle, 58,000 predictions): not in make
// test's -short pass; go test ./quantize -run TestKernelBlockShuttle.
func TestKernelBlockShuttle(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 s of CPU: run without -short")
	}
	dir := filepath.Join("..", "..", "shared", "data") // ../shared/data beside the repository
	if _, err := os.Stat(filepath.Join(dir, "shuttle.test")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI without the shared data: %v", err)
		}
		t.Skipf("no shared data: %v", err)
	}
	tr, err := data.ReadFile(filepath.Join(dir, "shuttle.train"), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	te, err := data.ReadFile(filepath.Join(dir, "shuttle.test"), data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := core.TrainKernel(tr, core.DefaultKernelParams())
	if err != nil {
		t.Fatal(err)
	}
	for _, bits := range []int{8, 16} {
		q, err := QuantizeKernel(m, bits)
		if err != nil {
			t.Fatal(err)
		}
		batch := q.PredictBatchParallel(make([]float64, te.Len()), te, 0)
		for r := range batch {
			if want := q.PredictSparse(sparseRow(te, r)); batch[r] != want {
				t.Fatalf("int%d row %d: batch %v, single row %v", bits, r+1, batch[r], want)
			}
		}
	}
}

// BatchPays names the measured cases: wide sparse codes, int8 from 256
// features and RBF models of fewer (ε-SVR too) pay; other kernels do not,
// with the reason.
func TestBatchPays(t *testing.T) {
	if !simd.FastInt8() {
		t.Skip("no fast int16 product: every packed model is slower")
	}
	for _, c := range []struct {
		name string
		bits int
		pays bool
		why  string
	}{
		{"debdesc_bin-1500", 8, true, "sparse"},
		{"digits", 8, true, "float32 prefilter"},
		{"digits", 16, true, "float32 prefilter"},
		{"diabetes-svr", 8, true, "ε-SVR values are its own"},
		{"breast_cancer-poly", 8, false, "prefilter is for RBF"},
	} {
		var kc kernelCase
		for _, k := range kernelCases {
			if k.name == c.name {
				kc = k
			}
		}
		q, err := QuantizeKernel(kc.model(t), c.bits)
		if err != nil {
			t.Fatal(err)
		}
		if pays, why := q.BatchPays(); pays != c.pays || !strings.Contains(why, c.why) {
			t.Errorf("%s int%d: BatchPays %v %q, want %v and %q", c.name, c.bits, pays, why, c.pays, c.why)
		}
		if c.name == "digits" && c.bits == 16 { // as a 256-feature model: no prefilter pays, and it says why
			q.blk = wideBlocks(q)
			if pays, why := q.BatchPays(); pays || !strings.Contains(why, "16-bit codes") || !strings.Contains(why, "in doubt") {
				t.Errorf("digits int16 as a wide model: BatchPays %v %q, want false and why", pays, why)
			}
		}
		if c.name == "digits" && c.bits == 8 { // with the prefilter, as a 256-feature model has it
			q.blk = wideBlocks(q)
			if pays, why := q.BatchPays(); !pays || !strings.Contains(why, "one-limb prefilter") {
				t.Errorf("digits int8 with the prefilter: BatchPays %v %q", pays, why)
			}
		}
	}
}

// wideBlocks returns q's blocked path as a model of preMinFeatures
// features or more makes it.
func wideBlocks(q *Kernel) *kernelBlocks {
	defer func(old int) { preMinFeatures = old }(preMinFeatures)
	preMinFeatures = 0
	return newKernelBlocks(q)
}
