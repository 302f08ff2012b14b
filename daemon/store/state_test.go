package store

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
)

// TestReadsVersion2KernelFixture opens testdata/v2-kernel.snap, written by
// the store before the training state encoded itself (commit 8be97ea,
// when the store encoded each kind of dual by hand): Config{Capacity: 8,
// MaxFeatures: 4}; rows labelled 1, 2, 3 (ids(1, 3, 2)) with a C-SVC dual
// over the pairs (1, 2), (1, 3), (2, 3), published, then row 4 added
// without training. The dual must read back as that code wrote it, and a
// Commit of what was read must write the same bytes: the state's own
// encoding (core.Dual.AppendBinary) is the one the store wrote.
func TestReadsVersion2KernelFixture(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("testdata", "v2-kernel.snap"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, SnapshotName)
	if err := os.WriteFile(path, fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir, Config{Capacity: 8, MaxFeatures: 4})
	wantLabels(t, s, 1, 2, 3, 4)
	k := kernelDual(s)
	if k == nil || k.SVMType != core.CSVC || !slices.Equal(k.Pairs, [][2]int32{{1, 2}, {1, 3}, {2, 3}}) || s.known != 3 {
		t.Fatalf("kernel dual %+v, known %d", k, s.known)
	}
	wantKernelAlpha(t, s, []float64{0.5, 0.5, 0, 0}, []float64{0.25, 0, 0.25, 0}, []float64{0, 1, 1, 0})
	d := s.Dual()
	for i, want := range []bool{true, true, true, false} {
		if d.IsSupport(i) != want {
			t.Errorf("row %d: IsSupport = %v", i, !want)
		}
	}
	s.dirty = true
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, fixture) {
		t.Error("the snapshot written back differs from the one read")
	}
}
