// Package watchd is the incremental-training daemon behind `svmgo watch`
// (DESIGN.md §8): it ingests labelled batch files dropped into a directory,
// keeps their rows in a fixed-capacity durable store, retrains from the
// stored dual variables (warm start) and publishes each new model as a
// versioned file that clients hot-swap (DESIGN.md §6).
//
// Layout under the root: incoming/ (producers rename finished batches in;
// dot-files and *.tmp are ignored), done/ (ingested batches), rejected/ (a
// refused batch and its NAME.reason file), models/ (published versions),
// state/ (the store). Anything in incoming/ that is not a regular file (a
// symbolic link, a directory, a FIFO, a socket, a device) is moved to
// rejected/ unread, with a reason: a link is moved, never followed, and a
// FIFO never opened (a batch is opened with O_NOFOLLOW and O_NONBLOCK and
// must be a regular file once open, against a swap after the check).
//
// One batch at a time, in name order:
//
//  1. read the file and hash it (SHA-256); a batch whose hash the store holds
//     was ingested before a crash and only moves to done/;
//  2. validate it in full (LIBSVM text, or CSV for *.csv): a bad batch moves
//     to rejected/ after its reason file is durable, and nothing else changes;
//  3. add its rows to the store (evicting by the store's policy), retrain
//     warm, apply the gate, record α and commit the store durably;
//  4. publish the model into models/ and keep the newest Keep versions;
//     record the publication in the store;
//  5. move the batch to done/.
//
// A batch leaves incoming/ only after the store holding its rows is durable,
// so a crash at any point loses nothing and adds nothing twice; a crash
// between steps 3 and 4 is repaired at start by retraining and publishing.
// The temporary files a crash leaves in models/ and rejected/ are removed
// at start (the store removes its own).
//
// # Storage faults
//
// A write under the root that fails for a reason of the file system, not
// of the data — full (ENOSPC, EDQUOT), read-only (EROFS), unwritable
// (EACCES, EPERM), a directory of the layout removed (ENOENT), a failing
// device (EIO): see isStorageFault — does not stop the daemon. The step
// stops where it was: the batch stays in incoming/, and what the store
// could not commit stays in memory. The daemon reports itself degraded
// (/healthz answers 503 "degraded: ...", storage_degraded is 1; the first
// failure is logged, then at most one line a minute) and retries after
// Config.RetryMin, doubling up to Config.RetryMax. Each retry is one pass
// of Run's loop, the same that runs at start: it remakes the layout and
// the watches on the root and incoming/, commits the store if it holds
// uncommitted changes (or its snapshot was removed), publishes the model
// of the last retrain if its publication was not recorded (without
// retraining), and takes incoming/ again, where the batch that failed is
// found in the store and only moves to done/. The first pass that
// succeeds ends the fault ("storage recovered"). Batches are taken in name
// order, so the one that failed holds back those after it. A directory of
// the layout removed under the daemon (the root is watched) is made again
// by the next pass, the store's snapshot written back from memory.
//
// The gate (Config.GateMinAccuracy > 0) scores the new model on rows it was
// not trained on. Of a batch of n rows, the last max(1, ⌊n·GateHoldBack⌋)
// are held back: they are stored like every row (nothing is lost, and
// exactly-once ingestion is unchanged), but the retrain the batch triggers
// uses every other stored row, and the gate measures the model's accuracy
// (squared correlation for regression) on the held rows. The model
// published when the gate passes is that one, trained without them. Their α
// is recorded as 0 and they enter training at the next retrain: the next
// batch's, or the recovery retrain after a restart, which trains on every
// row and applies no gate. A batch of one row holds nothing back and skips
// the gate. A refused model is logged and not published; its batch's rows
// stay stored. Held rows count as non-support vectors (α = 0) for the
// nonsv-oldest eviction policy, newest of them, so a full store may evict
// them after the older such rows and before they are trained on. For a
// one-class SVM, whose rows carry no class, the gate's score is the
// fraction of the held rows the model predicts +1 (inliers).
//
// # Linear and kernel models
//
// The training options (Config.TrainOptions) choose the model kind, as
// core.KernelSyntax reads them: LIBLINEAR's options train a linear model
// by dual coordinate descent; svm-train's (any of -t -g -d -r -m -h -b
// present) a kernel model by SMO — C-SVC one-vs-one, one-class or ε-SVR.
// Either is published with modeldir.Publish, which takes any core.Model.
// Either kind warm-starts from the dual variables
// of the previous retrain, which the store persists (α vectors of either
// kind; new rows start at α = 0, evicted rows take theirs with them).
//
// A kernel warm start also wants the SMO gradient G = Qα + p at that α:
// rebuilding it from α costs a kernel column per support vector, about as
// much as a cold solve. The daemon keeps the gradient the last run returned
// (core.KernelDual.Gradient) in memory — G and Ḡ, twice the size of α; it is
// never persisted — and passes it with the stored α while the store has
// only grown by appended rows since; each appended row then costs one
// kernel column. After a restart or an eviction the warm start is α alone
// and core rebuilds the gradient. core checks a gradient before using it
// (the kernel, the bounds, ε, and a hash of the rows and α it was computed
// on) and rebuilds it when anything differs, so a stale gradient is never
// used: a reload that changes -c or -g, for example, keeps it in memory and
// core ignores it. Without -g the kernel's γ is 1/(1 + the largest feature
// index stored), which may change as rows come and go (the gradient then
// does not fit, α still starts the run); set -g for a fixed kernel.
//
// A stored dual of the other kind (the options switched kind, by Reload or
// across a restart) or of another SVM formulation is no warm start: the
// retrain starts cold, says so in the log, and records its own dual.
//
// # Quantized models
//
// With Config.QuantizeBits (svmgo watch --quantize int8|int16) each
// retrained model is quantized (quantize.QuantizeLinear or QuantizeKernel)
// and the quantized model, not the float one, is published: a smaller file that predicts faster, within
// the error bound quantize documents. The gate judges the quantized model,
// since that is what clients will serve: a model that passes as float but
// fails once quantized is not published. Training does not change: the
// store keeps the float solve's α, the next retrain starts from it, and a
// kernel run's gradient is kept as without quantization. The quantized
// model records the float model's creation time and the CRC-32C of its
// file payload (quantize's SourceCRC), though that float file is never
// written. "model published" logs the code width and the file's size, and
// /metrics exports them (model_quantized_bits, model_file_bytes).
//
// The trainer is sized once for the store's capacity and MaxFeatures; a
// kernel trainer's cache is the -m budget (100 MB unless set), allocated
// at start and logged with core.KernelTrainerBytes. With Config.ColdEvery
// the daemon measures the warm start against a cold solve: coordinate
// updates for linear models, kernel evaluations for kernel models, logged
// and exported in /metrics.
package watchd

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/store"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// Names of the directories under the root.
const (
	IncomingDir = "incoming"
	DoneDir     = "done"
	RejectedDir = "rejected"
	ModelsDir   = "models"
	StateDir    = "state"
)

