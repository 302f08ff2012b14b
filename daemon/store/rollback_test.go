package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestRollback: Rollback returns the store to its last snapshot: the rows
// an Add evicted are back with their weights and α, the batch's hash is
// forgotten (it may be added again), and the snapshot Commit then writes is
// byte for byte the one before the Add. After a failed Commit it refuses.
func TestRollback(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Capacity: 4, CapacityNonzeros: 40, MaxFeatures: 6, Policy: EvictOldest}
	s := open(t, dir, cfg)
	if err := s.Rollback(); err != nil || s.Len() != 0 {
		t.Fatalf("rollback of a new store: %v, %d rows", err, s.Len())
	}
	add(t, s, "a", ids(1, 3, 2)...)
	if err := s.Dataset().SetWeight(1, 2.5); err != nil {
		t.Fatal(err)
	}
	if err := setLinearDual(s, &linear.LinearDual{Labels: []int32{1, 2, 3}, Alpha: [][]float64{{0.5, 0, 1}, {0, 1, 0}, {1, 0, 0}}}); err != nil {
		t.Fatal(err)
	}
	s.SetVersion(7)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	before := snapshotBytes(s)

	add(t, s, "b", ids(4, 3, 2)...) // evicts two rows
	s.SetPublished(2)
	s.SetVersion(8)
	if s.Len() != 4 || s.Version() != 8 {
		t.Fatalf("after the Add: %d rows, version %d", s.Len(), s.Version())
	}
	if err := s.Rollback(); err != nil {
		t.Fatal(err)
	}
	wantLabels(t, s, 1, 2, 3)
	if got := s.Dataset().Weight(1); got != 2.5 {
		t.Errorf("row 1 weighs %v after the rollback, want 2.5", got)
	}
	wantAlpha(t, s, []float64{0.5, 0, 1}, []float64{0, 1, 0}, []float64{1, 0, 0})
	if s.Has(hashOf("b")) || !s.Has(hashOf("a")) || s.Version() != 7 || s.Generation() != 1 || s.Uncommitted() {
		t.Errorf("after the rollback: has b %v, has a %v, version %d, generation %d, uncommitted %v",
			s.Has(hashOf("b")), s.Has(hashOf("a")), s.Version(), s.Generation(), s.Uncommitted())
	}
	if got := snapshotBytes(s); !bytes.Equal(got, before) {
		t.Error("the snapshot after the rollback differs from the one before the Add")
	}
	add(t, s, "b", ids(4, 1, 2)...) // the hash is free again

	// A failed Commit: the state to go back to is unknown.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err == nil {
		t.Fatal("Commit into a removed directory succeeded")
	}
	if err := s.Rollback(); err == nil {
		t.Error("Rollback after a failed Commit succeeded")
	}
	if s.Len() != 4 {
		t.Errorf("a refused Rollback changed the store: %d rows", s.Len())
	}
}

// TestVersionRoundTrip: the recorded model version survives a Commit and
// Open; a store that never recorded one writes no version section, and a
// version section of 0 or one given twice is corruption.
func TestVersionRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Capacity: 4, CapacityNonzeros: 40, MaxFeatures: 6}
	s := open(t, dir, cfg)
	add(t, s, "a", ids(1, 2, 1)...)
	plain := snapshotBytes(s)
	s.SetVersion(41)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	r := open(t, dir, cfg)
	if r.Version() != 41 {
		t.Fatalf("version %d after reopening, want 41", r.Version())
	}
	snap, err := os.ReadFile(filepath.Join(dir, SnapshotName))
	if err != nil {
		t.Fatal(err)
	}
	if snap[8] != snapMajorBatches || !bytes.Equal(snap[snapHeaderSize:len(snap)-9], plain[snapHeaderSize:]) {
		t.Errorf("major %d; the snapshot is not the one without a version plus its section", snap[8])
	}
	for name, tail := range map[string][]byte{
		"zero":  {sectionVersion, 0, 0, 0, 0, 0, 0, 0, 0},
		"twice": {sectionVersion, 1, 0, 0, 0, 0, 0, 0, 0, sectionVersion, 2, 0, 0, 0, 0, 0, 0, 0},
	} {
		bad := append(bytes.Clone(plain), tail...)
		binary.LittleEndian.PutUint16(bad[8:10], snapMajorBatches)
		setPayloadLen(bad)
		fixCRC(bad)
		if err := newStore("", cfgResolved(t, cfg)).decode(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

// setPayloadLen rewrites a snapshot's payload length to its actual one.
func setPayloadLen(snap []byte) {
	binary.LittleEndian.PutUint64(snap[12:20], uint64(len(snap)-snapHeaderSize))
}

// cfgResolved returns cfg with its defaults filled in, as newStore wants it.
func cfgResolved(t *testing.T, cfg Config) Config {
	t.Helper()
	c, err := cfg.resolve()
	if err != nil {
		t.Fatal(err)
	}
	return c
}
