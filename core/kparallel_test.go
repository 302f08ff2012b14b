package core

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// A column shared with a helper is the column computed alone, bit for bit,
// whatever its length and whoever computes which chunk, and sharing
// allocates nothing.
func TestColumnSplitter(t *testing.T) {
	const l, n = 6000, 20
	ds := data.NewDense(l, n)
	rng := solve.NewRNG(3)
	row := make([]float32, n)
	for range l {
		for k := range row {
			row[k] = float32(rng.Next()>>40) / (1 << 24)
		}
		if err := ds.AppendDense(float64(rng.Next()%2), row); err != nil {
			t.Fatal(err)
		}
	}
	rows := make([]int32, l)
	for v := range rows {
		rows[v] = int32((7 * v) % l)
	}
	for _, k := range []Kernel{{Type: RBFKernel, Gamma: 0.5}, {Type: PolyKernel, Gamma: 0.1, Coef0: 1, Degree: 3}} {
		sq := make([]float64, l)
		kr := newKernelRows(ds, k, sq)
		kr.scratch = make([]float64, n)
		helper := &kernelRows{ds: ds, k: k, sqnorm: kr.sqnorm, scratch: make([]float64, n)}
		pool := startColumnPool([]*kernelRows{helper})
		c := columnSplitter{pool: pool}
		want := make([]float32, l)
		got := make([]float32, l)
		for _, i := range []int{0, 17, l - 1} {
			kr.column(want, i, rows)
			for v := range 3 { // the helper may be idle or not: either way
				clear(got)
				c.share(kr, got, i, rows[:l-v])
				for tt := range l - v {
					if math.Float32bits(got[tt]) != math.Float32bits(want[tt]) {
						t.Fatalf("%v: column %d entry %d: split %v, alone %v", k, i, tt, got[tt], want[tt])
					}
				}
			}
		}
		if a := testing.AllocsPerRun(20, func() { c.share(kr, got, 5, rows) }); a != 0 {
			t.Errorf("%v: split column allocates %v", k, a)
		}
		pool.stop()
	}
}

// offerChoice measures both ways first, then takes the faster, and goes
// the other way once every offerProbe columns, so that a change (a busy
// second core, a shrunken active set) is seen.
func TestOfferChoice(t *testing.T) {
	var o offerChoice
	if o.choose() {
		t.Fatal("first column offered: the time alone is not known yet")
	}
	o.record(false, 1000, 100) // 10 ns an entry alone
	if !o.choose() {
		t.Fatal("second column not offered: the time offered is not known yet")
	}
	o.record(true, 3000, 100) // 30 ns an entry offered: slower
	offered := 0
	for range 10 * offerProbe {
		if o.choose() {
			offered++
		}
	}
	if offered != 10 {
		t.Fatalf("offering slower: %d of %d columns offered, want 10 (one probe every %d)", offered, 10*offerProbe, offerProbe)
	}
	// The helper now pays: offered columns take 4 ns an entry. The
	// probes pull the average down until offering wins.
	for range 20 {
		o.record(true, 400, 100)
	}
	alone := 0
	for range 10 * offerProbe {
		if !o.choose() {
			alone++
		}
	}
	if alone != 10 {
		t.Fatalf("offering faster: %d of %d columns alone, want 10", alone, 10*offerProbe)
	}
	if a := testing.AllocsPerRun(100, func() { o.record(o.choose(), 500, 100) }); a != 0 {
		t.Errorf("choose and record allocate %v", a)
	}
}

// BenchmarkColumnSplit times one RBF kernel column computed alone and
// split with an idle helper, across column lengths and row widths: the
// measurements behind columnWorkMin. Run it on 2 processors.
func BenchmarkColumnSplit(b *testing.B) {
	for _, n := range []int{10, 30, 57, 128, 784} {
		for _, l := range []int{1000, 2000, 4000, 8000, 16000, 32000} {
			if l*n > 1<<24 {
				continue
			}
			ds := data.NewDense(l, n)
			rng := solve.NewRNG(5)
			row := make([]float32, n)
			for range l {
				for k := range row {
					row[k] = float32(rng.Next()>>40) / (1 << 24)
				}
				if err := ds.AppendDense(1, row); err != nil {
					b.Fatal(err)
				}
			}
			benchColumns(b, fmt.Sprintf("n=%d/l=%d", n, l), ds)
		}
	}
}

