package watchd

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"sync"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// setTrainer makes spec the training options, with a trainer of its kind
// sized to the store once, so a retrain allocates only its outputs: the
// store's capacity in rows and MaxFeatures (the kernel trainer's cache is
// the -m budget, allocated here).
func (d *Daemon) setTrainer(spec trainSpec) error {
	sc := d.st.Config()
	t, err := core.NewSparseTrainer(spec.opts.Params(), sc.Capacity, sc.MaxFeatures, sc.CapacityNonzeros)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if spec.opts.IsKernel() {
		p := spec.opts.Kernel.Params
		// The dense copy of wide mostly-nonzero rows is made by the first
		// retrain that reads its rows through it, for the rows the store
		// holds then: the most it may take, beside what is allocated.
		_, dense := t.DenseCopyBytes()
		d.log.Info("kernel trainer allocated", "svm_type", p.SVMType.String(),
			"kernel", p.Kernel.Type.String(), "cache_mb", p.CacheMB,
			"bytes", core.KernelTrainerBytes(p, sc.Capacity, sc.MaxFeatures), "dense_copy_max_bytes", dense)
	}
	d.progress = &progressLog{log: d.log, interval: progressLogEvery}
	t.SetProgress(d.progress.report)
	d.spec, d.trainer = spec, t
	kept, budget := t.KeptBytes()
	d.metrics.keptBytes.Set(float64(kept))
	d.metrics.keptBudget.Set(float64(budget))
	return nil
}

// progressLogEvery is how often a long retrain logs its progress: a
// retrain shorter than this logs nothing between "batch added" and
// "retrained".
const progressLogEvery = 10 * time.Second

// progressLog logs a retrain's progress ("training progress") at most
// once per interval; its report is safe for concurrent use (subproblems
// train in parallel).
type progressLog struct {
	log      *slog.Logger
	interval time.Duration
	mu       sync.Mutex
	last     time.Time
}

// reset starts the interval of a retrain that starts at start.
func (p *progressLog) reset(start time.Time) {
	p.mu.Lock()
	p.last = start
	p.mu.Unlock()
}

