package modeldir

import (
	"log/slog"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestWatchSkipsFIFO (issue 10, fault 1): a FIFO named model-2.svmgo
// neither blocks the watcher's scan nor stops it following: it is logged
// and skipped, and a valid version 3 after it is served.
func TestWatchSkipsFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	if _, err := Publish(dir, testModel(1)); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, FileName(2)), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	rec := &recorder{}
	started := make(chan *Watcher, 1)
	go func() {
		w, err := Watch(dir, Options{Logger: slog.New(rec), Debounce: time.Millisecond})
		if err != nil {
			t.Error(err)
		}
		started <- w
	}()
	var w *Watcher
	select {
	case w = <-started:
	case <-time.After(waitTimeout):
		t.Fatal("Watch blocked on a FIFO named like a model file")
	}
	if w == nil {
		return
	}
	defer w.Close()
	waitVersion(t, w, 1, 1)
	if rec.count(msgSkipped, 2) != 1 {
		t.Errorf("the FIFO was logged as skipped %d times, want 1", rec.count(msgSkipped, 2))
	}
	if _, err := Publish(dir, testModel(3)); err != nil {
		t.Fatal(err)
	}
	waitVersion(t, w, 3, 3)
}
