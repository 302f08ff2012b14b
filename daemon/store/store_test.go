package store

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// row is a test row; its label doubles as its identity in eviction tests.
type row struct {
	label float64
	idx   []int32
	val   []float32
}

// batch returns a sparse data set holding rows, with no feature limit (so
// that a test can build rows the store must refuse).
func batch(t testing.TB, rows ...row) *data.Dataset {
	t.Helper()
	nnz := 0
	for _, r := range rows {
		nnz += len(r.idx)
	}
	ds := data.NewSparse(len(rows), nnz, 0)
	for _, r := range rows {
		if err := ds.AppendSparse(r.label, r.idx, r.val); err != nil {
			t.Fatal(err)
		}
	}
	return ds
}

// ids returns rows labelled first, first+1, ..., each with nnz nonzeros at
// indices 0..nnz-1 valued by the label.
func ids(first, count, nnz int) []row {
	rs := make([]row, count)
	for i := range rs {
		l := float64(first + i)
		rs[i] = row{label: l}
		for j := range nnz {
			rs[i].idx = append(rs[i].idx, int32(j))
			rs[i].val = append(rs[i].val, float32(l)+float32(j)/8)
		}
	}
	return rs
}

func hashOf(s string) Hash { return sha256.Sum256([]byte(s)) }

