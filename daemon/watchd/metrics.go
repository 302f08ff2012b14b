package watchd

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/VictoriaMetrics/metrics"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/buildinfo"
)

// daemonMetrics are the figures /metrics exports, in Prometheus's text
// exposition format (version 0.0.4) as its conventions have it: every name
// under svmgo_, a "# HELP" and "# TYPE" line for each, counters ending in
// _total, durations as histograms (which aggregate across daemons, where
// quantile summaries do not), and svmgo_build_info. newDaemonMetrics lists
// each figure with its help text, which says what it counts. Each Daemon
// has its own set, so two daemons in one process (tests) do not share
// counters.
type daemonMetrics struct {
	list        []exported
	ingested    *metrics.Counter
	rejected    *metrics.Counter
	special     *metrics.Counter
	duplicates  *metrics.Counter
	gateRefused *metrics.Counter
	// quantizeRefused counts retrained models whose quantization
	// quantize.CheckFaithful refused: their float model was published.
	quantizeRefused *metrics.Counter
	samples         *metrics.Gauge
	modelVersion    *metrics.Gauge
	modelBits       *metrics.Gauge
	modelBytes      *metrics.Gauge
	retrainSeconds  *histogram
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
	training        *metrics.Gauge
	trainingStart   *metrics.Gauge
	// Forgetting (forget.go): batches and rows forgotten by request, rows
	// that left by the window or the maximum age.
	batchesForgotten *metrics.Counter
	rowsForgotten    *metrics.Counter
	rowsExpired      *metrics.Counter
	stuck            *metrics.Gauge
	trainFailed      *metrics.Counter
	// The kernel columns the trainer keeps between retrains (-M) and
	// their budget (core.Trainer.KeptBytes).
	keptBytes  *metrics.Gauge
	keptBudget *metrics.Gauge
}

// MetricPrefix starts the name of every metric the daemon exports.
const MetricPrefix = "svmgo_"

// exported is one metric family as /metrics writes it.
type exported struct {
	name, help, typ string
	write           func(w io.Writer, name string)
}

func (m *daemonMetrics) counter(name, help string) *metrics.Counter {
	c := &metrics.Counter{}
	m.list = append(m.list, exported{MetricPrefix + name, help, "counter", func(w io.Writer, n string) {
		fmt.Fprintf(w, "%s %d\n", n, c.Get())
	}})
	return c
}

func (m *daemonMetrics) gauge(name, help string) *metrics.Gauge {
	g := &metrics.Gauge{}
	m.list = append(m.list, exported{MetricPrefix + name, help, "gauge", func(w io.Writer, n string) {
		fmt.Fprintf(w, "%s %s\n", n, strconv.FormatFloat(g.Get(), 'g', -1, 64))
	}})
	return g
}

// retrainBuckets are the upper bounds, in seconds, of the retrain
// histogram's buckets: from a warm linear retrain of a few rows (under
// 10 ms) to a cold kernel solve of a large store (minutes).
var retrainBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

