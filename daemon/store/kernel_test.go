package store

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/options"
)

func TestSetKernelDual(t *testing.T) {
	s := open(t, t.TempDir(), Config{Capacity: 4, MaxFeatures: 3})
	add(t, s, "a", row{1, []int32{0}, []float32{1}}, row{2, []int32{1}, []float32{1}}, row{3, []int32{2}, []float32{1}})
	good := &core.KernelDual{
		SVMType:  core.CSVC,
		Pairs:    [][2]int32{{1, 2}, {1, 3}, {2, 3}},
		Alpha:    [][]float64{{1, 1, 0}, {0.5, 0, 0.5}, {0, 0, 0}},
		Gradient: &core.KernelGradient{Rows: 3},
	}
	if err := setKernelDual(s, good); err != nil {
		t.Fatal(err)
	}
	// Copied, and the gradient is not kept.
	good.Alpha[0][0], good.Pairs[0] = 9, [2]int32{7, 8}
	wantKernelAlpha(t, s, []float64{1, 1, 0}, []float64{0.5, 0, 0.5}, []float64{0, 0, 0})
	if kd := kernelDual(s); !slices.Equal(kd.Pairs, [][2]int32{{1, 2}, {1, 3}, {2, 3}}) || kd.Gradient != nil || kd.SVMType != core.CSVC {
		t.Errorf("kernel dual %+v", kd)
	}
	if linearDual(s) != nil {
		t.Error("a linear dual next to the kernel one")
	}
	three := func() [][]float64 { return [][]float64{{1, 1, 0}, {0, 0, 0}, {0, 0, 0}} }
	pairs := [][2]int32{{1, 2}, {1, 3}, {2, 3}}
	for name, d := range map[string]*core.KernelDual{
		"nil":           nil,
		"nu-svc-pairs":  {SVMType: core.NuSVC, Alpha: [][]float64{{0, 0, 0}}},
		"nu-svc-neg":    {SVMType: core.NuSVC, Pairs: pairs[:1], Alpha: [][]float64{{1, -1, 0}}},
		"nu-svr-two":    {SVMType: core.NuSVR, Alpha: [][]float64{{0, 0, 0}, {0, 0, 0}}},
		"type-5":        {SVMType: 5, Alpha: [][]float64{{0, 0, 0}}},
		"no-vectors":    {SVMType: core.CSVC},
		"pairs-short":   {SVMType: core.CSVC, Pairs: pairs[:2], Alpha: three()},
		"pair-self":     {SVMType: core.CSVC, Pairs: [][2]int32{{1, 2}, {3, 3}, {2, 3}}, Alpha: three()},
		"pair-twice":    {SVMType: core.CSVC, Pairs: [][2]int32{{1, 2}, {1, 3}, {2, 1}}, Alpha: three()},
		"too-many":      {SVMType: core.CSVC, Pairs: [][2]int32{{1, 2}, {1, 3}, {2, 3}, {1, 4}}, Alpha: append(three(), []float64{0, 0, 0})},
		"short":         {SVMType: core.CSVC, Pairs: pairs[:1], Alpha: [][]float64{{1, 1}}},
		"negative":      {SVMType: core.CSVC, Pairs: pairs[:1], Alpha: [][]float64{{1, -1, 0}}},
		"nan":           {SVMType: core.CSVC, Pairs: pairs[:1], Alpha: [][]float64{{1, math.NaN(), 0}}},
		"svr-inf":       {SVMType: core.EpsSVR, Alpha: [][]float64{{1, math.Inf(-1), 0}}},
		"svr-two":       {SVMType: core.EpsSVR, Alpha: [][]float64{{1, 0, 0}, {0, 0, 0}}},
		"svr-pairs":     {SVMType: core.EpsSVR, Pairs: pairs[:1], Alpha: [][]float64{{1, 0, 0}}},
		"one-class-neg": {SVMType: core.OneClass, Alpha: [][]float64{{1, -0.5, 0}}},
	} {
		if err := setKernelDual(s, d); !errors.Is(err, ErrDual) {
			t.Errorf("%s: SetKernelDual = %v, want ErrDual", name, err)
		}
	}
	wantKernelAlpha(t, s, []float64{1, 1, 0}, []float64{0.5, 0, 0.5}, []float64{0, 0, 0})
	if err := setKernelDual(s, kernelDual(s)); err != nil { // its own dual back
		t.Fatal(err)
	}
	wantKernelAlpha(t, s, []float64{1, 1, 0}, []float64{0.5, 0, 0.5}, []float64{0, 0, 0})

	// Either kind replaces the other, in the same α buffers: three vectors
	// were allocated; a linear dual of two and an ε-SVR dual of one
	// allocate nothing more.
	b := s.Bytes()
	if err := setLinearDual(s, &linear.LinearDual{Labels: []int32{1, 2}, Alpha: [][]float64{{3, 4, 5}, {6, 7, 8}}}); err != nil {
		t.Fatal(err)
	}
	if kernelDual(s) != nil {
		t.Error("SetDual kept the kernel dual")
	}
	wantAlpha(t, s, []float64{3, 4, 5}, []float64{6, 7, 8})
	if err := setKernelDual(s, &core.KernelDual{SVMType: core.EpsSVR, Alpha: [][]float64{{-1, 0, 2}}}); err != nil {
		t.Fatal(err)
	}
	if linearDual(s) != nil {
		t.Error("SetKernelDual kept the linear dual")
	}
	wantKernelAlpha(t, s, []float64{-1, 0, 2})
	if got := s.Bytes(); got != b-3*8 {
		t.Errorf("Bytes %d after switching kinds, want %d: the same α buffers, no pairs", got, b-3*8)
	}
}