func open(t testing.TB, dir string, cfg Config) *Store {
	t.Helper()
	s, err := Open(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func add(t testing.TB, s *Store, name string, rows ...row) int {
	t.Helper()
	ev, err := s.Add(hashOf(name), batch(t, rows...))
	if err != nil {
		t.Fatalf("Add %s: %v", name, err)
	}
	return ev
}

// wantLabels checks the store's rows by their labels, in order.
func wantLabels(t *testing.T, s *Store, want ...float64) {
	t.Helper()
	if got := s.Dataset().Labels(); !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
}

// wantAlpha checks the store's dual vectors.
func wantAlpha(t *testing.T, s *Store, want ...[]float64) {
	t.Helper()
	d := linearDual(s)
	if d == nil {
		t.Fatal("no dual")
	}
	if len(d.Alpha) != len(want) {
		t.Fatalf("%d dual vectors, want %d", len(d.Alpha), len(want))
	}
	for k := range want {
		if !slices.Equal(d.Alpha[k], want[k]) {
			t.Fatalf("α[%d] = %v, want %v", k, d.Alpha[k], want[k])
		}
	}
}

// wantKernelAlpha checks the store's kernel dual vectors.
func wantKernelAlpha(t *testing.T, s *Store, want ...[]float64) {
	t.Helper()
	d := kernelDual(s)
	if d == nil {
		t.Fatal("no kernel dual")
	}
	if len(d.Alpha) != len(want) {
		t.Fatalf("%d kernel dual vectors, want %d", len(d.Alpha), len(want))
	}
	for k := range want {
		if !slices.Equal(d.Alpha[k], want[k]) {
			t.Fatalf("α[%d] = %v, want %v", k, d.Alpha[k], want[k])
		}
	}
}

func TestParsePolicy(t *testing.T) {
	for _, p := range []Policy{EvictNonSVOldest, EvictOldest} {
		got, err := ParsePolicy(p.String())
		if err != nil || got != p {
			t.Errorf("ParsePolicy(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParsePolicy("newest"); err == nil {
		t.Error("ParsePolicy(newest) succeeded")
	}
	if s := Policy(7).String(); s != "Policy(7)" {
		t.Errorf("Policy(7).String() = %q", s)
	}
	var zero Config
	if zero.Policy != EvictNonSVOldest {
		t.Error("the zero Policy is not the default")
	}
}

func TestOpenConfig(t *testing.T) {
	bad := []Config{
		{Capacity: 0, MaxFeatures: 3},
		{Capacity: 3, MaxFeatures: 0},
		{Capacity: 3, MaxFeatures: 3, CapacityNonzeros: -1},
		{Capacity: 3, MaxFeatures: 3, Policy: 2},
		{Capacity: math.MaxInt / 2, MaxFeatures: 4},
	}
	if beyond := int64(math.MaxInt32) + 2; beyond <= math.MaxInt { // a 64-bit int: 2³¹+1 features
		bad = append(bad, Config{Capacity: 3, MaxFeatures: int(beyond)})
	}
	for _, cfg := range bad {
		if _, err := Open(t.TempDir(), cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("Open(%+v): %v, want ErrConfig", cfg, err)
		}
	}
	dir := filepath.Join(t.TempDir(), "a", "state")
	s := open(t, dir, Config{Capacity: 5, MaxFeatures: 7})
	if got := s.Config(); got != (Config{Capacity: 5, CapacityNonzeros: 35, MaxFeatures: 7}) {
		t.Errorf("Config() = %+v", got)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("Open did not create %s: %v", dir, err)
	}
	if s.Len() != 0 || linearDual(s) != nil || s.Generation() != 0 || s.Published() != 0 || len(s.Hashes()) != 0 {
		t.Error("a new store is not empty")
	}
}

// TestEvictOldest: capacity 5; batches of 3, 2 and 2 rows. The third needs
// two rows: the two oldest, rows 1 and 2 of the first batch, go.
func TestEvictOldest(t *testing.T) {
	s := open(t, t.TempDir(), Config{Capacity: 5, MaxFeatures: 4, Policy: EvictOldest})
	if ev := add(t, s, "a", ids(1, 3, 2)...); ev != 0 {
		t.Fatalf("evicted %d", ev)
	}
	if ev := add(t, s, "b", ids(4, 2, 2)...); ev != 0 {
		t.Fatalf("evicted %d", ev)
	}
	// A dual with every α 0 must not change the oldest policy.
	if err := setLinearDual(s, &linear.LinearDual{Alpha: [][]float64{{1, 1, 1, 0, 0}}}); err != nil {
		t.Fatal(err)
	}
	if ev := add(t, s, "c", ids(6, 2, 2)...); ev != 2 {
		t.Fatalf("evicted %d, want 2", ev)
	}
	wantLabels(t, s, 3, 4, 5, 6, 7)
	wantAlpha(t, s, []float64{1, 0, 0, 0, 0})
	if got := s.age[:s.Len()]; !slices.Equal(got, []uint64{1, 2, 2, 3, 3}) {
		t.Errorf("ages %v", got)
	}
	// The rows themselves moved with their labels.
	for i := range s.Len() {
		idx, val := s.Dataset().SparseRow(i)
		l := float32(s.Dataset().Label(i))
		if !slices.Equal(idx, []int32{0, 1}) || !slices.Equal(val, []float32{l, l + 0.125}) {
			t.Errorf("row %d: %v %v", i, idx, val)
		}
	}
}

// TestEvictNonSVOldest follows the default policy by hand.
//
// Capacity 6. Batch a = rows 1..4, trained: α₀ = (.5, 0, .3, 0), α₁ = 0, so
// rows 2 and 4 are non-SVs. Batch b = rows 5, 6 (α unknown). Batch c = rows
// 7..9 needs 3 rows: the non-SVs 2 and 4, then the oldest, 1. Left: 3, 5..9,
// α₀ = (.3, 0...), only row 3's α known. Batch d = row 10 needs one row:
// rows 5..9 have α 0 but unknown, so they count as SVs and the oldest, row 3
// (an SV), goes. The oldest policy would keep 1..3 out of step.
func TestEvictNonSVOldest(t *testing.T) {
	s := open(t, t.TempDir(), Config{Capacity: 6, MaxFeatures: 4})
	add(t, s, "a", ids(1, 4, 1)...)
	if err := setLinearDual(s, &linear.LinearDual{
		Labels: []int32{1, 2},
		Alpha:  [][]float64{{.5, 0, .3, 0}, {0, 0, 0, 0}},
	}); err != nil {
		t.Fatal(err)
	}
	if ev := add(t, s, "b", ids(5, 2, 1)...); ev != 0 {
		t.Fatalf("evicted %d", ev)
	}
	wantAlpha(t, s, []float64{.5, 0, .3, 0, 0, 0}, []float64{0, 0, 0, 0, 0, 0})
	if ev := add(t, s, "c", ids(7, 3, 1)...); ev != 3 {
		t.Fatalf("evicted %d, want 3", ev)
	}
	wantLabels(t, s, 3, 5, 6, 7, 8, 9)
	// Positions 1..5 held α .3 and 0 before; the new rows must read 0.
	wantAlpha(t, s, []float64{.3, 0, 0, 0, 0, 0}, []float64{0, 0, 0, 0, 0, 0})
	if s.known != 1 {
		t.Errorf("known = %d, want 1", s.known)
	}
	if ev := add(t, s, "d", ids(10, 1, 1)...); ev != 1 {
		t.Fatalf("evicted %d, want 1", ev)
	}
	wantLabels(t, s, 5, 6, 7, 8, 9, 10)
	wantAlpha(t, s, make([]float64, 6), make([]float64, 6))
	if s.known != 0 {
		t.Errorf("known = %d, want 0", s.known)
	}
	if d := linearDual(s); !slices.Equal(d.Labels, []int32{1, 2}) {
		t.Errorf("dual labels %v", d.Labels)
	}

	// The same stream under the oldest policy.
	o := open(t, t.TempDir(), Config{Capacity: 6, MaxFeatures: 4, Policy: EvictOldest})
	add(t, o, "a", ids(1, 4, 1)...)
	if err := setLinearDual(o, &linear.LinearDual{Alpha: [][]float64{{.5, 0, .3, 0}}}); err != nil {
		t.Fatal(err)
	}
	add(t, o, "b", ids(5, 2, 1)...)
	add(t, o, "c", ids(7, 3, 1)...)
	wantLabels(t, o, 4, 5, 6, 7, 8, 9)
}

// TestEvictNonzeros: 10 rows but 6 nonzeros. Rows 1 (3 nonzeros) and 2 (2)
// hold 5; row 3 (3) needs 2 more: row 1 goes. Row 4 (4) then needs 3 of
// the 5 held: rows 2 and 3 go (2 alone frees too few).
func TestEvictNonzeros(t *testing.T) {
	s := open(t, t.TempDir(), Config{Capacity: 10, CapacityNonzeros: 6, MaxFeatures: 4})
	add(t, s, "a", ids(1, 1, 3)[0], ids(2, 1, 2)[0])
	if ev := add(t, s, "b", ids(3, 1, 3)...); ev != 1 {
		t.Fatalf("evicted %d, want 1", ev)
	}
	wantLabels(t, s, 2, 3)
	if ev := add(t, s, "c", ids(4, 1, 4)...); ev != 2 {
		t.Fatalf("evicted %d, want 2", ev)
	}
	wantLabels(t, s, 4)
	if nz := s.Dataset().Nonzeros(); nz != 4 {
		t.Errorf("%d nonzeros, want 4", nz)
	}
}

// snapshotBytes is the store's whole state as Commit would write it.
func snapshotBytes(s *Store) []byte { return s.encode(nil) }

func TestAddErrorsLeaveStoreUnchanged(t *testing.T) {
	s := open(t, t.TempDir(), Config{Capacity: 4, CapacityNonzeros: 8, MaxFeatures: 5})
	add(t, s, "a", ids(1, 3, 2)...)
	if err := setLinearDual(s, &linear.LinearDual{Alpha: [][]float64{{0, 1, 0}}}); err != nil {
		t.Fatal(err)
	}
	before := snapshotBytes(s)
	bytesBefore := s.Bytes()

	cases := []struct {
		name string
		h    Hash
		b    *data.Dataset
		want error
	}{
		{"rows", hashOf("x"), batch(t, ids(10, 5, 1)...), ErrBatchTooLarge},
		{"nonzeros", hashOf("y"), batch(t, ids(10, 2, 5)...), ErrBatchTooLarge},
		{"duplicate", hashOf("a"), batch(t, ids(10, 1, 1)...), ErrDuplicate},
		{"index", hashOf("z"), batch(t, ids(10, 1, 1)[0], row{11, []int32{5}, []float32{1}}), data.ErrBadRow},
	}
	dense := data.NewDense(1, 7)
	if err := dense.AppendDense(12, []float32{1, 0, 0, 0, 0, 0, 2}); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, struct {
		name string
		h    Hash
		b    *data.Dataset
		want error
	}{"dense-index", hashOf("w"), dense, data.ErrBadRow})
	for _, tc := range cases {
		ev, err := s.Add(tc.h, tc.b)
		if !errors.Is(err, tc.want) || ev != 0 {
			t.Errorf("%s: Add = %d, %v; want 0, %v", tc.name, ev, err, tc.want)
		}
		if !bytes.Equal(snapshotBytes(s), before) {
			t.Fatalf("%s: the failed Add changed the store", tc.name)
		}
		if s.Has(tc.h) != (tc.want == ErrDuplicate) {
			t.Errorf("%s: Has = %v", tc.name, s.Has(tc.h))
		}
	}
	if s.Bytes() != bytesBefore {
		t.Errorf("Bytes %d, was %d", s.Bytes(), bytesBefore)
	}
	// A batch of exactly the store's size replaces everything.
	if ev := add(t, s, "full", ids(20, 4, 2)...); ev != 3 {
		t.Errorf("evicted %d, want 3", ev)
	}
	wantLabels(t, s, 20, 21, 22, 23)
}

func TestAddDenseAndEmpty(t *testing.T) {
	s := open(t, t.TempDir(), Config{Capacity: 4, MaxFeatures: 3})
	d := data.NewDense(2, 5) // wider than the store, zeros past it
	if err := d.AppendDense(1, []float32{0, 2, 3, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := d.AppendDense(-1, []float32{4, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(hashOf("dense"), d); err != nil {
		t.Fatal(err)
	}
	idx, val := s.Dataset().SparseRow(0)
	if !slices.Equal(idx, []int32{1, 2}) || !slices.Equal(val, []float32{2, 3}) {
		t.Errorf("row 0: %v %v", idx, val)
	}
	if _, err := s.Add(hashOf("empty"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(hashOf("empty2"), data.NewSparse(0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 || s.Generation() != 3 || !s.Has(hashOf("empty")) {
		t.Errorf("Len %d, generation %d", s.Len(), s.Generation())
	}
	if got := s.Hashes(); !slices.Equal(got, []Hash{hashOf("dense"), hashOf("empty"), hashOf("empty2")}) {
		t.Error("Hashes out of order")
	}
	s.Hashes()[0] = Hash{}
	if s.Hashes()[0] != hashOf("dense") {
		t.Error("Hashes returned the store's own slice")
	}
}

func TestSetDualErrors(t *testing.T) {
	s := open(t, t.TempDir(), Config{Capacity: 4, MaxFeatures: 3})
	add(t, s, "a", ids(1, 2, 1)...)
	good := &linear.LinearDual{Alpha: [][]float64{{1, 2}}}
	if err := setLinearDual(s, good); err != nil {
		t.Fatal(err)
	}
	good.Alpha[0][0] = 9 // SetDual copied
	for name, d := range map[string]*linear.LinearDual{
		"nil":      nil,
		"short":    {Alpha: [][]float64{{1}}},
		"long":     {Alpha: [][]float64{{1, 2, 3}}},
		"ragged":   {Alpha: [][]float64{{1, 2}, {1}}},
		"too-many": {Alpha: [][]float64{{1, 2}, {1, 2}, {1, 2}}},
		"nan":      {Alpha: [][]float64{{math.NaN(), 2}}},
		"inf":      {Alpha: [][]float64{{1, math.Inf(-1)}}},
	} {
		if err := setLinearDual(s, d); !errors.Is(err, ErrDual) {
			t.Errorf("%s: SetDual = %v, want ErrDual", name, err)
		}
	}
	wantAlpha(t, s, []float64{1, 2})
	// A new class adds a vector buffer; fewer vectors keep the buffers.
	b := s.Bytes()
	if err := setLinearDual(s, &linear.LinearDual{Labels: []int32{1, 2}, Alpha: [][]float64{{3, 4}, {5, 6}}}); err != nil {
		t.Fatal(err)
	}
	if got := s.Bytes() - b; got != 4*8+2*4 {
		t.Errorf("a second vector and two labels cost %d bytes, want %d", got, 4*8+2*4)
	}
	if err := setLinearDual(s, &linear.LinearDual{Alpha: [][]float64{{7, 8}}}); err != nil {
		t.Fatal(err)
	}
	wantAlpha(t, s, []float64{7, 8})
	if linearDual(s).Labels != nil {
		t.Error("nil labels not kept nil")
	}
	if err := setLinearDual(s, linearDual(s)); err != nil { // its own dual back
		t.Fatal(err)
	}
	wantAlpha(t, s, []float64{7, 8})
}

// equalStores compares everything a snapshot holds.
func equalStores(t *testing.T, got, want *Store) {
	t.Helper()
	if got.Len() != want.Len() || got.Generation() != want.Generation() || got.Published() != want.Published() {
		t.Fatalf("len/generation/published %d/%d/%d, want %d/%d/%d", got.Len(), got.Generation(), got.Published(),
			want.Len(), want.Generation(), want.Published())
	}
	if !slices.Equal(got.Hashes(), want.Hashes()) || !slices.Equal(got.batches, want.batches) {
		t.Fatal("hashes or batch records differ")
	}
	for _, h := range want.Hashes() {
		if !got.Has(h) {
			t.Fatal("Has forgets a hash")
		}
	}
	gd, wd := got.Dataset(), want.Dataset()
	if !slices.Equal(gd.Labels(), wd.Labels()) || gd.NumFeatures() != wd.NumFeatures() || gd.Nonzeros() != wd.Nonzeros() {
		t.Fatal("labels or shapes differ")
	}
	for i := range wd.Len() {
		gi, gv := gd.SparseRow(i)
		wi, wv := wd.SparseRow(i)
		if !slices.Equal(gi, wi) || !slices.Equal(gv, wv) {
			t.Fatalf("row %d differs", i)
		}
	}
	for i := range wd.Len() {
		if gd.Weight(i) != wd.Weight(i) {
			t.Fatalf("row %d weighs %v, want %v", i, gd.Weight(i), wd.Weight(i))
		}
	}
	if !slices.Equal(got.age[:got.Len()], want.age[:want.Len()]) || got.known != want.known {
		t.Fatal("ages or known rows differ")
	}
	if (linearDual(got) == nil) != (linearDual(want) == nil) {
		t.Fatal("one has a dual")
	}
	if (kernelDual(got) == nil) != (kernelDual(want) == nil) {
		t.Fatal("one has a kernel dual")
	}
	if wk := kernelDual(want); wk != nil {
		gk := kernelDual(got)
		if gk.SVMType != wk.SVMType || !slices.Equal(gk.Pairs, wk.Pairs) || gk.Gradient != nil {
			t.Fatalf("kernel dual %v %v, want %v %v", gk.SVMType, gk.Pairs, wk.SVMType, wk.Pairs)
		}
		wantKernelAlpha(t, got, wk.Alpha...)
	}
	if linearDual(want) != nil {
		if !slices.Equal(linearDual(got).Labels, linearDual(want).Labels) || (linearDual(got).Labels == nil) != (linearDual(want).Labels == nil) {
			t.Fatal("dual labels differ")
		}
		wantAlpha(t, got, linearDual(want).Alpha...)
	}
}

func TestCommitRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Capacity: 5, CapacityNonzeros: 12, MaxFeatures: 6}
	s := open(t, dir, cfg)
	// Empty store round trip.
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	equalStores(t, open(t, dir, cfg), s)

	add(t, s, "a", row{1, []int32{0, 5}, []float32{.5, -2}}, row{-1, nil, nil}, row{1, []int32{3}, []float32{1e-30}})
	if err := setLinearDual(s, &linear.LinearDual{Labels: []int32{1}, Alpha: [][]float64{{0.25, 0, -1e300}}}); err != nil {
		t.Fatal(err)
	}
	s.SetPublished(1)
	add(t, s, "b", row{2, []int32{1, 2, 4}, []float32{3, 4, 5}}, row{-1, []int32{2}, []float32{7}}, row{1, []int32{0}, []float32{1}})
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 2 || entries[0].Name() != LogName || entries[1].Name() != SnapshotName {
		t.Fatalf("directory after Commit: %v %v", entries, err)
	}
	r := open(t, dir, cfg)
	equalStores(t, r, s)
	// Batch b needed one row: a's second row, the one non-SV.
	wantLabels(t, r, 1, 1, 2, -1, 1)
	wantAlpha(t, r, []float64{0.25, -1e300, 0, 0, 0})
	if r.Generation() != 2 || r.Published() != 1 || r.known != 2 {
		t.Errorf("generation %d published %d known %d", r.Generation(), r.Published(), r.known)
	}
	// The reopened store evicts as the original would.
	at := time.Now()
	for _, st := range []*Store{s, r} {
		if _, err := st.AddAt(hashOf("c"), batch(t, ids(9, 1, 1)...), at); err != nil {
			t.Fatal(err)
		}
	}
	equalStores(t, r, s)
	wantLabels(t, r, 1, 2, -1, 1, 9)

	// A larger configuration keeps the rows; a smaller one that still fits
	// them too; one they do not fit is refused and the file kept.
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	equalStores(t, open(t, dir, Config{Capacity: 50, MaxFeatures: 60, Policy: EvictOldest}), s)
	equalStores(t, open(t, dir, Config{Capacity: 5, CapacityNonzeros: 7, MaxFeatures: 6}), s)
	for _, c := range []Config{
		{Capacity: 4, MaxFeatures: 6},
		{Capacity: 5, CapacityNonzeros: 6, MaxFeatures: 6},
		{Capacity: 5, MaxFeatures: 5}, // row 1 has index 4, fits; row -1... index 2; 1e-30 at 3: all < 5
		{Capacity: 5, MaxFeatures: 4},
	} {
		_, err := Open(dir, c)
		if c.MaxFeatures == 5 {
			if err != nil {
				t.Errorf("Open(%+v): %v", c, err)
			}
			continue
		}
		if !errors.Is(err, ErrConfig) {
			t.Errorf("Open(%+v): %v, want ErrConfig", c, err)
		}
	}
	equalStores(t, open(t, dir, cfg), s)
}

func TestStaleTempFile(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Capacity: 3, MaxFeatures: 3}
	s := open(t, dir, cfg)
	add(t, s, "a", ids(1, 2, 2)...)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, tempPrefix+"1234"+tempSuffix)
	half := s.encode(nil)
	if err := os.WriteFile(stale, half[:len(half)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "notes.tmp")
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := open(t, dir, cfg)
	equalStores(t, r, s)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temporary file kept: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("Open removed a file it does not own: %v", err)
	}
	// A crash before the first rename leaves only a temporary file: the
	// store starts empty.
	dir2 := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir2, tempPrefix+"9"+tempSuffix), half, 0o644); err != nil {
		t.Fatal(err)
	}
	if e := open(t, dir2, cfg); e.Len() != 0 || e.Generation() != 0 {
		t.Error("a temporary file was loaded")
	}
}

func TestCorruptSnapshot(t *testing.T) {
	dir := t.TempDir()
	cfg := fuzzCfg // which inconsistentSnapshots' rows fit
	s := open(t, dir, cfg)
	add(t, s, "a", ids(1, 3, 2)...)
	if err := setLinearDual(s, &linear.LinearDual{Alpha: [][]float64{{1, 0, 2}}}); err != nil {
		t.Fatal(err)
	}
	add(t, s, "b", ids(4, 1, 3)...)
	good := s.encode(nil)
	path := filepath.Join(dir, SnapshotName)

	check := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(dir, cfg); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Open = %v, want ErrCorrupt", name, err)
		}
	}
	for _, n := range []int{0, 1, snapHeaderSize - 1, snapHeaderSize, snapHeaderSize + 10, len(good) / 2, len(good) - 1} {
		check(fmt.Sprintf("truncated to %d", n), good[:n])
	}
	check("trailing byte", append(slices.Clone(good), 0))
	rng := rand.New(rand.NewPCG(1, 2))
	for range 64 {
		b := slices.Clone(good)
		bit := rng.IntN(8 * len(b))
		if bit/8 == 10 || bit/8 == 11 {
			continue // the minor version is not checked, by design
		}
		b[bit/8] ^= 1 << (bit % 8)
		check(fmt.Sprintf("bit %d flipped", bit), b)
	}
	for n := range 8 {
		b := make([]byte, 1+rng.IntN(2*len(good)))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		if n%2 == 0 && len(b) > 8 {
			copy(b, snapMagic) // past the magic
		}
		check(fmt.Sprintf("random %d", n), b)
	}
	for name, b := range inconsistentSnapshots(t) {
		check(name, b)
	}
	// A directory in place of the snapshot.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, cfg); !errors.Is(err, ErrCorrupt) {
		t.Errorf("directory: Open = %v, want ErrCorrupt", err)
	}
}

// TestCapacityRandom streams 200 random batches through a small store,
// with random duals, and checks after each that the capacity holds and that
// the rows kept are those a plain reference implementation of the policy
// keeps. Every 40 batches the store is committed and reopened.
//
// With kernel duals (subtest "kernel"), each "training" records a random
// C-SVC dual over random class pairs (or an ε-SVR β, signed), the
// reference drops a dual that an eviction leaves with more vectors than
// maxVectorsFor allows, and a linear dual now and then switches the kind.
func TestCapacityRandom(t *testing.T) {
	type variant struct {
		policy Policy
		kernel bool
	}
	for _, v := range []variant{{EvictNonSVOldest, false}, {EvictOldest, false}, {EvictNonSVOldest, true}} {
		policy := v.policy
		name := policy.String()
		if v.kernel {
			name += "-kernel"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := Config{Capacity: 12, CapacityNonzeros: 30, MaxFeatures: 6, Policy: policy}
			s := open(t, dir, cfg)
			rng := rand.New(rand.NewPCG(3, uint64(policy)))
			type refRow struct {
				id    float64
				nnz   int
				known bool
				alpha []float64
			}
			var ref []refRow
			nvec := 0
			// The reference dual's kind: a kernel C-SVC dual has up to
			// n(n−1)/2 vectors, a linear one n, an ε-SVR one 1.
			kernelSVC := false
			next := 1
			for b := range 200 {
				rows := make([]row, rng.IntN(6))
				for i := range rows {
					r := row{label: float64(next)}
					next++
					for j := range cfg.MaxFeatures {
						if rng.IntN(3) == 0 {
							r.idx = append(r.idx, int32(j))
							r.val = append(r.val, float32(rng.NormFloat64()))
						}
					}
					rows[i] = r
				}
				nnz := 0
				for _, r := range rows {
					nnz += len(r.idx)
				}
				// Reference eviction: count the room needed, take non-SVs
				// with known α oldest first (default policy), then oldest.
				needR := len(ref) + len(rows) - cfg.Capacity
				needZ := -cfg.CapacityNonzeros + nnz
				for _, r := range ref {
					needZ += r.nnz
				}
				gone := map[int]bool{}
				wantEv := 0
				if nnz <= cfg.CapacityNonzeros {
					passes := []bool{true, false}
					if policy == EvictOldest || nvec == 0 {
						passes = passes[1:]
					}
					for _, nonSV := range passes {
						for i, r := range ref {
							if needR <= 0 && needZ <= 0 || gone[i] {
								continue
							}
							if nonSV && (!r.known || slices.ContainsFunc(r.alpha, func(a float64) bool { return a != 0 })) {
								continue
							}
							gone[i] = true
							needR--
							needZ -= r.nnz
						}
					}
					wantEv = len(gone)
				}
				ev, err := s.Add(hashOf(fmt.Sprint(b)), batch(t, rows...))
				if nnz > cfg.CapacityNonzeros {
					if !errors.Is(err, ErrBatchTooLarge) {
						t.Fatalf("batch %d: %v, want ErrBatchTooLarge", b, err)
					}
				} else {
					if err != nil || ev != wantEv {
						t.Fatalf("batch %d: Add = %d, %v; want %d evicted", b, ev, err, wantEv)
					}
					kept := ref[:0:0]
					for i, r := range ref {
						if !gone[i] {
							kept = append(kept, r)
						}
					}
					for _, r := range rows {
						kept = append(kept, refRow{id: r.label, nnz: len(r.idx), alpha: make([]float64, nvec)})
					}
					ref = kept
					most := max(1, len(ref))
					if kernelSVC {
						most = max(1, len(ref)*(len(ref)-1)/2)
					}
					if nvec > most {
						nvec = 0 // the store drops the dual
						for i := range ref {
							ref[i].known, ref[i].alpha = false, nil
						}
					}
				}
				if s.Len() > cfg.Capacity || s.Dataset().Nonzeros() > cfg.CapacityNonzeros {
					t.Fatalf("batch %d: %d rows, %d nonzeros", b, s.Len(), s.Dataset().Nonzeros())
				}
				want := make([]float64, len(ref))
				for i, r := range ref {
					want[i] = r.id
				}
				wantLabels(t, s, want...)
				var vecs [][]float64
				switch {
				case linearDual(s) != nil:
					vecs = linearDual(s).Alpha
				case kernelDual(s) != nil:
					vecs = kernelDual(s).Alpha
				}
				if len(vecs) != nvec {
					t.Fatalf("batch %d: %d dual vectors, want %d", b, len(vecs), nvec)
				}
				{
					for k, a := range vecs {
						for i, r := range ref {
							if a[i] != r.alpha[k] {
								t.Fatalf("batch %d: α[%d][%d] = %v, want %v", b, k, i, a[i], r.alpha[k])
							}
						}
					}
				}
				// Train, as it were: a random sparse dual, one to three
				// vectors.
				if s.Len() > 0 && rng.IntN(3) > 0 {
					kind := 0 // linear
					if v.kernel {
						kind = 1 + rng.IntN(3) // C-SVC twice as often as ε-SVR
						if rng.IntN(5) == 0 {
							kind = 0
						}
					}
					n := s.Len()
					switch kind {
					case 0:
						nvec = 1 + rng.IntN(min(3, n))
					case 3:
						nvec = 1
					default:
						nvec = 1 + rng.IntN(min(6, max(1, n*(n-1)/2)))
					}
					kernelSVC = kind == 1 || kind == 2
					alpha := make([][]float64, nvec)
					for k := range alpha {
						alpha[k] = make([]float64, n)
					}
					for i := range ref {
						ref[i].known = true
						ref[i].alpha = make([]float64, nvec)
						for k := range nvec {
							if rng.IntN(3) == 0 {
								ref[i].alpha[k] = rng.Float64()
								if kind == 3 && rng.IntN(2) == 0 {
									ref[i].alpha[k] = -ref[i].alpha[k] // β is signed
								}
								alpha[k][i] = ref[i].alpha[k]
							}
						}
					}
					var err error
					switch kind {
					case 0:
						err = setLinearDual(s, &linear.LinearDual{Alpha: alpha})
					case 3:
						err = setKernelDual(s, &core.KernelDual{SVMType: core.EpsSVR, Alpha: alpha})
					default:
						// Distinct pairs of the classes 1..4: (a, b) with a < b
						// in a random order, flipped now and then.
						all := [][2]int32{{1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}}
						rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
						pairs := all[:nvec]
						for k := range pairs {
							if rng.IntN(2) == 0 {
								pairs[k] = [2]int32{pairs[k][1], pairs[k][0]}
							}
						}
						err = setKernelDual(s, &core.KernelDual{SVMType: core.CSVC, Pairs: pairs, Alpha: alpha})
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if b%40 == 39 {
					if err := s.Commit(); err != nil {
						t.Fatal(err)
					}
					r := open(t, dir, cfg)
					equalStores(t, r, s)
					s = r
				}
			}
		})
	}
}
