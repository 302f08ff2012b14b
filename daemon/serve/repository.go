package serve

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// ErrUnknownModel is returned for a model name the repository does not
// hold (REST 404, gRPC NOT_FOUND).
var ErrUnknownModel = errors.New("unknown model")

// RepositoryOptions configure a Repository. The zero value is ready to use.
type RepositoryOptions struct {
	// Logger receives loads, swaps and failed loads; nil discards them.
	Logger *slog.Logger
	// Policy is the version policy of a model not named in Policies; the
	// zero value serves the newest valid version.
	Policy Policy
	// Policies are per-model version policies, by model name.
	Policies map[string]Policy
}

// Repository is a set of named models, each a directory of versioned
// model files in the layout svmgo watch publishes ("model-<v>.svmgo"),
// each followed by a modeldir.Watcher. Lookups are one atomic load and
// safe from any number of goroutines; Add, Load, Unload and Close are
// serialised.
type Repository struct {
	root    string // "" for a repository of added models only
	opt     RepositoryOptions
	log     *slog.Logger
	metrics *metrics

	mu     sync.Mutex                   // Add, Load, Unload, Close
	models atomic.Pointer[modelsByName] // replaced whole, never modified

	// onChange, when set, is called after a model's version set changed
	// (the server's gRPC health status follows readiness through it).
	onChange atomic.Pointer[func()]
}

// changed calls the onChange hook.
func (r *Repository) changed() {
	if f := r.onChange.Load(); f != nil {
		(*f)()
	}
}

type modelsByName = map[string]*model

// NewRepository returns an empty repository; Add puts models in it.
func NewRepository(opt RepositoryOptions) *Repository {
	r := &Repository{opt: opt, log: opt.Logger, metrics: newMetrics()}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	r.models.Store(&modelsByName{})
	r.metrics.repo = r
	return r
}

// OpenRepository returns a repository of every subdirectory of root with
// a valid model name (ValidName), each a model of that name, following
// it. A directory without a valid version yet is served once one arrives.
func OpenRepository(root string, opt RepositoryOptions) (*Repository, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("serve: repository: %w", err)
	}
	r := NewRepository(opt)
	r.root = root
	for _, e := range entries {
		if !e.IsDir() || ValidName(e.Name()) != nil {
			continue
		}
		if err := r.Add(e.Name(), filepath.Join(root, e.Name())); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// ValidName checks a model name: 1 to 128 letters, digits, '_', '-' or
// '.', not starting with '.' (a name is a directory and a URL segment).
func ValidName(name string) error {
	if name == "" || len(name) > 128 || name[0] == '.' {
		return badRequestf("serve: model name %q: want 1 to 128 characters, not starting with '.'", name)
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return badRequestf("serve: model name %q: only letters, digits, '_', '-' and '.'", name)
		}
	}
	return nil
}

// Add serves the model directory dir under name, with the policy the
// options give that name, and follows it. It refuses a name already
// served.
func (r *Repository) Add(name, dir string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := *r.models.Load()
	if _, ok := old[name]; ok {
		return fmt.Errorf("serve: model %q is already served", name)
	}
	m, err := r.open(name, dir)
	if err != nil {
		return err
	}
	next := maps.Clone(old)
	next[name] = m
	r.models.Store(&next)
	r.changed()
	return nil
}

// Load (the repository extension's load) serves root's subdirectory name,
// or rescans it when it is served already. A repository made by
// NewRepository has no root: Load refuses.
func (r *Repository) Load(name string) error {
	if m := r.model(name); m != nil {
		m.watcher.Rescan()
		return nil
	}
	if r.root == "" {
		return fmt.Errorf("serve: load %q: this repository has no root directory: %w", name, ErrUnknownModel)
	}
	if err := ValidName(name); err != nil {
		return err
	}
	dir := filepath.Join(r.root, name)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("serve: load %q: no directory %s: %w", name, dir, ErrUnknownModel)
	}
	return r.Add(name, dir)
}

// Unload stops serving the model name. Requests holding one of its
// versions finish on it.
func (r *Repository) Unload(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := *r.models.Load()
	m, ok := old[name]
	if !ok {
		return fmt.Errorf("serve: unload %q: %w", name, ErrUnknownModel)
	}
	next := maps.Clone(old)
	delete(next, name)
	r.models.Store(&next)
	r.changed()
	r.log.Info("serve: model unloaded", "model", name)
	return m.watcher.Close()
}

// Close stops following every model; the loaded versions stay readable.
func (r *Repository) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, m := range *r.models.Load() {
		errs = append(errs, m.watcher.Close())
	}
	return errors.Join(errs...)
}

