package modeldir

import (
	"sync/atomic"
	"syscall"
	"testing"
)

// threadNice returns the calling thread's nice value (Linux's getpriority
// system call answers 20 − nice).
func threadNice(t *testing.T) int {
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	return 20 - p
}

// TestWatchBackgroundLowersPriority: with Options.Background a version the
// watcher's goroutine finds is loaded and handed to OnSwap on a thread of
// nice 19; without it the thread's priority is the process's.
func TestWatchBackgroundLowersPriority(t *testing.T) {
	base := threadNice(t)
	if base == 19 {
		t.Skip("the test runs at nice 19 already")
	}
	for _, background := range []bool{true, false} {
		dir := t.TempDir()
		if _, err := Publish(dir, testModel(1)); err != nil {
			t.Fatal(err)
		}
		var nice atomic.Int64
		nice.Store(-100)
		w, err := Watch(dir, Options{Background: background, OnSwap: func(l *Loaded) {
			if l.Version == 2 {
				nice.Store(int64(threadNice(t)))
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Publish(dir, testModel(2)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "version 2's swap", func() bool { return nice.Load() != -100 })
		w.Close()
		want := base
		if background {
			want = 19
		}
		if got := int(nice.Load()); got != want {
			t.Errorf("Background %v: version 2 loaded at nice %d, want %d", background, got, want)
		}
	}
}
