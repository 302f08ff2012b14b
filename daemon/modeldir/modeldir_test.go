package modeldir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// waitTimeout bounds every wait for the watcher; it is a failure bound, not
// an expected duration (a swap normally shows within a few debounce periods).
const waitTimeout = 5 * time.Second

// testModel returns a valid two-class model whose weights all equal tag, so
// a model observed later can be traced back to the version that wrote it.
func testModel(tag float32) *linear.LinearModel {
	return &linear.LinearModel{
		Solver:      linear.L2LossSVCDual,
		Labels:      []int32{1, -1},
		NumFeatures: 4,
		Bias:        -1,
		W:           []float32{tag, tag, tag, tag},
	}
}

func TestTestModelIsValid(t *testing.T) {
	if err := testModel(3).Validate(); err != nil {
		t.Fatalf("Validate(testModel) = %v", err)
	}
}

func TestFileNameRoundTrip(t *testing.T) {
	known := map[uint64]string{
		0:              "model-0.svmgo",
		1:              "model-1.svmgo",
		10:             "model-10.svmgo",
		1234567:        "model-1234567.svmgo",
		math.MaxUint64: "model-18446744073709551615.svmgo",
	}
	for v, want := range known {
		if got := FileName(v); got != want {
			t.Errorf("FileName(%d) = %q, want %q", v, got, want)
		}
		got, ok := ParseFileName(want)
		if !ok || got != v {
			t.Errorf("ParseFileName(%q) = %d, %v; want %d, true", want, got, ok, v)
		}
	}
}

func TestParseFileNameRejects(t *testing.T) {
	for _, name := range []string{
		"",
		"model-.svmgo",
		"model-01.svmgo",  // not canonical: would alias model-1
		"model-00.svmgo",  // not canonical: would alias model-0
		"model-+1.svmgo",  // sign
		"model--1.svmgo",  // sign
		"model-1_0.svmgo", // digit separator
		"model-0x10.svmgo",
		"model-1 .svmgo",
		"model-18446744073709551616.svmgo", // MaxUint64+1
		"model-1.svmgo.tmp",
		".model-1.svmgo",
		".model-123456.tmp",
		"model-1.svm",
		"model-1.SVMGO",
		"model-1",
		"Model-1.svmgo",
		"xmodel-1.svmgo",
		"model-1.svmgox",
		"dir/model-1.svmgo", // a path, not a name
	} {
		if v, ok := ParseFileName(name); ok {
			t.Errorf("ParseFileName(%q) = %d, true; want false", name, v)
		}
	}
}

// names returns the sorted names in dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}

func TestPublishNumbersFromOne(t *testing.T) {
	dir := t.TempDir()
	for want := uint64(1); want <= 3; want++ {
		m := testModel(float32(want) + 0.5)
		v, err := Publish(dir, m)
		if err != nil {
			t.Fatalf("Publish #%d: %v", want, err)
		}
		if v != want {
			t.Fatalf("Publish #%d returned version %d", want, v)
		}
		if m.Created != 0 {
			t.Errorf("Publish modified its argument: Created = %d", m.Created)
		}
		got, err := modelfile.ReadFileAs[*linear.LinearModel](filepath.Join(dir, FileName(v)))
		if err != nil {
			t.Fatalf("reading back version %d: %v", v, err)
		}
		if !slices.Equal(got.W, m.W) {
			t.Errorf("version %d: W = %v, want %v", v, got.W, m.W)
		}
		if !slices.Equal(got.Labels, m.Labels) || got.NumFeatures != m.NumFeatures || got.Bias != m.Bias || got.Solver != m.Solver {
			t.Errorf("version %d: read back %+v, want %+v", v, got, m)
		}
		if now := time.Now().Unix(); got.Created < now-60 || got.Created > now+1 {
			t.Errorf("version %d: Created = %d, want about %d", v, got.Created, now)
		}
	}
	want := []string{"model-1.svmgo", "model-2.svmgo", "model-3.svmgo"}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("directory holds %q, want %q (no temporary files left)", got, want)
	}
}

