package watchd

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs of size bytes on a new directory, unmounted at
// the end of the test; the test is skipped where mounting is not allowed.
func mountTmpfs(t *testing.T, dir string, size int) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		t.Skipf("cannot mount a tmpfs to fill up (needs root or CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
}

// fill writes a file in dir until its file system is full, and returns the
// function that removes it.
func fill(t *testing.T, dir string) (free func()) {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err = f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling %s: %v, want ENOSPC", dir, err)
	}
	return func() {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
}

// stage writes a batch under a temporary name in incoming/, to be renamed
// in (renaming takes no space) once the disk is full.
func stage(t *testing.T, root, name, text string) (renameIn func()) {
	t.Helper()
	tmp := filepath.Join(root, IncomingDir, "."+name+".tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.Rename(tmp, filepath.Join(root, IncomingDir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// waitDegraded waits until the daemon has failed at least failures passes
// with a storage fault, and checks what it reports meanwhile: Run still
// running, /healthz 503 naming the fault (want), storage_degraded 1, one
// log line however many failures.
func waitDegraded(t *testing.T, r *running, logs *logBuffer, failures int, want string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d storage failures", failures), func() bool {
		r.alive(t)
		return r.metric(t, "storage_failures_total") >= float64(failures)
	})
	code, body := r.health(t)
	if code != http.StatusServiceUnavailable || !strings.HasPrefix(body, "degraded: ") || !strings.Contains(body, want) {
		t.Errorf("/healthz while degraded: %d %q, want 503 \"degraded: ...%s...\"", code, body, want)
	}
	if v := r.metric(t, "storage_degraded"); v != 1 {
		t.Errorf("storage_degraded %v while degraded, want 1", v)
	}
	recs := logs.records(t, "storage fault: degraded, retrying")
	if len(recs) != 1 {
		t.Fatalf("%d \"storage fault\" log records, want 1", len(recs))
	}
	if e, _ := recs[0]["err"].(string); !strings.Contains(e, want) {
		t.Errorf("storage fault logged as %q, want it to name %q", e, want)
	}
	// The interval between log lines is a minute: however many retries,
	// no more lines.
	if n := len(logs.records(t, "storage fault persists: retrying")); n != 0 {
		t.Errorf("%d repeated log lines within a minute", n)
	}
}

// waitHealed waits until the daemon reports itself healthy again.
func waitHealed(t *testing.T, r *running, logs *logBuffer) {
	t.Helper()
	waitFor(t, "recovery", func() bool { return r.metric(t, "storage_degraded") == 0 })
	if code, body := r.health(t); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz after recovery: %d %q, want 200 \"ok\\n\"", code, body)
	}
	if n := len(logs.records(t, "storage recovered")); n != 1 {
		t.Errorf("%d \"storage recovered\" records, want 1", n)
	}
}

// TestFullDiskAtCommit fills the root's file system before a batch arrives
// (issue 10, fault 3): committing the store fails with ENOSPC. The daemon
// keeps running, degraded, the batch stays in incoming/ and the store on
// disk is unchanged; once space is back the batch is ingested once, and
// its model, retrained once, is published. The second batch is larger than
// a page: the store appends a batch to its journal, and an append that
// fits in the journal's last page takes no space.
func TestFullDiskAtCommit(t *testing.T) {
	root := t.TempDir()
	mountTmpfs(t, root, 2<<20)
	cfg := faultConfig(root)
	r, logs := startLogged(t, cfg)
	drop(t, root, "b1.txt", batchText(1, 40))
	waitFor(t, "b1.txt in done/", func() bool { return exists(filepath.Join(root, DoneDir, "b1.txt")) })

	renameIn := stage(t, root, "b2.txt", batchText(2, 130))
	free := fill(t, root)
	renameIn()
	waitDegraded(t, r, logs, 5, "no space left on device")
	if e, _ := logs.records(t, "storage fault: degraded, retrying")[0]["err"].(string); !strings.Contains(e, "commit the store") {
		t.Errorf("the fault %q is not the store's commit", e)
	}
	if !exists(filepath.Join(root, IncomingDir, "b2.txt")) {
		t.Fatal("b2.txt left incoming/ while its rows were not durable")
	}
	if st := openStore(t, cfg); st.Generation() != 1 || st.Len() != 40 {
		t.Errorf("store on disk while degraded: generation %d, %d rows; want 1, 40", st.Generation(), st.Len())
	}

	free()
	waitFor(t, "b2.txt in done/", func() bool { return exists(filepath.Join(root, DoneDir, "b2.txt")) })
	waitHealed(t, r, logs)
	r.stop(t)
	st := openStore(t, cfg)
	if st.Generation() != 2 || st.Len() != 170 || st.Published() != 2 || len(st.Hashes()) != 2 {
		t.Errorf("store: generation %d, %d rows, published %d, %d batches; want 2, 170, 2, 2",
			st.Generation(), st.Len(), st.Published(), len(st.Hashes()))
	}
	if vs := modelVersions(t, root); !slices.Equal(vs, []uint64{1, 2}) {
		t.Errorf("published versions %v, want [1 2]", vs)
	}
	// The retry committed the rows in memory and published the model of
	// the retrain that preceded the fault: one retrain per batch.
	if n := len(logs.records(t, "retrained")); n != 2 {
		t.Errorf("%d retrains, want 2", n)
	}
	if n := r.metric(t, "batches_ingested_total"); n != 2 {
		t.Errorf("batches_ingested_total %v, want 2", n)
	}
	if n := r.metric(t, "batches_duplicate_total"); n != 0 {
		t.Errorf("batches_duplicate_total %v, want 0", n)
	}
	if left := dirNames(t, filepath.Join(root, StateDir)); !slices.Equal(left, []string{"store.log", "store.snap"}) {
		t.Errorf("state/ holds %q: a failed commit left a temporary file", left)
	}
}

