package store

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/fileio/memfs"
)

// TestCommitUnsynced: a frame CommitUnsynced wrote is in the journal (a
// reopened store reads it) but a machine's crash may lose it, never
// leaving a store that fails to open or is neither state; the next
// Commit's sync, or Sync, makes it durable (every crash keeps it).
func TestCommitUnsynced(t *testing.T) {
	m := memfs.New()
	if err := fileio.MkdirAllSynced(m, "/d", 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := journalCfg
	cfg.MaxAge = 0
	s, err := OpenFS(m, "/d", cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(21, 4))
	step := func(i int) []byte {
		journalStep(t, s, rng, i)
		return s.encode(nil)
	}
	// crashes opens 100 crash clones of m and returns how many held each
	// of the states want (by their snapshots); any other state fails.
	crashes := func(want ...[]byte) []int {
		t.Helper()
		n := make([]int, len(want))
		crng := rand.New(rand.NewPCG(4, 21))
		for range 100 {
			r, err := OpenFS(m.CrashClone(crng), "/d", cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := r.encode(nil)
			k := 0
			for k < len(want) && !bytes.Equal(got, want[k]) {
				k++
			}
			if k == len(want) {
				t.Fatal("a crash left a store of neither state")
			}
			n[k]++
		}
		return n
	}
	for i := range 3 {
		step(i)
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	before := s.encode(nil)
	after := step(3)
	if err := s.CommitUnsynced(); err != nil || s.Uncommitted() {
		t.Fatalf("CommitUnsynced: %v, uncommitted %v", err, s.Uncommitted())
	}
	if r, err := OpenFS(m, "/d", cfg); err != nil || !bytes.Equal(r.encode(nil), after) {
		t.Fatalf("reopened without a crash: %v, or not the state written", err)
	}
	if n := crashes(before, after); n[0] == 0 || n[1] == 0 {
		t.Errorf("crashes after CommitUnsynced: %d before, %d after; want both", n[0], n[1])
	}
	next := step(4)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := crashes(next); n[0] != 100 {
		t.Errorf("after the next Commit %d of 100 crashes kept it", n[0])
	}
	last := step(5)
	if err := s.CommitUnsynced(); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if n := crashes(last); n[0] != 100 {
		t.Errorf("after Sync %d of 100 crashes kept it", n[0])
	}
}
