package watchd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// Names of the directories under the root.
const (
	IncomingDir = "incoming"
	DoneDir     = "done"
	RejectedDir = "rejected"
	ModelsDir   = "models"
	StateDir    = "state"
	// ForgetDir holds requests to forget ingested batches (forget.go).
	ForgetDir = "forget"
)

// ReasonSuffix ends the name of a rejected batch's reason file.
const ReasonSuffix = ".reason"

// BatchSuffix is added to the name of a rejected batch that ends in
// ReasonSuffix: in rejected/ such names are the reason files'.
const BatchSuffix = ".batch"

// Daemon ingests batches and publishes models; see the package
// documentation. Run it once; Reload, Handler and WriteMetrics may be
// called from other goroutines while it runs.
type Daemon struct {
	log *slog.Logger

	// Owned by Run's goroutine.
	fs       fileio.FS // Config.FS, fixed at New
	cfg      Config
	spec     trainSpec
	incoming string
	done     string
	rejected string
	models   string
	forget   string
	st       *store.Store
	trainer  core.Trainer // of spec's kind
	// last is the dual state of the last run, whose α the store holds:
	// warm passes its primal start (a linear run's w: the stored α give w
	// only as exactly as the run's tolerance) and its kernel gradient (cut
	// to the rows that stay when rows leave, followRemovals; forgetGradient
	// drops it), which spare core rebuilding them from α. Never persisted: after
	// a restart the warm start is α alone. core checks that a gradient
	// fits (kernel, bounds, a hash of the rows and α it covers) and ignores
	// it otherwise, and uses the primal start only for the L2-loss
	// formulations.
	last     *core.Dual
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
	// stuck are the entries of incoming/ that could not be taken (a
	// directory the daemon may not rename, say), by name, with why: each
	// pass skips past them and tries them again, and the pass ends as a
	// storage fault while any is left, so the operator hears of them.
	stuck map[string]error
	// current is the model published last, kept to publish again when
	// models/ loses it (removed while running); nil until this run
	// publishes, so after a restart a lost model is retrained.
	current *pendingModel

	// source delivers stream messages (SetSource); onPublish hears of
	// each publication (OnPublish). Both nil unless set.
	source    <-chan *Message
	onPublish func(version uint64, file []byte)

	metrics *daemonMetrics
	serving atomic.Bool
	// hasModel is set once models/ holds a model (/readyz).
	hasModel atomic.Bool
	// progress logs a long retrain's progress (setTrainer makes it).
	progress *progressLog
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
		fs:       fileio.OrOS(cfg.FS),
		cfg:      cfg,
		incoming: filepath.Join(cfg.Root, IncomingDir),
		done:     filepath.Join(cfg.Root, DoneDir),
		rejected: filepath.Join(cfg.Root, RejectedDir),
		models:   filepath.Join(cfg.Root, ModelsDir),
		forget:   filepath.Join(cfg.Root, ForgetDir),
		metrics:  newDaemonMetrics(),
	}
	if err := d.makeLayout(); err != nil {
		return nil, err
	}
	d.removeStaleTemps()
	d.st, err = store.OpenFS(d.fs, filepath.Join(cfg.Root, StateDir), cfg.storeConfig())
	if errors.Is(err, store.ErrConfig) {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err != nil {
		return nil, fmt.Errorf("watchd: %w", err)
	}
	d.st.TakeRemoved() // no run's state to align yet
	if err := d.setTrainer(spec); err != nil {
		return nil, err
	}
	d.metrics.samples.Set(float64(d.st.Len()))
	d.metrics.storeGeneration.Set(float64(d.st.Generation()))
	if v, found, err := modeldir.HighestVersion(d.fs, d.models); err == nil {
		d.metrics.modelVersion.Set(float64(max(v, d.st.Version())))
		d.hasModel.Store(found)
	}
	return d, nil
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
	cfg.FS = d.cfg.FS           // fixed at New
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
			d.forgetGradient()
			d.log.Info("training options switched kind", "from", from, "to", spec.kind())
		}
	}
	d.cfg = *cfg
	d.log.Info("configuration reloaded", "train_options", cfg.TrainOptions, "kind", d.spec.kind(), "keep", cfg.Keep,
		"gate_min_accuracy", cfg.GateMinAccuracy, "cold_every", cfg.ColdEvery, "quantize_bits", cfg.QuantizeBits)
}