// TestEvictNonSVKernel follows the default policy over a C-SVC kernel dual
// by hand: a row is a non-support vector when its α is 0 in every pair.
//
// Capacity 6. Batch a = rows 1..5 of classes 1, 2, 3, 1, 2; pairs (1,2),
// (1,3), (2,3) with α > 0 for row 1 in (1,2), row 3 in (2,3) and row 5 in
// (1,3). Row 5's class is not in that pair: core never writes that, but
// the store does not read classes, and any nonzero α makes a support
// vector. Rows 2 and 4 are non-SVs. Batch b = rows 6..8 needs 2 rows: the
// non-SVs 2 and 4 go; their α goes with them and the new rows read 0.
func TestEvictNonSVKernel(t *testing.T) {
	s := open(t, t.TempDir(), Config{Capacity: 6, MaxFeatures: 4})
	add(t, s, "a", row{1, []int32{0}, []float32{1}}, row{2, []int32{0}, []float32{2}}, row{3, []int32{0}, []float32{3}},
		row{1, []int32{0}, []float32{4}}, row{2, []int32{0}, []float32{5}})
	if err := setKernelDual(s, &core.KernelDual{
		SVMType: core.CSVC,
		Pairs:   [][2]int32{{1, 2}, {1, 3}, {2, 3}},
		Alpha:   [][]float64{{.5, 0, 0, 0, 0}, {0, 0, 0, 0, .25}, {0, 0, 1, 0, 0}},
	}); err != nil {
		t.Fatal(err)
	}
	if ev, err := s.Add(hashOf("b"), batch(t, row{1, []int32{1}, []float32{6}}, row{2, []int32{1}, []float32{7}}, row{3, []int32{1}, []float32{8}})); err != nil || ev != 2 {
		t.Fatalf("Add = %d, %v; want 2 evicted", ev, err)
	}
	_, v := s.Dataset().SparseRow(1)
	if v[0] != 3 {
		t.Fatalf("row 1 holds %v, want the third row of a", v)
	}
	wantLabels(t, s, 1, 3, 2, 1, 2, 3)
	wantKernelAlpha(t, s, []float64{.5, 0, 0, 0, 0, 0}, []float64{0, 0, .25, 0, 0, 0}, []float64{0, 1, 0, 0, 0, 0})
	if s.known != 3 {
		t.Errorf("known = %d, want 3", s.known)
	}

	// ε-SVR: a negative β is a support vector too. Rows 10, 11, 12 with
	// β = (0, −0.5, 0.5); one more row evicts row 10 only.
	r := open(t, t.TempDir(), Config{Capacity: 3, MaxFeatures: 4})
	add(t, r, "a", ids(10, 3, 1)...)
	if err := setKernelDual(r, &core.KernelDual{SVMType: core.EpsSVR, Alpha: [][]float64{{0, -0.5, 0.5}}}); err != nil {
		t.Fatal(err)
	}
	add(t, r, "b", ids(13, 1, 1)...)
	wantLabels(t, r, 11, 12, 13)
	wantKernelAlpha(t, r, []float64{-0.5, 0.5, 0})
}

