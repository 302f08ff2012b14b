package watchd

import (
	"errors"
	"fmt"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/quantize"
)

// setTrainer makes spec the training options, with a trainer of its kind
// sized to the store once, so a retrain allocates only its outputs: the
// store's capacity in rows and MaxFeatures (the kernel trainer's cache is
// the -m budget, allocated here).
func (d *Daemon) setTrainer(spec trainSpec) error {
	sc := d.st.Config()
	t, err := core.NewTrainer(spec.opts.Params(), sc.Capacity, sc.MaxFeatures)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if spec.opts.IsKernel() {
		p := spec.opts.Kernel.Params
		d.log.Info("kernel trainer allocated", "svm_type", p.SVMType.String(),
			"kernel", p.Kernel.Type.String(), "cache_mb", p.CacheMB,
			"bytes", core.KernelTrainerBytes(p, sc.Capacity, sc.MaxFeatures))
	}
	d.spec, d.trainer = spec, t
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
		return fmt.Errorf("watchd: retrain: %w", err)
	}
	// The creation time is set before quantizing: a quantized model
	// records its float model's.
	r.float = core.WithCreated(r.float, time.Now().Unix())
	if bits := d.cfg.QuantizeBits; bits != 0 {
		if err := r.quantize(bits); err != nil {
			return fmt.Errorf("watchd: %w", err)
		}
	}

	publish := true
	if gated {
		publish = d.gate(r, all, ds.Len(), name)
	}
	// The α of the held-back rows the run left out are 0.
	if err := d.st.SetDual(r.dual.Extended(all.Len())); err != nil {
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

// run is a retrain's model (a *core.LinearModel or *core.KernelModel) and
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
	m, dual, err := d.trainer.Train(ds, warm)
	elapsed := time.Since(start)
	if err != nil {
		return nil, err
	}
	d.last = dual
	d.retrains++
	s, _ := core.SummaryOf(m)
	d.metrics.retrainSeconds.Update(elapsed.Seconds())
	d.metrics.warmWork(s.WorkUnit).Set(float64(s.Work))
	d.metrics.warmIterations.Set(float64(s.Iterations))
	attrs := []any{"kind", d.spec.kind(), "batch", name, "warm", warm != nil}
	if d.spec.opts.IsKernel() {
		attrs = append(attrs, "gradient", warm != nil && warm.Kernel.Gradient != nil)
	} else {
		attrs = append(attrs, "primal_start", warm != nil && warm.Primal != nil)
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
	d.log.Info("retrained", append(attrs, "objective", s.Objective, "support_vectors", s.NumSV,
		"converged", s.Converged, "seconds", elapsed.Seconds())...)
	if d.cfg.ColdEvery > 0 && d.retrains%d.cfg.ColdEvery == 0 {
		d.coldSolve(ds, s)
	}
	return &run{float: m, dual: dual}, nil
}

// warm returns the warm start for a run on the store's first m rows: the
// stored α cut to m rows, with the last run's primal start and, while the
// rows only grew by appends since, its kernel gradient (core checks that
// the gradient fits and ignores it otherwise). It is nil, with a log line
// saying why, when the store holds no dual or one that cannot start this
// trainer: of the other kind, or of another kernel formulation.
func (d *Daemon) warm(m int) *core.Dual {
	sd := d.st.Dual()
	switch {
	case sd == nil && d.last != nil && d.last.Primal != nil && !d.spec.opts.IsKernel():
		// No α (an eviction dropped them), but the last linear model's w.
		return &core.Dual{Primal: d.last.Primal, Scale: d.last.Scale}
	case sd == nil:
		return nil
	case (sd.Kernel != nil) != d.spec.opts.IsKernel():
		stored := "linear"
		if sd.Kernel != nil {
			stored = "kernel"
		}
		d.log.Info("stored dual is of the other kind: training cold", "stored", stored, "training", d.spec.kind())
		return nil
	case sd.Kernel != nil && sd.Kernel.SVMType != d.spec.opts.Kernel.Params.SVMType:
		// core ignores another formulation's variables.
		d.log.Info("stored dual is of another formulation: training cold", "stored", sd.Kernel.SVMType.String(),
			"training", d.spec.opts.Kernel.Params.SVMType.String())
		return nil
	}
	warm := sd.Prefix(m)
	if last := d.last; last != nil {
		// --scale: the ranges the stored α were computed under (the
		// trainer starts cold when this run's differ).
		warm.Primal, warm.Scale = last.Primal, last.Scale
		if warm.Kernel != nil && last.Kernel != nil {
			warm.Kernel.Gradient = last.Kernel.Gradient
		}
		if warm.Linear != nil && last.Linear != nil {
			// The primal Newton state (-s 1, -s 2): core checks it too.
			warm.Linear.Gradient = last.Linear.Gradient
		}
	}
	return warm
}

// forgetGradient drops the last kernel run's gradient, or linear run's
// primal Newton state, which covers rows that are gone (an eviction) or of
// another kind; core would find out by hashing, but need not. The primal
// start stays: it is a start, not a certificate.
func (d *Daemon) forgetGradient() {
	if d.last != nil && d.last.Kernel != nil {
		k := *d.last.Kernel
		k.Gradient = nil
		d.last = &core.Dual{Linear: d.last.Linear, Primal: d.last.Primal, Kernel: &k, Scale: d.last.Scale}
	}
	if d.last != nil && d.last.Linear != nil && d.last.Linear.Gradient != nil {
		l := *d.last.Linear
		l.Gradient = nil
		d.last = &core.Dual{Linear: &l, Primal: d.last.Primal, Kernel: d.last.Kernel, Scale: d.last.Scale}
	}
}

// coldSolve trains from α = 0 on the same rows to measure what the warm
// start, whose summary is warm, saved: in rows read for a linear model
// (coordinate updates for DCD; function, gradient and Hessian-vector passes
// for TRON), in kernel evaluations for a kernel one. The cold model is
// discarded. The objectives are logged too: the warm run must reach the
// cold one's optimum, to the tolerance.
func (d *Daemon) coldSolve(ds *data.Dataset, warm core.FitSummary) {
	start := time.Now()
	m, _, err := d.trainer.Train(ds, nil)
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
	d.log.Info("cold solve for comparison", append(attrs, "warm_objective", warm.Objective, "cold_objective", cold.Objective,
		"warm_cold_ratio", ratio, "seconds", time.Since(start).Seconds())...)
}