// benchColumns runs name/alone and name/split: an RBF column of every row
// of ds, computed alone and shared with an idle helper.
func benchColumns(b *testing.B, name string, ds *data.Dataset) {
	l := ds.Len()
	k := Kernel{Type: RBFKernel, Gamma: 1 / float64(ds.NumFeatures())}
	rows := make([]int32, l)
	for v := range rows {
		rows[v] = int32(v)
	}
	kr := newKernelRows(ds, k, make([]float64, l))
	scratch := func() []float64 { return make([]float64, ds.NumFeatures()) }
	kr.scratch = scratch()
	dst := make([]float32, l)
	b.Run(name+"/alone", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			kr.column(dst, i%l, rows)
		}
	})
	helper := &kernelRows{ds: ds, k: k, sqnorm: kr.sqnorm, scratch: scratch()}
	pool := startColumnPool([]*kernelRows{helper})
	c := columnSplitter{pool: pool}
	b.Run(name+"/split", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			c.share(kr, dst, i%l, rows)
		}
	})
	pool.stop()
}

// BestOnOneP says one P for a training of one subproblem whose columns are
// too short to offer and whose kernel matrix is not tiny, and agrees with
// the trainer: a kernel training it runs on one P starts no column
// helpers, a single subproblem of long columns does.
func TestBestOnOneP(t *testing.T) {
	// sparse returns l rows of nnz nonzeros among n features, labels
	// cycling through classes.
	sparse := func(l, n, nnz, classes int) *data.Dataset {
		ds := data.NewSparse(l, l*nnz, 0)
		rng := solve.NewRNG(7)
		idx, val := make([]int32, nnz), make([]float32, nnz)
		for i := range l {
			for k := range nnz {
				idx[k] = int32(k*(n/nnz) + int(rng.Next()%uint64(n/nnz)))
				val[k] = float32(rng.Next()>>40)/(1<<24) + 0.1
			}
			if err := ds.AppendSparse(float64(i%classes), idx, val); err != nil {
				t.Fatal(err)
			}
		}
		return ds
	}
	kernel := func(mod func(*KernelParams)) TrainParams {
		p := TrainParams{Family: KernelFamily, Kernel: DefaultKernelParams()}
		mod(&p.Kernel)
		return p
	}
	none := func(*KernelParams) {}
	small := sparse(3000, 200, 5, 2) // 3,000 × (5+16) = 63,000 < columnWorkMin
	wide := sparse(3000, 200, 80, 2) // 3,000 × (80+16) = 288,000 ≥ columnWorkMin
	scaled := kernel(none)
	scaled.Scale = ScaleParams{Enabled: true, Lower: -1, Upper: 1}
	for _, c := range []struct {
		name string
		ds   *data.Dataset
		p    TrainParams
		want bool
	}{
		{"binary C-SVC, short columns", small, kernel(none), true},
		{"one-class, short columns", small, kernel(func(k *KernelParams) { k.SVMType = OneClass }), true},
		{"ε-SVR, short columns", small, kernel(func(k *KernelParams) { k.SVMType = EpsSVR }), true},
		{"binary C-SVC, long columns", wide, kernel(none), false},
		// The shapes of debdesc_bin's first 10,000 rows (10,000 × (6+16) =
		// 220,000: its columns split on two cores) and of spamlike
		// (3,680 × (17+16) = 121,440: they do not).
		{"debdesc_bin 10k's shape", sparse(10000, 9132, 6, 2), kernel(none), false},
		{"spamlike's shape", sparse(3680, 57, 17, 2), kernel(none), true},
		{"three classes: pairs in parallel", sparse(3000, 200, 5, 3), kernel(none), false},
		{"probability: folds in parallel", small, kernel(func(k *KernelParams) { k.Probability = true }), false},
		{"scaled: 200 features a row", small, scaled, false},
		{"linear", small, TrainParams{Family: LinearFamily}, false},
		{"tiny: 300² × 36 < onePWorkMin", sparse(300, 200, 5, 2), kernel(none), false},
	} {
		if got := BestOnOneP(c.ds, c.p); got != c.want {
			t.Errorf("%s: BestOnOneP = %v, want %v", c.name, got, c.want)
		}
	}
	if kernelHelperCount() == 0 {
		t.Log("one processor: the trainer starts no helpers whatever the data")
		return
	}
	for _, ds := range []*data.Dataset{small, wide} {
		p := kernel(none)
		tr, err := newKernelTrainer(p.Kernel, ds.Len(), ds.NumFeatures(), kernelWorkerCount(&p.Kernel), ds.Len(), wantsDenseView(ds))
		if err != nil {
			t.Fatal(err)
		}
		detach := tr.attachRows(ds, p.Kernel.ResolvedKernel(ds.NumFeatures()), 0)
		helped := tr.workers[0].q.cols.pool != nil
		detach()
		if helped == BestOnOneP(ds, p) {
			t.Errorf("%d nonzeros a row: trainer starts helpers %v, BestOnOneP %v", ds.Nonzeros()/ds.Len(), helped, !helped)
		}
	}
}

