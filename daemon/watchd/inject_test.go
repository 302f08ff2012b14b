package watchd

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/fileio/faultfs"
	"github.com/libsvmgo/libsvmgo/core/fileio/memfs"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// Issue 22, items 2 and 3: fault injection at every call (SQLite's method)
// and crash clones (Pebble's) over one scripted scenario of the daemon on
// an in-memory file system (fileio/memfs) behind a fault injector
// (fileio/faultfs).

// injectRoot is the scenario's root on the in-memory file system.
const injectRoot = "/root"

// scenarioBatch is a batch the scenario drops, with what must become of it.
type scenarioBatch struct {
	name, text string
	good       bool // false: a poison batch, rejected
}

// scenarioBatches are the scenario's batches in the order dropped: good
// ones, a poison one (a bad line) and a duplicate of b1 under another name.
func scenarioBatches() []scenarioBatch {
	return []scenarioBatch{
		{"b1.txt", batchText(1, 20), true},
		{"b2.txt", batchText(2, 20), true},
		{"b3.txt", batchText(3, 20), true},
		{"p1.txt", "1 1:0.5\nnot a row\n", false},
		{"b4.txt", batchText(4, 20), true},
		{"dup-b1.txt", batchText(1, 20), true},
		{"b5.txt", batchText(5, 20), true},
	}
}

// harness runs the scenario on one in-memory file system.
type harness struct {
	t   *testing.T
	mem *memfs.FS
	ffs *faultfs.FS
	cfg Config
	d   *Daemon  // nil while stopped (New failed)
	odd []string // pass errors that are not storage faults (waited out too, but unexpected for EIO)
	// highest is the highest model version observed; versions must never
	// go below it.
	highest uint64
	dropped []scenarioBatch
	broken  []string // invariant violations seen while running
}

func newHarness(t *testing.T, mem *memfs.FS) *harness {
	h := &harness{t: t, mem: mem, ffs: faultfs.New(mem)}
	h.cfg = testConfig(injectRoot)
	h.cfg.FS = h.ffs
	return h
}

// drop writes a batch as a durable producer does: a temporary name,
// synced, renamed in, the directory synced. It bypasses the injector.
func (h *harness) drop(b scenarioBatch) {
	in := filepath.Join(injectRoot, IncomingDir)
	if err := h.mem.MkdirAll(in, 0o755); err != nil {
		h.t.Fatal(err)
	}
	tmp := filepath.Join(in, "."+b.name+".tmp")
	f, err := h.mem.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		h.t.Fatal(err)
	}
	f.Write([]byte(b.text))
	f.Sync()
	f.Close()
	if err := h.mem.Rename(tmp, filepath.Join(in, b.name)); err != nil {
		h.t.Fatal(err)
	}
	if err := fileio.SyncDirFS(h.mem, in); err != nil {
		h.t.Fatal(err)
	}
	h.dropped = append(h.dropped, b)
}

// start makes a daemon (a restart when one ran), unless New fails.
func (h *harness) start() {
	d, err := New(h.cfg, nil)
	if err != nil {
		if errors.Is(err, ErrConfig) {
			h.t.Fatalf("New: %v", err) // no injected fault is a configuration error
		}
		h.d = nil
		return
	}
	h.d = d
}

// pass runs one pass as Run does (a failed pass degrades the daemon until
// one succeeds), starting the daemon first when New failed before.
func (h *harness) pass() error {
	if h.d == nil {
		h.start()
		if h.d == nil {
			return errors.New("New failed")
		}
	}
	err := h.d.pass(context.Background(), func(string) error { return nil })
	if err == nil {
		h.d.storageHealed()
	} else {
		h.d.storageFault(err)
		if !isStorageFault(err) {
			h.odd = append(h.odd, err.Error())
		}
	}
	h.observe()
	return err
}

// observe checks that the model versions never went back and that every
// model file is whole.
func (h *harness) observe() {
	v, found, err := modeldir.HighestVersion(h.mem, filepath.Join(injectRoot, ModelsDir))
	if err != nil || !found {
		return // models/ removed by the scenario, not yet made again
	}
	if v < h.highest {
		h.broken = append(h.broken, fmt.Sprintf("model version went back from %d to %d", h.highest, v))
	}
	h.highest = max(h.highest, v)
}

