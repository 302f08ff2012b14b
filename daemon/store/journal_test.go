package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/fileio/memfs"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// journalStep makes the changes of step i of a stream through s, as the
// daemon makes them between two Commits, drawing from rng: a batch added
// (with the window, the policy's evictions and some weights), a dual
// recorded for the rows (small changes of the one held, a new shape now
// and then, of either kind), some batches forgotten, rows expired, the
// publication recorded. Its changes depend only on rng and the store's
// state, so two stores given the same draws end equal.
func journalStep(t testing.TB, s *Store, rng *rand.Rand, i int) {
	t.Helper()
	at := time.Unix(int64(1000+i), 0)
	rows := make([]row, 1+rng.IntN(5))
	for k := range rows {
		r := row{label: float64(1 + rng.IntN(3))}
		for j := range s.cfg.MaxFeatures {
			if rng.IntN(2) == 0 {
				r.idx = append(r.idx, int32(j))
				r.val = append(r.val, float32(rng.NormFloat64()))
			}
		}
		rows[k] = r
	}
	b := batch(t, rows...)
	if rng.IntN(4) == 0 {
		if err := b.SetWeight(0, 0.5+rng.Float64()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AddAt(hashOf(fmt.Sprint("batch ", i)), b, at); err != nil {
		t.Fatal(err)
	}
	n := s.Len()
	switch old := s.Dual(); {
	case rng.IntN(6) == 0 || old == nil:
		// A new shape: a kernel C-SVC dual over some pairs, or a linear one.
		if rng.IntN(2) == 0 {
			k := &core.KernelDual{SVMType: core.CSVC, Pairs: [][2]int32{{1, 2}, {1, 3}, {2, 3}}[:1+rng.IntN(3)]}
			for range k.Pairs {
				k.Alpha = append(k.Alpha, randomAlpha(rng, n, true))
			}
			if err := setKernelDual(s, k); err != nil {
				t.Fatal(err)
			}
		} else {
			l := &linear.LinearDual{Alpha: [][]float64{randomAlpha(rng, n, false)}}
			if err := setLinearDual(s, l); err != nil {
				t.Fatal(err)
			}
		}
	default:
		// A warm run: a few values change, the new rows' among them.
		d := old.Extended(n) // a run's own vectors, as Train returns them
		for _, a := range d.Vectors() {
			for range 1 + rng.IntN(3) {
				a[rng.IntN(n)] = rng.Float64()
			}
		}
		if k := d.Kernel; k != nil && len(k.Pairs) > 1 && rng.IntN(2) == 0 {
			// The classes appear in another order: the pairs come
			// reversed, the first turned round.
			k.Pairs = slices.Clone(k.Pairs)
			slices.Reverse(k.Pairs)
			slices.Reverse(k.Alpha)
			k.Pairs[0] = [2]int32{k.Pairs[0][1], k.Pairs[0][0]}
		}
		if err := s.SetDual(d); err != nil {
			t.Fatal(err)
		}
	}
	if i%7 == 3 {
		if _, err := s.Forget(hashOf(fmt.Sprint("batch ", i-2))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Expire(at); err != nil {
		t.Fatal(err)
	}
	s.SetPublished(s.Generation())
	s.SetVersion(uint64(i + 1))
}

// randomAlpha returns n dual values, about half of them 0, nonnegative
// unless signed.
func randomAlpha(rng *rand.Rand, n int, nonNeg bool) []float64 {
	a := make([]float64, n)
	for i := range a {
		if rng.IntN(2) == 0 {
			a[i] = rng.Float64()
			if !nonNeg && rng.IntN(2) == 0 {
				a[i] = -a[i]
			}
		}
	}
	return a
}

// journalCfg is a store small enough that the stream evicts, with a
// window and a maximum age, so that every kind of removal is journalled.
var journalCfg = Config{Capacity: 24, CapacityNonzeros: 24 * 6, MaxFeatures: 6, Window: 20, MaxAge: 30 * time.Second}

// TestJournalRoundTrip streams 300 steps through a store, committing
// after each, and after each opens the directory afresh: the store read
// (snapshot plus journal) equals the one in memory. The Commits append to
// the journal and compact only when its bytes pass the live ones: the
// files stay within twice the live bytes plus a frame, and compactions are
// few. Most duals go into the journal as a change of the one held.
func TestJournalRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, journalCfg)
	rng := rand.New(rand.NewPCG(21, 1))
	for i := range 300 {
		journalStep(t, s, rng, i)
		frame := frameHeader + len(s.pend)
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		if s.Uncommitted() {
			t.Fatal("uncommitted after Commit")
		}
		snap, log := fileSize(t, dir, SnapshotName), fileSize(t, dir, LogName)
		if live := s.liveBytes(); snap+log > 2*live+frame {
			t.Fatalf("step %d: files of %d + %d bytes, live %d", i, snap, log, live)
		}
		equalStores(t, open(t, dir, journalCfg), s)
	}
	if c := s.Compactions(); c < 2 || c > 60 {
		t.Errorf("%d compactions in 300 commits", c)
	}
	t.Logf("%d compactions in 300 commits", s.Compactions())
	// A fifth of the steps' duals are new shapes; of the others, when
	// more than half the values changed (a few rows held), it is whole.
	if s.dualDeltas < 150 {
		t.Errorf("%d of 300 duals went into the journal as a change", s.dualDeltas)
	}
	t.Logf("%d of 300 duals journalled as a change", s.dualDeltas)
}

func fileSize(t *testing.T, dir, name string) int {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.Size())
}

// TestJournalTornTail cuts the journal at every byte length after its
// header, as a crash in the middle of an append leaves it: Open reads the
// store as the last Commit that wrote a whole frame left it, and the next
// Commit compacts, after which the store reads back whole.
func TestJournalTornTail(t *testing.T) {
	dir := t.TempDir()
	cfg := journalCfg
	cfg.MaxAge = 0
	s := open(t, dir, cfg)
	rng := rand.New(rand.NewPCG(21, 2))
	journalStep(t, s, rng, 0)
	if err := s.Commit(); err != nil { // the first compacts: no journal yet
		t.Fatal(err)
	}
	states := map[int][]byte{len(s.log): s.encode(nil)} // journal length → the store's snapshot
	for i := 1; i < 6; i++ {
		journalStep(t, s, rng, i)
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		states[len(s.log)] = s.encode(nil)
	}
	if s.Compactions() != 1 {
		t.Fatalf("%d compactions, want the first Commit's only", s.Compactions())
	}
	log, err := os.ReadFile(filepath.Join(dir, LogName))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := os.ReadFile(filepath.Join(dir, SnapshotName))
	if err != nil {
		t.Fatal(err)
	}
	for cut := logHeaderSize; cut <= len(log); cut++ {
		// In memory: a thousand cuts.
		m := memfs.New()
		for name, b := range map[string][]byte{SnapshotName: snap, LogName: log[:cut]} {
			if err := m.MkdirAll("/d", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := fileio.WriteFileFS(m, filepath.Join("/d", name), b); err != nil {
				t.Fatal(err)
			}
		}
		r, err := OpenFS(m, "/d", cfg)
		if err != nil {
			t.Fatalf("journal cut at %d: %v", cut, err)
		}
		whole := cut
		for states[whole] == nil {
			whole--
		}
		if got := r.encode(nil); !bytes.Equal(got, states[whole]) {
			t.Fatalf("journal cut at %d of %d: the store is not the one of its last whole frame (at %d)", cut, len(log), whole)
		}
		if cut != whole {
			journalStep(t, r, rand.New(rand.NewPCG(9, uint64(cut))), 100)
			if err := r.Commit(); err != nil {
				t.Fatal(err)
			}
			if r.Compactions() != 1 {
				t.Fatalf("cut at %d: %d compactions after a torn journal, want 1", cut, r.Compactions())
			}
			again, err := OpenFS(m, "/d", cfg)
			if err != nil {
				t.Fatal(err)
			}
			equalStores(t, again, r)
		}
	}
}

// TestJournalRefused: a journal frame that fails its checksum with bytes
// after it, a bad header, an unknown version, ops that do not apply to
// the rows: Open refuses with ErrCorrupt. A journal of another snapshot
// (the one before a compaction that crashed before its new journal) is
// ignored.
func TestJournalRefused(t *testing.T) {
	dir := t.TempDir()
	cfg := journalCfg
	cfg.MaxAge = 0
	s := open(t, dir, cfg)
	rng := rand.New(rand.NewPCG(21, 3))
	for i := range 4 {
		journalStep(t, s, rng, i)
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	snap := bytes.Clone(s.buf)
	log := bytes.Clone(s.log)
	first := logHeaderSize + frameHeader + int(binary.LittleEndian.Uint32(log[logHeaderSize:]))
	try := func(name string, log []byte) error {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, SnapshotName), snap, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, LogName), log, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(d, cfg)
		return err
	}
	if err := try("whole", log); err != nil {
		t.Fatal(err)
	}
	refused := map[string][]byte{}
	flip := func(at int) []byte { b := bytes.Clone(log); b[at] ^= 0x10; return b }
	refused["a frame's body flipped, frames after it"] = flip(first - 3)
	refused["magic"] = flip(2)
	refused["header checksum"] = flip(25)
	refused["short header"] = log[:logHeaderSize-1]
	v2 := bytes.Clone(log)
	binary.LittleEndian.PutUint16(v2[8:], logMajor+1)
	binary.LittleEndian.PutUint32(v2[24:], crcOf(v2[:24]))
	refused["version"] = v2
	// Well framed, but ops that do not apply.
	for name, body := range map[string][]byte{
		"unknown op":          {99},
		"remove past the end": append([]byte{opRemove, 1, 0, 0, 0}, binary.LittleEndian.AppendUint32(nil, 1000)...),
		"remove none":         {opRemove, 0, 0, 0, 0},
		"generation skipped":  binary.LittleEndian.AppendUint64([]byte{opGeneration}, s.gen+2),
		"version 0":           binary.LittleEndian.AppendUint64([]byte{opVersion}, 0),
		"published ahead":     binary.LittleEndian.AppendUint64([]byte{opPublished}, s.gen+1),
		"forget unknown":      append([]byte{opForget}, make([]byte, 32)...),
		"add again":           append(append([]byte{opAdd}, s.hashes[0][:]...), make([]byte, 13)...),
		"delta past the end":  {opDualDelta, 1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		"op cut short":        {opVersion, 1, 2},
	} {
		refused[name] = append(bytes.Clone(log), frame(body)...)
	}
	for name, l := range refused {
		if err := try(name, l); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Open = %v, want ErrCorrupt", name, err)
		}
	}
	// The journal of another snapshot is ignored: the store is the
	// snapshot's.
	other := bytes.Clone(log)
	other[20] ^= 1 // the snapshot's checksum it names
	binary.LittleEndian.PutUint32(other[24:], crcOf(other[:24]))
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, SnapshotName), snap, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, LogName), other, 0o644); err != nil {
		t.Fatal(err)
	}
	r := open(t, d, cfg)
	if !bytes.Equal(r.encode(nil), snap) {
		t.Error("a journal of another snapshot was applied")
	}
}