func TestPublishKeepsCreated(t *testing.T) {
	dir := t.TempDir()
	m := testModel(1)
	m.Created = 1_700_000_000
	v, err := Publish(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := modelfile.ReadFileAs[*linear.LinearModel](filepath.Join(dir, FileName(v)))
	if err != nil {
		t.Fatal(err)
	}
	if got.Created != m.Created {
		t.Errorf("Created = %d, want the model's own %d", got.Created, m.Created)
	}
}

func TestPublishContinuesAfterHighestIgnoringJunk(t *testing.T) {
	dir := t.TempDir()
	junk := map[string]string{
		"model-7.svmgo":       "not a model, but its name claims version 7",
		"model-2.svmgo":       "also junk",
		".model-99.svmgo":     "dot-file",
		".model-123.tmp":      "temporary",
		"model-100.svmgo.tmp": "temporary",
		"model-50.txt":        "other extension",
		"model-060.svmgo":     "not canonical",
		"notes":               "x",
	}
	for name, body := range junk {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "model-x"), 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := Publish(dir, testModel(8))
	if err != nil {
		t.Fatal(err)
	}
	if v != 8 {
		t.Fatalf("Publish after model-7 returned version %d, want 8", v)
	}
	if _, err := modelfile.ReadFileAs[*linear.LinearModel](filepath.Join(dir, "model-8.svmgo")); err != nil {
		t.Fatal(err)
	}
	if got := len(names(t, dir)); got != len(junk)+2 {
		t.Errorf("directory holds %d entries, want %d (junk, model-x, model-8)", got, len(junk)+2)
	}
}

func TestPublishConcurrentTakeDistinctVersions(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	versions := make([]uint64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			v, err := Publish(dir, testModel(float32(i)))
			if err != nil {
				t.Error(err)
			}
			versions[i] = v
		})
	}
	wg.Wait()
	slices.Sort(versions)
	for i, v := range versions {
		if v != uint64(i+1) {
			t.Fatalf("concurrent publishes got versions %v, want 1..%d", versions, n)
		}
	}
	// Each file holds the model of the publisher that got its version.
	seen := map[float32]bool{}
	for v := uint64(1); v <= n; v++ {
		m, err := modelfile.ReadFileAs[*linear.LinearModel](filepath.Join(dir, FileName(v)))
		if err != nil {
			t.Fatal(err)
		}
		seen[m.W[0]] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct models among %d files: a publish overwrote another", len(seen), n)
	}
}

func TestPublishMissingDir(t *testing.T) {
	_, err := Publish(filepath.Join(t.TempDir(), "absent"), testModel(1))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Publish into a missing directory: %v, want fs.ErrNotExist", err)
	}
}

func TestPublishInvalidModel(t *testing.T) {
	dir := t.TempDir()
	m := testModel(1)
	m.W = m.W[:3] // one weight short
	if _, err := Publish(dir, m); err == nil {
		t.Fatal("Publish of an invalid model succeeded")
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("failed Publish left %q behind", got)
	}
}

func TestWatchMissingDir(t *testing.T) {
	w, err := Watch(filepath.Join(t.TempDir(), "absent"), Options{})
	if err == nil {
		w.Close()
		t.Fatal("Watch of a missing directory succeeded")
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Watch of a missing directory: %v, want fs.ErrNotExist", err)
	}
}

func TestWatchRegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Watch(path, Options{})
	if err == nil {
		w.Close()
		t.Fatal("Watch of a regular file succeeded")
	}
	var pe *fs.PathError
	if !errors.Is(err, syscall.ENOTDIR) || !errors.As(err, &pe) || pe.Path != path {
		t.Errorf("Watch of a regular file: %v, want a *fs.PathError for %s wrapping ENOTDIR", err, path)
	}
}

// logRecord is one captured log call.
type logRecord struct {
	level slog.Level
	msg   string
	attrs map[string]any
}

// recorder is a slog.Handler that keeps every record, for tests that assert
// what the watcher reported.
type recorder struct {
	mu      sync.Mutex
	records []logRecord
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	attrs := map[string]any{}
	rec.Attrs(func(a slog.Attr) bool {
		attrs[a.Key] = a.Value.Any()
		return true
	})
	r.mu.Lock()
	r.records = append(r.records, logRecord{rec.Level, rec.Message, attrs})
	r.mu.Unlock()
	return nil
}

// count returns how many records have message msg and the given version.
func (r *recorder) count(msg string, version uint64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rec := range r.records {
		if rec.msg == msg && rec.attrs["version"] == version {
			n++
		}
	}
	return n
}

const msgSkipped = "modeldir: skipping model that failed to load"