// TestFullDiskAtPublish fills models/ (its own small file system) so that
// the store commits and the model cannot be written: the daemon degrades,
// keeps the batch in incoming/, and publishes the model it had retrained
// once space is back, without retraining.
func TestFullDiskAtPublish(t *testing.T) {
	root := t.TempDir()
	models := filepath.Join(root, ModelsDir)
	if err := os.MkdirAll(models, 0o755); err != nil {
		t.Fatal(err)
	}
	mountTmpfs(t, models, 64<<10)
	cfg := faultConfig(root)
	r, logs := startLogged(t, cfg)
	drop(t, root, "b1.txt", batchText(1, 40))
	waitFor(t, "b1.txt in done/", func() bool { return exists(filepath.Join(root, DoneDir, "b1.txt")) })

	free := fill(t, models)
	drop(t, root, "b2.txt", batchText(2, 30))
	waitDegraded(t, r, logs, 5, "no space left on device")
	if !exists(filepath.Join(root, IncomingDir, "b2.txt")) {
		t.Fatal("b2.txt left incoming/ before its model was published")
	}
	// The rows are durable; the publication is still to come.
	if st := openStore(t, cfg); st.Generation() != 2 || st.Published() != 1 {
		t.Errorf("store on disk while degraded: generation %d, published %d; want 2, 1", st.Generation(), st.Published())
	}

	free()
	waitFor(t, "b2.txt in done/", func() bool { return exists(filepath.Join(root, DoneDir, "b2.txt")) })
	waitHealed(t, r, logs)
	r.stop(t)
	if vs := modelVersions(t, root); !slices.Equal(vs, []uint64{1, 2}) {
		t.Errorf("published versions %v, want [1 2]", vs)
	}
	if left := dirNames(t, models); !slices.Equal(left, []string{"model-1.svmgo", "model-2.svmgo"}) {
		t.Errorf("models/ holds %q", left)
	}
	if st := openStore(t, cfg); st.Generation() != 2 || st.Published() != 2 || st.Len() != 70 {
		t.Errorf("store: generation %d, published %d, %d rows; want 2, 2, 70", st.Generation(), st.Published(), st.Len())
	}
	if n := len(logs.records(t, "retrained")); n != 2 {
		t.Errorf("%d retrains, want 2: the retry retrained instead of publishing the kept model", n)
	}
	if n := len(logs.records(t, "publishing the model retrained before a storage fault")); n != 1 {
		t.Errorf("%d records of the kept model published, want 1", n)
	}
	if n := r.metric(t, "batches_ingested_total"); n != 2 {
		t.Errorf("batches_ingested_total %v, want 2", n)
	}
}

