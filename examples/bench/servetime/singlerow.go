package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// Clients in processes of their own: with -client-procs, the single-row
// measurements with more than one client run each client in a process of
// this program (-client-child), as separate programs calling a sidecar
// would, instead of goroutines of this process sharing its Go scheduler.
// Each child runs one client of the same requests from a common start time
// for the same time, and writes its latencies and its own schedstat.
var (
	clientProcs = flag.Bool("client-procs", false, "run each of several single-row clients in a process of its own (a Go process with GOMAXPROCS 1, as a single-threaded client program), not as goroutines of this one")
	clientChild = flag.String("client-child", "", "internal: run one single-row client of this protocol, from -client-start for -seconds, against -client-http / -client-grpc, and print its latencies")
	clientStart = flag.Int64("client-start", 0, "internal: a child client's start, Unix nanoseconds")
	serverSlice = flag.Duration("server-slice", 0, "diagnosis: set the Linux scheduler's time slice of svmgo serve's threads (sched_setattr; an EEVDF custom slice, Linux 6.12+) to this, e.g. 100us")
	clientSlice = flag.Duration("client-slice", 0, "diagnosis: set the Linux scheduler's time slice of this process's threads (the clients', and each child client's) to this, as -server-slice does the server's")
	clientRate  = flag.Float64("client-rate", 0, "single-row requests a second each client sends at most, spaced evenly (the clients' phases spread over the interval); 0: back to back, each as soon as the last is answered")
	clientPhase = flag.Duration("client-phase", 0, "internal: a child client's delay of its first request")
	clientHTTP  = flag.String("client-http", "", "internal: a child client's REST address")
	clientGRPC  = flag.String("client-grpc", "", "internal: a child client's gRPC address")
)

// childStats sums the schedstat figures the child clients of the last
// singleProcs reported (threadStats's), for measure.
type childStats struct {
	run, wait time.Duration
	blocks    int64
}

var children childStats

// singleProcs is single with each of the clients in a child process.
func (b *bench) singleProcs(proto string, clients int, d time.Duration) ([]time.Duration, float64) {
	startAt := time.Now().Add(300 * time.Millisecond) // after every child has started
	cmds := make([]*exec.Cmd, clients)
	outs := make([]*strings.Builder, clients)
	addr := func(a, name string) string {
		if x, ok := b.addr[name]; ok {
			return x
		}
		return a
	}
	for c := range clients {
		cmd := exec.Command(os.Args[0], "-client-child", proto, "-client-start", strconv.FormatInt(startAt.UnixNano(), 10),
			"-client-slice", clientSlice.String(), "-client-rate", strconv.FormatFloat(*clientRate, 'g', -1, 64), "-client-phase", newPacer(c, clients).phase.String(),
			"-seconds", strconv.FormatFloat(d.Seconds(), 'f', -1, 64),
			"-client-http", addr(b.httpAddr, proto), "-client-grpc", addr(b.grpcAddr, proto), flag.Arg(0))
		cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
		outs[c] = new(strings.Builder)
		cmd.Stdout, cmd.Stderr = outs[c], os.Stderr
		check(cmd.Start())
		cmds[c] = cmd
	}
	var all []time.Duration
	for c, cmd := range cmds {
		check(cmd.Wait())
		sc := bufio.NewScanner(strings.NewReader(outs[c].String()))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 4 && f[0] == "schedstat" {
				r, _ := strconv.ParseInt(f[1], 10, 64)
				w, _ := strconv.ParseInt(f[2], 10, 64)
				k, _ := strconv.ParseInt(f[3], 10, 64)
				children.run, children.wait, children.blocks = children.run+time.Duration(r), children.wait+time.Duration(w), children.blocks+k
				continue
			}
			for _, v := range f {
				ns, err := strconv.ParseInt(v, 10, 64)
				check(err)
				all = append(all, time.Duration(ns))
			}
		}
	}
	slices.Sort(all)
	return all, float64(len(all)) / d.Seconds()
}

// pacer spaces one client's requests -client-rate a second apart.
type pacer struct {
	every, phase time.Duration
	next         time.Time
}

// newPacer returns client c of n's pacer: its first request is c/n of
// an interval late (or -client-phase late, in a child), so that the
// clients do not send in bursts.
func newPacer(c, n int) *pacer {
	p := &pacer{}
	if *clientRate > 0 {
		p.every = time.Duration(float64(time.Second) / *clientRate)
		p.phase = p.every * time.Duration(c) / time.Duration(n)
		if *clientChild != "" {
			p.phase = *clientPhase
		}
	}
	return p
}

// wait sleeps until the next request is due (at once when it is late)
// and returns true.
func (p *pacer) wait() bool {
	if p.every == 0 {
		return true
	}
	if p.next.IsZero() {
		p.next = time.Now().Add(p.phase)
	} else {
		p.next = p.next.Add(p.every)
	}
	time.Sleep(time.Until(p.next))
	return true
}