// BenchmarkColumnSplitSparse is BenchmarkColumnSplit on sparse rows (CSR,
// gathered against the column's row scattered into a dense scratch), at
// the shapes behind sparseEntryWork: debdesc_bin's (9,132 features, about
// 6 nonzeros a row) and spamlike's (57 features, 17 nonzeros a row).
func BenchmarkColumnSplitSparse(b *testing.B) {
	for _, s := range []struct{ n, nnz int }{{9132, 6}, {57, 17}, {1000, 50}} {
		for _, l := range []int{2000, 4000, 10000, 40000} {
			ds := data.NewSparse(l, l*s.nnz, 0)
			rng := solve.NewRNG(5)
			idx, val := make([]int32, s.nnz), make([]float32, s.nnz)
			for range l {
				for k := range s.nnz {
					idx[k] = int32(k*(s.n/s.nnz) + int(rng.Next()%uint64(s.n/s.nnz)))
					val[k] = float32(rng.Next()>>40)/(1<<24) + 0.1
				}
				if err := ds.AppendSparse(1, idx, val); err != nil {
					b.Fatal(err)
				}
			}
			benchColumns(b, fmt.Sprintf("n=%d/nnz=%d/l=%d", s.n, s.nnz, l), ds)
		}
	}
}

// A binary C-SVC trained on two processors takes its one pair with the
// whole cache budget, as on one: before, a second worker with no pair to
// take held a quarter of the budget, and the pair's solver recomputed
// the columns that quarter would have kept. A budget of 1 MB holds about
// 100 of this set's 2,400-row columns, so the quarter shows as more
// kernel evaluations.
func TestBinaryOneWorker(t *testing.T) {
	const l, n = 2400, 10
	ds := data.NewDense(l, n)
	rng := solve.NewRNG(11)
	row := make([]float32, n)
	for range l {
		s := 0.0
		for k := range row {
			row[k] = float32(rng.Next()>>40) / (1 << 24)
			s += float64(row[k])
		}
		label := 1.0
		if s+float64(rng.Next()>>40)/(1<<24) < float64(n)/2+0.5 {
			label = -1
		}
		if err := ds.AppendDense(label, row); err != nil {
			t.Fatal(err)
		}
	}
	p := DefaultKernelParams()
	p.C, p.CacheMB = 4, 1
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	if w := kernelWorkersFor(ds, &p); w != 1 {
		t.Fatalf("kernelWorkersFor a binary C-SVC at GOMAXPROCS 2 = %d, want 1", w)
	}
	two, err := TrainKernelModel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GOMAXPROCS(1)
	one, err := TrainKernelModel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	if two.Result.KernelEvals != one.Result.KernelEvals || two.Result.Iterations != one.Result.Iterations {
		t.Errorf("GOMAXPROCS 2: %d kernel evaluations, %d iterations; GOMAXPROCS 1: %d, %d",
			two.Result.KernelEvals, two.Result.Iterations, one.Result.KernelEvals, one.Result.Iterations)
	}
	// Three classes make three pairs: two workers at GOMAXPROCS 2.
	runtime.GOMAXPROCS(2)
	for i := 0; i < l; i += 3 {
		ds.Labels()[i] = 2 // Labels is the data set's own slice
	}
	if w := kernelWorkersFor(ds, &p); w != 2 {
		t.Errorf("kernelWorkersFor three classes at GOMAXPROCS 2 = %d, want 2", w)
	}
}
