package modeldir

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// defaultDebounce is short enough that a new model serves within a blink,
// long enough that the create/write/rename events of one publish cost one
// scan.
const defaultDebounce = 10 * time.Millisecond

// Loaded is one loaded version of a model. A Watcher never modifies a Loaded
// it has handed out, so its fields may be read without synchronisation.
type Loaded struct {
	// Model is the decoded and validated model, of any kind.
	Model core.Model
	// Version is the version in the file's name.
	Version uint64
	// Path is the file the model was read from (it may since have been
	// removed; the model stays in memory).
	Path string
}

// Options configure a Watcher. The zero value is ready to use.
type Options struct {
	// Logger receives load failures, skipped versions and swaps. Nil
	// discards them: the library never writes to stdout or stderr by
	// default.
	Logger *slog.Logger
	// Debounce delays a rescan after an event, so a burst of events costs
	// one scan; the delay runs from the first event of a burst, so a steady
	// stream of events cannot postpone scans for ever. 0 means 10ms.
	Debounce time.Duration
	// LinearOnly makes the watcher treat kernel and quantized model files
	// as files that fail to load (logged, skipped, the current model kept
	// serving), for a caller that can serve linear float models only: it
	// then never sees a Loaded without Model. False, the default, loads
	// every kind, so a directory whose publisher switches from linear to
	// kernel models (svmgo watch reloaded with svm-train options) or to
	// quantized ones (svmgo watch --quantize) is followed.
	LinearOnly bool
	// OnSwap, when set, is called with each version swapped in, after the
	// pointer store (Current already returns it), from the goroutine that
	// scanned: a caller that keeps more than the newest version (a server
	// with a version policy) learns of it without polling. It must not
	// block for long: the next scan waits for it.
	OnSwap func(*Loaded)
	// OnSkip, when set, is called for each attempt to load a version that
	// failed (a corrupt or unreadable file), as it is logged; an unchanged
	// bad file is not read, nor reported, again.
	OnSkip func(Skip)
	// Versions, when set, lists the directory's versions in place of its
	// "model-<v>" file names, for a directory in another layout (Triton's
	// "<v>/model.svmgo"): on each scan it returns each version with its
	// model file's path, and the subdirectories whose changes may bring a
	// version (the watcher watches those too, and scans on any event). The
	// watcher loads, skips, remembers failures and swaps as it does for its
	// own layout.
	Versions func(dir string) (VersionList, error)
}

// VersionList is what Options.Versions lists of a directory: each
// version's model file, and the subdirectories to watch.
type VersionList struct {
	Files   map[uint64]string
	Watched []string
}

// Watcher follows the newest valid model version in a directory (DESIGN.md
// §6). Current may be called from any number of goroutines; Rescan and Close
// are safe to call concurrently with everything else.
type Watcher struct {
	dir        string
	log        *slog.Logger
	debounce   time.Duration
	linearOnly bool
	onSwap     func(*Loaded)
	onSkip     func(Skip)
	versions   func(string) (VersionList, error)
	fsw        *fsnotify.Watcher
	current    atomic.Pointer[Loaded]
	skip       atomic.Pointer[Skip] // the newest version skipped, newer than current
	done       chan struct{}        // closed when run returns

	scanMu sync.Mutex
	// failed remembers versions newer than the current one that did not
	// load, with the file's stamp at the time, so an unchanged bad file is
	// not read again on every event while a rewritten one is.
	failed map[uint64]stamp // guarded by scanMu
	// watched holds the subdirectories Options.Versions asked to watch
	// and fsnotify took.
	watched map[string]bool // guarded by scanMu

	closeOnce sync.Once
	closeErr  error
}

// stamp identifies one content of a file well enough to tell that it has
// been rewritten.
type stamp struct {
	size    int64
	modTime int64 // Unix nanoseconds
}

