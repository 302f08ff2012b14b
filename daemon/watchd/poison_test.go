package watchd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// Issue 22, faults 1–5: single inputs that stopped the daemon (and, the
// input still there, stopped it again at every restart) or held the queue.

// nuOptions is a ν-SVC daemon's: ν = 0.5 needs ν ≤ 2·min(n₊, n₋)/n, by
// weight, so a batch that tips the classes (or weighs one row heavily)
// makes the problem infeasible.
const nuOptions = "-s 1 -t 2 -n 0.5"

// heartOf returns n rows of heart_scale of the class label ("+1" or "-1"),
// skipping the first skip of them.
func heartOf(t *testing.T, label string, skip, n int) []string {
	t.Helper()
	var out []string
	for _, l := range lines(t, heartTrain) {
		if strings.HasPrefix(l, label+" ") {
			if skip > 0 {
				skip--
				continue
			}
			out = append(out, l)
			if len(out) == n {
				return out
			}
		}
	}
	t.Fatalf("heart_scale has fewer than %d rows of class %s", n, label)
	return nil
}

// weighted returns rows as a CSV batch (weight column 2), every weight 1
// but the row at, which weighs w.
func weighted(t *testing.T, rows []string, at int, w string) string {
	t.Helper()
	csv, _ := weightedCSV(t, rows, 13, func(int) int { return 1 })
	ls := strings.SplitAfter(csv, "\n")
	f := strings.SplitN(ls[at], ",", 3)
	f[1] = w
	ls[at] = strings.Join(f, ",")
	return strings.Join(ls, "")
}

// waitRejected waits for name in rejected/ and returns its reason.
func waitRejected(t *testing.T, root, name string) string {
	t.Helper()
	waitFor(t, name+" in rejected/", func() bool {
		return exists(filepath.Join(root, RejectedDir, name+ReasonSuffix)) &&
			exists(filepath.Join(root, RejectedDir, name))
	})
	return reasonOf(t, root, name)
}