func crcOf(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// frame returns body framed as a journal frame.
func frame(body []byte) []byte {
	f := binary.LittleEndian.AppendUint32(nil, uint32(len(body)))
	f = binary.LittleEndian.AppendUint32(f, crcOf(body))
	return append(f, body...)
}

// TestJournalOtherConfig: a store reopened under another configuration
// reads its journal under the one it was written under (the rows between
// two frames may not fit the new one, though the last state does), and
// its next Commit compacts under the new one.
func TestJournalOtherConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Capacity: 6, CapacityNonzeros: 12, MaxFeatures: 4, Policy: EvictOldest}
	s := open(t, dir, cfg)
	add(t, s, "a", ids(1, 2, 2)...)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	add(t, s, "b", ids(3, 4, 2)...) // 6 rows, 12 nonzeros
	add(t, s, "c", ids(7, 1, 1)...) // evicts one
	if _, err := s.Forget(hashOf("b")); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	wantLabels(t, s, 2, 7)
	small := Config{Capacity: 3, CapacityNonzeros: 4, MaxFeatures: 4, Policy: EvictOldest}
	r := open(t, dir, small)
	equalStores(t, r, s)
	if err := r.Commit(); err != nil {
		t.Fatal(err)
	}
	if r.Compactions() != 1 {
		t.Errorf("%d compactions, want 1", r.Compactions())
	}
	equalStores(t, open(t, dir, small), s)
	if _, err := Open(dir, Config{Capacity: 1, MaxFeatures: 4}); !errors.Is(err, ErrConfig) {
		t.Errorf("rows that do not fit: %v, want ErrConfig", err)
	}
}