// TestEvictionDropsOversizedDual: capacity 10 rows but 6 nonzeros. Three
// rows of classes 1, 2, 3 (one nonzero each) carry a three-pair kernel
// dual. A row of 5 nonzeros needs two rows to go: two rows remain, for
// which a C-SVC dual has one pair at most, so the dual is dropped (a
// snapshot with it would not read back). A linear dual of three vectors
// is dropped alike (two rows, two vectors at most).
func TestEvictionDropsOversizedDual(t *testing.T) {
	three := []row{{1, []int32{0}, []float32{1}}, {2, []int32{0}, []float32{2}}, {3, []int32{0}, []float32{3}}}
	wide := row{1, []int32{0, 1, 2, 3, 4}, []float32{1, 1, 1, 1, 1}}
	cfg := Config{Capacity: 10, CapacityNonzeros: 6, MaxFeatures: 5}
	for _, kernel := range []bool{true, false} {
		dir := t.TempDir()
		s := open(t, dir, cfg)
		add(t, s, "a", three...)
		alpha := [][]float64{{1, 1, 0}, {1, 0, 1}, {0, 1, 1}}
		var err error
		if kernel {
			err = setKernelDual(s, &core.KernelDual{SVMType: core.CSVC, Pairs: [][2]int32{{1, 2}, {1, 3}, {2, 3}}, Alpha: alpha})
		} else {
			err = setLinearDual(s, &linear.LinearDual{Labels: []int32{1, 2, 3}, Alpha: alpha})
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev := add(t, s, "b", wide); ev != 2 {
			t.Fatalf("kernel %v: evicted %d, want 2", kernel, ev)
		}
		wantLabels(t, s, 3, 1)
		if linearDual(s) != nil || kernelDual(s) != nil || s.known != 0 {
			t.Errorf("kernel %v: the dual was kept for %d rows", kernel, s.Len())
		}
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		equalStores(t, open(t, dir, cfg), s)
	}
}

func TestCommitRoundTripKernel(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Capacity: 5, MaxFeatures: 4}
	for _, d := range []*core.KernelDual{
		{SVMType: core.CSVC, Pairs: [][2]int32{{2, -1}}, Alpha: [][]float64{{0.125, 0, 1e-300}}},
		{SVMType: core.EpsSVR, Alpha: [][]float64{{-3, 0, 1e300}}},
		{SVMType: core.OneClass, Alpha: [][]float64{{1, 0.5, 0}}},
	} {
		s := open(t, t.TempDir(), cfg)
		add(t, s, "a", row{2, []int32{0}, []float32{1}}, row{-1, []int32{1, 3}, []float32{1, 2}}, row{-1, nil, nil})
		if err := setKernelDual(s, d); err != nil {
			t.Fatal(err)
		}
		add(t, s, "b", ids(7, 1, 2)...)
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(s.dir, SnapshotName), filepath.Join(dir, SnapshotName)); err != nil {
			t.Fatal(err)
		}
		r := open(t, dir, cfg)
		equalStores(t, r, s)
		if r.known != 3 || len(kernelDual(r).Alpha[0]) != 4 || kernelDual(r).Alpha[0][3] != 0 {
			t.Errorf("%v: known %d, α %v", d.SVMType, r.known, kernelDual(r).Alpha)
		}
	}
}