// Watch starts following dir. It returns an error wrapping the fs error when
// dir cannot be read (fs.ErrNotExist when it is missing) and one wrapping
// syscall.ENOTDIR when it is not a directory. It starts watching the
// directory before it loads the newest valid version synchronously, so a
// version published in between is not missed; finding no valid version is
// not an error (Current returns nil until one arrives). Afterwards it
// follows the directory with fsnotify until Close.
func Watch(dir string, opt Options) (*Watcher, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("modeldir: watch: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("modeldir: watch: %w", &fs.PathError{Op: "watch", Path: dir, Err: syscall.ENOTDIR})
	}
	w := newWatcher(dir, opt)
	// The directory, not the files: publishers rename into place, which
	// a watch on a file would lose.
	w.fsw, err = fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("modeldir: watch %s: %w", dir, err)
	}
	if err := w.fsw.Add(dir); err != nil {
		w.fsw.Close()
		return nil, fmt.Errorf("modeldir: watch %s: %w", dir, err)
	}
	w.Rescan()
	go w.run(w.fsw.Events, w.fsw.Errors)
	return w, nil
}

// newWatcher returns a Watcher with its options applied and no fsnotify
// watcher yet; tests drive its run loop with channels of their own.
func newWatcher(dir string, opt Options) *Watcher {
	w := &Watcher{
		dir:        dir,
		log:        opt.Logger,
		debounce:   opt.Debounce,
		linearOnly: opt.LinearOnly,
		onSwap:     opt.OnSwap,
		onSkip:     opt.OnSkip,
		versions:   opt.Versions,
		done:       make(chan struct{}),
		failed:     make(map[uint64]stamp),
		watched:    make(map[string]bool),
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	if w.debounce <= 0 {
		w.debounce = defaultDebounce
	}
	return w
}

// Current returns the model in use, nil if none has loaded yet. Once a model
// has loaded, Current never returns nil again. It is one atomic load: it
// never blocks and is safe for any number of goroutines. A caller should
// call it once per unit of work (one predict call) and use that model to the
// end, so that a swap in between cannot mix two models.
func (w *Watcher) Current() *Loaded {
	return w.current.Load()
}

// Skip describes a version a Watcher skipped because it failed to load.
type Skip struct {
	// Version is the version in the file's name.
	Version uint64
	// Path is the file's path.
	Path string
	// Err says why it did not load (it wraps modelfile's sentinels, the
	// os error, or fileio.ErrNotRegular).
	Err error
}

// LastSkip returns the newest version that failed to load and is newer
// than the model in use, nil when there is none: why a directory's newest
// file is not being served. It is one atomic load, safe for any number of
// goroutines. The record goes when a version at least as new loads, or
// when the skipped file is removed.
func (w *Watcher) LastSkip() *Skip {
	return w.skip.Load()
}

// Close stops watching and waits for the watcher goroutine to end. The
// current model stays available through Current. Close is idempotent: later
// calls return the first call's result.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		if err := w.fsw.Close(); err != nil {
			w.closeErr = fmt.Errorf("modeldir: close watcher of %s: %w", w.dir, err)
		}
		<-w.done
	})
	return w.closeErr
}

// run turns fsnotify events into debounced rescans until the event channel
// is closed.
func (w *Watcher) run(events <-chan fsnotify.Event, errs <-chan error) {
	defer close(w.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	pending := false
	schedule := func() {
		if !pending {
			timer.Reset(w.debounce)
			pending = true
		}
	}
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				timer.Stop()
				return
			}
			if w.isDirEvent(ev) && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				w.log.Warn("modeldir: model directory removed or renamed; no new versions will be seen", "dir", w.dir)
				continue
			}
			if w.mayBringVersion(ev) {
				schedule()
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil // a nil channel blocks, so a closed one cannot spin the loop
				continue
			}
			// Events may have been lost: only a full rescan tells what is there.
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.log.Warn("modeldir: watch events overflowed; rescanning", "dir", w.dir)
			} else {
				w.log.Warn("modeldir: watch error; rescanning", "dir", w.dir, "err", err)
			}
			schedule()
		case <-timer.C:
			pending = false
			w.Rescan()
		}
	}
}

// isDirEvent reports whether ev is about the watched directory itself.
func (w *Watcher) isDirEvent(ev fsnotify.Event) bool {
	return filepath.Clean(ev.Name) == filepath.Clean(w.dir)
}

// mayBringVersion reports whether ev can mean a new or rewritten model file.
// Events on temporary names are skipped: a publish writes its temporary file
// many times but renames it once, and the rename shows as a Create of the
// final name. kqueue and Windows report a Write on the directory when an
// entry changes, which is taken as a hint to scan.
func (w *Watcher) mayBringVersion(ev fsnotify.Event) bool {
	if !ev.Has(fsnotify.Create | fsnotify.Write | fsnotify.Rename) {
		return false
	}
	if w.isDirEvent(ev) || w.versions != nil {
		return true
	}
	_, ok := ParseFileName(filepath.Base(ev.Name))
	return ok
}