// TestJournalRollback: Rollback returns to the state the snapshot and the
// journal hold, and a Commit after it appends.
func TestJournalRollback(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, journalCfg)
	rng := rand.New(rand.NewPCG(21, 4))
	for i := range 5 {
		journalStep(t, s, rng, i)
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	want := s.encode(nil)
	journalStep(t, s, rng, 5)
	if err := s.Rollback(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(s.encode(nil), want) || s.Uncommitted() {
		t.Fatal("the rollback did not return to the last Commit")
	}
	c := s.Compactions()
	journalStep(t, s, rng, 6)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if s.Compactions() != c {
		t.Error("the Commit after a rollback compacted")
	}
	equalStores(t, open(t, dir, journalCfg), s)
}

// TestJournalFilesReplaced: a snapshot or journal removed or replaced
// under the store (state/ deleted under a running daemon) is written back
// whole by the next Commit, never appended to.
func TestJournalFilesReplaced(t *testing.T) {
	for _, name := range []string{SnapshotName, LogName} {
		dir := t.TempDir()
		s := open(t, dir, journalCfg)
		rng := rand.New(rand.NewPCG(21, 5))
		for i := range 3 {
			journalStep(t, s, rng, i)
			if err := s.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(); err != nil { // nothing changed: the files come back
			t.Fatal(err)
		}
		equalStores(t, open(t, dir, journalCfg), s)
		journalStep(t, s, rng, 3)
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		equalStores(t, open(t, dir, journalCfg), s)
		if s.Compactions() != 2 {
			t.Errorf("%s removed: %d compactions, want 2", name, s.Compactions())
		}
	}
}

// TestJournalCommitWritesLittle: the Commit of a small batch into a large
// store appends the batch's rows and the α that changed, and leaves the
// snapshot alone.
func TestJournalCommitWritesLittle(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Capacity: 2000, MaxFeatures: 8}
	s := open(t, dir, cfg)
	add(t, s, "first", ids(1, 1000, 8)...)
	if err := setLinearDual(s, &linear.LinearDual{Alpha: [][]float64{make([]float64, 1000)}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	snap := fileSize(t, dir, SnapshotName)
	log := fileSize(t, dir, LogName)
	if w := s.BytesWritten(); w != int64(snap+log) {
		t.Errorf("BytesWritten %d after the first Commit, which wrote %d + %d", w, snap, log)
	}
	add(t, s, "second", ids(2000, 10, 8)...)
	d := linearDual(s)
	a := slices.Clone(d.Alpha[0])
	a[3], a[1005] = 0.5, 0.25
	if err := setLinearDual(s, &linear.LinearDual{Alpha: [][]float64{a}}); err != nil {
		t.Fatal(err)
	}
	s.SetPublished(2)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	// 10 rows of 8 nonzeros (8 + 8 + 4 + 64 bytes each, with their weights
	// flag and batch fields), two α changes, the publication: well under a
	// kilobyte, where the snapshot is over 80.
	grew := fileSize(t, dir, LogName) - log
	if fileSize(t, dir, SnapshotName) != snap || grew > 1024 || snap < 80_000 {
		t.Errorf("the Commit of a 10-row batch rewrote the snapshot or appended %d bytes (snapshot %d)", grew, snap)
	}
	if w := s.BytesWritten(); w != int64(snap+log+grew) {
		t.Errorf("BytesWritten %d, want %d", w, snap+log+grew)
	}
	equalStores(t, open(t, dir, cfg), s)
}

// TestReadsMainFixture opens testdata/v3-main-588257a.snap, a snapshot
// written by the store of main 588257a, before the journal (version 3.1:
// weights, batch times, a forgotten batch, a model version, a kernel
// dual): Config{Capacity: 8, CapacityNonzeros: 24, MaxFeatures: 4}; batch
// "a" (ids(1, 3, 2), row 2 weighing 2.5) added at Unix 1700000000, a C-SVC
// dual over the pairs (1, 2), (1, 3), (2, 3) of α {0.5, 0.5, 0}, {0.25, 0,
// 0.25}, {0, 1, 1}; batch "b" (ids(4, 2, 3)) at 1700000100 and "c" (ids(6,
// 2, 1)) at 1700000200; "b" forgotten; the generation published; version
// 5. It reads back as written, a Commit of what was read writes the same
// bytes, and the store goes on with a journal beside it.
func TestReadsMainFixture(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("testdata", "v3-main-588257a.snap"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, SnapshotName), fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Capacity: 8, CapacityNonzeros: 24, MaxFeatures: 4}
	s := open(t, dir, cfg)
	wantLabels(t, s, 1, 2, 3, 6, 7)
	for i, w := range []float64{1, 2.5, 1, 1, 1} {
		if got := s.Dataset().Weight(i); got != w {
			t.Errorf("row %d weighs %v, want %v", i, got, w)
		}
	}
	if !slices.Equal(s.Hashes(), []Hash{hashOf("a"), hashOf("b"), hashOf("c")}) || !s.Forgotten(hashOf("b")) || s.Forgotten(hashOf("a")) {
		t.Error("batches or forgotten batch differ")
	}
	if s.Generation() != 4 || s.Published() != 4 || s.Version() != 5 || s.known != 3 {
		t.Errorf("generation %d, published %d, version %d, known %d; want 4, 4, 5, 3", s.Generation(), s.Published(), s.Version(), s.known)
	}
	if !slices.Equal(s.age[:5], []uint64{1, 1, 1, 3, 3}) {
		t.Errorf("ages %v", s.age[:5])
	}
	if got := s.added(3); !got.Equal(time.Unix(1700000200, 0)) {
		t.Errorf("batch c added at %v", got)
	}
	wantKernelAlpha(t, s, []float64{0.5, 0.5, 0, 0, 0}, []float64{0.25, 0, 0.25, 0, 0}, []float64{0, 1, 1, 0, 0})
	s.dirty = true
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(dir, SnapshotName))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, fixture) {
		t.Error("the snapshot written back differs from the one read")
	}
	add(t, s, "d", ids(8, 2, 2)...)
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if s.Compactions() != 1 {
		t.Errorf("%d compactions, want 1 (the journal started by the first Commit)", s.Compactions())
	}
	equalStores(t, open(t, dir, cfg), s)
}