// ReasonSuffix ends the name of a rejected batch's reason file.
const ReasonSuffix = ".reason"

// Daemon ingests batches and publishes models; see the package
// documentation. Run it once; Reload, Handler and WriteMetrics may be
// called from other goroutines while it runs.
type Daemon struct {
	log *slog.Logger

	// Owned by Run's goroutine.
	cfg      Config
	spec     trainSpec
	incoming string
	done     string
	rejected string
	models   string
	st       *store.Store
	// Exactly one trainer is set, of spec's kind.
	trainer  *core.LinearTrainer
	ktrainer *core.KernelTrainer
	// kgrad is the gradient of the last kernel run, whose α the store
	// holds; it is passed with the stored α as the warm start while the
	// store's rows only grew by appends since (it is dropped when rows are
	// evicted), which spares core rebuilding it from α. It is never
	// persisted: after a restart the warm start is α alone. core checks
	// that it fits (kernel, bounds, a hash of the rows and α it covers) and
	// ignores it otherwise.
	kgrad *core.KernelGradient
	// lstart is the last linear run's w, the primal start of the next:
	// the stored α give w only as exactly as the run's tolerance (a primal
	// run's are exact only at the optimum), so the model's own w is the
	// better start. Never persisted: after a restart the start is
	// rebuilt from α. core uses it only for the L2-loss formulations.
	lstart   *core.LinearPrimal
	retrains int // since start; drives ColdEvery

	// watching is whether the layout exists and incoming/ is watched, as
	// far as Run knows; pass (re)makes both when it is false.
	watching bool
	// unpublished is the model of the last retrain while its publication
	// is not recorded in the store: a storage fault stopped it, and the
	// next pass publishes it (settle) instead of training again.
	unpublished *pendingModel
	// added is the hash of the batch whose rows were added to the store
	// last, until it moves to done/: found in the store when a pass takes
	// it again after a storage fault, it counts as ingested, not as a
	// duplicate.
	added *store.Hash
	// fault is the storage fault the daemon is degraded by; nil when
	// healthy.
	fault *faultState

	metrics *daemonMetrics
	serving atomic.Bool
	// degraded is what /healthz says while fault is set; nil otherwise.
	degraded atomic.Pointer[string]

	mu      sync.Mutex
	pending *Config // a reload to apply between batches
}

