// Package watchd is the incremental-training daemon behind `svmgo watch`
// (DESIGN.md §8): it ingests labelled batch files dropped into a directory,
// keeps their rows in a fixed-capacity durable store, retrains from the
// stored dual variables (warm start) and publishes each new model as a
// versioned file that clients hot-swap (DESIGN.md §6).
//
// Layout under the root: incoming/ (producers rename finished batches in;
// dot-files and *.tmp are ignored), done/ (ingested batches), rejected/ (a
// refused batch and its NAME.reason file), models/ (published versions),
// state/ (the store).
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
// them after the older such rows and before they are trained on.
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
	"github.com/libsvmgo/libsvmgo/daemon/internal/durable"
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
	params   core.LinearParams
	incoming string
	done     string
	rejected string
	models   string
	st       *store.Store
	trainer  *core.LinearTrainer
	retrains int // since start; drives ColdEvery

	metrics *daemonMetrics
	serving atomic.Bool

	mu      sync.Mutex
	pending *Config // a reload to apply between batches
}

// New validates cfg, creates the layout under cfg.Root when missing and
// opens the store. Errors wrap ErrConfig for a bad configuration (or a store
// whose rows do not fit it); others are runtime errors (I/O, a corrupt
// store). A nil log discards the logs.
func New(cfg Config, log *slog.Logger) (*Daemon, error) {
	params, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Daemon{
		log:      log,
		cfg:      cfg,
		params:   params,
		incoming: filepath.Join(cfg.Root, IncomingDir),
		done:     filepath.Join(cfg.Root, DoneDir),
		rejected: filepath.Join(cfg.Root, RejectedDir),
		models:   filepath.Join(cfg.Root, ModelsDir),
		metrics:  newDaemonMetrics(),
	}
	for _, dir := range []string{d.incoming, d.done, d.rejected, d.models, filepath.Join(cfg.Root, StateDir)} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("watchd: create layout: %w", err)
		}
	}
	d.st, err = store.Open(filepath.Join(cfg.Root, StateDir), cfg.storeConfig())
	if errors.Is(err, store.ErrConfig) {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err != nil {
		return nil, fmt.Errorf("watchd: %w", err)
	}
	if d.trainer, err = d.newTrainer(params); err != nil {
		return nil, err
	}
	d.metrics.samples.Set(float64(d.st.Len()))
	d.metrics.storeGeneration.Set(float64(d.st.Generation()))
	if v, ok, err := newestVersion(d.models); err == nil && ok {
		d.metrics.modelVersion.Set(float64(v))
	}
	return d, nil
}

// newTrainer sizes a trainer to the store once, so a retrain allocates only
// its outputs.
func (d *Daemon) newTrainer(p core.LinearParams) (*core.LinearTrainer, error) {
	sc := d.st.Config()
	t, err := core.NewLinearTrainer(p, sc.Capacity, sc.MaxFeatures)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return t, nil
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
	params, err := cfg.validate() // checked by Reload; cannot fail
	if err != nil {
		d.log.Error("reload refused", "err", err)
		return
	}
	if cfg.TrainOptions != d.cfg.TrainOptions {
		t, err := d.newTrainer(params)
		if err != nil {
			d.log.Error("reload refused", "err", err)
			return
		}
		d.trainer, d.params = t, params
	}
	d.cfg = *cfg
	d.log.Info("configuration reloaded", "train_options", cfg.TrainOptions, "keep", cfg.Keep,
		"gate_min_accuracy", cfg.GateMinAccuracy, "cold_every", cfg.ColdEvery)
}