// Run serves until ctx is cancelled. It first publishes a model the store
// holds but that a crash kept from being published, then ingests what is
// in incoming/ and follows it with fsnotify, taking the messages of a
// source (SetSource) between passes. Nothing that happens to one
// input stops it: a bad batch, or one training fails with, is rejected
// with its reason; an entry that cannot be taken is skipped. A pass that
// fails otherwise — a storage fault (a full disk, a read-only or
// unwritable root, a directory of the layout removed; see isStorageFault)
// or any other error of the file system — does not stop it either: the
// daemon reports itself degraded and retries with backoff
// (Config.RetryMin, RetryMax), the batch in progress left in incoming/,
// until a pass succeeds. Run returns an error only when it cannot start
// watching incoming/; cancelling ctx stops it after the batch in progress,
// and Run returns nil then.
func (d *Daemon) Run(ctx context.Context) error {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watchd: watch %s: %w", d.incoming, err)
	}
	defer fsw.Close()
	d.watching = false
	// Serving before the log line says so: a client that waits for the
	// line finds /healthz answering.
	d.serving.Store(true)
	defer d.serving.Store(false)
	// A stop makes the last publication's record durable (publish
	// leaves it to the next commit).
	defer func() {
		if err := d.st.Sync(); err != nil {
			d.log.Warn("store not synced at stop", "err", err)
		}
	}()
	d.log.Info("daemon started", "root", d.cfg.Root, "samples", d.st.Len(),
		"generation", d.st.Generation(), "published", d.st.Published())

	var (
		debounce, retry, expiry                <-chan time.Time
		debounceTimer, retryTimer, expiryTimer *time.Timer
	)
	defer func() {
		for _, t := range []*time.Timer{debounceTimer, retryTimer, expiryTimer} {
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
	// pass runs one pass; a failed pass schedules the next one, and so
	// does the oldest row's expiry (Config.Store.MaxAge).
	watch := func(dir string) error { return fsw.Add(dir) }
	pass := func() {
		err := d.pass(ctx, watch)
		if expiryTimer != nil {
			expiryTimer.Stop()
			expiry, expiryTimer = nil, nil
		}
		if t, ok := d.st.NextExpiry(); ok {
			expiryTimer = time.NewTimer(max(0, time.Until(t)))
			expiry = expiryTimer.C
		}
		if err != nil {
			retryTimer = time.NewTimer(d.storageFault(err))
			retry = retryTimer.C
			return
		}
		d.storageHealed()
	}
	pass()
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
		case m, ok := <-d.source:
			switch {
			case !ok:
				d.source = nil
			case retry != nil:
				m.Retry() // degraded: the retry's pass comes first
			default:
				if err := d.ingestMessage(m); err != nil {
					retryTimer = time.NewTimer(d.storageFault(err))
					retry = retryTimer.C
				}
			}
		case <-debounce:
			debounce, debounceTimer = nil, nil
			pass()
		case <-retry:
			retry, retryTimer = nil, nil
			pass()
		case <-expiry:
			expiry, expiryTimer = nil, nil
			if retry == nil { // else the retry's pass expires them
				pass()
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
func (d *Daemon) pass(ctx context.Context, watch func(dir string) error) error {
	lost := false
	if !d.watching {
		if err := d.makeLayout(); err != nil {
			return err
		}
		// The root too, to learn at once when a directory of the layout
		// is removed; its other events only cause a rescan.
		for _, dir := range []string{d.cfg.Root, d.incoming, d.forget} {
			if err := watch(dir); err != nil {
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
	if err := d.republish(); err != nil {
		return err
	}
	if err := d.drain(ctx); err != nil || ctx.Err() != nil {
		return err
	}
	// After the batches, so that a request may name a batch that arrived
	// with it.
	if err := d.drainForget(); err != nil {
		return err
	}
	if err := d.expire(time.Now()); err != nil {
		return err
	}
	return d.stuckFault()
}

// snapshotLost reports whether the store's snapshot is missing from
// state/ although the store has ingested batches: someone removed it (or
// the whole root) while the daemon ran. The rows are still in memory, and
// the next commit writes them back.
func (d *Daemon) snapshotLost() bool {
	if d.st.Generation() == 0 {
		return false
	}
	_, err := d.fs.Lstat(filepath.Join(d.cfg.Root, StateDir, store.SnapshotName))
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
	case filepath.Clean(d.cfg.Root), d.incoming, d.done, d.rejected, d.models, d.forget, filepath.Join(d.cfg.Root, StateDir):
		return true
	}
	return false
}

// makeLayout creates the directories under the root that are missing,
// durably (their parents synced).
func (d *Daemon) makeLayout() error {
	for _, dir := range []string{d.incoming, d.done, d.rejected, d.models, d.forget, filepath.Join(d.cfg.Root, StateDir)} {
		if err := fileio.MkdirAllSynced(d.fs, dir, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				// Something that is not a directory took the path between
				// MkdirAll's look and its mkdir: the same fault as a file
				// found there (ENOTDIR), waited out alike.
				err = &fs.PathError{Op: "mkdir", Path: dir, Err: syscall.ENOTDIR}
			}
			return fmt.Errorf("watchd: create layout: %w", err)
		}
	}
	return nil
}

// commit makes the store durable.
func (d *Daemon) commit() error {
	if err := d.st.Commit(); err != nil {
		return fmt.Errorf("watchd: commit the store: %w", err)
	}
	return nil
}