// New validates cfg, creates the layout under cfg.Root when missing and
// opens the store. Errors wrap ErrConfig for a bad configuration (or a store
// whose rows do not fit it); others are runtime errors (I/O, a corrupt
// store). A nil log discards the logs.
func New(cfg Config, log *slog.Logger) (*Daemon, error) {
	spec, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Daemon{
		log:      log,
		cfg:      cfg,
		incoming: filepath.Join(cfg.Root, IncomingDir),
		done:     filepath.Join(cfg.Root, DoneDir),
		rejected: filepath.Join(cfg.Root, RejectedDir),
		models:   filepath.Join(cfg.Root, ModelsDir),
		metrics:  newDaemonMetrics(),
	}
	if err := d.makeLayout(); err != nil {
		return nil, err
	}
	d.removeStaleTemps()
	d.st, err = store.Open(filepath.Join(cfg.Root, StateDir), cfg.storeConfig())
	if errors.Is(err, store.ErrConfig) {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err != nil {
		return nil, fmt.Errorf("watchd: %w", err)
	}
	if err := d.setTrainer(spec); err != nil {
		return nil, err
	}
	d.metrics.samples.Set(float64(d.st.Len()))
	d.metrics.storeGeneration.Set(float64(d.st.Generation()))
	if v, ok, err := newestVersion(d.models); err == nil && ok {
		d.metrics.modelVersion.Set(float64(v))
	}
	return d, nil
}

// setTrainer makes spec the training options, with a trainer of its kind
// sized to the store once, so a retrain allocates only its outputs: the
// store's capacity in rows and MaxFeatures (the kernel trainer's cache is
// the -m budget, allocated here).
func (d *Daemon) setTrainer(spec trainSpec) error {
	sc := d.st.Config()
	var (
		lt  *core.LinearTrainer
		kt  *core.KernelTrainer
		err error
	)
	if spec.kernel {
		kt, err = core.NewKernelTrainer(spec.params, sc.Capacity, sc.MaxFeatures)
	} else {
		lt, err = core.NewLinearTrainer(spec.linear, sc.Capacity, sc.MaxFeatures)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if spec.kernel {
		d.log.Info("kernel trainer allocated", "svm_type", spec.params.SVMType.String(),
			"kernel", spec.params.Kernel.Type.String(), "cache_mb", spec.params.CacheMB,
			"bytes", core.KernelTrainerBytes(spec.params, sc.Capacity, sc.MaxFeatures))
	}
	d.spec, d.trainer, d.ktrainer = spec, lt, kt
	return nil
}

// Reload replaces the reloadable part of the configuration (training
// options, gate, retention, cold-solve interval, debounce and batch limits);
// it takes effect before the next batch. A cfg that is invalid or changes
// the root or the store is refused with an error wrapping ErrConfig, and the
// running configuration is kept. Safe to call from any goroutine.
func (d *Daemon) Reload(cfg Config) error {
	if _, err := cfg.validate(); err != nil {
		return err
	}
	// Root and Store never change after New, so reading them here does not
	// race with Run.
	if err := sameFixed(&d.cfg, &cfg); err != nil {
		return err
	}
	d.mu.Lock()
	d.pending = &cfg
	d.mu.Unlock()
	return nil
}

// applyReload installs a configuration given to Reload, if any.
func (d *Daemon) applyReload() {
	d.mu.Lock()
	cfg := d.pending
	d.pending = nil
	d.mu.Unlock()
	if cfg == nil {
		return
	}
	spec, err := cfg.validate() // checked by Reload; cannot fail
	if err != nil {
		d.log.Error("reload refused", "err", err)
		return
	}
	if cfg.TrainOptions != d.cfg.TrainOptions {
		from := d.spec.kind()
		if err := d.setTrainer(spec); err != nil {
			d.log.Error("reload refused", "err", err)
			return
		}
		if spec.kind() != from {
			// The stored dual is of the other kind: the next retrain
			// starts cold (retrain logs it).
			d.kgrad = nil
			d.log.Info("training options switched kind", "from", from, "to", spec.kind())
		}
	}
	d.cfg = *cfg
	d.log.Info("configuration reloaded", "train_options", cfg.TrainOptions, "kind", d.spec.kind(), "keep", cfg.Keep,
		"gate_min_accuracy", cfg.GateMinAccuracy, "cold_every", cfg.ColdEvery, "quantize_bits", cfg.QuantizeBits)
}

// Run serves until ctx is cancelled or a runtime error that is not a
// storage fault (a corrupt store, a failed training) stops it. It first
// publishes a model the store holds but that a crash kept from being
// published, then ingests what is in incoming/ and follows it with
// fsnotify. A storage fault (a full disk, a read-only or unwritable root, a
// directory of the layout removed; see isStorageFault) does not stop it:
// the daemon reports itself degraded and retries with backoff
// (Config.RetryMin, RetryMax), the batch in progress left in incoming/,
// until a pass succeeds. Cancelling ctx stops Run after the batch in
// progress; Run returns nil then.
func (d *Daemon) Run(ctx context.Context) error {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watchd: watch %s: %w", d.incoming, err)
	}
	defer fsw.Close()
	d.log.Info("daemon started", "root", d.cfg.Root, "samples", d.st.Len(),
		"generation", d.st.Generation(), "published", d.st.Published())
	d.watching = false
	d.serving.Store(true)
	defer d.serving.Store(false)

	var (
		debounce, retry           <-chan time.Time
		debounceTimer, retryTimer *time.Timer
	)
	defer func() {
		for _, t := range []*time.Timer{debounceTimer, retryTimer} {
			if t != nil {
				t.Stop()
			}
		}
	}()
	arm := func() {
		// The delay runs from the first event of a burst. While a retry
		// is due, events wait for it: it rescans everything.
		if debounce == nil && retry == nil {
			debounceTimer = time.NewTimer(d.cfg.Debounce)
			debounce = debounceTimer.C
		}
	}
	// pass runs one pass; a storage fault schedules the next one.
	pass := func() error {
		err := d.pass(ctx, fsw)
		switch {
		case err == nil:
			d.storageHealed()
		case isStorageFault(err):
			retryTimer = time.NewTimer(d.storageFault(err))
			retry = retryTimer.C
			err = nil
		}
		return err
	}
	if err := pass(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			d.log.Info("daemon stopping")
			return nil
		case ev, ok := <-fsw.Events:
			if !ok {
				d.log.Info("event channel closed: daemon stopping")
				return nil
			}
			if d.isLayout(ev.Name) && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				// A directory of the layout (or the root) was removed or
				// moved away, incoming/'s watch with it if it was that:
				// the next pass makes and watches them again, and writes
				// the store's snapshot back if it went too.
				d.log.Warn("directory removed or moved: making it again", "dir", ev.Name)
				d.watching = false
			}
			if !isTempName(filepath.Base(ev.Name)) {
				arm()
			}
		case err, ok := <-fsw.Errors:
			if !ok {
				d.log.Info("event channel closed: daemon stopping")
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				d.log.Warn("file events overflowed: rescanning", "dir", d.incoming)
			} else {
				d.log.Warn("file watch error: rescanning", "dir", d.incoming, "err", err)
			}
			arm()
		case <-debounce:
			debounce, debounceTimer = nil, nil
			if err := pass(); err != nil {
				return err
			}
		case <-retry:
			retry, retryTimer = nil, nil
			if err := pass(); err != nil {
				return err
			}
		}
	}
}

