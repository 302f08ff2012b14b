package modeldir

import (
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
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

// TestWatchBackgroundKeepsScanAskedDuringOne: with Options.Background the
// event loop asks the low-priority thread for scans and goes on reading
// events; a version published while a scan runs (here: while OnSwap holds
// the scan of version 2) is swapped in once that scan ends, not lost (the
// scan asked for meanwhile waits in the one-slot buffer).
func TestWatchBackgroundKeepsScanAskedDuringOne(t *testing.T) {
	dir := t.TempDir()
	if _, err := Publish(dir, testModel(1)); err != nil {
		t.Fatal(err)
	}
	inSwap, release := make(chan struct{}), make(chan struct{})
	var swapped []uint64 // written by the scanning thread only
	var last atomic.Uint64
	w, err := Watch(dir, Options{Background: true, OnSwap: func(l *Loaded) {
		swapped = append(swapped, l.Version)
		last.Store(l.Version)
		if l.Version == 2 {
			close(inSwap)
			<-release
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Publish(dir, testModel(2)); err != nil {
		t.Fatal(err)
	}
	<-inSwap
	if _, err := Publish(dir, testModel(3)); err != nil {
		t.Fatal(err)
	}
	// The event loop reads version 3's events and asks for a scan while
	// the scan of version 2 is held: give it time to (a debounce and more).
	time.Sleep(5 * defaultDebounce)
	if got := w.Current().Version; got != 2 {
		t.Fatalf("serving version %d while version 2's swap is held, want 2", got)
	}
	close(release)
	waitFor(t, "version 3's swap", func() bool { return last.Load() == 3 })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(swapped, []uint64{1, 2, 3}) {
		t.Errorf("swapped %v, want [1 2 3]", swapped)
	}
}