// clientChildMain runs one client (-client-child) and prints its
// latencies in nanoseconds, then "schedstat RUN WAIT BLOCKS" of its own
// process.
func clientChildMain(model core.Model, rows []float32, d time.Duration) {
	nf := model.Info().NumFeatures
	b := &bench{model: model, bigRow: -1, httpAddr: *clientHTTP, grpcAddr: *clientGRPC, nf: nf, rows: rows, nrows: len(rows) / nf,
		http: &http.Client{}}
	conn, err := grpc.NewClient(*clientGRPC, grpc.WithTransportCredentials(insecure.NewCredentials()))
	check(err)
	defer conn.Close()
	b.grpc = inferencepb.NewGRPCInferenceServiceClient(conn)
	b.singleBodies()
	time.Sleep(time.Until(time.Unix(0, *clientStart)))
	run0, wait0, blocks0 := threadStats(os.Getpid())
	lat, _ := b.single(*clientChild, 1, d)
	run1, wait1, blocks1 := threadStats(os.Getpid())
	w := bufio.NewWriter(os.Stdout)
	for i, l := range lat {
		sep := byte(' ')
		if i%16 == 15 {
			sep = '\n'
		}
		fmt.Fprintf(w, "%d%c", l.Nanoseconds(), sep)
	}
	fmt.Fprintf(w, "\nschedstat %d %d %d\n", run1-run0, wait1-wait0, blocks1-blocks0)
	check(w.Flush())
}

// serverHistogram returns the cumulative bucket counts of svmgo serve's
// request duration histogram of model m and protocol ("rest" or "grpc")
// from /metrics, by upper bound in seconds (+Inf last).
func (b *bench) serverHistogram(protocol string) (bounds []float64, counts []float64) {
	resp, err := b.http.Get("http://" + b.httpAddr + "/metrics")
	check(err)
	defer resp.Body.Close()
	prefix := `svmgo_serve_request_duration_seconds_bucket{model="m",protocol="` + protocol + `",le="`
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), prefix)
		if !ok {
			continue
		}
		le, n, ok := strings.Cut(rest, `"} `)
		if !ok {
			continue
		}
		bound, err := strconv.ParseFloat(le, 64) // "+Inf" parses as +Inf
		check(err)
		v, err := strconv.ParseFloat(n, 64)
		check(err)
		bounds, counts = append(bounds, bound), append(counts, v)
	}
	check(sc.Err())
	return bounds, counts
}

// serverTail compares, over the requests between two serverHistogram
// snapshots, the server's own time a request (from its handler's start to
// its answer, before the answer is written) with the clients' latencies
// lat (sorted): the bucket bound holding the server's 99th percentile, in
// µs, and the shares of requests past 1 ms as the server and as the
// clients timed them. A tail the clients see and the server does not is
// time outside the handler: the request waiting to be read, or the answer
// waiting for its client to run.
func serverTail(bounds, before, after []float64, lat []time.Duration) (p99LeUS, serverOver1ms, clientOver1ms float64) {
	if len(before) == 0 { // the model's first requests of this protocol
		before = make([]float64, len(after))
	}
	if len(before) != len(after) || len(after) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	total := after[len(after)-1] - before[len(before)-1]
	p99LeUS = math.Inf(1)
	for i, le := range bounds {
		n := after[i] - before[i]
		if n >= 0.99*total && math.IsInf(p99LeUS, 1) {
			p99LeUS = le * 1e6
		}
		if le == 1e-3 {
			serverOver1ms = (total - n) / total
		}
	}
	over := len(lat) - sort.Search(len(lat), func(i int) bool { return lat[i] > time.Millisecond })
	return p99LeUS, serverOver1ms, float64(over) / float64(len(lat))
}

// unixSockets adds the single-row lean clients over unix sockets beside
// TCP (-unix).
var unixSockets = flag.Bool("unix", false, "also time single-row REST and gRPC (lean clients, 1 client) and the echo floor over unix sockets")

// dial connects to addr: host:port over TCP, or unix:PATH.
func dial(addr string) (net.Conn, error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		return net.Dial("unix", path)
	}
	return net.Dial("tcp", addr)
}

// measureUnix starts a second svmgo serve on repo listening on unix
// sockets in dir, times "restunix" and "grpcleanunix" with measure (one
// client each) and stops it.
func (b *bench) measureUnix(bin, repo, dir string, measure func(proto string, clients int)) {
	h, g := "unix:"+filepath.Join(dir, "h.sock"), "unix:"+filepath.Join(dir, "g.sock")
	srv := start(bin, repo, h, g)
	defer func() { srv.Process.Kill(); srv.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := dial(h); err == nil {
			lc := &leanConn{c: c, r: bufio.NewReader(c)}
			status := lc.roundTrip([]byte("GET /v2/health/ready HTTP/1.1\r\nHost: x\r\n\r\n"))
			c.Close()
			if strings.HasPrefix(status, "HTTP/1.1 200 ") {
				break
			}
		}
		if time.Now().After(deadline) {
			die(fmt.Errorf("%s not ready", h))
		}
		time.Sleep(time.Millisecond)
	}
	server := b.pid
	b.pid, b.addr = srv.Process.Pid, map[string]string{"restunix": h, "grpcleanunix": g}
	defer func() { b.pid, b.addr = server, nil }()
	for _, proto := range []string{"restunix", "grpcleanunix"} {
		measure(proto, 1)
	}
}