func newDaemonMetrics() *daemonMetrics {
	m := &daemonMetrics{}
	bi := buildinfo.Read()
	m.list = append(m.list, exported{MetricPrefix + "build_info",
		"The libsvmgo build the daemon runs: version, commit and Go release, as labels; always 1.", "gauge",
		func(w io.Writer, n string) {
			fmt.Fprintf(w, "%s{version=%q,revision=%q,goversion=%q} 1\n", n, bi.Version, bi.ShortRevision(), bi.GoVersion)
		}})
	m.ingested = m.counter("batches_ingested_total", "Batches whose rows were added to the store and moved to done/.")
	m.rejected = m.counter("batches_rejected_total", "Entries of incoming/ moved to rejected/ with a .reason file.")
	m.special = m.counter("incoming_special_files_total",
		"Entries of incoming/ that were not regular files (links, directories, FIFOs, sockets, devices), moved to rejected/ unread.")
	m.duplicates = m.counter("batches_duplicate_total", "Batches whose content hash the store already held, moved to done/ without adding rows.")
	m.gateRefused = m.counter("models_gate_refused_total", "Retrained models the configured gate refused to publish.")
	m.quantizeRefused = m.counter("models_quantize_refused_total",
		"Retrained models whose quantized form changed the labels of too many of their own support vectors (quantize.CheckFaithful): the float model was published instead.")
	m.samples = m.gauge("samples_stored", "Rows held in the sample store.")
	m.modelVersion = m.gauge("model_version", "Version of the newest published model in models/ (0: none yet).")
	m.modelBits = m.gauge("model_quantized_width", "Code width in bits of the last model this process published: 0 for a float model, else 8 or 16.")
	m.modelBytes = m.gauge("model_file_bytes", "Size in bytes of the last model file this process published (-1: unreadable).")
	m.retrainSeconds = &histogram{bounds: retrainBuckets, counts: make([]atomic.Uint64, len(retrainBuckets)+1)}
	m.list = append(m.list, exported{MetricPrefix + "retrain_duration_seconds",
		"Time a retrain took, training only (warm or cold), in seconds.", "histogram", m.retrainSeconds.write})
	m.warmUpdates = m.gauge("warm_updates_last", "Rows the solver read in the last retrain of a linear model (DCD coordinate updates).")
	m.warmKernelEvals = m.gauge("warm_kernel_evals_last", "Kernel evaluations of the last retrain of a kernel model.")
	m.warmIterations = m.gauge("warm_iterations_last", "Solver iterations of the last retrain.")
	m.coldUpdates = m.gauge("cold_updates_last", "Rows read by the last cold solve of a linear model (Config.ColdEvery).")
	m.coldKernelEvals = m.gauge("cold_kernel_evals_last", "Kernel evaluations of the last cold solve of a kernel model (Config.ColdEvery).")
	m.coldIterations = m.gauge("cold_iterations_last", "Solver iterations of the last cold solve (Config.ColdEvery).")
	m.warmColdRatio = m.gauge("warm_cold_ratio", "Work of the last warm retrain over that of the cold solve of the same rows.")
	m.storeGeneration = m.gauge("store_generation", "Generation of the sample store: the number of commits it has made.")
	m.storageDegraded = m.gauge("storage_degraded", "1 while a storage fault (full disk, unwritable root) lasts, else 0.")
	m.storageFailures = m.counter("storage_failures_total", "Passes a storage fault failed, retries included.")
	m.training = m.gauge("training_in_progress", "1 while a retrain runs, else 0.")
	m.trainingStart = m.gauge("training_start_time_seconds",
		"Unix time at which the running retrain started, or the last one if none runs (0: none yet).")
	m.batchesForgotten = m.counter("batches_forgotten_total", "Batches a forget request removed, each counted once.")
	m.rowsForgotten = m.counter("rows_forgotten_total", "Rows of forgotten batches still stored when they were forgotten.")
	m.rowsExpired = m.counter("rows_expired_total",
		"Rows the maximum age removed, and the window when it was made smaller across a restart.")
	m.stuck = m.gauge("incoming_stuck", "Entries of incoming/ the last pass could not move out (skipped while the rest flow).")
	m.trainFailed = m.counter("batches_train_failed_total",
		"Batches rejected because training with them failed (part of batches_rejected_total).")
	m.keptBytes = m.gauge("kernel_columns_kept_bytes",
		"Bytes of support vectors' kernel columns the trainer keeps between retrains (svm-train option -M), after the last retrain.")
	m.keptBudget = m.gauge("kernel_columns_kept_budget_bytes",
		"The byte budget of the kernel columns kept between retrains (-M in MiB; 0: none kept).")
	return m
}

// histogram is a Prometheus histogram of fixed bucket bounds: counts[i]
// counts the observations in (bounds[i-1], bounds[i]], the last one those
// above every bound. Update is safe for concurrent use.
type histogram struct {
	bounds []float64
	counts []atomic.Uint64
	mu     sync.Mutex // sum's updates
	sum    float64
}

// Update records the observation v.
func (h *histogram) Update(v float64) {
	i, _ := slices.BinarySearch(h.bounds, v)
	h.counts[i].Add(1)
	h.mu.Lock()
	h.sum += v
	h.mu.Unlock()
}

// write writes the cumulative buckets, the sum and the count.
func (h *histogram) write(w io.Writer, name string) {
	var cum uint64
	for i, b := range h.bounds {
		cum += h.counts[i].Load()
		fmt.Fprintf(w, "%s_bucket{le=%q} %d\n", name, strconv.FormatFloat(b, 'g', -1, 64), cum)
	}
	cum += h.counts[len(h.bounds)].Load()
	h.mu.Lock()
	sum := h.sum
	h.mu.Unlock()
	fmt.Fprintf(w, "%s_bucket{le=\"+Inf\"} %d\n%s_sum %s\n%s_count %d\n", name, cum, name,
		strconv.FormatFloat(sum, 'g', -1, 64), name, cum)
}

// WriteMetrics writes the daemon's metrics in Prometheus's text format. It is
// safe to call from any goroutine.
func (d *Daemon) WriteMetrics(w io.Writer) {
	for _, e := range d.metrics.list {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", e.name, e.help, e.name, e.typ)
		e.write(w, e.name)
	}
}

// Handler serves GET /healthz, /livez, /readyz and /metrics
// (WriteMetrics). /healthz answers 200 "ok" while Run is serving; 503
// "degraded: ..." with the storage fault while one lasts (Run keeps
// running and retrying: a restart would not help, so a supervisor should
// alert on it rather than restart); 503 "not serving" before Run and after
// it returns. /livez answers 200 "alive" whenever the process answers at
// all, degraded or not (a liveness probe restarts only a hung process).
// /readyz answers 200 "ready" once a model is there to serve (one in
// models/ at start, or the first this daemon published) while Run is
// serving, 503 "no model yet" or "not serving" otherwise. It is safe to
// call from any goroutine.
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
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "alive\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		switch {
		case !d.serving.Load():
			http.Error(w, "not serving", http.StatusServiceUnavailable)
		case !d.hasModel.Load():
			http.Error(w, "no model yet", http.StatusServiceUnavailable)
		default:
			io.WriteString(w, "ready\n")
		}
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
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