// model returns the model name, nil when there is none.
func (r *Repository) model(name string) *model {
	return (*r.models.Load())[name]
}

// Names returns the names of the models served, sorted.
func (r *Repository) Names() []string {
	return slices.Sorted(maps.Keys(*r.models.Load()))
}

// Ready reports whether every model of the repository has a version to
// serve (and there is at least one model): the server's readiness.
func (r *Repository) Ready() bool {
	ms := *r.models.Load()
	for _, m := range ms {
		if len(m.versions().list) == 0 {
			return false
		}
	}
	return len(ms) > 0
}

// Resolve returns the version of model name that a request for ver
// ("" for the newest served) runs on. The errors wrap ErrUnknownModel
// (no such model), ErrUnknownVersion (no such version served) or
// ErrNotReady (no version loaded yet).
func (r *Repository) resolve(name, ver string) (*model, *version, error) {
	m := r.model(name)
	if m == nil {
		return nil, nil, fmt.Errorf("model %q: %w", name, ErrUnknownModel)
	}
	vs := m.versions()
	if ver == "" {
		if len(vs.list) == 0 {
			return m, nil, fmt.Errorf("model %q: %w", name, ErrNotReady)
		}
		return m, vs.list[len(vs.list)-1], nil
	}
	n, err := strconv.ParseUint(ver, 10, 64)
	if err == nil {
		if v := vs.get(n); v != nil {
			return m, v, nil
		}
	}
	return m, nil, fmt.Errorf("model %q version %q: %w", name, ver, ErrUnknownVersion)
}

// ErrUnknownVersion is returned for a version the model does not serve
// (REST 404, gRPC NOT_FOUND).
var ErrUnknownVersion = errors.New("version not served")

// ErrNotReady is returned for a model with no version loaded yet (REST
// 503, gRPC UNAVAILABLE).
var ErrNotReady = errors.New("no version loaded yet")

// version is one loaded version as the server serves it: immutable.
type version struct {
	*modeldir.Loaded
	// model is the name of the model it is a version of.
	model string
	// name is Version in decimal, as the protocol names versions.
	name string
	info core.ModelInfo
	// prob is Model as a ProbabilityModel when info.Probability, else nil.
	prob core.ProbabilityModel
}

// newVersion wraps a loaded model for serving.
func newVersion(model string, l *modeldir.Loaded) *version {
	v := &version{Loaded: l, model: model, name: strconv.FormatUint(l.Version, 10), info: l.Model.Info()}
	if p, ok := l.Model.(core.ProbabilityModel); ok && v.info.Probability {
		v.prob = p
	}
	return v
}

// warm makes a kind that builds its prediction tables on first use (a
// kernel model's blocks) build them now, so that no request pays for them.
// A version that replaces another is warmed before it is swapped in (the
// old one serves meanwhile); the first versions of a model are served at
// once and warmed in the background, since nothing could serve in the
// meantime: the server is ready sooner and a request that comes before the
// tables are built waits for them (the kinds build them once, under a
// sync.Once), never fails.
func (v *version) warm() {
	x := make([]float32, v.info.NumFeatures)
	v.Model.PredictDenseBatch(make([]float64, 1), x)
	v.Model.DecisionDense(make([]float64, v.info.NumDecisionValues), x)
}

// versionSet is the versions of one model served at one time, oldest
// first; a new set replaces the old one by one pointer store.
type versionSet struct {
	list []*version
}

// get returns version n, nil when it is not in the set.
func (s *versionSet) get(n uint64) *version {
	i, ok := slices.BinarySearchFunc(s.list, n, func(v *version, n uint64) int {
		switch {
		case v.Version < n:
			return -1
		case v.Version > n:
			return 1
		}
		return 0
	})
	if !ok {
		return nil
	}
	return s.list[i]
}

// model is one served model: its directory's watcher and the versions its
// policy serves.
type model struct {
	name, dir string
	policy    Policy
	repo      *Repository
	watcher   *modeldir.Watcher
	triton    bool // the directory is in Triton's layout ("<v>/model.<ext>")
	set       atomic.Pointer[versionSet]

	// failed holds the older versions that failed to load when the policy
	// wanted them, so a refresh does not read them again (guarded by the
	// watcher's scan, which calls refresh).
	failed map[uint64]bool
}

func (m *model) versions() *versionSet { return m.set.Load() }