// Run serves until ctx is cancelled or a runtime error (I/O on the root, a
// store that cannot commit) stops it. It first publishes a model the store
// holds but that a crash kept from being published, then ingests what is in
// incoming/ and follows it with fsnotify. Cancelling ctx stops Run after the
// batch in progress; Run returns nil then.
func (d *Daemon) Run(ctx context.Context) error {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watchd: watch %s: %w", d.incoming, err)
	}
	defer fsw.Close()
	// Watch before the first scan, so that no file arriving between the
	// two is missed.
	if err := fsw.Add(d.incoming); err != nil {
		return fmt.Errorf("watchd: watch %s: %w", d.incoming, err)
	}
	d.log.Info("daemon started", "root", d.cfg.Root, "samples", d.st.Len(),
		"generation", d.st.Generation(), "published", d.st.Published())
	if d.st.Published() < d.st.Generation() {
		d.log.Warn("store newer than the published model: retraining", "generation", d.st.Generation(),
			"published", d.st.Published())
		if err := d.retrainAndPublish(nil, ""); err != nil {
			return err
		}
	}
	d.serving.Store(true)
	defer d.serving.Store(false)

	var debounce <-chan time.Time
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	arm := func() {
		if debounce == nil { // the delay runs from the first event of a burst
			timer = time.NewTimer(d.cfg.Debounce)
			debounce = timer.C
		}
	}
	if err := d.drain(ctx); err != nil {
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
			debounce, timer = nil, nil
			if err := d.drain(ctx); err != nil {
				return err
			}
		}
	}
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