// waitFor polls cond until it holds or waitTimeout passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", waitTimeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitVersion waits until w serves version v and checks the served model is
// the one published as v (weights all equal to tag).
func waitVersion(t *testing.T, w *Watcher, v uint64, tag float32) {
	t.Helper()
	waitFor(t, "version "+FileName(v), func() bool {
		l := w.Current()
		return l != nil && l.Version == v
	})
	l := w.Current()
	if want := []float32{tag, tag, tag, tag}; !slices.Equal(linOf(l).W, want) {
		t.Fatalf("version %d serves W = %v, want %v", v, linOf(l).W, want)
	}
	if want := filepath.Join(w.dir, FileName(v)); l.Path != want {
		t.Fatalf("version %d has Path %q, want %q", v, l.Path, want)
	}
}

// writeGarbage writes a file that has a model's name but not its content,
// atomically so the watcher sees it once.
func writeGarbage(t *testing.T, dir string, v uint64, body string) {
	t.Helper()
	tmp := filepath.Join(dir, ".garbage.tmp")
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, FileName(v))); err != nil {
		t.Fatal(err)
	}
}

func TestWatchFollowsAndSkipsCorrupt(t *testing.T) {
	dir := t.TempDir()
	rec := &recorder{}
	w, err := Watch(dir, Options{Logger: slog.New(rec), Debounce: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if l := w.Current(); l != nil {
		t.Fatalf("Current in an empty directory = %+v, want nil", l)
	}

	for v := uint64(1); v <= 2; v++ {
		if got, err := Publish(dir, testModel(float32(v))); err != nil || got != v {
			t.Fatalf("Publish = %d, %v; want %d", got, err, v)
		}
		waitVersion(t, w, v, float32(v))
	}

	writeGarbage(t, dir, 3, "definitely not a model")
	waitFor(t, "the corrupt version 3 to be skipped", func() bool { return rec.count(msgSkipped, 3) > 0 })
	waitVersion(t, w, 2, 2) // still serving

	// The bad file is not read again while it is unchanged, however often
	// the directory is scanned.
	for range 5 {
		w.Rescan()
	}
	if n := rec.count(msgSkipped, 3); n != 1 {
		t.Errorf("corrupt version 3 was tried %d times, want 1", n)
	}

	if got, err := Publish(dir, testModel(4)); err != nil || got != 4 {
		t.Fatalf("Publish after the corrupt version = %d, %v; want 4", got, err)
	}
	waitVersion(t, w, 4, 4)

	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	// After Close the last model keeps serving, and new files are not seen
	// without an explicit Rescan.
	if _, err := Publish(dir, testModel(5)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // give a (wrongly) live watcher time to act
	if l := w.Current(); l == nil || l.Version != 4 {
		t.Errorf("after Close, Current = %+v, want version 4", l)
	}
}

func TestWatchInitialLoadFallsBackPastBadNewest(t *testing.T) {
	dir := t.TempDir()
	for v := uint64(1); v <= 2; v++ {
		if _, err := Publish(dir, testModel(float32(v))); err != nil {
			t.Fatal(err)
		}
	}
	writeGarbage(t, dir, 3, "garbage")
	writeGarbage(t, dir, 4, "")
	rec := &recorder{}
	w, err := Watch(dir, Options{Logger: slog.New(rec)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// The initial load is synchronous: no waiting.
	l := w.Current()
	if l == nil || l.Version != 2 || linOf(l).W[0] != 2 {
		t.Fatalf("initial Current = %+v, want version 2", l)
	}
	if rec.count(msgSkipped, 3) != 1 || rec.count(msgSkipped, 4) != 1 {
		t.Errorf("skips logged: version 3 ×%d, version 4 ×%d; want 1 each", rec.count(msgSkipped, 3), rec.count(msgSkipped, 4))
	}

	// A bad version whose file is replaced by a good one is tried again.
	if err := modelfile.WriteFile(filepath.Join(dir, FileName(3)), testModel(3)); err != nil {
		t.Fatal(err)
	}
	w.Rescan()
	if l := w.Current(); l == nil || l.Version != 3 || linOf(l).W[0] != 3 {
		t.Fatalf("after version 3 was repaired, Current = %+v, want version 3", l)
	}
}

func TestWatchIgnoresOlderVersions(t *testing.T) {
	dir := t.TempDir()
	if err := modelfile.WriteFile(filepath.Join(dir, FileName(5)), testModel(5)); err != nil {
		t.Fatal(err)
	}
	w, err := Watch(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	waitVersion(t, w, 5, 5)
	if err := modelfile.WriteFile(filepath.Join(dir, FileName(3)), testModel(3)); err != nil {
		t.Fatal(err)
	}
	w.Rescan()
	if l := w.Current(); l.Version != 5 {
		t.Errorf("after an older version arrived, Current is version %d, want 5", l.Version)
	}
}

// TestRunRescansOnOverflow drives the event loop with channels of its own:
// a file that arrived with no event is found after an overflow error, and a
// closed event channel ends the loop.
func TestRunRescansOnOverflow(t *testing.T) {
	dir := t.TempDir()
	rec := &recorder{}
	w := newWatcher(dir, Options{Logger: slog.New(rec), Debounce: time.Millisecond})
	events := make(chan fsnotify.Event)
	errs := make(chan error)
	go w.run(events, errs)

	if _, err := Publish(dir, testModel(1)); err != nil {
		t.Fatal(err)
	}
	// An event for a temporary name is no reason to scan.
	events <- fsnotify.Event{Name: filepath.Join(dir, ".model-1.tmp"), Op: fsnotify.Create}
	time.Sleep(20 * time.Millisecond) // twenty debounce periods
	if l := w.Current(); l != nil {
		t.Fatalf("a temporary-file event caused a scan: Current = %+v", l)
	}

	errs <- fsnotify.ErrEventOverflow
	waitVersion(t, w, 1, 1)

	if _, err := Publish(dir, testModel(2)); err != nil {
		t.Fatal(err)
	}
	errs <- errors.New("some watch error")
	waitVersion(t, w, 2, 2)

	if _, err := Publish(dir, testModel(3)); err != nil {
		t.Fatal(err)
	}
	events <- fsnotify.Event{Name: filepath.Join(dir, FileName(3)), Op: fsnotify.Create}
	waitVersion(t, w, 3, 3)

	close(errs) // must not spin or end the loop
	if _, err := Publish(dir, testModel(4)); err != nil {
		t.Fatal(err)
	}
	events <- fsnotify.Event{Name: filepath.Join(dir, FileName(4)), Op: fsnotify.Write}
	waitVersion(t, w, 4, 4)

	close(events)
	select {
	case <-w.done:
	case <-time.After(waitTimeout):
		t.Fatal("run did not end after its event channel was closed")
	}
}

// TestStressSwapWhileReading publishes 200 versions while readers call
// Current in a loop: every model seen must be a published one, whole, and
// each reader's versions must never go back.
func TestStressSwapWhileReading(t *testing.T) {
	const versions = 200
	const readers = 4
	dir := t.TempDir()
	w, err := Watch(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	observed := make([]int, readers) // distinct versions each reader saw
	for r := range readers {
		wg.Go(func() {
			var last uint64
			seenAny := false
			for {
				select {
				case <-stop:
					return
				default:
				}
				l := w.Current()
				if l == nil {
					if seenAny {
						t.Error("Current returned nil after a model had loaded")
						return
					}
					continue
				}
				seenAny = true
				if l.Version < last {
					t.Errorf("reader %d saw version %d after %d", r, l.Version, last)
					return
				}
				if l.Version < 1 || l.Version > versions {
					t.Errorf("reader %d saw version %d, never published", r, l.Version)
					return
				}
				for _, x := range linOf(l).W {
					if x != float32(l.Version) {
						t.Errorf("reader %d: version %d has W %v, not the model published as it", r, l.Version, linOf(l).W)
						return
					}
				}
				if l.Version != last {
					observed[r]++
				}
				last = l.Version
			}
		})
	}

	start := time.Now()
	for v := uint64(1); v <= versions; v++ {
		got, err := Publish(dir, testModel(float32(v)))
		if err != nil {
			t.Fatal(err)
		}
		if got != v {
			t.Fatalf("Publish #%d returned version %d", v, got)
		}
	}
	publishTime := time.Since(start)
	waitFor(t, "the last version", func() bool {
		l := w.Current()
		return l != nil && l.Version == versions
	})
	close(stop)
	wg.Wait()
	t.Logf("published %d versions in %v; distinct versions seen per reader: %v", versions, publishTime, observed)
	if l := w.Current(); linOf(l).W[0] != versions {
		t.Errorf("final model W = %v, want all %d", linOf(l).W, versions)
	}
}

// as returns the model of l as an M, the zero M for a model of another
// kind; linOf, kerOf and quantOf name the three the tests look for.
func as[M any](l *Loaded) M { m, _ := l.Model.(M); return m }

var (
	linOf   = as[*linear.LinearModel]
	kerOf   = as[*core.KernelModel]
	quantOf = as[quantize.Model]
)

// loadLoaded reads a model file as a watcher hands it out.
func loadLoaded(path string) (*Loaded, error) {
	m, err := modelfile.ReadFile(path)
	return &Loaded{Model: m, Path: path}, err
}

// TestWatchNotifiesSwapsAndSkips checks Options.OnSwap and OnSkip: one
// call for each version swapped in, after Current returns it, and one for
// each failed attempt to load, not repeated for an unchanged bad file.
func TestWatchNotifiesSwapsAndSkips(t *testing.T) {
	dir := t.TempDir()
	if _, err := Publish(dir, testModel(1)); err != nil {
		t.Fatal(err)
	}
	writeGarbage(t, dir, 2, "garbage")
	var swaps, skips []uint64
	var watcher atomic.Pointer[Watcher] // set once Watch returns
	w, err := Watch(dir, Options{
		OnSwap: func(l *Loaded) {
			if w := watcher.Load(); w != nil && w.Current() != l {
				t.Errorf("OnSwap(%d) before Current returns it", l.Version)
			}
			swaps = append(swaps, l.Version)
		},
		OnSkip: func(s Skip) { skips = append(skips, s.Version) },
	})
	if err != nil {
		t.Fatal(err)
	}
	watcher.Store(w)
	defer w.Close()
	w.Rescan() // version 2 unchanged: not read, nor reported, again
	if _, err := Publish(dir, testModel(3)); err != nil {
		t.Fatal(err)
	}
	w.Rescan()
	// The watcher's own goroutine may have scanned too; Rescan serialises,
	// and a version is swapped in once.
	w.Close()
	if fmt.Sprint(swaps) != "[1 3]" || fmt.Sprint(skips) != "[2]" {
		t.Errorf("swaps %v, skips %v; want [1 3] and [2]", swaps, skips)
	}
}

// TestWatchVersionsOption follows a directory in a layout of its own,
// "<v>/weights", through Options.Versions: the newest valid version loads
// at start past a corrupt newer one, a version whose subdirectory appears
// empty and gets its file later (an event in the subdirectory, which the
// lister asked to watch) is swapped in, and an unchanged bad file is read
// once.
func TestWatchVersionsOption(t *testing.T) {
	dir := t.TempDir()
	write := func(v uint64, b []byte) {
		t.Helper()
		vdir := filepath.Join(dir, fmt.Sprint(v))
		if err := os.MkdirAll(vdir, 0o755); err != nil {
			t.Fatal(err)
		}
		if b != nil {
			if err := os.WriteFile(filepath.Join(vdir, "weights"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	encoded := func(tag float32) []byte {
		b, err := modelfile.Encode(testModel(tag))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var lists atomic.Int64
	list := func(d string) (VersionList, error) {
		lists.Add(1)
		l := VersionList{Files: map[uint64]string{}}
		for v := uint64(1); v <= 9; v++ {
			vdir := filepath.Join(d, fmt.Sprint(v))
			if _, err := os.Stat(vdir); err != nil {
				continue
			}
			l.Watched = append(l.Watched, vdir)
			if p := filepath.Join(vdir, "weights"); fileExists(p) {
				l.Files[v] = p
			}
		}
		return l, nil
	}
	write(1, encoded(1))
	write(2, []byte("not a model"))
	rec := &recorder{}
	w, err := Watch(dir, Options{Logger: slog.New(rec), Debounce: time.Millisecond, Versions: list})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if l := w.Current(); l == nil || l.Version != 1 || l.Path != filepath.Join(dir, "1", "weights") {
		t.Fatalf("Current at start = %+v, want version 1 from 1/weights", l)
	}
	if s := w.LastSkip(); s == nil || s.Version != 2 {
		t.Fatalf("LastSkip = %+v, want version 2", s)
	}
	write(3, nil)
	waitFor(t, "a scan of the new version directory", func() bool { return lists.Load() >= 2 })
	time.Sleep(20 * time.Millisecond) // the scan that adds 3/ to the watch
	write(3, encoded(3))
	waitFor(t, "version 3", func() bool { l := w.Current(); return l != nil && l.Version == 3 })
	if got := linOf(w.Current()).W; !slices.Equal(got, []float32{3, 3, 3, 3}) {
		t.Errorf("version 3 serves W = %v", got)
	}
	if n := rec.count(msgSkipped, 2); n != 1 {
		t.Errorf("corrupt version 2 was tried %d times, want 1", n)
	}
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