// TestTrainingFailureRejectsBatch (fault 1): batches training fails with —
// one weight of 1e6 (ν infeasible by weight) or 1.797e308 (costs beyond
// what the solver can sum) in a CSV batch for a ν-SVC daemon, and a one-sided batch (70 rows of one class against
// 20) — are
// rejected with the training's reason; their rows leave the store, the
// published model stays, the daemon lives and takes the next good batch.
// A poison batch waiting at a restart is rejected the same way.
func TestTrainingFailureRejectsBatch(t *testing.T) {
	pos, neg := heartOf(t, "+1", 0, 80), heartOf(t, "-1", 0, 40)
	good := strings.Join(append(slices.Clone(pos[:20]), neg[:20]...), "")
	cases := []struct {
		name, options, batch, reason string
	}{
		{"w1e6.csv", nuOptions, weighted(t, append(slices.Clone(pos[20:30]), neg[20:30]...), 12, "1e6"), "nu is infeasible"},
		{"wmax.csv", nuOptions, weighted(t, append(slices.Clone(pos[20:30]), neg[20:30]...), 12, "1.797e308"), "bad instance weight"},
		{"one-sided.txt", nuOptions, strings.Join(pos[20:70], ""), "nu is infeasible"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := kernelConfig(t.TempDir(), c.options, 500, 13)
			cfg.WeightColumn = 2
			r := start(t, cfg)
			drop(t, r.root, "good.txt", good)
			waitFor(t, "good.txt in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, "good.txt")) })
			v1, err := os.ReadFile(filepath.Join(r.root, ModelsDir, "model-1.svmgo"))
			if err != nil {
				t.Fatal(err)
			}

			drop(t, r.root, c.name, c.batch)
			reason := waitRejected(t, r.root, c.name)
			if !strings.Contains(reason, c.name+": training") || !strings.Contains(reason, c.reason) {
				t.Errorf("reason %q does not say training failed (%s)", reason, c.reason)
			}
			r.alive(t)
			if n := r.metric(t, "samples_stored"); n != 40 {
				t.Errorf("samples_stored %v after the rejection, want 40: the batch's rows must leave the store", n)
			}
			if n := r.metric(t, "batches_train_failed_total"); n != 1 {
				t.Errorf("batches_train_failed_total %v, want 1", n)
			}
			// Across a restart: the poison waiting in incoming/.
			r.stop(t)
			drop(t, r.root, "again-"+c.name, c.batch+c.batch[:strings.IndexByte(c.batch, '\n')+1])
			r = start(t, cfg)
			waitRejected(t, r.root, "again-"+c.name)
			r.alive(t)

			drop(t, r.root, "after.txt", strings.Join(append(slices.Clone(pos[70:80]), neg[30:40]...), ""))
			waitFor(t, "after.txt in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, "after.txt")) })
			r.alive(t)
			r.stop(t)
			st := openStore(t, cfg)
			if st.Len() != 60 || st.Generation() != 2 || len(st.Hashes()) != 2 {
				t.Errorf("store: %d rows, generation %d, %d batches; want 60, 2, 2 (good and after)", st.Len(), st.Generation(), len(st.Hashes()))
			}
			if vs := modelVersions(t, r.root); !slices.Equal(vs, []uint64{1, 2}) {
				t.Errorf("versions %v, want [1 2]", vs)
			}
			if v, err := os.ReadFile(filepath.Join(r.root, ModelsDir, "model-1.svmgo")); err != nil || !bytes.Equal(v, v1) {
				t.Errorf("version 1 changed: %v", err)
			}
		})
	}
}

// panicTrainer is a trainer with a bug some input trips.
type panicTrainer struct{ core.Trainer }

func (p panicTrainer) Train(ds *data.Dataset, warm *core.Dual) (core.Model, *core.Dual, error) {
	panic("index out of range [7] with length 7")
}

// TestTrainingPanicRejectsBatch: a panic in training (a solver bug an
// input trips) rejects the batch like a training error and rolls its rows
// back; the daemon takes the next batch once the trainer works again.
func TestTrainingPanicRejectsBatch(t *testing.T) {
	cfg := testConfig(t.TempDir())
	s := newSync(t, cfg)
	s.ingest(t, "good.txt", batchText(1, 20))
	works := s.d.trainer
	s.d.trainer = panicTrainer{works}
	drop(t, cfg.Root, "trips.txt", batchText(2, 20))
	if err := s.d.ingest("trips.txt"); err != nil {
		t.Fatalf("ingest: %v", err)
	}
	if reason := reasonOf(t, cfg.Root, "trips.txt"); !strings.Contains(reason, "trips.txt: training failed: training panicked: index out of range") {
		t.Errorf("reason %q", reason)
	}
	if s.d.st.Len() != 20 || s.d.st.Generation() != 1 {
		t.Errorf("store: %d rows, generation %d; want 20, 1", s.d.st.Len(), s.d.st.Generation())
	}
	if len(s.records(t, "training panicked")) != 1 {
		t.Error("the panic was not logged")
	}
	s.d.trainer = works
	s.ingest(t, "next.txt", batchText(2, 20))
}

// dropAs is drop for names too long for drop's temporary name.
func dropAs(t *testing.T, root, name, text string) {
	t.Helper()
	tmp := filepath.Join(root, IncomingDir, ".drop.tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, IncomingDir, name)); err != nil {
		t.Fatal(err)
	}
}

// archived returns the names in root's dir whose bytes are text.
func archived(t *testing.T, root, dir, text string) []string {
	t.Helper()
	var out []string
	for _, n := range dirNames(t, filepath.Join(root, dir)) {
		if b, err := os.ReadFile(filepath.Join(root, dir, n)); err == nil && string(b) == text {
			out = append(out, n)
		}
	}
	return out
}

// TestLongNames (fault 2): batches named with 255 bytes (the file-name
// limit), twice each, good and bad, and names a few bytes shorter: done/
// NAME.1 and rejected/NAME.reason would not fit. Every batch is archived
// under a name that fits, with its reason file when rejected; nothing stays
// in incoming/, and the daemon lives.
func TestLongNames(t *testing.T) {
	r := start(t, faultConfig(t.TempDir()))
	long := func(n int, c string) string { return strings.Repeat(c, n-4) + ".txt" }
	names := []string{long(255, "a"), long(250, "b"), long(255, "é"[:1]+"é"[1:])}
	names[2] = strings.Repeat("é", 125) + ".txt" // 254 bytes of two-byte runes
	seed := uint64(10)
	for _, name := range names {
		for range 2 {
			seed++
			good := batchText(seed, 10)
			dropAs(t, r.root, name, good)
			waitFor(t, "incoming/ empty", func() bool { return len(dirNames(t, filepath.Join(r.root, IncomingDir))) == 0 })
			r.alive(t)
			if got := archived(t, r.root, DoneDir, good); len(got) != 1 {
				t.Fatalf("batch %d bytes long named: in done/ as %q, want once", len(name), got)
			}
			bad := "1 1:x\n" + good
			dropAs(t, r.root, name, bad)
			waitFor(t, "incoming/ empty", func() bool { return len(dirNames(t, filepath.Join(r.root, IncomingDir))) == 0 })
			r.alive(t)
			got := archived(t, r.root, RejectedDir, bad)
			if len(got) != 1 {
				t.Fatalf("bad batch %d bytes long named: in rejected/ as %q, want once", len(name), got)
			}
			if reason := reasonOf(t, r.root, got[0]); !strings.Contains(reason, ":1: ") {
				t.Errorf("reason of %q: %q", got[0], reason)
			}
		}
	}
	for _, dir := range []string{DoneDir, RejectedDir} {
		for _, n := range dirNames(t, filepath.Join(r.root, dir)) {
			if len(n) > fileio.MaxNameBytes {
				t.Errorf("%s/%s: %d bytes", dir, n, len(n))
			}
		}
	}
	// Counted just after the move that emptied incoming/.
	waitFor(t, "batches_ingested_total 6", func() bool { return r.metric(t, "batches_ingested_total") == 6 })
}

// TestNameCollisions (fault 3): a rejected batch named "x.txt.reason" and
// the reason file of a later rejected "x.txt" (and the other way round)
// never overwrite each other (the batch is archived as
// "x.txt.reason.batch"); a reason file a crash left without its batch is
// replaced, not kept beside a renamed batch; a name with a newline (or other control
// bytes, or bytes that are not UTF-8) gets a reason file of one line that
// quotes it.
func TestNameCollisions(t *testing.T) {
	r := start(t, faultConfig(t.TempDir()))
	bad := func(i int) string { return strings.Repeat("1 1:1\n", i) + "oops\n" }
	names := []string{"x.txt.reason", "x.txt", "y.txt", "y.txt.reason", "a\nb.txt", "c\x01\xff.txt"}
	for i, name := range names {
		dropAs(t, r.root, name, bad(i))
		waitFor(t, "incoming/ empty", func() bool { return len(dirNames(t, filepath.Join(r.root, IncomingDir))) == 0 })
		r.alive(t)
	}
	for i, name := range names {
		got := archived(t, r.root, RejectedDir, bad(i))
		if len(got) != 1 {
			t.Errorf("batch %q: in rejected/ as %q, want once, intact", name, got)
			continue
		}
		reason := reasonOf(t, r.root, got[0])
		if strings.Count(reason, "\n") != 1 || !strings.HasSuffix(reason, "\n") {
			t.Errorf("reason of %q is not one line: %q", name, reason)
		}
		if want := shown(name) + ":" + string(rune('1'+i)) + ": "; !strings.HasPrefix(reason, want) {
			t.Errorf("reason of %q: %q, want it to start %q", name, reason, want)
		}
	}
	if got := archived(t, r.root, RejectedDir, bad(0)); len(got) != 1 || got[0] != "x.txt.reason.batch" {
		t.Errorf("x.txt.reason archived as %q, want x.txt.reason.batch", got)
	}
	// An orphaned reason file (a crash after it was written, before the
	// batch moved): the next attempt takes the same name.
	rej := filepath.Join(r.root, RejectedDir)
	if err := os.WriteFile(filepath.Join(rej, "z.txt.reason"), []byte("z.txt: stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dropAs(t, r.root, "z.txt", bad(7))
	waitRejected(t, r.root, "z.txt")
	if reason := reasonOf(t, r.root, "z.txt"); !strings.HasPrefix(reason, "z.txt:8: ") {
		t.Errorf("z.txt's reason %q, want its own", reason)
	}
	if shown("a\nb.txt") != `"a\nb.txt"` || shown("plain é.txt") != "plain é.txt" {
		t.Errorf("shown quotes wrongly: %s, %s", shown("a\nb.txt"), shown("plain é.txt"))
	}
}

// TestUnmovableEntrySkipped (fault 4): a directory in incoming/ that cannot
// be moved (immutable, chattr +i: rename fails with EPERM even for root, as
// a root-owned directory does for the daemon's user) is skipped and
// reported — incoming_stuck, /healthz degraded naming it, a log line —
// while the batches behind it flow; once it can move, it is rejected and
// the daemon heals.
func TestUnmovableEntrySkipped(t *testing.T) {
	cfg := faultConfig(t.TempDir())
	dir := filepath.Join(cfg.Root, IncomingDir, "a-dir.txt")
	unmovable(t, cfg, dir, func() {
		chattr(t, "+i", dir)
		t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
	}, func() { chattr(t, "-i", dir) })
}

// denyRename is the operating system's file system, but renaming one path
// fails with EACCES while deny is set: a root-owned directory in incoming/
// under a daemon running as its own user (renaming a directory needs write
// permission on it, to update its "..").
type denyRename struct {
	fileio.FS
	path string
	deny atomic.Bool
}

func (d *denyRename) Rename(oldpath, newpath string) error {
	if oldpath == d.path && d.deny.Load() {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: syscall.EACCES}
	}
	return d.FS.Rename(oldpath, newpath)
}

// TestUnmovableEntrySkippedSeam is TestUnmovableEntrySkipped through the
// file-system seam, for where chattr is not available: the directory's
// rename fails with EACCES, as a root-owned one's does for the daemon's
// user.
func TestUnmovableEntrySkippedSeam(t *testing.T) {
	cfg := faultConfig(t.TempDir())
	dir := filepath.Join(cfg.Root, IncomingDir, "a-dir.txt")
	fsys := &denyRename{FS: fileio.OS, path: dir}
	cfg.FS = fsys
	unmovable(t, cfg, dir, func() { fsys.deny.Store(true) }, func() { fsys.deny.Store(false) })
}

// unmovable makes the directory dir in incoming/, makes it unmovable
// (block) and starts the daemon; two batches after it must flow while it
// is reported; once it can move (unblock) it is rejected and the daemon
// heals.
func unmovable(t *testing.T, cfg Config, dir string, block, unblock func()) {
	t.Helper()
	if _, err := New(cfg, nil); err != nil { // the layout
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	block()
	r, logs := startLogged(t, cfg)
	for i, name := range []string{"b.txt", "c.txt"} {
		drop(t, r.root, name, batchText(uint64(i+1), 20))
		waitFor(t, name+" in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, name)) })
	}
	r.alive(t)
	// The pass that moved them reports the stuck entry when it ends.
	waitFor(t, "incoming_stuck 1", func() bool { return r.metric(t, "incoming_stuck") == 1 })
	waitFor(t, "/healthz 503 naming "+filepath.Base(dir), func() bool {
		code, body := r.health(t)
		return code == 503 && strings.Contains(body, filepath.Base(dir))
	})
	if len(logs.records(t, "entry of incoming cannot be taken: skipped")) == 0 {
		t.Error("the stuck entry was not logged")
	}
	unblock()
	waitRejected(t, r.root, filepath.Base(dir))
	waitFor(t, "healed", func() bool { return r.metric(t, "storage_degraded") == 0 })
	if n := r.metric(t, "incoming_stuck"); n != 0 {
		t.Errorf("incoming_stuck %v after the entry moved, want 0", n)
	}
}

// TestModelsRemovedRepublished (fault 5): models/ removed while the daemon
// runs: the current model is published again at once (no batch needed),
// as the next version of the sequence the store records, never from 1;
// model_version never goes back. models/ removed while it is stopped: the
// restart retrains on the stored rows and publishes the next version.
func TestModelsRemovedRepublished(t *testing.T) {
	cfg := faultConfig(t.TempDir())
	r := start(t, cfg)
	models := filepath.Join(cfg.Root, ModelsDir)
	for i, name := range []string{"b1.txt", "b2.txt"} {
		drop(t, r.root, name, batchText(uint64(i+1), 20))
		waitFor(t, name+" in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, name)) })
	}
	v2, err := os.ReadFile(filepath.Join(models, "model-2.svmgo"))
	if err != nil {
		t.Fatal(err)
	}
	removeModels(t, models)
	// The daemon may republish while RemoveAll runs (a pass that finds the
	// files gone before the directory), and removeModels then removes that
	// version too: the version republished is 3 or more, never below.
	var v uint64
	waitFor(t, "version 2 published again", func() bool {
		highest, found, err := modeldir.HighestVersion(fileio.OS, models)
		if err != nil || !found {
			return false // not made again yet
		}
		v = highest
		b, err := os.ReadFile(filepath.Join(models, modeldir.FileName(v)))
		return err == nil && bytes.Equal(b, v2)
	})
	if v < 3 {
		t.Errorf("version 2's model published again as version %d, want 3 or more", v)
	}
	waitFor(t, "model_version to follow", func() bool { return r.metric(t, "model_version") == float64(v) })
	drop(t, r.root, "b3.txt", batchText(3, 20))
	waitFor(t, "b3's version published", func() bool { return exists(filepath.Join(models, modeldir.FileName(v+1))) })
	r.alive(t)
	r.stop(t)

	removeModels(t, models)
	r2 := start(t, cfg)
	waitFor(t, "the restart's version published", func() bool { return exists(filepath.Join(models, modeldir.FileName(v+2))) })
	waitFor(t, "model_version to follow", func() bool { return r2.metric(t, "model_version") == float64(v+2) })
	r2.stop(t)
	if vs := modelVersions(t, cfg.Root); !slices.Equal(vs, []uint64{v + 2}) {
		t.Errorf("versions %v, want [%d]", vs, v+2)
	}
	if st := openStore(t, cfg); st.Version() != v+2 || st.Len() != 60 {
		t.Errorf("store: version %d, %d rows; want %d, 60", st.Version(), st.Len(), v+2)
	}
}

// removeModels removes models/, again while the daemon makes it again
// meanwhile (RemoveAll then finds it not empty).
func removeModels(t *testing.T, models string) {
	t.Helper()
	for i := 0; ; i++ {
		err := os.RemoveAll(models)
		if err == nil {
			return
		}
		if i == 100 {
			t.Fatal(err)
		}
	}
}
