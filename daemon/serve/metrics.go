package serve

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/libsvmgo/libsvmgo/daemon/buildinfo"
)

// latencyBuckets are the upper bounds, in seconds, of the request latency
// histograms: from a single-row call on loopback (tens of microseconds)
// to a large batch on a kernel model (seconds).
var latencyBuckets = [...]float64{25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 1, 2.5, 10}

// requestKey labels a request count. model is "" for a name the
// repository does not hold (so that a client cannot grow the label set),
// version "" when none was resolved.
type requestKey struct {
	model, version, protocol, status string
}

// latencyKey labels a latency histogram.
type latencyKey struct {
	model, protocol string
}

// latency is one histogram: counts[i] counts the observations in
// (bounds[i-1], bounds[i]], the last one those above every bound; sum in
// nanoseconds.
type latency struct {
	counts [len(latencyBuckets) + 1]atomic.Uint64
	sumNS  atomic.Uint64
}

// metrics are the server's figures, in Prometheus's text format on
// /metrics. Counting a request allocates nothing once its label set has
// been seen.
type metrics struct {
	repo *Repository

	mu       sync.RWMutex
	requests map[requestKey]*atomic.Uint64
	latency  map[latencyKey]*latency
	swaps    map[string]*atomic.Uint64
	failed   map[string]*atomic.Uint64

	inFlight atomic.Int64
}

func newMetrics() *metrics {
	return &metrics{
		requests: map[requestKey]*atomic.Uint64{},
		latency:  map[latencyKey]*latency{},
		swaps:    map[string]*atomic.Uint64{},
		failed:   map[string]*atomic.Uint64{},
	}
}

// entry returns m[k], adding a zero value the first time k is seen.
func entry[K comparable, V any](mu *sync.RWMutex, m map[K]*V, k K) *V {
	mu.RLock()
	v := m[k]
	mu.RUnlock()
	if v != nil {
		return v
	}
	mu.Lock()
	defer mu.Unlock()
	if v = m[k]; v == nil {
		v = new(V)
		m[k] = v
	}
	return v
}

// observe counts one request and its latency in seconds.
func (m *metrics) observe(model, version, protocol, status string, seconds float64) {
	entry(&m.mu, m.requests, requestKey{model, version, protocol, status}).Add(1)
	h := entry(&m.mu, m.latency, latencyKey{model, protocol})
	i, _ := slices.BinarySearch(latencyBuckets[:], seconds)
	h.counts[i].Add(1)
	h.sumNS.Add(uint64(seconds * 1e9))
}

func (m *metrics) swapped(model string)    { entry(&m.mu, m.swaps, model).Add(1) }
func (m *metrics) loadFailed(model string) { entry(&m.mu, m.failed, model).Add(1) }

// write writes every figure in Prometheus's text exposition format.
func (m *metrics) write(w io.Writer) {
	family := func(name, typ, help string) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	bi := buildinfo.Read()
	family("svmgo_build_info", "gauge", "The libsvmgo build the server runs: version, commit and Go release, as labels; always 1.")
	fmt.Fprintf(w, "svmgo_build_info{version=%q,revision=%q,goversion=%q} 1\n", bi.Version, bi.ShortRevision(), bi.GoVersion)

	m.mu.RLock()
	reqs := slices.SortedFunc(maps.Keys(m.requests), func(a, b requestKey) int {
		return cmp.Or(cmp.Compare(a.model, b.model), cmp.Compare(a.version, b.version),
			cmp.Compare(a.protocol, b.protocol), cmp.Compare(a.status, b.status))
	})
	lats := slices.SortedFunc(maps.Keys(m.latency), func(a, b latencyKey) int {
		return cmp.Or(cmp.Compare(a.model, b.model), cmp.Compare(a.protocol, b.protocol))
	})
	m.mu.RUnlock()

	family("svmgo_serve_requests_total", "counter",
		"Inference requests answered, by model, version, protocol (rest, grpc) and status (the HTTP status or gRPC code); model is empty for a name not served.")
	for _, k := range reqs {
		fmt.Fprintf(w, "svmgo_serve_requests_total{model=%q,version=%q,protocol=%q,status=%q} %d\n",
			k.model, k.version, k.protocol, k.status, entry(&m.mu, m.requests, k).Load())
	}
	family("svmgo_serve_request_duration_seconds", "histogram",
		"Time from a request's arrival to its answer, by model and protocol, in seconds.")
	for _, k := range lats {
		h := entry(&m.mu, m.latency, k)
		var cum uint64
		for i, b := range latencyBuckets {
			cum += h.counts[i].Load()
			fmt.Fprintf(w, "svmgo_serve_request_duration_seconds_bucket{model=%q,protocol=%q,le=%q} %d\n",
				k.model, k.protocol, strconv.FormatFloat(b, 'g', -1, 64), cum)
		}
		cum += h.counts[len(latencyBuckets)].Load()
		fmt.Fprintf(w, "svmgo_serve_request_duration_seconds_bucket{model=%q,protocol=%q,le=\"+Inf\"} %d\n", k.model, k.protocol, cum)
		fmt.Fprintf(w, "svmgo_serve_request_duration_seconds_sum{model=%q,protocol=%q} %s\n", k.model, k.protocol,
			strconv.FormatFloat(float64(h.sumNS.Load())/1e9, 'g', -1, 64))
		fmt.Fprintf(w, "svmgo_serve_request_duration_seconds_count{model=%q,protocol=%q} %d\n", k.model, k.protocol, cum)
	}
	m.writeByModel(w, family, "svmgo_serve_swaps_total", "Versions swapped in after a model's first, by model.", m.swaps)
	m.writeByModel(w, family, "svmgo_serve_load_failures_total",
		"Attempts to load a version that failed (corrupt, truncated or unreadable file), by model; the version is skipped and the current one keeps serving.", m.failed)

	names := m.repo.Names()
	family("svmgo_serve_models", "gauge", "Models in the repository.")
	fmt.Fprintf(w, "svmgo_serve_models %d\n", len(names))
	family("svmgo_serve_versions", "gauge", "Versions served, by model (as its version policy selects them).")
	for _, n := range names {
		if md := m.repo.model(n); md != nil {
			fmt.Fprintf(w, "svmgo_serve_versions{model=%q} %d\n", n, len(md.versions().list))
		}
	}
	family("svmgo_serve_newest_version", "gauge", "The newest version served, by model (0: none yet).")
	for _, n := range names {
		if md := m.repo.model(n); md != nil {
			var newest uint64
			if vs := md.versions().list; len(vs) > 0 {
				newest = vs[len(vs)-1].Version
			}
			fmt.Fprintf(w, "svmgo_serve_newest_version{model=%q} %d\n", n, newest)
		}
	}
	family("svmgo_serve_in_flight", "gauge", "Inference requests being answered now.")
	fmt.Fprintf(w, "svmgo_serve_in_flight %d\n", m.inFlight.Load())
}

// writeByModel writes a counter family labelled by model.
func (m *metrics) writeByModel(w io.Writer, family func(name, typ, help string), name, help string, byModel map[string]*atomic.Uint64) {
	family(name, "counter", help)
	m.mu.RLock()
	keys := slices.Sorted(maps.Keys(byModel))
	m.mu.RUnlock()
	for _, k := range keys {
		fmt.Fprintf(w, "%s{model=%q} %d\n", name, k, entry(&m.mu, byModel, k).Load())
	}
}
