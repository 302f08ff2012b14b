package watchd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// dirNames returns the sorted names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// TestStaleTempsRemovedAtStart plants what a kill -9 during a publication
// or a rejection leaves (issue 10, fault 5) among files that are not the
// daemon's temporary files: New removes the former and nothing else.
func TestStaleTempsRemovedAtStart(t *testing.T) {
	cfg := testConfig(t.TempDir())
	models := filepath.Join(cfg.Root, ModelsDir)
	rejected := filepath.Join(cfg.Root, RejectedDir)
	for _, dir := range []string{models, rejected} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := modeldir.Publish(models, testLinearModel()); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(models, ".model-123.tmp"):                    "a publication's",
		filepath.Join(models, ".model-9876543.tmp"):                "a publication's",
		filepath.Join(models, ".notes.tmp"):                        "",
		filepath.Join(models, "model-2.svmgo.tmp"):                 "",
		filepath.Join(rejected, ".bad.txt.reason-4242.tmp"):        "a reason file's",
		filepath.Join(rejected, "bad.txt"):                         "",
		filepath.Join(rejected, "bad.txt.reason"):                  "",
		filepath.Join(rejected, "x.txt.reason-1.tmp"):              "", // not a dot-file
		filepath.Join(cfg.Root, IncomingDir, ".producer-1.tmp"):    "", // a producer's: never the daemon's to remove
		filepath.Join(cfg.Root, IncomingDir, ".b.txt.reason-.tmp"): "",
	}
	if err := os.MkdirAll(filepath.Join(cfg.Root, IncomingDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for path := range files {
		if err := os.WriteFile(path, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := New(cfg, nil); err != nil {
		t.Fatal(err)
	}
	for path, whose := range files {
		switch gone := !exists(path); {
		case whose != "" && !gone:
			t.Errorf("%s (%s temporary file) left behind", path, whose)
		case whose == "" && gone:
			t.Errorf("%s removed: not the daemon's temporary file", path)
		}
	}
	if got := dirNames(t, models); !slices.Contains(got, modeldir.FileName(1)) {
		t.Errorf("models/ holds %q: the published version is gone", got)
	}
}

// testLinearModel returns a small valid linear model to publish.
func testLinearModel() *linear.LinearModel {
	return &linear.LinearModel{
		Solver: linear.L2LossSVCDual, Labels: []int32{1, -1}, NumFeatures: 2, Bias: -1,
		W: []float32{0.5, -0.25},
	}
}

// logBuffer is a daemon's JSON log, written by Run's goroutine while the
// test reads it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// records returns the records whose message is msg.
func (b *logBuffer) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	b.mu.Lock()
	text := b.buf.String()
	b.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}

// startLogged is start with the daemon's log kept.
func startLogged(t *testing.T, cfg Config) (*running, *logBuffer) {
	t.Helper()
	var logs logBuffer
	d, err := New(cfg, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{d: d, root: cfg.Root, cancel: cancel, errc: make(chan error, 1)}
	go func() { r.errc <- d.Run(ctx) }()
	t.Cleanup(func() { r.stop(t) })
	return r, &logs
}

// metric returns the daemon's current value of the metric name.
func (r *running) metric(t *testing.T, name string) float64 {
	t.Helper()
	var m bytes.Buffer
	r.d.WriteMetrics(&m)
	return metricValue(t, m.String(), name)
}

// health returns the status and body of the daemon's /healthz.
func (r *running) health(t *testing.T) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	r.d.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	return w.Code, w.Body.String()
}

// alive fails the test when Run has returned.
func (r *running) alive(t *testing.T) {
	t.Helper()
	select {
	case err := <-r.errc:
		r.cancel = nil // stop must not wait for it again
		t.Fatalf("Run returned %v; it must keep running", err)
	default:
	}
}

// reasonOf returns the reason file of a rejected name.
func reasonOf(t *testing.T, root, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, RejectedDir, name+ReasonSuffix))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestSpecialFilesRejected puts into incoming/ what is not a regular file
// (issue 10, fault 4): a symbolic link to a valid batch outside the root, a
// dangling link, a directory holding a batch. Each is moved to rejected/
// unread, with a reason naming what it is, and counted; nothing outside
// the root is read or touched; a good batch after them is ingested.
// (FIFOs: TestFIFORejected.)
func TestSpecialFilesRejected(t *testing.T) {
	cfg := testConfig(t.TempDir())
	r := start(t, cfg)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	text := batchText(3, 20)
	if err := os.WriteFile(outside, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(r.root, IncomingDir)
	if err := os.Symlink(outside, filepath.Join(in, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nonexistent/batch.txt", filepath.Join(in, "dangling.txt")); err != nil {
		t.Fatal(err)
	}
	// A directory is made under a temporary name and renamed in, as a
	// producer would a file.
	if err := os.Mkdir(filepath.Join(in, ".dir.tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, ".dir.tmp", "inner.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(in, ".dir.tmp"), filepath.Join(in, "dir.txt")); err != nil {
		t.Fatal(err)
	}
	drop(t, r.root, "z-good.txt", batchText(4, 10))

	want := map[string]string{
		"link.txt":     "link.txt: a symbolic link to " + outside + ", not a regular file: not read",
		"dangling.txt": "dangling.txt: a symbolic link to /nonexistent/batch.txt, not a regular file",
		"dir.txt":      "dir.txt: a directory, not a regular file",
	}
	for name, reason := range want {
		waitFor(t, name+" rejected", func() bool { return exists(filepath.Join(r.root, RejectedDir, name)) })
		if got := reasonOf(t, r.root, name); !strings.Contains(got, reason) {
			t.Errorf("%s: reason %q lacks %q", name, got, reason)
		}
	}
	waitFor(t, "z-good.txt in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, "z-good.txt")) })
	if fi, err := os.Lstat(filepath.Join(r.root, RejectedDir, "link.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("rejected/link.txt: %v, %v; want the link itself, moved", fi, err)
	}
	if got, err := os.ReadFile(outside); err != nil || string(got) != text {
		t.Errorf("the link's target outside the root changed: %v", err)
	}
	if !exists(filepath.Join(r.root, RejectedDir, "dir.txt", "inner.txt")) {
		t.Error("the directory was not moved whole")
	}
	if n := r.metric(t, "incoming_special_files_total"); n != 3 {
		t.Errorf("incoming_special_files_total %v, want 3", n)
	}
	if n := r.metric(t, "batches_rejected_total"); n != 3 {
		t.Errorf("batches_rejected_total %v, want 3", n)
	}
	if n := r.metric(t, "samples_stored"); n != 10 {
		t.Errorf("samples_stored %v, want 10: only the good batch's rows", n)
	}
	if left := dirNames(t, in); len(left) != 0 {
		t.Errorf("incoming/ still holds %q", left)
	}
}

// faultConfig is testConfig with retries after a storage fault quick enough
// for a test.
func faultConfig(root string) Config {
	cfg := testConfig(root)
	cfg.RetryMin = 2 * time.Millisecond
	cfg.RetryMax = 20 * time.Millisecond
	return cfg
}

// TestLayoutRemovedWhileRunning removes directories of the layout under a
// running daemon. incoming/ removed and made again at once by someone
// else: the new directory is watched (the old watch went with the old
// directory). incoming/ removed and left missing: the daemon makes it
// again. state/ removed: the daemon makes it again and writes the store
// held in memory back, every batch's rows. state/ replaced by a file: the
// commit fails (ENOTDIR), a storage fault, until the file is removed.
func TestLayoutRemovedWhileRunning(t *testing.T) {
	cfg := faultConfig(t.TempDir())
	r, logs := startLogged(t, cfg)
	in := filepath.Join(r.root, IncomingDir)
	feed := func(name string, seed uint64) {
		t.Helper()
		drop(t, r.root, name, batchText(seed, 20))
		waitFor(t, name+" in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, name)) })
	}
	feed("b1.txt", 1)

	if err := os.RemoveAll(in); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	feed("b2.txt", 2)

	if err := os.RemoveAll(in); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "incoming/ made again", func() bool { return exists(in) })
	feed("b3.txt", 3)

	// state/ removed while the daemon is idle: the snapshot is written
	// back at once, not at the next batch's commit.
	if err := os.RemoveAll(filepath.Join(r.root, StateDir)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the snapshot written again", func() bool {
		return exists(filepath.Join(r.root, StateDir, store.SnapshotName))
	})
	if st := openStore(t, cfg); st.Len() != 60 || st.Generation() != 3 {
		t.Errorf("restored store: %d rows, generation %d; want 60, 3", st.Len(), st.Generation())
	}
	// state/ replaced by a file: ENOTDIR at the commit, a storage fault
	// until the file is removed. The daemon remakes state/ as soon as it
	// sees it gone, so the file is renamed in until it wins that race.
	stateFile := filepath.Join(t.TempDir(), "state-file")
	if err := os.WriteFile(stateFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for {
		// The daemon writing the store back (snapshot, then journal)
		// while RemoveAll runs: ENOTEMPTY, and another round.
		if err := os.RemoveAll(filepath.Join(r.root, StateDir)); err != nil && !errors.Is(err, syscall.ENOTEMPTY) {
			t.Fatal(err)
		}
		if os.Rename(stateFile, filepath.Join(r.root, StateDir)) == nil {
			break
		}
	}
	drop(t, r.root, "b4.txt", batchText(4, 20))
	waitFor(t, "a storage fault", func() bool { return r.metric(t, "storage_degraded") == 1 })
	if err := os.Remove(filepath.Join(r.root, StateDir)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "b4.txt in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, "b4.txt")) })
	waitFor(t, "recovery", func() bool { return r.metric(t, "storage_degraded") == 0 })
	r.alive(t)
	r.stop(t)

	st := openStore(t, cfg)
	if st.Len() != 80 || st.Generation() != 4 || st.Published() != 4 || len(st.Hashes()) != 4 {
		t.Errorf("store: %d rows, generation %d, published %d, %d batches; want 80, 4, 4, 4",
			st.Len(), st.Generation(), st.Published(), len(st.Hashes()))
	}
	if vs := modelVersions(t, r.root); !slices.Equal(vs, []uint64{1, 2, 3, 4}) {
		t.Errorf("published versions %v, want [1 2 3 4]", vs)
	}
	if n := len(logs.records(t, "storage fault: degraded, retrying")); n < 1 {
		t.Error("state/ replaced by a file was not reported as a storage fault")
	}
}

// TestRootRemovedWhileRunning removes the whole root under a running
// daemon: it makes the layout again and writes the store's snapshot back
// from memory at once (not only at the next batch, which may be long to
// come, and a crash meanwhile would lose every row), then takes batches as
// before.
func TestRootRemovedWhileRunning(t *testing.T) {
	cfg := faultConfig(t.TempDir())
	r, logs := startLogged(t, cfg)
	for i, name := range []string{"b1.txt", "b2.txt"} {
		drop(t, r.root, name, batchText(uint64(i+1), 20))
		waitFor(t, name+" in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, name)) })
	}
	// The daemon may make directories again while RemoveAll runs.
	for i := 0; ; i++ {
		err := os.RemoveAll(r.root)
		if err == nil {
			break
		}
		if i == 100 {
			t.Fatal(err)
		}
	}
	snap := filepath.Join(r.root, StateDir, store.SnapshotName)
	waitFor(t, "the snapshot written again", func() bool { return exists(snap) })
	if st := openStore(t, cfg); st.Len() != 40 || st.Generation() != 2 || st.Published() != 2 {
		t.Errorf("restored store: %d rows, generation %d, published %d; want 40, 2, 2", st.Len(), st.Generation(), st.Published())
	}
	if n := len(logs.records(t, "store snapshot removed while running: writing it again from memory")); n < 1 {
		t.Error("no record of the restored snapshot")
	}
	drop(t, r.root, "b3.txt", batchText(3, 20))
	waitFor(t, "b3.txt in done/", func() bool { return exists(filepath.Join(r.root, DoneDir, "b3.txt")) })
	r.alive(t)
	r.stop(t)
	st := openStore(t, cfg)
	if st.Len() != 60 || st.Generation() != 3 || len(st.Hashes()) != 3 {
		t.Errorf("store: %d rows, generation %d, %d batches; want 60, 3, 3", st.Len(), st.Generation(), len(st.Hashes()))
	}
	// models/ went with the root: the current model was published again
	// as version 3, the sequence going on from the store's record (issue
	// 22, fault 5), and b3's model is 4. The daemon may have made the
	// layout and published again between two of RemoveAll's tries (they
	// fail when it makes a directory under the root), and a version is
	// never given twice: then each republication that was named adds one.
	v := st.Version()
	again := uint64(len(logs.records(t, "the current model is gone from models: publishing it again")))
	if vs := modelVersions(t, r.root); v < 4 || v-3 > again || !slices.Equal(vs, []uint64{v - 1, v}) {
		t.Errorf("published versions %v, the store's version %d after %d republications; want [%d %d], 4 <= version <= %d",
			vs, v, again, v-1, v, 3+again)
	}
}
