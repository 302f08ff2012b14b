package serve

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// follower follows one model directory and calls its OnSwap with each new
// version: a modeldir.Watcher for the layout svmgo watch publishes
// ("model-<v>.svmgo"), a tritonWatcher for Triton's ("<v>/model.<ext>").
type follower interface {
	Rescan()
	Close() error
	LastSkip() *modeldir.Skip
}

// isTritonLayout reports whether dir is a model directory in Triton's
// layout: it holds a version directory (a decimal name) and no
// "model-<v>" file of svmgo watch's layout.
func isTritonLayout(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	triton := false
	for _, e := range entries {
		if _, ok := modeldir.ParseFileName(e.Name()); ok {
			return false
		}
		if _, ok := tritonVersion(e); ok {
			triton = true
		}
	}
	return triton
}

// tritonVersion returns the version a directory entry of a Triton model
// directory is: a directory named by a decimal number of at least 1.
func tritonVersion(e os.DirEntry) (uint64, bool) {
	if !e.IsDir() {
		return 0, false
	}
	v, err := strconv.ParseUint(e.Name(), 10, 64)
	if err != nil || v == 0 || strconv.FormatUint(v, 10) != e.Name() {
		return 0, false
	}
	return v, true
}

// tritonModelFile returns the model file of version directory vdir:
// model.svmgo, else model.onnx (the opener detects the format by content),
// "" when there is neither.
func tritonModelFile(vdir string) string {
	for _, name := range [...]string{"model.svmgo", "model.onnx"} {
		p := filepath.Join(vdir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// tritonVersions returns the versions of Triton model directory dir that
// hold a model file, with their paths.
func tritonVersions(dir string) (map[uint64]string, error) {
	entries, err := os.ReadDir(dir)
	out := make(map[uint64]string, len(entries))
	for _, e := range entries {
		if v, ok := tritonVersion(e); ok {
			if p := tritonModelFile(filepath.Join(dir, e.Name())); p != "" {
				out[v] = p
			}
		}
	}
	return out, err
}

// tritonWatcher follows a model directory in Triton's layout as
// modeldir.Watcher follows svmgo watch's: it loads the newest version
// whose model file loads, tries the newest first so that a bad one does
// not hide a good older one, remembers a file that failed until it
// changes (size or modification time: a model file still being copied in
// fails its frame check and is read again once complete), and calls
// onSwap with each version it swaps in. fsnotify watches the model
// directory and each version directory; a burst of events costs one scan.
type tritonWatcher struct {
	dir    string
	log    *slog.Logger
	onSwap func(*modeldir.Loaded)
	onSkip func(modeldir.Skip)
	fsw    *fsnotify.Watcher
	done   chan struct{}
	skip   atomic.Pointer[modeldir.Skip]

	scanMu  sync.Mutex
	current *modeldir.Loaded     // guarded by scanMu
	failed  map[uint64]fileStamp // guarded by scanMu
	watched map[string]bool      // version directories watched; guarded by scanMu

	closeOnce sync.Once
	closeErr  error
}

// fileStamp tells one content of a file from a rewritten one.
type fileStamp struct {
	size    int64
	modTime time.Time
}

// watchTriton starts following the Triton model directory dir, loading
// its newest valid version before it returns.
func watchTriton(dir string, opt modeldir.Options) (*tritonWatcher, error) {
	w := &tritonWatcher{dir: dir, log: opt.Logger, onSwap: opt.OnSwap, onSkip: opt.OnSkip,
		done: make(chan struct{}), failed: map[uint64]fileStamp{}, watched: map[string]bool{}}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if w.fsw, err = fsnotify.NewWatcher(); err != nil {
		return nil, err
	}
	if err := w.fsw.Add(dir); err != nil {
		w.fsw.Close()
		return nil, err
	}
	w.Rescan()
	go w.run()
	return w, nil
}

// run turns events into scans, 10 ms after the first event of a burst.
func (w *tritonWatcher) run() {
	defer close(w.done)
	errs := w.fsw.Errors
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	pending := false
	for {
		select {
		case _, ok := <-w.fsw.Events:
			if !ok {
				timer.Stop()
				return
			}
			if !pending {
				timer.Reset(10 * time.Millisecond)
				pending = true
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil // a nil channel blocks, so a closed one cannot spin the loop
				continue
			}
			w.log.Warn("serve: watch error; rescanning", "dir", w.dir, "err", err)
			if !pending {
				timer.Reset(10 * time.Millisecond)
				pending = true
			}
		case <-timer.C:
			pending = false
			w.Rescan()
		}
	}
}

// Rescan scans the directory now and swaps in the newest valid version
// newer than the current one.
func (w *tritonWatcher) Rescan() {
	w.scanMu.Lock()
	defer w.scanMu.Unlock()
	entries, err := os.ReadDir(w.dir)
	if err != nil {
		w.log.Warn("serve: cannot read model directory", "dir", w.dir, "err", err)
	}
	var candidates []uint64
	for _, e := range entries {
		v, ok := tritonVersion(e)
		if !ok {
			continue
		}
		if vdir := filepath.Join(w.dir, e.Name()); !w.watched[vdir] {
			// A version directory is often made first and its file copied
			// in after: its own events bring the file.
			if err := w.fsw.Add(vdir); err == nil {
				w.watched[vdir] = true
			}
		}
		if w.current == nil || v > w.current.Version {
			candidates = append(candidates, v)
		}
	}
	for v := range w.failed {
		if !slices.Contains(candidates, v) {
			delete(w.failed, v)
		}
	}
	if s := w.skip.Load(); s != nil && !slices.Contains(candidates, s.Version) {
		w.skip.Store(nil)
	}
	slices.Sort(candidates)
	for i := len(candidates) - 1; i >= 0; i-- {
		v := candidates[i]
		path := tritonModelFile(filepath.Join(w.dir, strconv.FormatUint(v, 10)))
		if path == "" {
			continue // no model file yet
		}
		fi, err := os.Stat(path)
		if err != nil {
			continue
		}
		st := fileStamp{fi.Size(), fi.ModTime()}
		if prev, seen := w.failed[v]; seen && prev == st {
			continue
		}
		m, err := modelfile.ReadFile(path)
		if err != nil {
			w.failed[v] = st
			sk := modeldir.Skip{Version: v, Path: path, Err: err}
			if s := w.skip.Load(); s == nil || v >= s.Version {
				w.skip.Store(&sk)
			}
			w.log.Warn("serve: skipping model that failed to load", "version", v, "path", path, "err", err)
			if w.onSkip != nil {
				w.onSkip(sk)
			}
			continue
		}
		l := &modeldir.Loaded{Model: m, Version: v, Path: path}
		w.current = l
		if s := w.skip.Load(); s != nil && s.Version <= v {
			w.skip.Store(nil)
		}
		w.log.Info("serve: model loaded", "version", v, "path", path)
		if w.onSwap != nil {
			w.onSwap(l)
		}
		return
	}
}

// LastSkip is modeldir.Watcher's: the newest version newer than the
// current one that failed to load, nil when there is none.
func (w *tritonWatcher) LastSkip() *modeldir.Skip { return w.skip.Load() }

// Close stops watching; the loaded versions stay served.
func (w *tritonWatcher) Close() error {
	w.closeOnce.Do(func() {
		w.closeErr = w.fsw.Close()
		<-w.done
		if errors.Is(w.closeErr, fsnotify.ErrClosed) {
			w.closeErr = nil
		}
	})
	return w.closeErr
}
