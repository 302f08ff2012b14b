package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestUncommitted follows Uncommitted through each change and Commit, and
// through a Commit that fails (its directory removed): the changes stay
// uncommitted in memory, and a later Commit makes all of them durable.
func TestUncommitted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	cfg := Config{Capacity: 5, CapacityNonzeros: 12, MaxFeatures: 6}
	s := open(t, dir, cfg)
	if s.Uncommitted() {
		t.Fatal("a new store is uncommitted")
	}
	commit := func(what string) {
		t.Helper()
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		if s.Uncommitted() {
			t.Fatalf("after %s and Commit: uncommitted", what)
		}
	}
	changes := []struct {
		what   string
		change func() error
	}{
		{"Add", func() error { _, err := s.Add(hashOf("a"), batch(t, ids(1, 2, 2)...)); return err }},
		{"SetDual", func() error {
			return setLinearDual(s, &linear.LinearDual{Labels: []int32{1, 2}, Alpha: [][]float64{{0.5, 0}}})
		}},
		{"SetDual (its own)", func() error { return setLinearDual(s, linearDual(s)) }},
		{"SetKernelDual", func() error {
			return setKernelDual(s, &core.KernelDual{SVMType: core.OneClass, Alpha: [][]float64{{0.25, 0.75}}})
		}},
		{"SetPublished", func() error { s.SetPublished(1); return nil }},
	}
	for _, c := range changes {
		if err := c.change(); err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if !s.Uncommitted() {
			t.Errorf("after %s: not uncommitted", c.what)
		}
		commit(c.what)
	}
	// Refused changes change nothing.
	if _, err := s.Add(hashOf("a"), batch(t, ids(3, 1, 1)...)); err == nil {
		t.Fatal("Add of a duplicate accepted")
	}
	if err := setLinearDual(s, &linear.LinearDual{Alpha: [][]float64{{1}}}); err == nil {
		t.Fatal("SetDual of a wrong length accepted")
	}
	if s.Uncommitted() {
		t.Error("refused changes made the store uncommitted")
	}

	add(t, s, "b", ids(3, 1, 1)...)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err == nil {
		t.Fatal("Commit into a removed directory succeeded")
	}
	if !s.Uncommitted() {
		t.Fatal("a failed Commit left the store committed")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	commit("a failed Commit")
	equalStores(t, open(t, dir, cfg), s)
}