// TestReadsVersion1Fixture opens testdata/v1-linear.snap, a snapshot
// written by the store before kernel duals existed (format version 1, the
// code of commit ecb4c0a): Config{Capacity: 40, MaxFeatures: 13}; batches
// of heart_scale.train's lines 1–20 and 21–30, a linear dual of `-s 1`
// (linear.TrainLinear) on those 30 rows, published generation 2; then lines
// 31–35 added without training. The rows, hashes, counters and α must be
// read back as that code wrote them, and the next Commit writes version 2.
func TestReadsVersion1Fixture(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("testdata", "v1-linear.snap"))
	if err != nil {
		t.Fatal(err)
	}
	if v := fixture[8]; v != 1 {
		t.Fatalf("fixture is version %d", v)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, SnapshotName), fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Capacity: 40, MaxFeatures: 13}
	s := open(t, dir, cfg)

	raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "data", "heart_scale.train"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	text := func(from, to int) string { return strings.Join(lines[from:to], "") }
	want := data.NewSparse(35, 35*13, 13)
	if _, err := data.ReadInto(want, strings.NewReader(text(0, 35)), "heart_scale.train", data.ReadOptions{Format: data.FormatLIBSVM}); err != nil {
		t.Fatal(err)
	}
	got := s.Dataset()
	if !slices.Equal(got.Labels(), want.Labels()) {
		t.Fatalf("labels %v, want %v", got.Labels(), want.Labels())
	}
	for i := range want.Len() {
		gi, gv := got.SparseRow(i)
		wi, wv := want.SparseRow(i)
		if !slices.Equal(gi, wi) || !slices.Equal(gv, wv) {
			t.Fatalf("row %d differs", i)
		}
	}
	wantHashes := []Hash{sha256.Sum256([]byte(text(0, 20))), sha256.Sum256([]byte(text(20, 30))), sha256.Sum256([]byte(text(30, 35)))}
	if !slices.Equal(s.Hashes(), wantHashes) {
		t.Error("batch hashes differ")
	}
	if s.Generation() != 3 || s.Published() != 2 || s.known != 30 || kernelDual(s) != nil {
		t.Errorf("generation %d, published %d, known %d; want 3, 2, 30", s.Generation(), s.Published(), s.known)
	}
	if !slices.Equal(s.age[:35], append(append(slices.Repeat([]uint64{1}, 20), slices.Repeat([]uint64{2}, 10)...), slices.Repeat([]uint64{3}, 5)...)) {
		t.Errorf("ages %v", s.age[:35])
	}
	// The α the old code stored is that of -s 1 on the first 30 rows; the
	// L2-loss dual is strictly convex, so a fresh solve with the same
	// seeded solver gives it again.
	opts, _, err := options.ParseLinear([]string{"-s", "1"})
	if err != nil {
		t.Fatal(err)
	}
	_, ref, err := linear.TrainLinear(want.Prefix(30), opts.Params)
	if err != nil {
		t.Fatal(err)
	}
	d := linearDual(s)
	if d == nil || len(d.Alpha) != 1 || !slices.Equal(d.Labels, ref.Labels) {
		t.Fatalf("dual %+v, want labels %v and one vector", d, ref.Labels)
	}
	for i, a := range d.Alpha[0] {
		w := 0.0
		if i < 30 {
			w = ref.Alpha[0][i]
		}
		if math.Abs(a-w) > 1e-12 {
			t.Fatalf("α[%d] = %v, want %v", i, a, w)
		}
	}
	// Rewritten as version 2: the same payload.
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(dir, SnapshotName))
	if err != nil {
		t.Fatal(err)
	}
	if again[8] != 2 || !bytes.Equal(again[:8], fixture[:8]) || !bytes.Equal(again[10:], fixture[10:]) {
		t.Error("the version 2 rewrite differs from the fixture beyond its version")
	}
	equalStores(t, open(t, dir, cfg), s)
}