// scenario is the script: ingest, retrain, publish, reject, restart, a
// duplicate, models/ removed, more batches. Every pass's error is the
// daemon's business (storage faults retried later, others a restart).
func (h *harness) scenario() {
	b := scenarioBatches()
	h.start()
	h.drop(b[0])
	h.drop(b[1])
	h.pass()
	h.drop(b[2])
	h.drop(b[3])
	h.pass()
	h.d = nil // a restart
	h.drop(b[4])
	h.drop(b[5])
	h.pass()
	if err := h.mem.RemoveAll(filepath.Join(injectRoot, ModelsDir)); err != nil {
		h.t.Fatal(err)
	}
	if h.d != nil {
		h.d.watching = false // as Run does on the removal's event
	}
	h.pass()
	h.drop(b[6])
	h.pass()
}

// settle runs passes, the fault cleared, until one succeeds with incoming/
// empty: the daemon alive (or restarted) and caught up.
func (h *harness) settle() {
	h.ffs.Clear()
	for range 5 {
		if h.pass() == nil {
			if entries, err := h.mem.ReadDir(filepath.Join(injectRoot, IncomingDir)); err == nil && len(entries) == 0 {
				return
			}
		}
	}
	h.t.Fatalf("the daemon did not recover once the fault cleared (errors %q)", h.odd)
}

// check verifies the invariants once settled: every batch dropped exactly
// once where it belongs (good in done/, poison in rejected/ with a reason),
// the store holding each good batch's rows once, every model file whole,
// the versions never back and the store's record at the newest.
func (h *harness) check(what string) {
	t := h.t
	t.Helper()
	for _, b := range h.broken {
		t.Errorf("%s: %s", what, b)
	}
	files := map[string][]string{} // content → where
	for _, dir := range []string{IncomingDir, DoneDir, RejectedDir} {
		entries, err := h.mem.ReadDir(filepath.Join(injectRoot, dir))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for _, e := range entries {
			if fileio.IsTempName(e.Name()) || dir == RejectedDir && strings.HasSuffix(e.Name(), ReasonSuffix) {
				continue
			}
			data, err := fileio.ReadFileFS(h.mem, filepath.Join(injectRoot, dir, e.Name()))
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			files[string(data)] = append(files[string(data)], dir+"/"+e.Name())
		}
	}
	want := map[string][]string{}
	rows, goods := 0, map[store.Hash]bool{}
	for _, b := range h.dropped {
		dir := DoneDir
		if !b.good {
			dir = RejectedDir
		} else if hs := store.Hash(sha256.Sum256([]byte(b.text))); !goods[hs] {
			goods[hs] = true
			rows += strings.Count(b.text, "\n")
		}
		want[b.text] = append(want[b.text], dir)
	}
	for text, dirs := range want {
		var got []string
		for _, p := range files[text] {
			got = append(got, filepath.Dir(p))
		}
		slices.Sort(got)
		slices.Sort(dirs)
		if !slices.Equal(got, dirs) {
			t.Errorf("%s: a batch is in %v (%v), want %v", what, got, files[text], dirs)
		}
		delete(files, text)
	}
	for text, where := range files {
		t.Errorf("%s: %v holds %d bytes that no batch had", what, where, len(text))
	}
	st, err := store.OpenFS(h.mem, filepath.Join(injectRoot, StateDir), h.cfg.storeConfig())
	if err != nil {
		t.Fatalf("%s: the store does not open: %v", what, err)
	}
	hashes := st.Hashes()
	if len(hashes) != len(goods) || st.Len() != rows || st.Generation() != uint64(len(goods)) {
		t.Errorf("%s: store holds %d batches, %d rows, generation %d; want %d, %d, %d",
			what, len(hashes), st.Len(), st.Generation(), len(goods), rows, len(goods))
	}
	for _, hs := range hashes {
		if !goods[hs] {
			t.Errorf("%s: the store holds a batch %x no good batch had", what, hs[:8])
		}
	}
	if st.Published() != st.Generation() {
		t.Errorf("%s: published generation %d, want %d", what, st.Published(), st.Generation())
	}
	models := filepath.Join(injectRoot, ModelsDir)
	entries, err := h.mem.ReadDir(models)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var newest uint64
	for _, e := range entries {
		v, ok := modeldir.ParseFileName(e.Name())
		if !ok {
			continue
		}
		newest = max(newest, v)
		data, err := fileio.ReadFileFS(h.mem, filepath.Join(models, e.Name()))
		if err == nil {
			_, err = modelfile.Decode(data)
		}
		if err != nil {
			t.Errorf("%s: %s: %v", what, e.Name(), err)
		}
	}
	if len(goods) > 0 && newest == 0 || newest < h.highest || st.Version() != newest {
		t.Errorf("%s: newest version %d (highest seen %d, the store records %d)", what, newest, h.highest, st.Version())
	}
}

