package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

// TestWeightsRoundTrip: instance weights are stored with their rows,
// follow them through eviction and a Commit, and a store without weights
// writes the snapshot bytes it wrote before weights existed (minor 0, no
// weights section).
func TestWeightsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Capacity: 4, CapacityNonzeros: 40, MaxFeatures: 6, Policy: EvictOldest}
	s := open(t, dir, cfg)
	add(t, s, "plain", ids(1, 2, 1)...)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	snap, err := os.ReadFile(filepath.Join(dir, SnapshotName))
	if err != nil {
		t.Fatal(err)
	}
	if snap[10] != 0 || snap[11] != 0 {
		t.Errorf("minor version %d without weights, want 0", int(snap[10])|int(snap[11])<<8)
	}
	if s.Dataset().Weights() != nil {
		t.Error("a store without weights allocated them")
	}

	b := batch(t, ids(3, 3, 2)...)
	if err := b.SetWeight(0, 2.5); err != nil {
		t.Fatal(err)
	}
	if err := b.SetWeight(2, 0.125); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(hashOf("weighted"), b); err != nil {
		t.Fatal(err)
	}
	// Capacity 4: the oldest row (label 1) was evicted; the weights moved
	// with their rows.
	wantLabels(t, s, 2, 3, 4, 5)
	for i, w := range []float64{1, 2.5, 1, 0.125} {
		if got := s.Dataset().Weight(i); got != w {
			t.Errorf("row %d weighs %v, want %v", i, got, w)
		}
	}
	if err := s.Compact(); err != nil { // the snapshot, not a journal frame
		t.Fatal(err)
	}
	r := open(t, dir, cfg)
	equalStores(t, r, s)
	snap, err = os.ReadFile(filepath.Join(dir, SnapshotName))
	if err != nil {
		t.Fatal(err)
	}
	if snap[10] != snapMinorWeights {
		t.Errorf("minor version %d with weights, want %d", snap[10], snapMinorWeights)
	}
	// A bad weight in the snapshot is corruption, as any bad field.
	bad := bytes.Clone(snap)
	copy(bad[len(bad)-8:], []byte{0, 0, 0, 0, 0, 0, 0xf0, 0xbf}) // −1
	fixCRC(bad)
	if err := os.WriteFile(filepath.Join(dir, SnapshotName), bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, cfg); !errors.Is(err, ErrCorrupt) {
		t.Errorf("negative weight: %v, want ErrCorrupt", err)
	}
}

// fixCRC rewrites the payload checksum of a snapshot in place.
func fixCRC(snap []byte) {
	binary.LittleEndian.PutUint32(snap[20:24], crc32.Checksum(snap[snapHeaderSize:], castagnoli))
}