// pass brings the root in step with the store held in memory and then
// ingests incoming/. At start, and again after a storage fault, this is
// the whole repair:
//
//   - the layout and the watches on the root and incoming/ are (re)made
//     when they may be missing (at start, after a fault, after a directory
//     of the layout was removed); watching comes before the scan, so no
//     file arriving between the two is missed;
//   - a store holding changes not yet durable (a commit failed) is
//     committed: the rows a batch added are in memory, and that batch is
//     still in incoming/ (it leaves only once they are durable); so is a
//     store whose snapshot was removed under the daemon (state/ or the
//     whole root deleted), from the copy in memory;
//   - a generation not yet published is published (see settle);
//   - incoming/ is drained: the batch whose step failed is taken again,
//     and one the store already holds only moves to done/.
func (d *Daemon) pass(ctx context.Context, fsw *fsnotify.Watcher) error {
	lost := false
	if !d.watching {
		if err := d.makeLayout(); err != nil {
			return err
		}
		// The root too, to learn at once when a directory of the layout
		// is removed; its other events only cause a rescan.
		for _, dir := range []string{d.cfg.Root, d.incoming} {
			if err := fsw.Add(dir); err != nil {
				return fmt.Errorf("watchd: watch %s: %w", dir, err)
			}
		}
		d.watching = true
		lost = d.snapshotLost()
	}
	if d.st.Uncommitted() || lost {
		if err := d.commit(); err != nil {
			return err
		}
	}
	if err := d.settle(); err != nil {
		return err
	}
	return d.drain(ctx)
}

// snapshotLost reports whether the store's snapshot is missing from
// state/ although the store has ingested batches: someone removed it (or
// the whole root) while the daemon ran. The rows are still in memory, and
// the next commit writes them back.
func (d *Daemon) snapshotLost() bool {
	if d.st.Generation() == 0 {
		return false
	}
	_, err := os.Lstat(filepath.Join(d.cfg.Root, StateDir, store.SnapshotName))
	if !errors.Is(err, os.ErrNotExist) {
		return false
	}
	d.log.Warn("store snapshot removed while running: writing it again from memory",
		"generation", d.st.Generation(), "samples", d.st.Len())
	return true
}

// isLayout reports whether path is the root or one of the directories of
// its layout.
func (d *Daemon) isLayout(path string) bool {
	// Cleaned: fsnotify joins the path it was given (the root, maybe "./x/")
	// and a name.
	switch filepath.Clean(path) {
	case filepath.Clean(d.cfg.Root), d.incoming, d.done, d.rejected, d.models, filepath.Join(d.cfg.Root, StateDir):
		return true
	}
	return false
}

// makeLayout creates the directories under the root that are missing.
func (d *Daemon) makeLayout() error {
	for _, dir := range []string{d.incoming, d.done, d.rejected, d.models, filepath.Join(d.cfg.Root, StateDir)} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("watchd: create layout: %w", err)
		}
	}
	return nil
}

// settle publishes a model for the store's generation when none is
// published yet: the one the last retrain made, when a storage fault kept
// it from being published (or its publication from being recorded);
// otherwise, after a crash, a model retrained on the stored rows (without
// the gate, as the rows of the batch are not known apart any more).
func (d *Daemon) settle() error {
	gen := d.st.Generation()
	if d.st.Published() >= gen {
		d.unpublished = nil
		return nil
	}
	if p := d.unpublished; p != nil && p.gen == gen {
		if !p.announced { // once, not at every retry
			p.announced = true
			d.log.Info("publishing the model retrained before a storage fault", "generation", gen, "batch", p.batch)
		}
		return d.publish(p)
	}
	d.log.Warn("store newer than the published model: retraining", "generation", gen,
		"published", d.st.Published())
	return d.retrainAndPublish(nil, "")
}

// drain ingests the batches in incoming/, in name order, until none is left
// or ctx is cancelled; batches that arrive meanwhile are taken too.
func (d *Daemon) drain(ctx context.Context) error {
	for {
		d.applyReload()
		names, err := d.listIncoming()
		if err != nil {
			return err
		}
		if len(names) == 0 {
			return nil
		}
		for _, name := range names {
			if ctx.Err() != nil {
				return nil
			}
			d.applyReload()
			if err := d.ingest(name); err != nil {
				return err
			}
		}
	}
}

