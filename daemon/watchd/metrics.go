package watchd

import (
	"io"
	"net/http"

	"github.com/VictoriaMetrics/metrics"

	"github.com/libsvmgo/libsvmgo/core"
)

// daemonMetrics are the figures /metrics exports, in Prometheus's text
// format written by the metrics library. batches_rejected_total counts
// everything moved to rejected/; incoming_special_files_total the part of
// it that was not a regular file (a symbolic link, a directory, a FIFO, a
// socket or a device), moved there unread. The work of the last retrain is
// warm_updates_last (linear: DCD coordinate updates) or
// warm_kernel_evals_last (kernel: SMO kernel evaluations), and with
// Config.ColdEvery the cold solve's cold_*_last and warm_cold_ratio, the
// warm work over the cold, in the unit of the model's kind. The last model
// this process published is model_version, model_quantized_bits (0 for a
// float model, else 8 or 16: Config.QuantizeBits) and model_file_bytes, the
// size of its file. Each Daemon has its own set, so two daemons in one
// process (tests) do not share counters. storage_degraded is 1 while a
// storage fault lasts (a full disk, an unwritable root: see fault.go) and
// 0 otherwise; storage_failures_total counts the passes such faults
// failed, retries included. batches_forgotten_total and rows_forgotten_total
// count the batches a forget request removed (each once) and their rows
// still stored then; rows_expired_total the rows the maximum age removed,
// and the window when it was made smaller across a restart (rows leaving
// to make room for a batch, by the window or the eviction policy, are the
// "evicted" of its "batch added" log line). incoming_stuck is the number of entries of
// incoming/ the last pass could not move out (skipped, the rest flowing);
// batches_train_failed_total counts the batches rejected because training
// with them failed (part of batches_rejected_total).
type daemonMetrics struct {
	set             *metrics.Set
	ingested        *metrics.Counter
	rejected        *metrics.Counter
	special         *metrics.Counter
	duplicates      *metrics.Counter
	gateRefused     *metrics.Counter
	samples         *metrics.Gauge
	modelVersion    *metrics.Gauge
	modelBits       *metrics.Gauge
	modelBytes      *metrics.Gauge
	retrainSeconds  *metrics.Summary
	warmUpdates     *metrics.Gauge
	warmKernelEvals *metrics.Gauge
	warmIterations  *metrics.Gauge
	coldUpdates     *metrics.Gauge
	coldKernelEvals *metrics.Gauge
	coldIterations  *metrics.Gauge
	warmColdRatio   *metrics.Gauge
	storeGeneration *metrics.Gauge
	storageDegraded *metrics.Gauge
	storageFailures *metrics.Counter
	// Forgetting (forget.go): batches and rows forgotten by request, rows
	// that left by the window or the maximum age.
	batchesForgotten *metrics.Counter
	rowsForgotten    *metrics.Counter
	rowsExpired      *metrics.Counter
	stuck            *metrics.Gauge
	trainFailed      *metrics.Counter
}

func newDaemonMetrics() *daemonMetrics {
	s := metrics.NewSet()
	return &daemonMetrics{
		set:             s,
		ingested:        s.NewCounter("batches_ingested_total"),
		rejected:        s.NewCounter("batches_rejected_total"),
		special:         s.NewCounter("incoming_special_files_total"),
		duplicates:      s.NewCounter("batches_duplicate_total"),
		gateRefused:     s.NewCounter("models_gate_refused_total"),
		samples:         s.NewGauge("samples_stored", nil),
		modelVersion:    s.NewGauge("model_version", nil),
		modelBits:       s.NewGauge("model_quantized_bits", nil),
		modelBytes:      s.NewGauge("model_file_bytes", nil),
		retrainSeconds:  s.NewSummary("retrain_seconds"),
		warmUpdates:     s.NewGauge("warm_updates_last", nil),
		warmKernelEvals: s.NewGauge("warm_kernel_evals_last", nil),
		warmIterations:  s.NewGauge("warm_iterations_last", nil),
		coldUpdates:     s.NewGauge("cold_updates_last", nil),
		coldKernelEvals: s.NewGauge("cold_kernel_evals_last", nil),
		coldIterations:  s.NewGauge("cold_iterations_last", nil),
		warmColdRatio:   s.NewGauge("warm_cold_ratio", nil),
		storeGeneration: s.NewGauge("store_generation", nil),
		storageDegraded: s.NewGauge("storage_degraded", nil),
		storageFailures: s.NewCounter("storage_failures_total"),

		batchesForgotten: s.NewCounter("batches_forgotten_total"),
		rowsForgotten:    s.NewCounter("rows_forgotten_total"),
		rowsExpired:      s.NewCounter("rows_expired_total"),
		stuck:            s.NewGauge("incoming_stuck", nil),
		trainFailed:      s.NewCounter("batches_train_failed_total"),
	}
}

// WriteMetrics writes the daemon's metrics in Prometheus's text format. It is
// safe to call from any goroutine.
func (d *Daemon) WriteMetrics(w io.Writer) {
	d.metrics.set.WritePrometheus(w)
}

// Handler serves GET /healthz and GET /metrics (WriteMetrics). /healthz
// answers 200 "ok" while Run is serving; 503 "degraded: ..." with the
// storage fault while one lasts (Run keeps running and retrying: a restart
// would not help, so a supervisor should alert on it rather than restart);
// 503 "not serving" before Run and after it returns. It is safe to call
// from any goroutine.
func (d *Daemon) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if !d.serving.Load() {
			http.Error(w, "not serving", http.StatusServiceUnavailable)
			return
		}
		if msg := d.degraded.Load(); msg != nil {
			http.Error(w, *msg, http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		d.WriteMetrics(w)
	})
	return mux
}

// warmWork is the gauge of the last retrain's work in unit (a
// core.FitSummary's WorkUnit): rows read or kernel evaluations.
func (m *daemonMetrics) warmWork(unit string) *metrics.Gauge {
	if unit == core.WorkKernelEvals {
		return m.warmKernelEvals
	}
	return m.warmUpdates
}

// coldWork is warmWork's gauge for the last cold solve.
func (m *daemonMetrics) coldWork(unit string) *metrics.Gauge {
	if unit == core.WorkKernelEvals {
		return m.coldKernelEvals
	}
	return m.coldUpdates
}
