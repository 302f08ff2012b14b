package modeldir

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core/modelfile"
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

// nanModelFile returns the bytes of a linear model file whose first weight
// is NaN, with a valid checksum: what a damaged or hostile publisher can
// write and no training gives.
func nanModelFile(t *testing.T) []byte {
	t.Helper()
	b, err := modelfile.Marshal(testModel(1.5))
	if err != nil {
		t.Fatal(err)
	}
	one := binary.LittleEndian.AppendUint32(nil, math.Float32bits(1.5))
	i := bytes.Index(b[modelfile.HeaderSize:], one)
	if i < 0 {
		t.Fatal("weight not found in the file")
	}
	binary.LittleEndian.PutUint32(b[modelfile.HeaderSize+i:], math.Float32bits(float32(math.NaN())))
	binary.LittleEndian.PutUint32(b[20:24], crc32.Checksum(b[modelfile.HeaderSize:], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// TestWatchSkipsWhatLoadRefuses (issue 10, fault 2): a model with NaN
// weights and a valid checksum is refused by ReadFile and skipped by a
// watcher alike, which keeps serving the version before it.
func TestWatchSkipsWhatLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := Publish(dir, testModel(1)); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	w, err := Watch(dir, Options{Logger: slog.New(rec), Debounce: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	waitVersion(t, w, 1, 1)
	nan := nanModelFile(t)
	path := filepath.Join(dir, FileName(2))
	if err := os.WriteFile(path, nan, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadLoaded(path); !errors.Is(err, modelfile.ErrCorrupt) {
		t.Errorf("Load of a NaN model: %v, want ErrCorrupt", err)
	}
	if _, err := modelfile.Decode(nan); !errors.Is(err, modelfile.ErrCorrupt) {
		t.Errorf("Decode of a NaN model: %v, want ErrCorrupt", err)
	}
	w.Rescan()
	waitFor(t, "the NaN version 2 to be skipped", func() bool { return rec.count(msgSkipped, 2) > 0 })
	waitVersion(t, w, 1, 1)
}

// TestLastSkip (issue 11, item 8): a watcher says why the newest file is
// not served, forgets it when a newer version loads, and reports the
// newest of several skipped versions.
func TestLastSkip(t *testing.T) {
	dir := t.TempDir()
	if _, err := Publish(dir, testModel(1)); err != nil {
		t.Fatal(err)
	}
	w, err := Watch(dir, Options{Debounce: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if s := w.LastSkip(); s != nil {
		t.Fatalf("LastSkip with nothing skipped = %+v", s)
	}
	writeGarbage(t, dir, 2, "definitely not a model")
	if err := os.WriteFile(filepath.Join(dir, FileName(3)), nanModelFile(t), 0o644); err != nil {
		t.Fatal(err)
	}
	w.Rescan()
	s := w.LastSkip()
	if s == nil || s.Version != 3 || s.Path != filepath.Join(dir, FileName(3)) ||
		!errors.Is(s.Err, modelfile.ErrCorrupt) || !strings.Contains(s.Err.Error(), "NaN") {
		t.Fatalf("LastSkip after versions 2 and 3 failed = %+v, want version 3 with its NaN weight", s)
	}
	waitVersion(t, w, 1, 1)
	if err := os.Remove(filepath.Join(dir, FileName(3))); err != nil {
		t.Fatal(err)
	}
	w.Rescan()
	if s := w.LastSkip(); s != nil && s.Version != 2 {
		t.Fatalf("after version 3 was removed, LastSkip = %+v, want none or version 2", s)
	}
	v, err := Publish(dir, testModel(4))
	if err != nil || v != 3 {
		t.Fatalf("Publish = %d, %v; want version 3", v, err)
	}
	waitVersion(t, w, 3, 4)
	if s := w.LastSkip(); s != nil {
		t.Errorf("after version 3 loaded, LastSkip = %+v, want nil", s)
	}
}