// listIncoming returns the names in incoming/ that are not temporary
// names, sorted: finished batches, and anything else put there, which
// ingest rejects.
func (d *Daemon) listIncoming() ([]string, error) {
	entries, err := os.ReadDir(d.incoming) // sorted by name
	if err != nil {
		return nil, fmt.Errorf("watchd: scan %s: %w", d.incoming, err)
	}
	var names []string
	for _, e := range entries {
		if !isTempName(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// ingest takes one batch through the steps of the package documentation.
// Only runtime failures are returned; a bad batch is rejected and ingest
// returns nil.
func (d *Daemon) ingest(name string) error {
	path := filepath.Join(d.incoming, name)
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // taken back by its producer
	}
	if err != nil {
		return fmt.Errorf("watchd: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return d.rejectSpecial(name, special(path, fi.Mode()))
	}
	if fi.Size() > d.cfg.MaxBatchBytes {
		return d.reject(name, reject("%s: %d bytes, more than the limit of %d", name, fi.Size(), d.cfg.MaxBatchBytes))
	}
	data, err := readBatch(path, d.cfg.MaxBatchBytes)
	var sp *specialFile
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case errors.As(err, &sp): // replaced since Lstat
		return d.rejectSpecial(name, sp)
	case err != nil && isResourceFault(err):
		return fmt.Errorf("watchd: read %s: %w", name, err) // the machine's condition, not the batch's
	case err != nil:
		// Replaced by a symbolic link since Lstat (ELOOP), or unreadable.
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return d.rejectSpecial(name, special(path, fi.Mode()))
		}
		return d.reject(name, reject("%s: %v", name, err))
	case int64(len(data)) > d.cfg.MaxBatchBytes: // grew since Lstat
		return d.reject(name, reject("%s: more than the limit of %d bytes", name, d.cfg.MaxBatchBytes))
	}
	h := store.Hash(sha256.Sum256(data))
	if d.st.Has(h) {
		if d.added != nil && *d.added == h {
			// Taken again after a storage fault stopped it: its rows are
			// durable and its model published (pass saw to both).
			if err := d.moveDone(name); err != nil {
				return err
			}
			d.added = nil
			d.metrics.ingested.Inc()
			d.log.Info("batch moved to done after a storage fault", "batch", name)
			return nil
		}
		d.log.Info("batch already ingested: moving to done", "batch", name, "sha256", fmt.Sprintf("%x", h[:8]))
		d.metrics.duplicates.Inc()
		return d.moveDone(name)
	}
	batch, err := parseBatch(name, data, batchLimits{
		capacity:     d.st.Config().Capacity,
		maxFeatures:  d.st.Config().MaxFeatures,
		maxLineBytes: d.cfg.MaxLineBytes,
		realLabels:   d.spec.realLabels(),
	})
	if err != nil {
		return d.reject(name, err)
	}
	evicted, err := d.st.Add(h, batch)
	if errors.Is(err, store.ErrBatchTooLarge) || errors.Is(err, core.ErrBadRow) {
		return d.reject(name, reject("%s: %v", name, err))
	}
	if err != nil {
		return fmt.Errorf("watchd: add %s to the store: %w", name, err)
	}
	d.added = &h
	if evicted > 0 {
		// The gradient covers rows that are gone; core would find out
		// by hashing, but need not.
		d.kgrad = nil
	}
	d.log.Info("batch added", "batch", name, "rows", batch.Len(), "evicted", evicted,
		"samples", d.st.Len(), "generation", d.st.Generation())
	d.metrics.samples.Set(float64(d.st.Len()))
	d.metrics.storeGeneration.Set(float64(d.st.Generation()))
	if err := d.retrainAndPublish(batch, name); err != nil {
		return err
	}
	if err := d.moveDone(name); err != nil {
		return err
	}
	d.added = nil
	d.metrics.ingested.Inc()
	return nil
}

// reject moves batch name to rejected/ with its reason file: the reason is
// made durable first, so a rejected batch is never without one. A non-
// rejection error is returned as is.
func (d *Daemon) reject(name string, why error) error {
	var r *rejection
	if !errors.As(why, &r) {
		return why
	}
	dst, err := freeName(d.rejected, name)
	if err != nil {
		return fmt.Errorf("watchd: reject %s: %w", name, err)
	}
	if err := fileio.WriteFile(dst+ReasonSuffix, []byte(r.reason+"\n")); err != nil {
		return fmt.Errorf("watchd: reject %s: %w", name, err)
	}
	if err := fileio.Rename(filepath.Join(d.incoming, name), dst); err != nil {
		return fmt.Errorf("watchd: reject %s: %w", name, err)
	}
	d.metrics.rejected.Inc()
	d.log.Warn("batch rejected", "batch", name, "reason", r.reason, "moved_to", dst)
	return nil
}

// rejectSpecial moves name, which is not a regular file, to rejected/
// unread, with a reason, and counts it: a symbolic link is moved as a link
// (rename does not follow it), so nothing outside the root is touched.
func (d *Daemon) rejectSpecial(name string, sp *specialFile) error {
	err := d.reject(name, reject("%s: %v: not read (a batch is a regular file renamed into %s/)", name, sp, IncomingDir))
	if err == nil {
		d.metrics.special.Inc()
	}
	return err
}

// moveDone moves batch name from incoming/ to done/.
func (d *Daemon) moveDone(name string) error {
	dst, err := freeName(d.done, name)
	if err == nil {
		err = fileio.Rename(filepath.Join(d.incoming, name), dst)
	}
	if err != nil {
		return fmt.Errorf("watchd: move %s to done: %w", name, err)
	}
	return nil
}

// retrainAndPublish trains on the store warm from its α, quantizes the
// model when Config.QuantizeBits asks, applies the gate to newest (the
// batch just added, named name; nil at recovery, when the gate does not
// apply), records α, commits the store and publishes the model (the
// quantized one when there is one). With the gate on, newest's held-back
// rows — the store's last rows, since Add appends a batch after any
// eviction — are left out of training and scored by the gate; their α is
// recorded as 0. When no model can be trained (one class so far) or the
// gate refuses it, the store is committed with the publication marked
// done, so a restart does not publish what was refused.
func (d *Daemon) retrainAndPublish(newest *core.Dataset, name string) error {
	all := d.st.Dataset()
	gen := d.st.Generation()
	gated := newest != nil && d.cfg.GateMinAccuracy > 0
	held := 0
	if gated {
		if held = heldBack(newest.Len()); held == 0 {
			d.log.Info("gate skipped: batch too small to hold rows back", "batch", name, "rows", newest.Len())
			gated = false
		}
	}
	ds := all
	if held > 0 {
		ds = all.Prefix(all.Len() - held)
	}
	var (
		r   *run
		err error
	)
	if d.spec.kernel {
		r, err = d.trainKernel(ds, name, held)
	} else {
		r, err = d.trainLinear(ds, name, held)
	}
	if errors.Is(err, core.ErrLabels) {
		d.log.Warn("retrain skipped: no model for these labels yet", "batch", name, "samples", ds.Len(),
			"held_back", held, "err", err)
		d.st.SetPublished(gen)
		return d.commit()
	}
	if err != nil {
		return fmt.Errorf("watchd: retrain: %w", err)
	}
	// The creation time is set before quantizing: a quantized model
	// records its float model's.
	if r.kernel != nil {
		r.kernel.Created = time.Now().Unix()
	} else {
		r.linear.Created = time.Now().Unix()
	}
	if bits := d.cfg.QuantizeBits; bits != 0 {
		if err := r.quantize(bits); err != nil {
			return fmt.Errorf("watchd: %w", err)
		}
	}

	publish := true
	if gated {
		publish = d.gate(r, all, ds.Len(), name)
	}
	if d.spec.kernel {
		err = d.st.SetKernelDual(padKernelDual(r.kdual, all.Len()))
	} else {
		err = d.st.SetDual(padDual(r.ldual, all.Len()))
	}
	if err != nil {
		return fmt.Errorf("watchd: record α: %w", err)
	}
	if !publish {
		d.st.SetPublished(gen)
		return d.commit()
	}
	// Kept until its publication is recorded, for the retry of a pass
	// that a storage fault stops from here on (settle).
	d.unpublished = &pendingModel{run: r, gen: gen, batch: name}
	if err := d.commit(); err != nil {
		return err
	}
	return d.publish(d.unpublished)
}

// pendingModel is a retrained model to publish: the model of the store's
// generation gen, retrained for batch (empty at recovery), and once its
// file is named, the version it was given.
type pendingModel struct {
	run       *run
	gen       uint64
	batch     string
	version   uint64
	announced bool // settle logged that it publishes it
}

// publish publishes p's model into models/ (once: a retry after a storage
// fault that struck later finds its version set), applies retention and
// records the publication in the store.
func (d *Daemon) publish(p *pendingModel) error {
	if p.version == 0 {
		v, err := modeldir.Publish(d.models, p.run.model())
		if v != 0 {
			// Named, so visible to watchers, even when syncing the
			// directory failed (err): it is not published again.
			p.version = v
			d.published(p)
		}
		if err != nil {
			return fmt.Errorf("watchd: %w", err)
		}
	} else if err := fileio.SyncDir(d.models); err != nil {
		// A retry: the name may not be durable yet.
		return fmt.Errorf("watchd: publish: %w", err)
	}
	if err := d.retain(); err != nil {
		return err
	}
	d.st.SetPublished(p.gen)
	if err := d.commit(); err != nil {
		return err
	}
	d.unpublished = nil
	return nil
}

// published logs and exports the publication of p.
func (d *Daemon) published(p *pendingModel) {
	// The size is the published file's: what a client loads. -1 if it
	// cannot be read back (a retention race with another process).
	size := int64(-1)
	if fi, err := os.Stat(filepath.Join(d.models, modeldir.FileName(p.version))); err == nil {
		size = fi.Size()
	}
	kind := "linear"
	if p.run.kernel != nil {
		kind = "kernel"
	}
	d.metrics.modelVersion.Set(float64(p.version))
	d.metrics.modelBits.Set(float64(p.run.bits()))
	d.metrics.modelBytes.Set(float64(size))
	d.log.Info("model published", "version", p.version, "kind", kind, "quantized_bits", p.run.bits(), "bytes", size,
		"generation", p.gen, "batch", p.batch)
}

// run is a retrain's model and dual, of one kind: linear and ldual, or
// kernel and kdual; and quantized, the model quantized when the
// configuration asks for it.
type run struct {
	linear    *core.LinearModel
	ldual     *core.LinearDual
	kernel    *core.KernelModel
	kdual     *core.KernelDual
	quantized quantize.Model
}

// quantize sets r.quantized to r's model quantized to bits-bit codes.
func (r *run) quantize(bits int) error {
	var err error
	if r.kernel != nil {
		r.quantized, err = quantize.QuantizeKernel(r.kernel, bits)
	} else {
		r.quantized, err = quantize.QuantizeLinear(r.linear, bits)
	}
	if err != nil {
		r.quantized = nil // not a typed nil pointer in the interface
		return fmt.Errorf("quantize to %d bits: %w", bits, err)
	}
	return nil
}

// bits is the code width of the model to publish, 0 for a float model.
func (r *run) bits() int { return r.model().Info().Bits }

// model is the model to publish: the quantized one when there is one.
func (r *run) model() core.Model {
	switch {
	case r.quantized != nil:
		return r.quantized
	case r.kernel != nil:
		return r.kernel
	}
	return r.linear
}

// predictSparse predicts the sparse row (index, value) with the model to
// publish.
func (r *run) predictSparse(index []int32, value []float32) float64 {
	return r.model().PredictSparse(index, value)
}

// trainLinear trains a linear model on ds, warm from the store's linear
// dual cut to ds's rows, and logs the run; held is only logged.
func (d *Daemon) trainLinear(ds *core.Dataset, name string, held int) (*run, error) {
	warm := dualPrefix(d.st.Dual(), ds.Len())
	if warm == nil && d.st.KernelDual() != nil {
		d.log.Info("stored dual is of the other kind: training cold", "stored", "kernel", "training", "linear")
	}
	start := time.Now()
	m, dual, err := d.trainer.TrainFrom(ds, warm, d.lstart)
	elapsed := time.Since(start)
	if err != nil {
		return nil, err
	}
	primalStart := d.lstart != nil
	d.lstart = core.PrimalOf(m)
	d.retrains++
	d.metrics.retrainSeconds.Update(elapsed.Seconds())
	d.metrics.warmUpdates.Set(float64(m.Result.Updates))
	d.metrics.warmIterations.Set(float64(m.Result.Iterations))
	d.log.Info("retrained", "kind", "linear", "batch", name, "warm", warm != nil, "primal_start", primalStart,
		"samples", ds.Len(), "held_back", held, "iterations", m.Result.Iterations, "updates", m.Result.Updates,
		"hessian_products", m.Result.HessianProducts, "objective", m.Result.PrimalObjective,
		"support_vectors", m.Result.NumSV, "converged", m.Result.Converged, "seconds", elapsed.Seconds())
	if d.cfg.ColdEvery > 0 && d.retrains%d.cfg.ColdEvery == 0 {
		d.coldSolveLinear(ds, m)
	}
	return &run{linear: m, ldual: dual}, nil
}

// trainKernel trains a kernel model on ds, warm from the store's kernel
// dual cut to ds's rows and, while it fits, the last run's gradient, and
// logs the run; held is only logged.
func (d *Daemon) trainKernel(ds *core.Dataset, name string, held int) (*run, error) {
	warm := d.kernelWarm(ds.Len())
	switch sd := d.st.KernelDual(); {
	case sd == nil && d.st.Dual() != nil:
		d.log.Info("stored dual is of the other kind: training cold", "stored", "linear", "training", "kernel")
	case sd != nil && sd.SVMType != d.spec.params.SVMType:
		// core ignores another formulation's variables.
		d.log.Info("stored dual is of another formulation: training cold", "stored", sd.SVMType.String(),
			"training", d.spec.params.SVMType.String())
		warm = nil
	}
	start := time.Now()
	m, dual, err := d.ktrainer.Train(ds, warm)
	elapsed := time.Since(start)
	if err != nil {
		return nil, err
	}
	d.kgrad = dual.Gradient
	d.retrains++
	res := &m.Result
	d.metrics.retrainSeconds.Update(elapsed.Seconds())
	d.metrics.warmKernelEvals.Set(float64(res.KernelEvals))
	d.metrics.warmIterations.Set(float64(res.Iterations))
	d.log.Info("retrained", "kind", "kernel", "batch", name, "warm", warm != nil,
		"gradient", warm != nil && warm.Gradient != nil, "samples", ds.Len(), "held_back", held,
		"iterations", res.Iterations, "kernel_evals", res.KernelEvals, "objective", res.Objective,
		"support_vectors", res.NumSV, "converged", res.Converged, "seconds", elapsed.Seconds())
	if d.cfg.ColdEvery > 0 && d.retrains%d.cfg.ColdEvery == 0 {
		d.coldSolveKernel(ds, m)
	}
	return &run{kernel: m, kdual: dual}, nil
}

// kernelWarm returns the kernel warm start for a run on the store's first
// m rows: the stored α cut to m rows, with kgrad; nil without a stored
// kernel dual. The vectors alias the store's: Train only reads a warm
// start.
func (d *Daemon) kernelWarm(m int) *core.KernelDual {
	sd := d.st.KernelDual()
	if sd == nil {
		return nil
	}
	warm := &core.KernelDual{SVMType: sd.SVMType, Pairs: sd.Pairs, Alpha: make([][]float64, len(sd.Alpha)), Gradient: d.kgrad}
	for k, a := range sd.Alpha {
		warm.Alpha[k] = a[:m]
	}
	return warm
}

// heldBack returns how many of a batch's n rows the gate holds back from
// training: max(1, ⌊n·GateHoldBack⌋), keeping at least one row to train on,
// so 0 for a batch of one row.
func heldBack(n int) int {
	return min(n-1, max(1, int(float64(n)*GateHoldBack)))
}

// dualPrefix returns warm cut to its first m rows, for a run on the store's
// Prefix(m); nil stays nil. The vectors alias warm's: Train only reads a
// warm start, and reads m values of each.
func dualPrefix(warm *core.LinearDual, m int) *core.LinearDual {
	if warm == nil {
		return nil
	}
	cut := &core.LinearDual{Labels: warm.Labels, Alpha: make([][]float64, len(warm.Alpha))}
	for k, a := range warm.Alpha {
		cut.Alpha[k] = a[:m]
	}
	return cut
}

// padDual returns dual with each vector extended with zeros to n values:
// the α of the held-back rows the run left out. dual is returned as is
// when its vectors are n long already.
func padDual(dual *core.LinearDual, n int) *core.LinearDual {
	dual.Alpha = padVectors(dual.Alpha, n)
	return dual
}

// padKernelDual is padDual for a kernel dual. Its gradient stays valid:
// it covers the rows of the run, and the padded rows follow them.
func padKernelDual(dual *core.KernelDual, n int) *core.KernelDual {
	dual.Alpha = padVectors(dual.Alpha, n)
	return dual
}

// padVectors extends each vector of alpha with zeros to n values.
func padVectors(alpha [][]float64, n int) [][]float64 {
	for k, a := range alpha {
		if len(a) < n {
			p := make([]float64, n)
			copy(p, a)
			alpha[k] = p
		}
	}
	return alpha
}

// commit makes the store durable.
func (d *Daemon) commit() error {
	if err := d.st.Commit(); err != nil {
		return fmt.Errorf("watchd: commit the store: %w", err)
	}
	return nil
}

// coldSolveLinear trains from α = 0 on the same rows to measure what the
// warm start saved, in rows read (coordinate updates for DCD; function,
// gradient and Hessian-vector passes for TRON); the cold model is
// discarded. The primal objectives are logged too: the warm run must reach
// the cold one's optimum, to the tolerance.
func (d *Daemon) coldSolveLinear(ds *core.Dataset, warm *core.LinearModel) {
	start := time.Now()
	cold, _, err := d.trainer.Train(ds, nil)
	if err != nil {
		d.log.Warn("cold solve failed", "err", err)
		return
	}
	ratio := 0.0
	if cold.Result.Updates > 0 {
		ratio = float64(warm.Result.Updates) / float64(cold.Result.Updates)
	}
	d.metrics.coldUpdates.Set(float64(cold.Result.Updates))
	d.metrics.coldIterations.Set(float64(cold.Result.Iterations))
	d.metrics.warmColdRatio.Set(ratio)
	d.log.Info("cold solve for comparison", "kind", "linear", "samples", ds.Len(),
		"warm_updates", warm.Result.Updates, "cold_updates", cold.Result.Updates,
		"warm_iterations", warm.Result.Iterations, "cold_iterations", cold.Result.Iterations,
		"warm_hessian_products", warm.Result.HessianProducts, "cold_hessian_products", cold.Result.HessianProducts,
		"warm_objective", warm.Result.PrimalObjective, "cold_objective", cold.Result.PrimalObjective,
		"warm_cold_ratio", ratio, "seconds", time.Since(start).Seconds())
}

// coldSolveKernel trains from α = 0 on the same rows to measure what the
// warm start saved, in kernel evaluations (SMO's cost); the cold model is
// discarded. The two objectives are logged too: the warm run must reach
// the cold one's optimum.
func (d *Daemon) coldSolveKernel(ds *core.Dataset, warm *core.KernelModel) {
	start := time.Now()
	cold, _, err := d.ktrainer.Train(ds, nil)
	if err != nil {
		d.log.Warn("cold solve failed", "err", err)
		return
	}
	w, c := &warm.Result, &cold.Result
	ratio := 0.0
	if c.KernelEvals > 0 {
		ratio = float64(w.KernelEvals) / float64(c.KernelEvals)
	}
	d.metrics.coldKernelEvals.Set(float64(c.KernelEvals))
	d.metrics.coldIterations.Set(float64(c.Iterations))
	d.metrics.warmColdRatio.Set(ratio)
	d.log.Info("cold solve for comparison", "kind", "kernel", "samples", ds.Len(),
		"warm_kernel_evals", w.KernelEvals, "cold_kernel_evals", c.KernelEvals,
		"warm_iterations", w.Iterations, "cold_iterations", c.Iterations,
		"warm_objective", w.Objective, "cold_objective", c.Objective,
		"warm_cold_ratio", ratio, "seconds", time.Since(start).Seconds())
}

// gate reports whether r's model may be published: its score on ds's rows
// from `from` on — the newest batch's held-back rows, which it was not
// trained on — must reach GateMinAccuracy. The score is the accuracy for
// classification, the squared correlation for regression, and for a
// one-class SVM the fraction of the rows predicted +1 (inliers). The model
// scored is the one that would be published: the quantized model when
// there is one.
func (d *Daemon) gate(r *run, ds *core.Dataset, from int, name string) bool {
	n := ds.Len()
	held := n - from
	pred := make([]float64, 0, held)
	truth := ds.Labels()[from:]
	for i := from; i < n; i++ {
		idx, val := ds.SparseRow(i)
		pred = append(pred, r.predictSparse(idx, val))
	}
	var score float64
	switch {
	case r.kernel != nil && r.kernel.SVMType == core.OneClass:
		inliers := 0
		for _, p := range pred {
			if p == 1 {
				inliers++
			}
		}
		score = float64(inliers) / float64(held)
	default:
		regression := r.kernel != nil && r.kernel.IsRegression() || r.linear != nil && r.linear.IsRegression()
		s := core.ScorePredictions(pred, truth, regression)
		score = s.Accuracy()
		if s.Regression {
			score = s.SquaredCorrelation
		}
	}
	if score >= d.cfg.GateMinAccuracy {
		d.log.Info("gate passed", "batch", name, "rows", held, "score", score, "min", d.cfg.GateMinAccuracy,
			"quantized_bits", r.bits())
		return true
	}
	d.metrics.gateRefused.Inc()
	d.log.Warn("gate refused the model: not published", "batch", name, "rows", held,
		"score", score, "min", d.cfg.GateMinAccuracy, "quantized_bits", r.bits())
	return false
}

// retain removes all but the newest Keep published models; the newest is
// never removed (Keep >= 1). Files that are not published models are left
// alone.
func (d *Daemon) retain() error {
	entries, err := os.ReadDir(d.models)
	if err != nil {
		return fmt.Errorf("watchd: retention: %w", err)
	}
	var versions []uint64
	for _, e := range entries {
		if v, ok := modeldir.ParseFileName(e.Name()); ok {
			versions = append(versions, v)
		}
	}
	if len(versions) <= d.cfg.Keep {
		return nil
	}
	slices.SortFunc(versions, func(a, b uint64) int { return cmp.Compare(b, a) })
	for _, v := range versions[d.cfg.Keep:] {
		path := filepath.Join(d.models, modeldir.FileName(v))
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("watchd: retention: %w", err)
		}
		d.log.Info("old model removed", "version", v)
	}
	if err := fileio.SyncDir(d.models); err != nil {
		return fmt.Errorf("watchd: retention: %w", err)
	}
	return nil
}

// newestVersion returns the highest published version in dir.
func newestVersion(dir string) (uint64, bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, false, err
	}
	var best uint64
	found := false
	for _, e := range entries {
		if v, ok := modeldir.ParseFileName(e.Name()); ok && (!found || v > best) {
			best, found = v, true
		}
	}
	return best, found, nil
}
