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
	var (
		r   *run
		err error
	)
	if d.spec.kernel {
		r, err = d.trainKernel(ds, name, held)
	} else {
		r, err = d.trainLinear(ds, name, held)
	}
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

// trainLinear trains a linear model on ds, warm from the store's linear
// dual cut to ds's rows, and logs the run; held is only logged.
func (d *Daemon) trainLinear(ds *data.Dataset, name string, held int) (*run, error) {
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
func (d *Daemon) trainKernel(ds *data.Dataset, name string, held int) (*run, error) {
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

// coldSolveLinear trains from α = 0 on the same rows to measure what the
// warm start saved, in rows read (coordinate updates for DCD; function,
// gradient and Hessian-vector passes for TRON); the cold model is
// discarded. The primal objectives are logged too: the warm run must reach
// the cold one's optimum, to the tolerance.
func (d *Daemon) coldSolveLinear(ds *data.Dataset, warm *core.LinearModel) {
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
func (d *Daemon) coldSolveKernel(ds *data.Dataset, warm *core.KernelModel) {
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
