package main

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Several clients as the serving world measures them: one event-driven
// load generator process (one thread) keeping N requests in flight on N
// connections, each sent as soon as its connection's last answer came, as
// Triton's perf_analyzer --concurrency-range N and wrk -c N do. Clients as
// goroutines or as N processes measure the client machinery too: on two
// vCPUs, N runnable client threads wait for a CPU behind each other and the
// server, and that wait is most of their tail (serve_latency.sh's tail
// rows). The generators are standard tools, each the lean client of its
// protocol: "wrk" (REST: wrk -t 1 -c N, the rows' JSON bodies cycled by a
// Lua script; its percentiles as it reports them, which include its
// correction for coordinated omission) and "h2load" (gRPC: nghttp2's h2load
// -t 1 -c N -m 1, the first row's marshalled ModelInferRequest in a gRPC
// frame; each request's time from its --log-file). Both are Debian
// packages (wrk, nghttp2-client).

// loadgen runs the load generator of proto ("wrk" or "h2load") with
// clients connections for d against the server and returns the latencies
// (sorted) and requests per second.
func (b *bench) loadgen(proto string, clients int, d time.Duration) ([]time.Duration, float64) {
	dir, err := os.MkdirTemp("", "servetime-loadgen")
	check(err)
	defer os.RemoveAll(dir)
	secs := strconv.Itoa(max(1, int(math.Round(d.Seconds()))))
	genFor = d
	if base, ok := strings.CutSuffix(proto, "echo"); ok {
		// The generator's own floor: the same requests to the echo server.
		defer func(addr string) { b.httpAddr = addr }(b.httpAddr)
		b.httpAddr, proto = b.addr["echo"], base
	}
	switch proto {
	case "wrk":
		return b.wrk(dir, clients, secs)
	case "h2load":
		return b.h2load(dir, clients, secs, false)
	case "h2loadh1":
		return b.h2load(dir, clients, secs, true)
	}
	die(fmt.Errorf("loadgen: unknown generator %q", proto))
	return nil, 0
}

// wrkScript sends the single-row bodies (one a line of the file given as
// the script's argument) in turn and prints, when done, the requests, the
// failed ones (socket errors and non-2xx answers), the run's length (µs)
// and wrk's latency histogram: a line "µs count" a value seen.
const wrkScript = `
local reqs, i = {}, 0
function init(args)
	for body in io.lines(args[1]) do
		reqs[#reqs + 1] = wrk.format("POST", "/v2/models/m/infer", {["Content-Type"] = "application/json"}, body)
	end
end
function request()
	i = i % #reqs + 1
	return reqs[i]
end
function done(summary, latency, requests)
	local e = summary.errors
	io.write(string.format("wrk requests=%d failed=%d us=%d\n", summary.requests,
		e.connect + e.read + e.write + e.timeout + e.status, summary.duration))
	for j = 1, #latency do
		local v, c = latency(j)
		io.write(string.format("%d %d\n", v, c))
	end
end
`

// wrk times REST with wrk; the latencies are its histogram's, with its
// correction for coordinated omission (wrk adds the requests a stalled
// connection would have sent to its figures, as its --latency table does).
func (b *bench) wrk(dir string, clients int, secs string) ([]time.Duration, float64) {
	script, bodies := filepath.Join(dir, "single.lua"), filepath.Join(dir, "bodies")
	check(os.WriteFile(script, []byte(wrkScript), 0o644))
	var lines []byte
	for _, body := range b.bodies {
		lines = append(append(lines, body...), '\n')
	}
	check(os.WriteFile(bodies, lines, 0o644))
	out := b.runGenerator("wrk", "-t", "1", "-c", strconv.Itoa(clients), "-d", secs, "-s", script,
		"http://"+b.httpAddr+"/", "--", bodies)
	_, hist, ok := strings.Cut(out, "wrk requests=")
	if !ok {
		die(fmt.Errorf("wrk printed no figures:\n%s", out))
	}
	var n, failed, runUS int64
	if _, err := fmt.Sscanf(hist, "%d failed=%d us=%d", &n, &failed, &runUS); err != nil {
		die(fmt.Errorf("wrk's figures %q: %w", hist, err))
	}
	if failed != 0 || n == 0 {
		die(fmt.Errorf("wrk: %d of %d requests failed", failed, n))
	}
	var lat []time.Duration
	sc := bufio.NewScanner(strings.NewReader(hist))
	sc.Scan() // the figures' line
	for sc.Scan() {
		var v, c int64
		if _, err := fmt.Sscanf(sc.Text(), "%d %d", &v, &c); err != nil {
			die(fmt.Errorf("wrk's histogram line %q: %w", sc.Text(), err))
		}
		for range c {
			lat = append(lat, time.Duration(v)*time.Microsecond)
		}
	}
	slices.Sort(lat)
	return lat, float64(n) / (float64(runUS) / 1e6)
}