// listIncoming returns the names of the finished regular files in
// incoming/, sorted.
func (d *Daemon) listIncoming() ([]string, error) {
	entries, err := os.ReadDir(d.incoming) // sorted by name
	if err != nil {
		return nil, fmt.Errorf("watchd: scan %s: %w", d.incoming, err)
	}
	var names []string
	for _, e := range entries {
		if !isTempName(e.Name()) && e.Type().IsRegular() {
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
	if fi.Size() > d.cfg.MaxBatchBytes {
		return d.reject(name, reject("%s: %d bytes, more than the limit of %d", name, fi.Size(), d.cfg.MaxBatchBytes))
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return d.reject(name, reject("%s: %v", name, err))
	case int64(len(data)) > d.cfg.MaxBatchBytes: // grew since Lstat
		return d.reject(name, reject("%s: %d bytes, more than the limit of %d", name, len(data), d.cfg.MaxBatchBytes))
	}
	h := store.Hash(sha256.Sum256(data))
	if d.st.Has(h) {
		d.log.Info("batch already ingested: moving to done", "batch", name, "sha256", fmt.Sprintf("%x", h[:8]))
		d.metrics.duplicates.Inc()
		return d.moveDone(name)
	}
	batch, err := parseBatch(name, data, batchLimits{
		capacity:     d.st.Config().Capacity,
		maxFeatures:  d.st.Config().MaxFeatures,
		maxLineBytes: d.cfg.MaxLineBytes,
		regression:   d.params.Solver.IsRegression(),
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
	if err := durable.WriteFile(dst+ReasonSuffix, []byte(r.reason+"\n")); err != nil {
		return fmt.Errorf("watchd: reject %s: %w", name, err)
	}
	if err := durable.Rename(filepath.Join(d.incoming, name), dst); err != nil {
		return fmt.Errorf("watchd: reject %s: %w", name, err)
	}
	d.metrics.rejected.Inc()
	d.log.Warn("batch rejected", "batch", name, "reason", r.reason, "moved_to", dst)
	return nil
}

// moveDone moves batch name from incoming/ to done/.
func (d *Daemon) moveDone(name string) error {
	dst, err := freeName(d.done, name)
	if err == nil {
		err = durable.Rename(filepath.Join(d.incoming, name), dst)
	}
	if err != nil {
		return fmt.Errorf("watchd: move %s to done: %w", name, err)
	}
	return nil
}

// retrainAndPublish trains on the store warm from its α, applies the gate
// to newest (the batch just added, named name; nil at recovery, when the
// gate does not apply), records α, commits the store and publishes the
// model. With the gate on, newest's held-back rows — the store's last rows,
// since Add appends a batch after any eviction — are left out of training
// and scored by the gate; their α is recorded as 0. When no model can be
// trained (one class so far) or the gate refuses it, the store is committed
// with the publication marked done, so a restart does not publish what was
// refused.
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
	ds, warm := all, d.st.Dual()
	if held > 0 {
		ds = all.Prefix(all.Len() - held)
		warm = dualPrefix(warm, ds.Len())
	}
	start := time.Now()
	m, dual, err := d.trainer.Train(ds, warm)
	elapsed := time.Since(start)
	if errors.Is(err, core.ErrLabels) {
		d.log.Warn("retrain skipped: no model for these labels yet", "batch", name, "samples", ds.Len(),
			"held_back", held, "err", err)
		d.st.SetPublished(gen)
		return d.commit()
	}
	if err != nil {
		return fmt.Errorf("watchd: retrain: %w", err)
	}
	d.retrains++
	d.metrics.retrainSeconds.Update(elapsed.Seconds())
	d.metrics.warmUpdates.Set(float64(m.Result.Updates))
	d.metrics.warmIterations.Set(float64(m.Result.Iterations))
	d.log.Info("retrained", "batch", name, "warm", warm != nil, "samples", ds.Len(), "held_back", held,
		"iterations", m.Result.Iterations, "updates", m.Result.Updates, "support_vectors", m.Result.NumSV,
		"converged", m.Result.Converged, "seconds", elapsed.Seconds())
	if d.cfg.ColdEvery > 0 && d.retrains%d.cfg.ColdEvery == 0 {
		d.coldSolve(ds, m)
	}

	publish := true
	if gated {
		publish = d.gate(m, all, ds.Len(), name)
	}
	if held > 0 {
		padDual(dual, all.Len())
	}
	if err := d.st.SetDual(dual); err != nil {
		return fmt.Errorf("watchd: record α: %w", err)
	}
	if !publish {
		d.st.SetPublished(gen)
		return d.commit()
	}
	if err := d.commit(); err != nil {
		return err
	}
	m.Created = time.Now().Unix()
	v, err := modeldir.Publish(d.models, m)
	if err != nil {
		return fmt.Errorf("watchd: %w", err)
	}
	d.metrics.modelVersion.Set(float64(v))
	d.log.Info("model published", "version", v, "generation", gen, "batch", name)
	if err := d.retain(); err != nil {
		return err
	}
	d.st.SetPublished(gen)
	return d.commit()
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

// padDual extends each of dual's vectors with zeros to n values: the α of
// the held-back rows the run left out.
func padDual(dual *core.LinearDual, n int) {
	for k, a := range dual.Alpha {
		p := make([]float64, n)
		copy(p, a)
		dual.Alpha[k] = p
	}
}

// commit makes the store durable.
func (d *Daemon) commit() error {
	if err := d.st.Commit(); err != nil {
		return fmt.Errorf("watchd: commit the store: %w", err)
	}
	return nil
}

// coldSolve trains from α = 0 on the same rows to measure what the warm start
// saved; the cold model is discarded.
func (d *Daemon) coldSolve(ds *core.Dataset, warm *core.LinearModel) {
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
	d.log.Info("cold solve for comparison", "samples", ds.Len(),
		"warm_updates", warm.Result.Updates, "cold_updates", cold.Result.Updates,
		"warm_iterations", warm.Result.Iterations, "cold_iterations", cold.Result.Iterations,
		"warm_cold_ratio", ratio, "seconds", time.Since(start).Seconds())
}

// gate reports whether m may be published: its accuracy (squared
// correlation for regression) on ds's rows from `from` on — the newest
// batch's held-back rows, which m was not trained on — must reach
// GateMinAccuracy.
func (d *Daemon) gate(m *core.LinearModel, ds *core.Dataset, from int, name string) bool {
	n := ds.Len()
	held := n - from
	pred := make([]float64, 0, held)
	truth := ds.Labels()[from:]
	for i := from; i < n; i++ {
		idx, val := ds.SparseRow(i)
		pred = append(pred, m.PredictSparse(idx, val))
	}
	s := core.ScorePredictions(pred, truth, m.IsRegression())
	score := s.Accuracy()
	if s.Regression {
		score = s.SquaredCorrelation
	}
	if score >= d.cfg.GateMinAccuracy {
		d.log.Info("gate passed", "batch", name, "rows", held, "score", score, "min", d.cfg.GateMinAccuracy)
		return true
	}
	d.metrics.gateRefused.Inc()
	d.log.Warn("gate refused the model: not published", "batch", name, "rows", held,
		"score", score, "min", d.cfg.GateMinAccuracy)
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
	if err := durable.SyncDir(d.models); err != nil {
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