// TestFullDiskAtReject: a bad batch arrives on a full disk, where its
// reason file cannot be written. It stays in incoming/ (a rejected batch
// is never without its reason) until space is back, then is rejected once.
func TestFullDiskAtReject(t *testing.T) {
	root := t.TempDir()
	mountTmpfs(t, root, 1<<20)
	cfg := faultConfig(root)
	r, logs := startLogged(t, cfg)
	renameIn := stage(t, root, "bad.txt", "1 1:1\n-1 2:nan\n")
	free := fill(t, root)
	renameIn()
	waitDegraded(t, r, logs, 5, "no space left on device")
	if !exists(filepath.Join(root, IncomingDir, "bad.txt")) || exists(filepath.Join(root, RejectedDir, "bad.txt")) {
		t.Fatal("bad.txt was moved without its reason file")
	}
	free()
	waitFor(t, "bad.txt rejected", func() bool { return exists(filepath.Join(root, RejectedDir, "bad.txt")) })
	waitHealed(t, r, logs)
	if got := reasonOf(t, root, "bad.txt"); !strings.HasPrefix(got, "bad.txt:2: ") {
		t.Errorf("reason %q", got)
	}
	if n := r.metric(t, "batches_rejected_total"); n != 1 {
		t.Errorf("batches_rejected_total %v, want 1", n)
	}
	if left := dirNames(t, filepath.Join(root, RejectedDir)); !slices.Equal(left, []string{"bad.txt", "bad.txt.reason"}) {
		t.Errorf("rejected/ holds %q", left)
	}
}

// TestReadOnlyRootAtStart starts the daemon on a root whose file system is
// read-only, with a batch waiting: where the daemon used to exit (and a
// supervisor restart it into the same exit), it waits degraded (EROFS)
// and ingests the batch once the file system is writable again.
func TestReadOnlyRootAtStart(t *testing.T) {
	root := t.TempDir()
	mountTmpfs(t, root, 1<<20)
	cfg := faultConfig(root)
	if _, err := New(cfg, nil); err != nil { // the layout
		t.Fatal(err)
	}
	drop(t, root, "b1.txt", batchText(1, 40))
	if err := syscall.Mount("", root, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	r, logs := startLogged(t, cfg)
	waitDegraded(t, r, logs, 3, "read-only file system")
	if err := syscall.Mount("", root, "", syscall.MS_REMOUNT, ""); err != nil {
		t.Fatalf("remount read-write: %v", err)
	}
	waitFor(t, "b1.txt in done/", func() bool { return exists(filepath.Join(root, DoneDir, "b1.txt")) })
	waitHealed(t, r, logs)
	if vs := modelVersions(t, root); !slices.Equal(vs, []uint64{1}) {
		t.Errorf("published versions %v, want [1]", vs)
	}
	if n := r.metric(t, "batches_ingested_total"); n != 1 {
		t.Errorf("batches_ingested_total %v, want 1", n)
	}
}

// chattr runs chattr(1) with flag (+i or -i) on path; the test is skipped
// where it cannot.
func chattr(t *testing.T, flag, path string) {
	t.Helper()
	if out, err := exec.Command("chattr", flag, path).CombinedOutput(); err != nil {
		t.Skipf("chattr %s %s: %v %s", flag, path, err, out)
	}
}

// TestUnwritableIncomingAtStart starts the daemon with a batch waiting in
// an immutable incoming/ (chattr +i: EPERM even for root), so the last
// step, moving the batch to done/, fails after its rows are committed and
// its model published. The daemon degrades; once incoming/ is writable the
// batch moves to done/ and counts as ingested (not as a duplicate), with
// no second retrain or publication.
func TestUnwritableIncomingAtStart(t *testing.T) {
	root := t.TempDir()
	mountTmpfs(t, root, 1<<20)
	cfg := faultConfig(root)
	if _, err := New(cfg, nil); err != nil { // the layout
		t.Fatal(err)
	}
	drop(t, root, "b1.txt", batchText(1, 40))
	in := filepath.Join(root, IncomingDir)
	chattr(t, "+i", in)
	t.Cleanup(func() { exec.Command("chattr", "-i", in).Run() })
	r, logs := startLogged(t, cfg)
	waitDegraded(t, r, logs, 3, "operation not permitted")
	if st := openStore(t, cfg); st.Generation() != 1 || st.Published() != 1 || st.Len() != 40 {
		t.Errorf("store on disk while degraded: generation %d, published %d, %d rows; want 1, 1, 40",
			st.Generation(), st.Published(), st.Len())
	}
	chattr(t, "-i", in)
	waitFor(t, "b1.txt in done/", func() bool { return exists(filepath.Join(root, DoneDir, "b1.txt")) })
	waitHealed(t, r, logs)
	if n := r.metric(t, "batches_ingested_total"); n != 1 {
		t.Errorf("batches_ingested_total %v, want 1", n)
	}
	if n := r.metric(t, "batches_duplicate_total"); n != 0 {
		t.Errorf("batches_duplicate_total %v, want 0", n)
	}
	if vs := modelVersions(t, root); !slices.Equal(vs, []uint64{1}) {
		t.Errorf("published versions %v, want [1]", vs)
	}
	if n := len(logs.records(t, "retrained")); n != 1 {
		t.Errorf("%d retrains, want 1", n)
	}
}