// injectOps are the kinds of calls failed, and injectErrnos the errnos
// each is failed with: EIO (a failing device: a batch that reads with it is
// skipped, not rejected) and ENOSPC (a full disk: the pass stops). Both are
// storage faults the daemon waits out.
var (
	injectOps    = []faultfs.Op{faultfs.Open, faultfs.Write, faultfs.Sync, faultfs.Rename, faultfs.ReadDir, faultfs.Remove, faultfs.Mkdir}
	injectErrnos = []syscall.Errno{syscall.EIO, syscall.ENOSPC}
)

// TestFaultInjectionEveryCall runs the scenario once to count its calls of
// each kind, then once for every N up to that count, every kind and every
// errno of injectErrnos, failing the Nth call; the daemon must report it as
// a storage fault and, once it clears, recover with every batch exactly
// once, the store exact, every model whole and the versions never back.
// With -short it takes every third N.
func TestFaultInjectionEveryCall(t *testing.T) {
	clean := newHarness(t, memfs.New())
	clean.scenario()
	clean.settle()
	clean.check("no fault")
	if len(clean.odd) != 0 {
		t.Fatalf("the scenario without faults failed passes: %q", clean.odd)
	}
	counts := clean.ffs.Counts()
	step := 1
	if testing.Short() {
		step = 3
	}
	points, odd := 0, 0
	var perOp []string
	for _, op := range injectOps {
		n := 0
		for _, errno := range injectErrnos {
			for k := 1; k <= counts[op]; k += step {
				h := newHarness(t, memfs.New())
				h.ffs.FailAt(op, k, errno)
				h.scenario()
				if !h.ffs.Failed() {
					continue // this run did not reach k calls
				}
				n++
				h.settle()
				h.check(fmt.Sprintf("%v #%d failed with %v", op, k, errno))
				odd += len(h.odd)
				if t.Failed() {
					t.Fatalf("stopping at the first failing point: %v #%d, %v", op, k, errno)
				}
			}
		}
		points += n
		perOp = append(perOp, fmt.Sprintf("%v %d", op, n))
	}
	t.Logf("fault injection: %d failure points exercised, one failed call each (%s): the scenario's calls, each failed with %v",
		points, strings.Join(perOp, ", "), injectErrnos)
	if odd != 0 {
		t.Errorf("injected storage faults failed %d passes with errors that are not storage faults", odd)
	}
}

// TestCrashClones runs the scenario and, before every fsync and rename,
// takes a crash clone of the file system (memfs.CrashClone: the durable
// state plus a random part of what was not synced); a daemon restarted on
// each clone must reach the same invariants for the batches dropped before
// the crash. Each point gets four clones (one with -short).
func TestCrashClones(t *testing.T) {
	type clone struct {
		fs      *memfs.FS
		dropped []scenarioBatch
		at      string
	}
	draws := 4 // clones per fsync and rename, each keeping another random part
	if testing.Short() {
		draws = 1
	}
	var clones []clone
	rng := rand.New(rand.NewPCG(22, 3))
	h := newHarness(t, memfs.New())
	calls := 0
	h.ffs.Hook = func(op faultfs.Op, path string) {
		if op != faultfs.Sync && op != faultfs.Rename {
			return
		}
		calls++
		for range draws {
			clones = append(clones, clone{fs: h.mem.CrashClone(rng), dropped: slices.Clone(h.dropped),
				at: fmt.Sprintf("%v of %s (call %d)", op, path, calls)})
		}
	}
	h.scenario()
	h.ffs.Hook = nil
	h.settle()
	h.check("no crash")

	for _, c := range clones {
		r := newHarness(t, c.fs)
		r.dropped = c.dropped
		// The versions the crash kept are the floor: none below may be
		// published after the restart (unsynced ones the crash dropped
		// may be given again).
		r.observe()
		r.settle()
		r.check("crash at " + c.at)
		if t.Failed() {
			t.Fatalf("stopping at the first failing clone: %s", c.at)
		}
	}
	t.Logf("crash clones: %d exercised (%d before each of %d fsyncs and renames)", len(clones), draws, calls)
}