// open starts following dir as the model name.
func (r *Repository) open(name, dir string) (*model, error) {
	p, ok := r.opt.Policies[name]
	if !ok {
		p = r.opt.Policy
	}
	m := &model{name: name, dir: dir, policy: p, repo: r, failed: map[uint64]bool{}, triton: isTritonLayout(dir)}
	m.set.Store(&versionSet{})
	log := r.log.With("model", name)
	opt := modeldir.Options{
		Logger: log,
		OnSwap: m.refresh,
		OnSkip: func(s modeldir.Skip) { r.metrics.loadFailed(name) },
		// A new version loads and warms on the watcher's goroutine at the
		// process's priority. Serve loaded it on a thread locked at nice
		// 19 before, so that requests would take the CPUs first; but a
		// goroutine holds one of the scheduler's Ps while it runs, and a
		// thread the kernel keeps off the CPU keeps its P. Server, client
		// and publisher on one CPU shared with a busy process (so
		// GOMAXPROCS 1), one gRPC client's p99 while swapping was 4.2-5.8x
		// its p99 without with the nice-19 loader (3 runs), 1.05-1.29x
		// at the process's priority (3 runs; serve_latency.sh CASES=swap,
		// "one-busy-cpu"), and versions were swapped in at 11-15 a second
		// instead of 37-41 (one published every 20 ms).
	}
	if m.triton {
		opt.Versions = tritonList
	}
	var err error
	if m.watcher, err = modeldir.Watch(dir, opt); err != nil {
		return nil, fmt.Errorf("serve: model %q: %w", name, err)
	}
	layout := "svmgo"
	if m.triton {
		layout = "triton"
	}
	log.Info("serve: model added", "dir", dir, "layout", layout, "policy", p.String(), "versions", len(m.versions().list))
	return m, nil
}

// refresh is called with each version the watcher swaps in (the newest
// valid one): it builds the set the policy serves, reusing the versions
// already loaded, loading the older ones it lacks through the one opener,
// and replaces the set with one pointer store. Requests that hold a
// version of the old set finish on it.
func (m *model) refresh(cur *modeldir.Loaded) {
	old := m.versions()
	if len(old.list) > 0 {
		m.repo.metrics.swapped(m.name)
	}
	p := m.policy
	if !p.All && len(p.Specific) == 0 && max(p.Latest, 1) == 1 {
		m.publish(old, []*version{newVersion(m.name, cur)})
		return
	}
	// Versions newer than cur failed to load (the watcher tries the
	// newest first); cur is kept even when its file is gone.
	candidates := []uint64{cur.Version}
	files, err := m.files()
	if err != nil {
		m.repo.log.Warn("serve: cannot list model directory", "model", m.name, "dir", m.dir, "err", err)
	}
	for v := range files {
		if v < cur.Version {
			candidates = append(candidates, v)
		}
	}
	slices.Sort(candidates)
	var keep []*version
	for i := len(candidates) - 1; i >= 0; i-- {
		n := candidates[i]
		if !p.wants(n, len(keep)) {
			if p.All || len(p.Specific) > 0 {
				continue
			}
			break // latest:N has its N
		}
		v := old.get(n)
		switch {
		case v != nil:
		case n == cur.Version:
			v = newVersion(m.name, cur)
		case m.failed[n]:
			continue
		default:
			path := files[n]
			mod, err := modelfile.ReadFile(path)
			if err != nil {
				m.failed[n] = true
				m.repo.metrics.loadFailed(m.name)
				m.repo.log.Warn("serve: skipping older version that failed to load", "model", m.name, "version", n, "err", err)
				continue
			}
			v = newVersion(m.name, &modeldir.Loaded{Model: mod, Version: n, Path: path})
		}
		keep = append(keep, v)
	}
	slices.Reverse(keep)
	m.publish(old, keep)
}

// publish serves the versions list in place of the set old, warming the
// versions old lacks (version.warm: before the swap when old has a version
// to serve meanwhile, in the background otherwise).
func (m *model) publish(old *versionSet, list []*version) {
	var added []*version
	for _, v := range list {
		if old.get(v.Version) != v {
			added = append(added, v)
		}
	}
	warmAll := func() {
		for _, v := range added {
			v.warm()
		}
	}
	if len(old.list) > 0 {
		warmAll()
	} else {
		go warmAll()
	}
	m.set.Store(&versionSet{list: list})
	m.repo.changed()
}

// files returns the model files of the directory by version: in svmgo
// watch's layout "model-<v>.svmgo" (or, for a version without one,
// "model-<v>.onnx"), in Triton's "<v>/model.svmgo" or "<v>/model.onnx".
func (m *model) files() (map[uint64]string, error) {
	if m.triton {
		l, err := tritonList(m.dir)
		return l.Files, err
	}
	return modeldir.Files(m.dir)
}