// Rescan scans the directory now and swaps in the newest valid version that
// is strictly newer than the current one, if there is one. It tries the
// candidates from the newest down, so a bad newest file does not hide a
// good older one; a version that fails to load is logged and not read again
// until its file changes (size or modification time). Rescan is exported for
// tests and for callers that know a file has arrived; the watcher calls it
// itself on events. Concurrent calls are serialised.
func (w *Watcher) Rescan() {
	w.scanMu.Lock()
	defer w.scanMu.Unlock()

	cur := w.current.Load()
	var candidates []uint64
	paths := w.list()
	for v := range paths {
		if cur == nil || v > cur.Version {
			candidates = append(candidates, v)
		}
	}
	// A bad version that is gone, or no longer newer than the current one,
	// needs no memory.
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
		path := paths[v]
		fi, err := os.Stat(path)
		if err != nil {
			w.log.Debug("modeldir: model file vanished before loading", "version", v, "path", path, "err", err)
			continue
		}
		st := stamp{size: fi.Size(), modTime: fi.ModTime().UnixNano()}
		if prev, seen := w.failed[v]; seen && prev == st {
			continue
		}
		l, err := w.load(path)
		if err != nil {
			w.failed[v] = st
			if s := w.skip.Load(); s == nil || v >= s.Version {
				w.skip.Store(&Skip{Version: v, Path: path, Err: err})
			}
			w.log.Warn("modeldir: skipping model that failed to load", "version", v, "path", path, "err", err)
			if w.onSkip != nil {
				w.onSkip(Skip{Version: v, Path: path, Err: err})
			}
			continue
		}
		l.Version, l.Path = v, path
		w.current.Store(l)
		if s := w.skip.Load(); s != nil && s.Version <= v {
			w.skip.Store(nil)
		}
		if cur != nil {
			w.log.Info("modeldir: model loaded", "version", v, "path", path, "previous", cur.Version)
		} else {
			w.log.Info("modeldir: model loaded", "version", v, "path", path)
		}
		for fv := range w.failed {
			if fv <= v {
				delete(w.failed, fv)
			}
		}
		if w.onSwap != nil {
			w.onSwap(l)
		}
		return
	}
}

// list returns the directory's versions with their model files' paths:
// its "model-<v>" files, or what Options.Versions lists (whose
// subdirectories it starts watching). Called with scanMu held.
func (w *Watcher) list() map[uint64]string {
	if w.versions != nil {
		l, err := w.versions(w.dir)
		if err != nil {
			w.log.Warn("modeldir: cannot list model directory", "dir", w.dir, "err", err)
		}
		for _, d := range l.Watched {
			if !w.watched[d] && w.fsw != nil {
				if err := w.fsw.Add(d); err == nil {
					w.watched[d] = true
				}
			}
		}
		return l.Files
	}
	paths, err := Files(w.dir)
	if err != nil {
		// What was read before the error is still worth trying.
		w.log.Warn("modeldir: cannot read model directory", "dir", w.dir, "err", err)
	}
	return paths
}

// Files returns the model files of dir, in the layout svmgo watch
// publishes, by version: "model-<v>.svmgo", or "model-<v>.onnx" for a
// version without one. On an error reading dir it returns what it read
// before the error too.
func Files(dir string) (map[uint64]string, error) {
	entries, err := os.ReadDir(dir)
	paths := make(map[uint64]string, len(entries))
	for _, e := range entries {
		v, ok := ParseFileName(e.Name())
		if !ok {
			continue
		}
		if prev, seen := paths[v]; seen && strings.HasSuffix(prev, fileSuffix) {
			continue // model-<v>.svmgo wins over model-<v>.onnx
		}
		paths[v] = filepath.Join(dir, e.Name())
	}
	return paths, err
}

// load reads and checks the model file at path, refusing a kernel or
// quantized model when the watcher takes linear float models only.
func (w *Watcher) load(path string) (*Loaded, error) {
	m, err := modelfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if kind := m.Info().Kind; kind != core.KindLinear && w.linearOnly {
		return nil, fmt.Errorf("modeldir: %s holds a %s model; this watcher takes linear float models only (Options.LinearOnly)", path, kind)
	}
	return &Loaded{Model: m, Path: path}, nil
}