func (p *progressLog) report(e core.ProgressEvent) {
	p.mu.Lock()
	now := time.Now()
	if now.Sub(p.last) < p.interval {
		p.mu.Unlock()
		return
	}
	p.last = now
	p.mu.Unlock()
	attrs := []any{"iteration", e.Iteration, "violation", e.Violation}
	switch e.Classes {
	case 1:
		attrs = append(attrs, "class", e.Subproblem)
	case 2:
		attrs = append(attrs, "class", e.Subproblem, "versus", e.Second)
	}
	if !math.IsNaN(e.Objective) {
		attrs = append(attrs, "objective", e.Objective)
	}
	p.log.Info("training progress", attrs...)
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
// done, so a restart does not publish what was refused. When training
// fails otherwise, or its model cannot be quantized, encoded or its α
// stored, it returns a *rejection before anything is committed: the
// caller rolls the store back and rejects the batch (ingest), or keeps the
// last model (retrainStored).
func (d *Daemon) retrainAndPublish(newest *data.Dataset, name string) error {
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
	r, err := d.train(ds, name, held)
	if errors.Is(err, data.ErrLabels) {
		d.log.Warn("retrain skipped: no model for these labels yet", "batch", name, "samples", ds.Len(),
			"held_back", held, "err", err)
		d.st.SetPublished(gen)
		return d.commit()
	}
	if err != nil {
		return reject("training failed: %v", err)
	}
	// The creation time is set before quantizing: a quantized model
	// records its float model's.
	r.float = core.WithCreated(r.float, time.Now().Unix())
	if bits := d.cfg.QuantizeBits; bits != 0 {
		if err := r.quantize(bits); err != nil {
			return reject("%v", err)
		}
		// A quantization that changes its own support vectors' labels is
		// not the model trained (shuttle int8: a third of them): the
		// float model is published instead, and the batch stays.
		if reason := r.unfaithful(); reason != nil {
			d.metrics.quantizeRefused.Inc()
			d.log.Warn("quantized model refused: publishing the float model", "batch", name, "bits", bits, "reason", reason)
		}
	}

	publish := true
	if gated {
		publish = d.gate(r, all, ds.Len(), name)
	}
	var file []byte
	if publish {
		// Encoded before anything is committed: a model that cannot be
		// written refuses its batch like a failed training.
		if file, err = modelfile.Encode(r.model()); err != nil {
			return reject("the retrained model cannot be written: %v", err)
		}
	}
	// The α of the held-back rows the run left out are 0. Without them
	// the run's own dual is recorded (SetDual copies it): extending it
	// would copy every α once more.
	stored := r.dual
	if held > 0 {
		stored = r.dual.Extended(all.Len())
	}
	if err := d.st.SetDual(stored); err != nil {
		return reject("training gave α the store refuses: %v", err)
	}
	if !publish {
		d.st.SetPublished(gen)
		return d.commit()
	}
	// Kept until its publication is recorded, for the retry of a pass
	// that a storage fault stops from here on (settle).
	d.unpublished = &pendingModel{run: r, file: file, gen: gen, batch: name}
	if err := d.commit(); err != nil {
		return err
	}
	return d.publish(d.unpublished)
}

// run is a retrain's model (a *linear.LinearModel or *core.KernelModel) and
// dual state, and quantized, the model quantized when the configuration
// asks for it.
type run struct {
	float     core.Model
	dual      *core.Dual
	quantized quantize.Model
}

// quantize sets r.quantized to r's model quantized to bits-bit codes.
func (r *run) quantize(bits int) error {
	q, err := quantize.Quantize(r.float, bits)
	if err != nil {
		return fmt.Errorf("quantize to %d bits: %w", bits, err)
	}
	r.quantized = q
	return nil
}

// unfaithful checks r's quantized model against its float model
// (quantize.CheckFaithful) and, when the check refuses it, drops it, so
// that the float model is the one published, and returns the refusal;
// nil when r has no quantized model or it is faithful. Only a refusal
// drops it: the check reports nothing else.
func (r *run) unfaithful() error {
	if r.quantized == nil {
		return nil
	}
	_, _, err := quantize.CheckFaithful(r.float, r.quantized)
	if err != nil {
		r.quantized = nil
	}
	return err
}

// bits is the code width of the model to publish, 0 for a float model.
func (r *run) bits() int { return r.model().Info().Bits }

// model is the model to publish: the quantized one when there is one.
func (r *run) model() core.Model {
	if r.quantized != nil {
		return r.quantized
	}
	return r.float
}

// train trains a model of the trainer's kind on ds, warm from the store's
// dual cut to ds's rows with the last run's primal start and kernel
// gradient (warm), and logs the run; held is only logged.
func (d *Daemon) train(ds *data.Dataset, name string, held int) (*run, error) {
	warm := d.warm(ds.Len())
	start := time.Now()
	cpu0, cpuOK := processCPU()
	d.metrics.trainingStart.Set(float64(start.UnixNano()) / 1e9)
	d.progress.reset(start)
	d.metrics.training.Set(1)
	m, dual, err := d.guardedTrain(ds, warm)
	d.metrics.training.Set(0)
	elapsed := time.Since(start)
	cpu1, _ := processCPU()
	if err != nil {
		return nil, err
	}
	d.last = dual
	d.st.TakeRemoved() // dual covers the store's rows as they are now
	d.retrains++
	s, _ := core.SummaryOf(m)
	d.metrics.retrainSeconds.Update(elapsed.Seconds())
	d.metrics.warmWork(s.WorkUnit).Set(float64(s.Work))
	d.metrics.warmIterations.Set(float64(s.Iterations))
	kept, _ := d.trainer.KeptBytes()
	d.metrics.keptBytes.Set(float64(kept))
	attrs := []any{"kind", d.spec.kind(), "batch", name, "warm", warm != nil}
	if d.spec.opts.IsKernel() {
		attrs = append(attrs, "gradient", warm.HasGradient())
	} else {
		attrs = append(attrs, "primal_start", warm.HasPrimalStart())
	}
	if d.spec.opts.Scale.Enabled {
		// --scale: a warm start counts only under the same ranges; a row
		// beyond them refits the ranges and the run starts cold.
		attrs = append(attrs, "scale_kept", warm != nil && core.SameScale(warm.Scale, dual.Scale))
	}
	attrs = append(attrs, "samples", ds.Len(), "held_back", held, "iterations", s.Iterations, s.WorkUnit, s.Work)
	if !d.spec.opts.IsKernel() {
		attrs = append(attrs, "hessian_products", s.HessianProducts)
	}
	attrs = append(attrs, "objective", s.Objective, "support_vectors", s.NumSV, "converged", s.Converged, "seconds", elapsed.Seconds())
	if cpuOK {
		attrs = append(attrs, "cpu_seconds", cpu1-cpu0)
	}
	d.log.Info("retrained", attrs...)
	if d.cfg.ColdEvery > 0 && d.retrains%d.cfg.ColdEvery == 0 {
		d.coldSolve(ds, s)
	}
	return &run{float: m, dual: dual}, nil
}

// guardedTrain is d.trainer.Train with a panic turned into an error: the
// daemon's last guard against an input that trips a solver bug, which
// then refuses that batch (logged with its stack, to be fixed) instead of
// stopping the daemon and, the batch still in incoming/, every restart.
func (d *Daemon) guardedTrain(ds *data.Dataset, warm *core.Dual) (m core.Model, dual *core.Dual, err error) {
	defer func() {
		if p := recover(); p != nil {
			d.log.Error("training panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			m, dual, err = nil, nil, fmt.Errorf("training panicked: %v", p)
		}
	}()
	return d.trainer.Train(ds, warm)
}

// warm returns the warm start for a run on the store's first m rows: the
// trainer's (core.Trainer.WarmStart) from the stored α and the last run's
// primal start, scaling and gradient (core checks that the gradient fits
// and ignores it otherwise). It is nil, with a log line saying why, when
// the store holds no dual or one that cannot start this trainer: of the
// other kind, or of another kernel formulation.
func (d *Daemon) warm(m int) *core.Dual {
	w, err := d.trainer.WarmStart(d.st.Dual(), d.last, m)
	var mis *core.StateMismatch
	switch {
	case errors.As(err, &mis) && mis.OtherKind:
		d.log.Info("stored dual is of the other kind: training cold", "stored", mis.Stored, "training", mis.Training)
	case errors.As(err, &mis):
		d.log.Info("stored dual is of another formulation: training cold", "stored", mis.Stored, "training", mis.Training)
	case err != nil:
		d.log.Warn("stored dual cannot start the trainer: training cold", "err", err)
	}
	return w
}

// followRemovals keeps the last run's state aligned with the store after
// rows left it (store.Store.TakeRemoved: evicted, retired by the window
// or the maximum age, forgotten): core.Dual.AfterRemovalsInPlace keeps a
// kernel run's gradient and a linear run's primal Newton state, cut to
// the rows that remain, and drops the others. It cuts d.last's α and
// kernel gradient in their own memory, which the daemon owns (the store
// keeps a copy of α, SetDual), so the d.last before cannot start a run any
// more: a refused batch restores it without its gradient (take).
func (d *Daemon) followRemovals() {
	if removed := d.st.TakeRemoved(); d.last != nil {
		d.last = d.last.AfterRemovalsInPlace(removed)
	}
}

// forgetGradient drops the last run's gradients (a kernel run's, a linear
// run's primal Newton state), which cover rows that are gone (an eviction)
// or of another kind; core would find out by hashing, but need not. The
// primal start stays: it is a start, not a certificate.
func (d *Daemon) forgetGradient() { d.last = d.last.WithoutGradient() }

// coldSolve trains from α = 0 on the same rows to measure what the warm
// start, whose summary is warm, saved: in rows read for a linear model
// (coordinate updates for DCD; function, gradient, line search and
// Hessian-vector passes for the Newton method), in kernel evaluations for a kernel one. The cold model is
// discarded. The objectives are logged too: the warm run must reach the
// cold one's optimum, to the tolerance.
func (d *Daemon) coldSolve(ds *data.Dataset, warm core.FitSummary) {
	start := time.Now()
	cpu0, cpuOK := processCPU()
	m, _, err := d.trainer.Train(ds, nil)
	cpu1, _ := processCPU()
	elapsed := time.Since(start)
	if err != nil {
		d.log.Warn("cold solve failed", "err", err)
		return
	}
	cold, _ := core.SummaryOf(m)
	ratio := 0.0
	if cold.Work > 0 {
		ratio = float64(warm.Work) / float64(cold.Work)
	}
	d.metrics.coldWork(cold.WorkUnit).Set(float64(cold.Work))
	d.metrics.coldIterations.Set(float64(cold.Iterations))
	d.metrics.warmColdRatio.Set(ratio)
	attrs := []any{"kind", d.spec.kind(), "samples", ds.Len(),
		"warm_" + warm.WorkUnit, warm.Work, "cold_" + cold.WorkUnit, cold.Work,
		"warm_iterations", warm.Iterations, "cold_iterations", cold.Iterations}
	if !d.spec.opts.IsKernel() {
		attrs = append(attrs, "warm_hessian_products", warm.HessianProducts, "cold_hessian_products", cold.HessianProducts)
	}
	attrs = append(attrs, "warm_objective", warm.Objective, "cold_objective", cold.Objective, "warm_cold_ratio", ratio, "seconds", elapsed.Seconds())
	if cpuOK {
		attrs = append(attrs, "cpu_seconds", cpu1-cpu0)
	}
	d.log.Info("cold solve for comparison", attrs...)
}