// h2load times gRPC with h2load: the request is row 0's ModelInferRequest
// in a gRPC frame (h2load posts one body); each request's time is read
// from its log, and every answer must be HTTP 200 (a gRPC error is a 200
// with a grpc-status trailer: the body is checked once beforehand by the
// lean client, which reads the trailers).
func (b *bench) h2load(dir string, clients int, secs string, h1 bool) ([]time.Duration, float64) {
	body, log := filepath.Join(dir, "request"), filepath.Join(dir, "log")
	args := []string{"-t", "1", "-c", strconv.Itoa(clients), "-m", "1", "-D", secs, "--warm-up-time", "200ms", "-d", body, "--log-file", log}
	if h1 {
		check(os.WriteFile(body, b.bodies[0], 0o644))
		args = append(args, "--h1", "-H", "content-type: application/json", "http://"+b.httpAddr+"/v2/models/m/infer")
	} else {
		msg := b.messages[0]
		frame := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
		check(os.WriteFile(body, append(frame, msg...), 0o644))
		g := dialLeanGRPC(b.grpcAddr)
		g.call(msg)
		if out := g.answer().Outputs; len(out) != 1 {
			die(fmt.Errorf("gRPC answer %v", out))
		}
		g.close()
		args = append(args, "-H", "content-type: application/grpc", "-H", "te: trailers",
			"http://"+b.grpcAddr+"/inference.GRPCInferenceService/ModelInfer")
	}
	out := b.runGenerator("h2load", args...)
	f, err := os.Open(log)
	check(err)
	defer f.Close()
	var lat []time.Duration
	var spans [][2]int64
	var first, last int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start (µs since the epoch), HTTP status, µs to the answer's end
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			die(fmt.Errorf("h2load's log line %q", sc.Text()))
		}
		if fields[1] != "200" {
			die(fmt.Errorf("h2load: an answer with HTTP status %s\n%s", fields[1], out))
		}
		start, err1 := strconv.ParseInt(fields[0], 10, 64)
		us, err2 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil {
			die(fmt.Errorf("h2load's log line %q", sc.Text()))
		}
		if first == 0 || start < first {
			first = start
		}
		last = max(last, start+us)
		lat = append(lat, time.Duration(us)*time.Microsecond)
		spans = append(spans, [2]int64{start, start + us})
	}
	check(sc.Err())
	if len(lat) == 0 {
		die(fmt.Errorf("h2load logged no request:\n%s", out))
	}
	slices.Sort(lat)
	overtaken = overtakes(spans)
	return lat, float64(len(lat)) / (float64(last-first) / 1e6)
}

// overtaken holds, after an h2load run, how many requests sent after each
// request were answered before it (sorted): the order a server answers in.
// A first-in first-out server answers none before (0 for every request:
// with N in flight on N connections a request waits for the N-1 sent
// before it); one that lets some connections pass others (a thread that
// loses its CPU while it holds a request, a scheduler that runs the
// latest ready goroutine first) gives a tail of many. Unlike the
// latencies, the count does not grow when the whole machine slows down.
var overtaken []int

// overtakes returns, for each request's [start, end) span, the number of
// requests that started after it and ended before it, sorted.
func overtakes(spans [][2]int64) []int {
	slices.SortFunc(spans, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	ends := make([]int64, len(spans))
	for i, s := range spans {
		ends[i] = s[1]
	}
	slices.Sort(ends)
	// A Fenwick tree over the ends' ranks counts the ends seen so far
	// (the later starts, walking back) that fall before this one's.
	tree := make([]int, len(ends)+1)
	out := make([]int, len(spans))
	for i := len(spans) - 1; i >= 0; i-- {
		r, _ := slices.BinarySearch(ends, spans[i][1])
		for j := r; j > 0; j -= j & -j {
			out[i] += tree[j]
		}
		for j := r + 1; j <= len(ends); j += j & -j {
			tree[j]++
		}
	}
	slices.Sort(out)
	return out
}

// genFor is the length of the generator's run that loadgen starts.
var genFor time.Duration

// runGenerator runs a load generator and returns its output; its CPU
// time, run-queue wait and blocking waits count as the clients'
// (children), and
// -client-slice gives its threads that scheduler slice.
func (b *bench) runGenerator(name string, args ...string) string {
	cmd := exec.Command(name, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	fifoWrap(cmd)
	if err := cmd.Start(); err != nil {
		die(fmt.Errorf("%s (Debian's wrk and nghttp2-client: make bench-deps): %w", name, err))
	}
	if *clientSlice > 0 {
		go applySlice(cmd.Process.Pid, *clientSlice)
	}
	// Its run-queue wait: schedstat read every 50 ms while it runs (the
	// last 50 ms are missed).
	var wait time.Duration
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		for tick := time.NewTicker(50 * time.Millisecond); ; {
			if _, w, _ := threadStats(cmd.Process.Pid); w > 0 {
				wait = w
			}
			select {
			case <-tick.C:
			case <-done:
				tick.Stop()
				return
			}
		}
	}()
	disarm := fifoWatchdog(cmd, genFor)
	err := cmd.Wait()
	disarm()
	close(done)
	<-exited
	if err != nil {
		die(fmt.Errorf("%s: %w\n%s", name, err, out.String()))
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	children.run += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	children.wait += wait
	children.blocks += ru.Nvcsw
	return out.String()
}
