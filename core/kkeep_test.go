package core

import (
	"math"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// TestKeptColumns streams digits through two trainers, one keeping kernel
// columns between warm Trains (KeepMB) and one not (C-SVC, one-class, and
// ε-SVR on the digits as values, whose matrix reads them by sample): each retrain removes
// the oldest rows and appends new ones. The duals must be equal bit for
// bit (the kept entries are the kernels' own); with room for every
// support vector's column, the kept trainer must compute fewer kernel
// values over the retrains after the first (which computes the columns);
// with a budget of a few columns, they must fill it without passing it.
func TestKeptColumns(t *testing.T) {
	full, err := data.ReadFile("testdata/digits.train", data.ReadOptions{ClassLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	const store, batch = 600, 12
	for _, c := range keptCases(store) {
		t.Run(c.name, func(t *testing.T) {
			p := DefaultKernelParams()
			p.SVMType, p.Nu = c.svm, 0.2
			q := p
			q.KeepMB = c.keepMB
			plain, kept, ds, add, d0, d1 := keptPair(t, full, p, q, store+batch, store)
			oldest := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
			budget := q.keepBytes()
			var e0, e1 int64 // kernel evaluations after the first retrain
			for b := range 5 {
				slideBoth(t, ds, d0, d1, oldest, add, batch)
				m0, m1, n0, n1 := retrainBoth(t, b, plain, kept, ds, d0, d1)
				if b > 0 {
					e0, e1 = e0+m0.Result.KernelEvals, e1+m1.Result.KernelEvals
				}
				if kb := kept.kept.bytes; kb > budget || kb+4*int64(ds.Len()) <= budget && kb < 4*int64(ds.Len())*int64(m1.Result.NumSV) {
					t.Errorf("retrain %d: kept columns take %d bytes of a %d-byte budget with %d support vectors of %d rows",
						b, kb, budget, m1.Result.NumSV, ds.Len())
				}
				d0, d1 = n0, n1
			}
			if c.keepMB >= 1 && float64(e1) > c.most*float64(e0) {
				t.Errorf("%d kernel evaluations with kept columns, %d without: want at most %v times", e1, e0, c.most)
			}
			t.Logf("kernel evaluations after the first retrain: %d with kept columns, %d without", e1, e0)
		})
	}
}

// keptCase is a formulation and budget the kept-columns tests stream:
// with a budget of at least 1 MiB the trainer keeping columns computes
// at most most times the kernel values of the other.
type keptCase struct {
	name   string
	svm    SVMType
	keepMB float64
	most   float64
}

// keptCases returns the kept-columns tests' cases for a store of store
// rows: room for every column, or for ten (small budget).
func keptCases(store int) []keptCase {
	few := 10 * 4 * float64(store) / (1 << 20)
	return []keptCase{
		{"C-SVC", CSVC, 64, 0.5}, // 0.35
		{"C-SVC small budget", CSVC, few, 1},
		{"one-class", OneClass, 64, 0.8}, // 0.74
		{"ε-SVR", EpsSVR, 64, 0.8},       // 0.67; 0.99 with the removed rows' columns alone
		{"ε-SVR small budget", EpsSVR, few, 1},
		{"ν-SVR", NuSVR, 64, 0.8}, // 0.60
	}
}

// keptPair returns two trainers for up to capRows rows of full, plain
// with the parameters p and kept with q (p with KeepMB), a data set
// holding the first store rows of full with the function that appends
// the next ones, and two equal duals of a cold run on it, one for each.
func keptPair(t *testing.T, full *data.Dataset, p, q KernelParams, capRows, store int) (plain, kept *KernelTrainer, ds *data.Dataset, add func(int), d0, d1 *KernelDual) {
	t.Helper()
	plain, err := NewKernelTrainer(p, capRows, full.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	if kept, err = NewKernelTrainer(q, capRows, full.NumFeatures()); err != nil {
		t.Fatal(err)
	}
	ds = newLike(full, capRows, full.Nonzeros())
	add = appender(ds, full)
	add(store)
	if _, d0, err = plain.Train(ds, nil); err != nil {
		t.Fatal(err)
	}
	d1 = &KernelDual{SVMType: d0.SVMType, Pairs: d0.Pairs, Gradient: d0.Gradient}
	for _, a := range d0.Alpha {
		d1.Alpha = append(d1.Alpha, slices.Clone(a))
	}
	return plain, kept, ds, add, d0, d1
}

// slideBoth drops the rows at oldest from ds and from both duals, then
// appends batch rows (add): one step of a full store's window.
func slideBoth(t *testing.T, ds *data.Dataset, d0, d1 *KernelDual, oldest []int, add func(int), batch int) {
	t.Helper()
	if err := ds.DeleteRows(oldest); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*KernelDual{d0, d1} {
		if err := d.DeleteRows(oldest); err != nil {
			t.Fatal(err)
		}
	}
	add(batch)
}

// retrainBoth retrains ds warm from d0 with plain (no kept columns) and
// from d1 with kept, and fails unless the two give the same α bit for
// bit, the same objective and the same iterations.
func retrainBoth(t *testing.T, b int, plain, kept *KernelTrainer, ds *data.Dataset, d0, d1 *KernelDual) (m0, m1 *KernelModel, n0, n1 *KernelDual) {
	t.Helper()
	m0, n0, err := plain.Train(ds, (&Dual{Kernel: d0}).Extended(ds.Len()).Kernel)
	if err != nil {
		t.Fatal(err)
	}
	m1, n1, err = kept.Train(ds, (&Dual{Kernel: d1}).Extended(ds.Len()).Kernel)
	if err != nil {
		t.Fatal(err)
	}
	for v := range n0.Alpha {
		if !slices.Equal(n0.Alpha[v], n1.Alpha[v]) {
			t.Fatalf("retrain %d: subproblem %d's α differ with kept columns", b, v)
		}
	}
	if m0.Result.Objective != m1.Result.Objective || m0.Result.Iterations != m1.Result.Iterations {
		t.Fatalf("retrain %d: objective %v, %d iterations; with kept columns %v, %d", b,
			m0.Result.Objective, m0.Result.Iterations, m1.Result.Objective, m1.Result.Iterations)
	}
	return m0, m1, n0, n1
}

// TestKeepMBOption reads -M and refuses a negative or non-finite budget.
func TestKeepMBOption(t *testing.T) {
	o, files, err := ParseKernelOptions([]string{"-M", "12.5", "train.txt"})
	if err != nil || o.Params.KeepMB != 12.5 || len(files) != 1 {
		t.Fatalf("-M 12.5: %v, KeepMB %v, files %v", err, o.Params.KeepMB, files)
	}
	for _, v := range []string{"-1", "NaN", "Inf"} {
		if _, _, err := ParseKernelOptions([]string{"-M", v, "train.txt"}); err == nil {
			t.Errorf("-M %s: accepted", v)
		}
	}
}

// TestKeptColumnsSlots: rows leaving from the middle of the store, a
// store that shrinks without rows added and one halved (the slots then
// start again) keep the kept columns' entries those of the rows in their
// slots: the duals equal a trainer's that keeps none, bit for bit, at
// every retrain, with the budget kept.
func TestKeptColumnsSlots(t *testing.T) {
	full, err := data.ReadFile("testdata/digits.train", data.ReadOptions{ClassLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	const store = 600
	p := DefaultKernelParams()
	q := p
	q.KeepMB = 64
	plain, kept, ds, add, d0, d1 := keptPair(t, full, p, q, store+24, store)
	span := func(lo, n int) []int {
		r := make([]int, n)
		for k := range r {
			r[k] = lo + k
		}
		return r
	}
	var e0, e1 int64
	for b, step := range []struct {
		del []int
		add int
	}{
		{span(0, 12), 12},  // the oldest out, as many in
		{span(50, 12), 12}, // rows from the middle
		{span(0, 12), 12},  // again: slots of the middle rows taken
		{span(100, 24), 0}, // the store shrinks
		{span(0, 300), 12}, // halved: the slots start again
		{span(10, 12), 24}, // and the store grows
		{span(0, 12), 12},
	} {
		if err := ds.DeleteRows(step.del); err != nil {
			t.Fatal(err)
		}
		for _, d := range []*KernelDual{d0, d1} {
			if err := d.DeleteRows(step.del); err != nil {
				t.Fatal(err)
			}
		}
		add(step.add)
		m0, m1, n0, n1 := retrainBoth(t, b, plain, kept, ds, d0, d1)
		if kb, budget := kept.KeptBytes(); kb > budget || kb == 0 {
			t.Errorf("retrain %d: kept columns take %d bytes of a %d-byte budget", b, kb, budget)
		}
		e0, e1 = e0+m0.Result.KernelEvals, e1+m1.Result.KernelEvals
		d0, d1 = n0, n1
	}
	if e1 >= e0 {
		t.Errorf("%d kernel evaluations with kept columns, %d without", e1, e0)
	}
	t.Logf("kernel evaluations: %d with kept columns, %d without; %d slots for %d rows", e1, e0, kept.kept.slots, ds.Len())
}

// TestKeptColumnsSeeded: a trainer keeping kernel columns that starts
// with a cold Train fills them from that run's kernel caches, with no
// kernel evaluation of its own (the cold run's model stays a plain
// trainer's), so its first warm retrain already reads them: at most
// keptCase.most times the kernel evaluations of a trainer without kept
// columns at every retrain (no more with a budget of a few columns; ε-SVR
// 0.43 at the first, 0.85 without captureSVR), the same duals bit for
// bit, and the budget kept.
func TestKeptColumnsSeeded(t *testing.T) {
	full, err := data.ReadFile("testdata/digits.train", data.ReadOptions{ClassLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	const store, batch = 600, 12
	for _, c := range keptCases(store) {
		t.Run(c.name, func(t *testing.T) {
			p := DefaultKernelParams()
			p.SVMType, p.Nu = c.svm, 0.2
			q := p
			q.KeepMB = c.keepMB
			plain, kept, ds, add, d0, _ := keptPair(t, full, p, q, store+batch, store)
			mk, d1, err := kept.Train(ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			for v := range d0.Alpha {
				if !slices.Equal(d0.Alpha[v], d1.Alpha[v]) {
					t.Fatalf("cold run: subproblem %d's α differ with kept columns", v)
				}
			}
			kb, budget := kept.KeptBytes()
			if kb > budget || kb < min(budget-4*int64(store), 4*int64(store)*int64(mk.Result.NumSV)) {
				t.Errorf("cold run: kept columns take %d bytes of a %d-byte budget with %d support vectors of %d rows",
					kb, budget, mk.Result.NumSV, store)
			}
			oldest := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
			for b := range 3 {
				slideBoth(t, ds, d0, d1, oldest, add, batch)
				m0, m1, n0, n1 := retrainBoth(t, b, plain, kept, ds, d0, d1)
				if e0, e1 := m0.Result.KernelEvals, m1.Result.KernelEvals; e1 > e0 || c.keepMB >= 1 && float64(e1) > c.most*float64(e0) {
					t.Errorf("retrain %d: %d kernel evaluations with seeded kept columns, %d without", b,
						m1.Result.KernelEvals, m0.Result.KernelEvals)
				}
				if kb, budget := kept.KeptBytes(); kb > budget {
					t.Errorf("retrain %d: kept columns take %d bytes of a %d-byte budget", b, kb, budget)
				}
				t.Logf("retrain %d: %d kernel evaluations with seeded kept columns, %d without", b, m1.Result.KernelEvals, m0.Result.KernelEvals)
				d0, d1 = n0, n1
			}
		})
	}
}

// TestKeptColumnsShrunk streams 1,300 rows of digits through two
// one-class trainers, one keeping kernel columns: a subproblem of more
// than 1000 variables shrinks from the warm start's first iteration and
// restores its order at the end, so the columns capture reads are seen
// through many pending swaps (kernelCache.pendingPermutation). The duals
// must be those of the trainer that keeps none, bit for bit, with columns
// kept after every retrain.
func TestKeptColumnsShrunk(t *testing.T) {
	full, err := data.ReadFile("testdata/digits.train", data.ReadOptions{ClassLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	const store, batch = 1300, 13
	p := DefaultKernelParams()
	p.SVMType, p.Nu = OneClass, 0.3
	q := p
	q.KeepMB = 64
	plain, kept, ds, add, d0, d1 := keptPair(t, full, p, q, store+batch, store)
	oldest := make([]int, batch)
	for k := range oldest {
		oldest[k] = k
	}
	for b := range 4 {
		slideBoth(t, ds, d0, d1, oldest, add, batch)
		_, _, n0, n1 := retrainBoth(t, b, plain, kept, ds, d0, d1)
		if kb, budget := kept.KeptBytes(); kb == 0 || kb > budget {
			t.Errorf("retrain %d: %d bytes of kernel columns kept, budget %d", b, kb, budget)
		}
		d0, d1 = n0, n1
	}
}

// fillAcross reads a row's entries from the other rows' kept columns at
// its slot (K is symmetric), and lists the positions whose row has no
// column, or whose entry is unset, with their rows.
func TestKeptFillAcross(t *testing.T) {
	unset := math.Float32frombits(keptUnset)
	// Rows 1 and 3 have kept columns (entries by slot); rows 0 and 2 none.
	c := &keptColumns{cur: [][]float32{
		nil,
		{0.5, unset, 0.25, 0.125},
		nil,
		{unset, 0.75, 0.0625, unset},
	}}
	index := []int32{2, 3, 1, 0} // the variable at each position's row
	for _, tc := range []struct {
		si          int32
		data        []float32
		missing, rw []int32
	}{
		// Slot 2: position 1 (row 3) and 2 (row 1) are set, 3 (row 0) has no column.
		{2, []float32{-1, 0.0625, 0.25, -1}, []int32{3}, []int32{0}},
		// Slot 1: row 1's entry is unset.
		{1, []float32{-1, 0.75, -1, -1}, []int32{2, 3}, []int32{1, 0}},
	} {
		data := []float32{-1, -1, -1, -1}
		missing, rows, _ := c.fillAcross(data, index, tc.si, 1, 4, make([]int32, 0, 4), make([]int32, 0, 4))
		if !slices.Equal(data, tc.data) || !slices.Equal(missing, tc.missing) || !slices.Equal(rows, tc.rw) {
			t.Errorf("slot %d: data %v, missing %v, rows %v; want %v, %v, %v", tc.si, data, missing, rows, tc.data, tc.missing, tc.rw)
		}
	}
}

// TestKeptColumnsAllocs: once a store's size is steady, a retrain's kept
// columns (begin, the matrix reading them, capture of the columns of
// support vectors without one, end) allocate nothing, whichever rows are
// support vectors: columns let go serve those made next (spare), within
// the budget. Two support sets take turns, half of each the other's; the
// kept entries must be the kernel's values (or unset), bit for bit.
func TestKeptColumnsAllocs(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	l := ds.Len()
	k := Kernel{Type: RBFKernel, Gamma: 0.1}
	kr := newKernelRows(ds, k, make([]float64, l))
	rows, y, hash := make([]int32, l), make([]int8, l), make([]uint64, l)
	for r := range l {
		rows[r], y[r], hash[r] = int32(r), 1, uint64(r)*0x9e3779b97f4a7c15+1
		if ds.Label(r) < 0 {
			y[r] = -1
		}
	}
	const room = 20
	c := &keptColumns{budget: room * 4 * int64(l), prev: make([]int32, 0, l), oldOf: make([]int32, 0, l), cur: make([][]float32, 0, l)}
	q := newSVCQ(kr, rows, y, 1<<20)
	q.missing, q.keptBuf, q.kslot = make([]int32, 0, l), make([]float32, l), make([]int32, 0, l)
	alpha := make([]float64, l)
	sv := func(i int) bool { return alpha[i] != 0 }
	// retrain solves with the support vectors sv[lo:hi]: their columns
	// read (kept, or computed and captured), then kept.
	retrain := func(lo, hi int) {
		if !c.begin(hash, l, l, false) {
			t.Fatal("begin: no kept columns")
		}
		q.kept = c
		q.reset(rows, y)
		clear(alpha)
		for i := lo; i < hi; i++ {
			q.getQ(i, l)
			alpha[i] = 1
		}
		c.capture(q, alpha)
		q.kept = nil
		c.end(l, hash, sv)
	}
	c.startSeed(hash)
	q.reset(rows, y)
	for i := range 12 {
		q.getQ(i, l)
		alpha[i] = 1
	}
	c.capture(q, alpha)
	c.end(l, hash, sv)
	for range 3 {
		retrain(0, 12)
		retrain(6, 18)
	}
	if a := testing.AllocsPerRun(10, func() { retrain(0, 12); retrain(6, 18) }); a != 0 && !raceEnabled {
		t.Errorf("%v allocations per two retrains", a)
	}
	if c.bytes > c.budget {
		t.Errorf("kept columns take %d bytes of a %d-byte budget", c.bytes, c.budget)
	}
	kept := 0
	want := make([]float32, l)
	for r, col := range c.of {
		if col == nil {
			continue
		}
		kept++
		kr.column(want, r, rows)
		for s, v := range col {
			if b := math.Float32bits(v); b != keptUnset && b != math.Float32bits(want[s]) {
				t.Fatalf("row %d's kept column: entry %d is %v, want %v", r, s, v, want[s])
			}
		}
	}
	if kept != 12 {
		t.Errorf("%d kept columns, want the 12 support vectors'", kept)
	}
}

// A support vector's made column, captured by two pairs of its class
// (classes A, B then A, C of heart_scale's rows, grouped), holds the
// kernel's values for every row of both pairs, bit for bit, though the
// second capture skips its own class's rows; when the first pair's
// cached column covered A's rows only in part, the second copies them.
func TestKeptCaptureOwnClassOnce(t *testing.T) {
	ds := readRefData(t, "heart_scale")
	l := ds.Len()
	kr := newKernelRows(ds, Kernel{Type: RBFKernel, Gamma: 0.1}, make([]float64, l))
	hash := make([]uint64, l)
	for r := range l {
		hash[r] = uint64(r)*0x9e3779b97f4a7c15 + 1
	}
	// A: rows 0..99, B: 100..179, C: 180..l−1.
	pair := func(lo1, hi1, lo2, hi2 int) ([]int32, []int8) {
		var rows []int32
		var y []int8
		for r := lo1; r < hi1; r++ {
			rows, y = append(rows, int32(r)), append(y, 1)
		}
		for r := lo2; r < hi2; r++ {
			rows, y = append(rows, int32(r)), append(y, -1)
		}
		return rows, y
	}
	want := make([]float32, l)
	all := make([]int32, l)
	for r := range all {
		all[r] = int32(r)
	}
	for _, partial := range []bool{false, true} {
		c := &keptColumns{budget: 8 * 4 * int64(l)}
		c.startSeed(hash)
		capture := func(rows []int32, y []int8, length int) {
			q := newSVCQ(kr, rows, y, 1<<20)
			alpha := make([]float64, len(rows))
			q.getQ(3, length) // row 3, of class A
			alpha[3] = 1
			c.capture(q, alpha)
		}
		rows, y := pair(0, 100, 100, 180)
		n := len(rows)
		if partial {
			n = 60
		}
		capture(rows, y, n)
		rows, y = pair(0, 100, 180, l)
		capture(rows, y, len(rows))
		col := c.made[3]
		if col == nil {
			t.Fatal("no column made for row 3")
		}
		kr.column(want, 3, all)
		for s := range l {
			inFirst := s < 100 && (!partial || s < 60) || s >= 100 && s < 180 && !partial
			inSecond := s < 100 || s >= 180
			b := math.Float32bits(col[s])
			if !inFirst && !inSecond {
				if b != keptUnset {
					t.Errorf("partial %v: entry %d set", partial, s)
				}
				continue
			}
			if b != math.Float32bits(want[s]) {
				t.Fatalf("partial %v: entry %d is %x, want %x", partial, s, b, math.Float32bits(want[s]))
			}
		}
	}
}