// TestReadsJournalFixture opens testdata/journal-main-920e6a0, a snapshot
// and its journal written by the store of main 920e6a0 (journal format
// 1.0, whose duals went in as opDualDelta: a u32 vector and a u32 row and
// the f64 value of each changed α): 40 steps of journalStep drawing from
// rand.NewPCG(21, 2) on a store of journalCfg, committed after each; the
// journal holds the 14 Commits after the last compaction, 11 of them
// duals as a change. It reads back equal to a store given the same steps,
// and goes on journalling.
func TestReadsJournalFixture(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{SnapshotName, LogName} {
		b, err := os.ReadFile(filepath.Join("testdata", "journal-main-920e6a0", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := open(t, dir, journalCfg)
	want := open(t, t.TempDir(), journalCfg)
	rng := rand.New(rand.NewPCG(21, 2))
	for i := range 40 {
		journalStep(t, want, rng, i)
	}
	equalStores(t, got, want)
	rng2 := rand.New(rand.NewPCG(21, 3))
	for i := 40; i < 45; i++ {
		// The same draws for both stores.
		seed := rng2.Uint64()
		journalStep(t, got, rand.New(rand.NewPCG(seed, 0)), i)
		journalStep(t, want, rand.New(rand.NewPCG(seed, 0)), i)
		if err := got.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	equalStores(t, open(t, dir, journalCfg), want)
}

// TestJournalDualChangePacked: a linear retrain's change of its dual, as
// the primal twin of -s 1 makes it (debdesc_bin: 41% of the values, every
// nonzero α, each moved by a small relative amount; a few rows becoming
// or ceasing to be support vectors), is journalled in at most 8 bytes a
// changed value (opDualXor; opDualDelta took 16) and reads back bit for
// bit; a change of every value to unrelated ones goes in whole, no longer
// than opDual's encoding.
func TestJournalDualChangePacked(t *testing.T) {
	const n = 10_000
	rng := rand.New(rand.NewPCG(21, 4))
	for _, c := range []struct {
		name   string
		change func(a []float64) int // changes a, returns how many values changed
		packed bool
	}{
		{"warm", func(a []float64) int {
			changed := 0
			for i, v := range a {
				switch {
				case v != 0 && rng.IntN(100) == 0:
					a[i] = 0
				case v != 0:
					a[i] = v * (1 + 1e-3*rng.NormFloat64())
				case rng.IntN(100) == 0:
					a[i] = rng.Float64()
				default:
					continue
				}
				changed++
			}
			return changed
		}, true},
		{"all", func(a []float64) int {
			for i := range a {
				a[i] = rng.Float64()
			}
			return len(a)
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := Config{Capacity: n, MaxFeatures: 4}
			s := open(t, dir, cfg)
			add(t, s, "first", ids(1, n, 4)...)
			a := make([]float64, n)
			for i := range a {
				if rng.IntN(100) < 41 {
					a[i] = 2 * rng.Float64()
				}
			}
			if err := setLinearDual(s, &linear.LinearDual{Alpha: [][]float64{a}}); err != nil {
				t.Fatal(err)
			}
			if err := s.Commit(); err != nil {
				t.Fatal(err)
			}
			a = slices.Clone(a)
			changed := c.change(a)
			deltas, before := s.dualDeltas, len(s.pend)
			if err := setLinearDual(s, &linear.LinearDual{Alpha: [][]float64{a}}); err != nil {
				t.Fatal(err)
			}
			op := len(s.pend) - before
			whole := len((&core.Dual{Linear: &linear.LinearDual{Alpha: [][]float64{a}}}).AppendBinary(nil)) + 1
			if packed := s.dualDeltas > deltas; packed != c.packed || op > whole {
				t.Fatalf("%d of %d values changed: journalled as a change %v (want %v) in %d bytes, whole %d", changed, n, packed, c.packed, op, whole)
			}
			if c.packed && op > 8*changed {
				t.Errorf("%d values changed in %d bytes: %.2f a value, want at most 8", changed, op, float64(op)/float64(changed))
			}
			t.Logf("%d values changed: %d bytes (%.2f a value), whole %d", changed, op, float64(op)/float64(changed), whole)
			if err := s.Commit(); err != nil {
				t.Fatal(err)
			}
			equalStores(t, open(t, dir, cfg), s)
		})
	}
}
