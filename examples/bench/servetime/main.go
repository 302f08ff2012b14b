// Command servetime times svmgo serve over the Open Inference Protocol on
// the model and rows that examples/bench/capi_latency.c used through the
// C ABI, so that examples/bench/serve.sh can put the two side by side.
//
// Usage:
//
//	servetime -bin bin/svmgo [-seconds 2] [-binary=false] [-startup=false] [-port 0] DIR
//
// Its servers listen on loopback ports the system finds free (each bound
// to port 0 and read back, all held until every one is known, then handed
// to the servers), so that runs at once do not meet; -port N uses N on
// instead (REST, gRPC, the startup server, a second server's two, then the
// floors' from N+10). For an A/B of two
// binaries, -ab BIN serves the same model with BIN too and sends each
// batch request to both servers, alternated, with -batch-requests
// requests (default 21) a median: its figures get the suffix _b.
//
// DIR holds capi_latency's outputs: model.svmgo and rows.f32 (little-endian
// float32, row-major, NumFeatures a row). servetime starts bin serve on
// loopback ports with a repository holding that model and measures, each
// request timed alone with the monotonic clock, clients in this process:
//
//   - single-row inference, label only, over REST (JSON, FP32, keep-alive;
//     the input's members in the protocol's order, name, shape, datatype,
//     data, as Triton's and KServe's clients write them) and gRPC (typed
//     fp32_contents), with 1 and with 8 concurrent clients, for -seconds
//     each: p50 and p99 per request, requests per second, and the server
//     process's CPU time per request (the sum over its threads of
//     /proc/PID/task/TID/schedstat: the server's own work, nearly free of
//     the noise other processes add to the latency) and this process's
//     (the client's); and what weighs the tail: the mean time a request
//     took past the median, next to the time the server's and the
//     client's threads waited on a run queue for a CPU (the second field of
//     the same schedstat files), a request. Each request is timed from its first byte written to
//     its answer's last byte read; the answer is checked after the clock
//     stops. REST ("rest") is timed with a lean HTTP/1.1 client: one kept-
//     alive connection a client, the request's bytes written in one call,
//     the answer read by its Content-Length, as curl or a C client does;
//     "resthttp" is the same requests through Go's net/http client, whose
//     connection goroutines add two goroutine hops and their wake-ups to
//     each round trip (the client's cost, not the server's). gRPC likewise:
//     "grpc" with grpc-go's client (one connection shared by the clients;
//     a writer and a reader goroutine), "grpclean" with a lean client of
//     this program's own (grpclean.go: a connection a client, a call's
//     HEADERS and DATA frames written in one call, the answer read by the
//     calling goroutine, as a C++ synchronous client does);
//   - the floors, with one client, in a process of this program's own
//     (-floor) on loopback: "echo", a TCP server that reads each request
//     by its Content-Length and writes svmgo serve's own answer bytes back
//     (the machine, the kernel's loopback and the Go runtime: no HTTP
//     library, no work); "nethttp", a net/http server with svmgo serve's
//     timeouts answering the same bytes (net/http's own cost); "grpcfloor",
//     a grpc-go server answering ModelInfer with a fixed label through the
//     generated code (grpc-go's own cost), timed with both gRPC clients
//     ("grpcfloor", "grpcleanfloor"); the others with the lean client;
//   - a 1000-row batch over REST (JSON, and the binary tensor data
//     extension unless -binary=false, for a server without it: with Go's
//     net/http client, "restbin", and with the lean client, the whole
//     request written in one call and the labels checked against the
//     in-process ones, "restbinlean") and over gRPC (raw_input_contents,
//     with grpc-go's client, "grpc", and with the lean client, its DATA in
//     16 KB frames written in one call with the HEADERS, "grpclean"):
//     the median of 21 requests, as rows per second, each after the same
//     rows predicted in this process through the Go API (the floor, timed
//     alongside so that both share the load) and, with -capi, through the
//     C ABI by a capi_latency --child process, and the server's CPU time a
//     request; and "echobin", the binary request's bytes sent by the lean
//     client to the echo floor (moving the rows over loopback, no work);
//   - single-row gRPC p99 with one client while a new version of the model
//     is published every 20 ms by a publisher process of its own (older
//     versions removed as svmgo watch --keep 4 does), timed from the
//     first version it published being served (its process's start is
//     not a swap), next to the same client without swaps, alternating
//     -swap-rounds rounds of each (the medians are reported; with the
//     server's threads' run-queue wait a request and its own p99's
//     histogram bucket, each way), and the
//     server's CPU time and its threads' blocking waits a swap (with the
//     publisher alone, no requests, for -seconds);
//   - startup to ready with a 10 MB kernel model (trained here on random
//     rows with a large gamma, so every row is a support vector): from
//     starting the process to the first 200 of /v2/health/ready, polled
//     every 200 µs, and to the answer of a first single-row inference sent
//     then (the server warms a model's prediction tables after it is
//     ready, when no older version serves meanwhile), median of 5 starts.
//
// For the single-row latency and its tail (singlerow.go; serve_latency.sh
// runs them): each single-row figure also gives the voluntary context
// switches (blocking waits, so wake-ups) a request of the server's and the
// client's threads, and for svmgo serve its own p99 (its /metrics
// histogram's bucket) and the shares of requests past 1 ms as the server
// and as the clients timed them; -clients picks the client counts,
// -client-procs runs several clients as processes of their own,
// -client-rate paces them, -unix adds the lean clients and the echo floor
// over unix sockets, -server-args, -server-env and -server-slice start
// svmgo serve with other flags, environment or scheduler slice, and
// -client-slice gives the clients' threads a scheduler slice.
//
// Several clients as the serving world measures them (loadgen.go): "wrk"
// and "h2loadh1" (REST) and "h2load" (gRPC) time the single row with one
// event-driven load generator process, Debian's wrk or nghttp2's h2load,
// keeping the client count of requests in flight on as many connections;
// h2load's also give how many requests sent after a request were answered
// before it (p99: "overtaken", 0 when answered in the order sent), and
// "h2loadh1echo" and "wrkecho" time the same generators against the echo
// floor (the method's own tail: no server work). Each gives the server's
// involuntary context switches a request ("server_preempted"). -fifo N
// runs the server, the floors and the generators under SCHED_FIFO
// (fifo.go), so that other processes on a shared machine do not preempt
// them.
//
// It checks that every answer is 200 / OK with a label and prints one line
// of key=value fields (see serve.sh).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	protoapi "google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/serve"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

func main() {
	bin := flag.String("bin", "bin/svmgo", "the svmgo binary")
	seconds := flag.Float64("seconds", 2, "seconds of each single-row measurement")
	binaryData := flag.Bool("binary", true, "time the REST batch with the binary tensor data extension too")
	startup := flag.Bool("startup", true, "time startup to ready with a 10 MB model")
	swapRounds := flag.Int("swap-rounds", 5, "rounds of p99 without and with swaps (the medians are reported)")
	publish := flag.String("publish", "", "internal: publish this model file into the directory argument every 20 ms until interrupted")
	flag.DurationVar(&publishEvery, "publish-every", publishEvery, "the publisher's interval while swapping (20ms: 50 versions a second; 120ms: the acceptance soak's 500 versions in 60 s)")
	unserved := flag.Bool("publish-unserved", false, "diagnosis: the publisher publishes into a directory the server does not follow (its own cost, without swaps)")
	serverLog := flag.String("server-log", "", "append the server's standard error (its log) to this file")
	only := flag.String("only", "", "diagnosis: time only these single-row measurements, 1 client, batches and the p99 with and without swaps (comma-separated, e.g. grpc,grpclean,grpcfloor,restbin_batch,swap), and stop")
	flag.Func("server-args", "extra arguments of svmgo serve, space-separated (e.g. --busy-poll=50us)", func(v string) error {
		serverArgs = strings.Fields(v)
		return nil
	})
	flag.Func("server-env", "extra environment of svmgo serve, space-separated K=V (e.g. GOMAXPROCS=1)", func(v string) error {
		serverEnv = strings.Fields(v)
		return nil
	})
	clientList := flag.String("clients", "1,8", "client counts of the single-row measurements (with -only: 1 unless given)")
	flag.StringVar(&capiChild, "capi", "", "time each batch request's rows through the C ABI too, with this capi_latency (--child DIR), just before the request")
	big := flag.String("write-big", "", "write a 3 MB RBF model and a link to the rows of DIR into this directory (serve.sh's large model), and stop")
	floor := flag.String("floor", "", "internal: serve the floors (echo, nethttp, grpcfloor) on these three ports (comma-separated), answering REST with the file given as argument")
	abBin := flag.String("ab", "", "diagnosis: also serve with this binary (on ports +3, +4) and send each batch request to both servers, alternated; its figures get the suffix _b")
	flag.IntVar(&batchRequests, "batch-requests", batchRequests, "requests a batch figure is the median of")
	port := flag.Int("port", 0, "the first of the loopback ports used: the server's REST (this), gRPC (+1) and startup (+2) ports, the floors' (+10..+12); 0: ports found free")
	flag.Parse()
	if *clientSlice > 0 {
		go applySlice(os.Getpid(), *clientSlice)
	}
	if *publish != "" {
		publishLoop(*publish, flag.Arg(0))
		return
	}
	if *big != "" {
		writeBig(*big, flag.Arg(0))
		return
	}
	if *floor != "" {
		serveFloors(*floor, flag.Arg(0))
		return
	}
	ports := loopbackPorts(*port, 13)
	addr := func(off int) string { return "127.0.0.1:" + strconv.Itoa(ports[off]) }
	if *serverLog != "" {
		f, err := os.OpenFile(*serverLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		check(err)
		defer f.Close()
		serverStderr = f
	}
	if flag.NArg() != 1 {
		die(fmt.Errorf("usage: servetime -bin BIN DIR"))
	}
	dir := flag.Arg(0)
	model, rows := readInputs(dir)
	nf := model.Info().NumFeatures
	nrows := len(rows) / nf
	if *clientChild != "" {
		clientChildMain(model, rows, time.Duration(*seconds*float64(time.Second)))
		return
	}

	tmp, err := os.MkdirTemp("", "servetime")
	check(err)
	defer os.RemoveAll(tmp)
	modelDir := filepath.Join(tmp, "repo", "m")
	check(os.MkdirAll(modelDir, 0o755))
	encoded, err := os.ReadFile(filepath.Join(dir, "model.svmgo"))
	check(err)
	_, err = modeldir.PublishEncoded(fileio.OS, modelDir, encoded, 0)
	check(err)
	srv := start(*bin, filepath.Join(tmp, "repo"), addr(0), addr(1))
	defer srv.Process.Kill()
	waitReady(addr(0), 10*time.Second)

	b := &bench{dir: dir, model: model, bigRow: -1, pid: srv.Process.Pid, httpAddr: addr(0), grpcAddr: addr(1), nf: nf, rows: rows, nrows: nrows,
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	conn, err := grpc.NewClient(addr(1), grpc.WithTransportCredentials(insecure.NewCredentials()))
	check(err)
	defer conn.Close()
	b.grpc = inferencepb.NewGRPCInferenceServiceClient(conn)
	b.singleBodies()
	var ab *bench // the -ab server, nil without one
	if *abBin != "" {
		abSrv := start(*abBin, filepath.Join(tmp, "repo"), addr(3), addr(4))
		defer abSrv.Process.Kill()
		waitReady(addr(3), 10*time.Second)
		abConn, err := grpc.NewClient(addr(4), grpc.WithTransportCredentials(insecure.NewCredentials()))
		check(err)
		defer abConn.Close()
		ab = &bench{model: model, bigRow: -1, pid: abSrv.Process.Pid, httpAddr: addr(3), grpcAddr: addr(4), nf: nf, rows: rows, nrows: nrows,
			http: b.http, grpc: inferencepb.NewGRPCInferenceServiceClient(abConn), messages: b.messages}
	}

	d := time.Duration(*seconds * float64(time.Second))
	out := []string{fmt.Sprintf("features=%d rows=%d", nf, nrows)}
	measure := func(proto string, clients int) {
		cpu0, wait0, blocks0 := threadStats(b.pid)
		pre0 := preemptions(b.pid)
		self0, selfWait0, selfBlocks0 := threadStats(os.Getpid())
		// svmgo serve's own time a request, from its histogram.
		protocol := map[string]string{"rest": "rest", "resthttp": "rest", "wrk": "rest", "h2loadh1": "rest", "grpc": "grpc", "grpclean": "grpc", "h2load": "grpc"}[proto]
		var hist0 []float64
		if protocol != "" {
			_, hist0 = b.serverHistogram(protocol)
		}
		lat, rps := b.single(proto, clients, d)
		cpu1, wait1, blocks1 := threadStats(b.pid)
		pre1 := preemptions(b.pid)
		self1, selfWait1, selfBlocks1 := threadStats(os.Getpid())
		// Clients in processes of their own (-client-procs) add theirs.
		self1, selfWait1, selfBlocks1 = self1+children.run, selfWait1+children.wait, selfBlocks1+children.blocks
		children = childStats{}
		n := float64(len(lat))
		// excess: the mean time a request took past the median, the tail's
		// weight, next to the time the server's and the client's threads
		// waited for a CPU a request (another process held it).
		p50 := quantile(lat, 0.5)
		var excess time.Duration
		for _, l := range lat {
			excess += max(0, l-p50)
		}
		out = append(out, fmt.Sprintf("%s_%d_p50_us=%.1f %s_%d_p99_us=%.1f %s_%d_rps=%.0f %s_%d_server_cpu_us=%.1f %s_%d_client_cpu_us=%.1f "+
			"%s_%d_excess_us=%.1f %s_%d_server_runq_us=%.1f %s_%d_client_runq_us=%.1f",
			proto, clients, us(p50), proto, clients, us(quantile(lat, 0.99)), proto, clients, rps,
			proto, clients, us(cpu1-cpu0)/n, proto, clients, us(self1-self0)/n,
			proto, clients, us(excess)/n, proto, clients, us(wait1-wait0)/n, proto, clients, us(selfWait1-selfWait0)/n)+
			fmt.Sprintf(" %s_%d_server_blocks=%.2f %s_%d_client_blocks=%.2f %s_%d_server_preempted=%.3f", proto, clients, float64(blocks1-blocks0)/n,
				proto, clients, float64(selfBlocks1-selfBlocks0)/n, proto, clients, float64(pre1-pre0)/n))
		if overtaken != nil {
			out = append(out, fmt.Sprintf("%s_%d_overtaken_p50=%d %s_%d_overtaken_p99=%d", proto, clients, overtaken[len(overtaken)/2], proto, clients, overtaken[len(overtaken)*99/100]))
			overtaken = nil
		}
		if protocol != "" {
			bounds, hist1 := b.serverHistogram(protocol)
			le, so, co := serverTail(bounds, hist0, hist1, lat)
			out = append(out, fmt.Sprintf("%s_%d_server_p99_le_us=%.0f %s_%d_server_over_1ms=%.4f %s_%d_client_over_1ms=%.4f", proto, clients, le, proto, clients, so, proto, clients, co))
		}
	}
	want := func(proto string) bool { return *only == "" || slices.Contains(strings.Split(*only, ","), proto) }
	clientCounts := []int{1}
	if *only == "" || isSet("clients") {
		clientCounts = nil
		for _, c := range strings.Split(*clientList, ",") {
			n, err := strconv.Atoi(c)
			check(err)
			clientCounts = append(clientCounts, n)
		}
	}
	for _, proto := range []string{"rest", "resthttp", "wrk", "h2loadh1", "grpc", "grpclean", "h2load"} {
		for _, clients := range clientCounts {
			if want(proto) {
				measure(proto, clients)
			}
		}
	}
	// The floors: svmgo serve's answer to row 0, as bytes, served back by
	// a floor process; each timed like the server, with one client.
	answer := filepath.Join(tmp, "answer")
	check(os.WriteFile(answer, b.leanAnswer(), 0o644))
	fl := exec.Command(os.Args[0], "-floor", fmt.Sprintf("%d,%d,%d", ports[10], ports[11], ports[12]), answer)
	fl.Stderr = os.Stderr
	fifoWrap(fl)
	check(fl.Start())
	servers = append(servers, fl.Process)
	server := b.pid
	b.pid = fl.Process.Pid
	b.addr = map[string]string{"echo": addr(10), "nethttp": addr(11), "grpcleanfloor": addr(12), "echounix": "unix:" + answer + ".sock"}
	waitListening(addr(12), 10*time.Second)
	fconn, err := grpc.NewClient(addr(12), grpc.WithTransportCredentials(insecure.NewCredentials()))
	check(err)
	b.grpcFloor = inferencepb.NewGRPCInferenceServiceClient(fconn)
	for _, proto := range []string{"echo", "nethttp", "grpcfloor", "grpcleanfloor", "echounix"} {
		if want(proto) && (proto != "echounix" || *unixSockets) {
			measure(proto, 1)
		}
	}
	// The generators' floor: each against the echo server, with the
	// clients' counts of requests in flight.
	for _, proto := range []string{"h2loadh1echo", "wrkecho"} {
		for _, clients := range clientCounts {
			if want(proto) {
				measure(proto, clients)
			}
		}
	}
	if *binaryData && want("echobin_batch") {
		// The binary batch's floor: its bytes over loopback to the echo
		// server, which reads them by Content-Length and answers.
		served, local, viaC := b.batch("echobin", 1000)
		out = append(out, fmt.Sprintf("echobin_batch_rows_per_s=%.0f echobin_batch_inprocess_rows_per_s=%.0f echobin_batch_capi_rows_per_s=%.0f", served[0], local, viaC))
	}
	fconn.Close()
	fl.Process.Kill()
	fl.Wait()
	if *unixSockets {
		b.measureUnix(*bin, filepath.Join(tmp, "repo"), tmp, measure)
	}
	b.pid, b.addr = server, nil
	batches := []string{"rest", "grpc", "grpclean"}
	if *binaryData {
		batches = append(batches, "restbin", "restbinlean")
	}
	for _, proto := range batches {
		if !want(proto + "_batch") {
			continue
		}
		var others []*bench
		if ab != nil {
			others = append(others, ab)
		}
		cpu0 := b.serverCPU()
		abCPU0 := ab.serverCPU()
		served, local, viaC := b.batch(proto, 1000, others...)
		out = append(out, fmt.Sprintf("%s_batch_rows_per_s=%.0f %s_batch_inprocess_rows_per_s=%.0f %s_batch_capi_rows_per_s=%.0f %s_batch_server_cpu_us=%.0f",
			proto, served[0], proto, local, proto, viaC, proto, us(b.serverCPU()-cpu0)/float64(batchRequests)))
		if ab != nil {
			out = append(out, fmt.Sprintf("%s_batch_rows_per_s_b=%.0f %s_batch_server_cpu_us_b=%.0f",
				proto, served[1], proto, us(ab.serverCPU()-abCPU0)/float64(batchRequests)))
		}
	}
	if *only != "" && !want("swap") {
		fmt.Println(strings.Join(out, " "))
		return
	}
	// window times one client for d/2 and returns its p99, the time the
	// server's threads waited for a CPU a request (schedstat), and the
	// bucket of the server's own histogram that holds its p99: whether a
	// swap's cost is inside the handler or in the waits around it.
	window := func() (p99, runq, serverP99 float64) {
		_, wait0, _ := threadStats(b.pid)
		_, hist0 := b.serverHistogram("grpc")
		lat, _ := b.single("grpc", 1, d/2)
		_, wait1, _ := threadStats(b.pid)
		bounds, hist1 := b.serverHistogram("grpc")
		le, _, _ := serverTail(bounds, hist0, hist1, lat)
		return us(quantile(lat, 0.99)), us(wait1-wait0) / float64(len(lat)), le
	}
	var calm, swapping, runq, swappingRunq, serverP99, swappingServerP99 []float64
	var swaps, swapSeconds float64
	for range *swapRounds {
		p99, q, sp := window()
		calm, runq, serverP99 = append(calm, p99), append(runq, q), append(serverP99, sp)
		swaps0 := b.swaps()
		into := modelDir
		if *unserved {
			into = filepath.Join(tmp, "unserved")
			check(os.MkdirAll(into, 0o755))
		}
		stop := startPublisher(filepath.Join(dir, "model.svmgo"), into)
		if !*unserved {
			// The publisher process's start (exec, its runtime's start,
			// reading the model) is not a swap: time from its first
			// version served on.
			for deadline := time.Now().Add(2 * time.Second); b.swaps() == swaps0 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			swaps0 = b.swaps()
		}
		t0 := time.Now()
		p99, q, sp = window()
		swapSeconds += time.Since(t0).Seconds()
		stop()
		swaps += b.swaps() - swaps0
		swapping, swappingRunq, swappingServerP99 = append(swapping, p99), append(swappingRunq, q), append(swappingServerP99, sp)
	}
	out = append(out, fmt.Sprintf("grpc_1_p99_calm_us=%.1f grpc_1_p99_swapping_us=%.1f swaps_per_s=%.1f grpc_1_p99_calm_rounds_us=%s grpc_1_p99_swapping_rounds_us=%s",
		median(calm), median(swapping), swaps/swapSeconds, joinFloats(calm), joinFloats(swapping))+
		fmt.Sprintf(" grpc_1_server_runq_calm_us=%.1f grpc_1_server_runq_swapping_us=%.1f grpc_1_server_p99_le_calm_us=%.0f grpc_1_server_p99_le_swapping_us=%.0f",
			median(runq), median(swappingRunq), median(serverP99), median(swappingServerP99)))
	if *only != "" {
		fmt.Println(strings.Join(out, " "))
		return
	}
	if !*unserved {
		// The swaps alone, no requests: the server's CPU time a swap.
		swaps0 := b.swaps()
		cpu0, _, blocks0 := threadStats(b.pid)
		stop := startPublisher(filepath.Join(dir, "model.svmgo"), modelDir)
		time.Sleep(d)
		stop()
		cpu1, _, blocks1 := threadStats(b.pid)
		n := b.swaps() - swaps0
		out = append(out, fmt.Sprintf("server_cpu_per_swap_us=%.1f server_blocks_per_swap=%.2f", us(cpu1-cpu0)/n, float64(blocks1-blocks0)/n))
	}
	srv.Process.Kill()
	srv.Wait()

	if *startup {
		size, ready, answer := startup10MB(*bin, tmp, addr(2))
		out = append(out, fmt.Sprintf("startup_model_bytes=%d startup_ms=%.2f startup_first_answer_ms=%.2f", size, ready, answer))
	}
	// make's bin/svmgo is the batch build, which execs svmgo-daemon beside
	// it for serve: the daemon is the binary a device keeps for serving.
	served := *bin
	daemon := filepath.Join(filepath.Dir(*bin), "svmgo-daemon")
	if _, err := os.Stat(daemon); err == nil {
		served = daemon
	}
	fi, err := os.Stat(served)
	check(err)
	out = append(out, fmt.Sprintf("binary_bytes=%d", fi.Size()))
	fmt.Println(strings.Join(out, " "))
}

type bench struct {
	dir       string // capi_latency's outputs
	model     core.Model
	pid       int // the server's
	httpAddr  string
	grpcAddr  string
	addr      map[string]string // a floor's address, by its name
	http      *http.Client
	grpc      inferencepb.GRPCInferenceServiceClient
	grpcFloor inferencepb.GRPCInferenceServiceClient
	nf        int
	rows      []float32
	nrows     int
	bodies    [][]byte // single-row REST bodies, for the first 100 rows
	messages  [][]byte // the same rows as marshalled ModelInferRequests, for the lean gRPC client
	requests  [][]byte // the same as whole HTTP/1.1 requests, for the lean client
	// big is the encoded batch request (REST JSON, REST's JSON header then
	// the binary rows, or gRPC's raw bytes) of the rows from bigRow, made
	// before the clock starts: the client's encoding is not the server's
	// cost. bigHeader is the length of the JSON header of a binary one.
	big       []byte
	bigHeader int
	bigRow    int
	// bigRequest is big as a whole HTTP/1.1 request, which the lean
	// client sends on lean, its connection for batches.
	bigRequest []byte
	lean       *leanConn
	glean      *leanGRPC // the lean gRPC client's connection for batches
}

// restInput is a REST input tensor with its members in the protocol's
// order (a Go map would write "data" first).
type restInput struct {
	Name       string         `json:"name"`
	Shape      []int          `json:"shape"`
	Datatype   string         `json:"datatype"`
	Parameters map[string]int `json:"parameters,omitempty"`
	Data       []float32      `json:"data,omitempty"`
}

type restRequest struct {
	Inputs     []restInput     `json:"inputs"`
	Parameters map[string]bool `json:"parameters,omitempty"`
}

// serverCPU returns the CPU time the server process's threads have used
// so far.
func (b *bench) serverCPU() time.Duration {
	if b == nil {
		return 0
	}
	return processCPU(b.pid)
}

// processCPU returns the CPU time process pid's threads have used so far.
func processCPU(pid int) time.Duration {
	run, _ := schedstat(pid)
	return run
}

// schedstat returns, summed over process pid's threads so far, the time
// they ran on a CPU and the time they waited on a run queue for one
// (runnable, but another thread had the CPU): the first two fields of each
// /proc/PID/task/TID/schedstat, in ns.
func schedstat(pid int) (run, wait time.Duration) {
	run, wait, _ = threadStats(pid)
	return run, wait
}

// threadStats is schedstat with, summed over the same threads, their
// voluntary context switches (/proc/PID/task/TID/status): the times a
// thread blocked, and so the wake-ups it needed (preemptions by other
// processes are not counted).
func threadStats(pid int) (run, wait time.Duration, blocks int64) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	check(err)
	for _, t := range tasks {
		st, err := os.ReadFile(t)
		if err != nil {
			continue // the thread exited
		}
		f := strings.Fields(string(st))
		r, err := strconv.ParseInt(f[0], 10, 64)
		check(err)
		w, err := strconv.ParseInt(f[1], 10, 64)
		check(err)
		run, wait = run+time.Duration(r), wait+time.Duration(w)
		status, err := os.ReadFile(strings.TrimSuffix(t, "schedstat") + "status")
		if err != nil {
			continue
		}
		if _, v, ok := strings.Cut(string(status), "\nvoluntary_ctxt_switches:"); ok {
			v, _, _ = strings.Cut(v, "\n")
			k, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			check(err)
			blocks += k
		}
	}
	return run, wait, blocks
}

// swaps returns svmgo_serve_swaps_total of model m from /metrics.
func (b *bench) swaps() float64 {
	resp, err := b.http.Get("http://" + b.httpAddr + "/metrics")
	check(err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	check(err)
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, `svmgo_serve_swaps_total{model="m"} `); ok {
			n, err := strconv.ParseFloat(rest, 64)
			check(err)
			return n
		}
	}
	return 0
}

// singleBodies encodes the first 100 rows as single-row REST requests
// (cycled, in cache, as capi_latency's single-row calls are).
func (b *bench) singleBodies() {
	for r := range min(100, b.nrows) {
		body, err := json.Marshal(restRequest{Inputs: []restInput{{Name: "x", Shape: []int{1, b.nf}, Datatype: "FP32", Data: b.rows[r*b.nf : (r+1)*b.nf]}}})
		check(err)
		b.bodies = append(b.bodies, body)
		req := fmt.Appendf(nil, "POST /v2/models/m/infer HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
			b.httpAddr, len(body))
		b.requests = append(b.requests, append(req, body...))
		msg, err := protoapi.Marshal(singleRequest(b.rows[r*b.nf : (r+1)*b.nf]))
		check(err)
		b.messages = append(b.messages, msg)
	}
}

// singleRequest is the gRPC request of the single row x (typed
// fp32_contents), as both gRPC clients send it.
func singleRequest(x []float32) *inferencepb.ModelInferRequest {
	return &inferencepb.ModelInferRequest{ModelName: "m", Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{
		Name: "x", Datatype: "FP32", Shape: []int64{1, int64(len(x))}, Contents: &inferencepb.InferTensorContents{Fp32Contents: x}}}}
}

// leanConn is the lean HTTP/1.1 client's kept-alive connection.
type leanConn struct {
	addr string
	c    net.Conn
	r    *bufio.Reader
	ans  []byte // the last answer's body
}

func dialLean(addr string) *leanConn {
	c, err := dial(addr)
	check(err)
	return &leanConn{c: c, r: bufio.NewReaderSize(c, 64<<10)}
}

// roundTrip writes req and reads the answer's status line and headers,
// then its body by Content-Length into lc.ans; it returns the status line.
func (lc *leanConn) roundTrip(req []byte) string {
	_, err := lc.c.Write(req)
	check(err)
	status, n, err := readHead(lc.r)
	check(err)
	if n < 0 {
		die(fmt.Errorf("answer %q has no Content-Length", status))
	}
	lc.ans = grow(lc.ans, n)
	_, err = io.ReadFull(lc.r, lc.ans)
	check(err)
	return status
}

// readHead reads an HTTP/1.1 message's first line and headers from r and
// returns the line and the Content-Length (-1 when there is none).
func readHead(r *bufio.Reader) (first string, contentLength int, err error) {
	contentLength = -1
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return first, contentLength, err
		}
		switch {
		case first == "":
			first = string(bytes.TrimSpace(line))
		case len(line) <= 2:
			return first, contentLength, nil
		default:
			if k, v, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(k), "Content-Length") {
				if contentLength, err = strconv.Atoi(string(bytes.TrimSpace(v))); err != nil {
					return first, contentLength, err
				}
			}
		}
	}
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// checkLabels checks that a REST answer's body holds one output of n labels.
func checkLabels(status string, body []byte, n int) {
	var out struct {
		Outputs []struct {
			Data []float64 `json:"data"`
		} `json:"outputs"`
	}
	err := json.Unmarshal(body, &out)
	if !strings.HasPrefix(status, "HTTP/1.1 200 ") || err != nil || len(out.Outputs) != 1 || len(out.Outputs[0].Data) != n {
		die(fmt.Errorf("REST answer %q (%v): %.200s", status, err, body))
	}
}

// leanAnswer returns svmgo serve's whole answer (status line, headers,
// body) to the first single-row request, as the floors answer it.
func (b *bench) leanAnswer() []byte {
	c, err := net.Dial("tcp", b.httpAddr)
	check(err)
	defer c.Close()
	_, err = c.Write(b.requests[0])
	check(err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	check(err)
	body, err := io.ReadAll(resp.Body)
	check(err)
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(body)) {
		die(fmt.Errorf("answer %d, Content-Length %d: %.200s", resp.StatusCode, resp.ContentLength, body))
	}
	var ans bytes.Buffer
	fmt.Fprintf(&ans, "HTTP/1.1 200 OK\r\n")
	resp.Header.Del("Date") // a fixed answer: net/http's own floor adds its Date
	check(resp.Header.Write(&ans))
	fmt.Fprintf(&ans, "\r\n%s", body)
	return ans.Bytes()
}

// single runs clients concurrent clients of single-row requests for d and
// returns every request's latency, sorted, and the requests per second.
func (b *bench) single(proto string, clients int, d time.Duration) ([]time.Duration, float64) {
	if proto == "wrk" || proto == "h2load" || proto == "h2loadh1" || proto == "wrkecho" || proto == "h2loadh1echo" {
		return b.loadgen(proto, clients, d)
	}
	if *clientProcs && clients > 1 {
		return b.singleProcs(proto, clients, d)
	}
	lats := make([][]time.Duration, clients)
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			pace := newPacer(c, clients)
			if proto == "rest" || proto == "echo" || proto == "nethttp" || proto == "restunix" || proto == "echounix" {
				addr := b.httpAddr
				if a, ok := b.addr[proto]; ok {
					addr = a
				}
				lc := dialLean(addr)
				defer lc.c.Close()
				for i := c; pace.wait() && time.Now().Before(deadline); i++ {
					start := time.Now()
					status := lc.roundTrip(b.requests[i%len(b.requests)])
					lats[c] = append(lats[c], time.Since(start))
					checkLabels(status, lc.ans, 1)
				}
				return
			}
			if proto == "grpclean" || proto == "grpcleanfloor" || proto == "grpcleanunix" {
				addr := b.grpcAddr
				if a, ok := b.addr[proto]; ok {
					addr = a
				}
				g := dialLeanGRPC(addr)
				defer g.close()
				for i := c; pace.wait() && time.Now().Before(deadline); i++ {
					start := time.Now()
					g.call(b.messages[i%len(b.messages)])
					lats[c] = append(lats[c], time.Since(start))
					if out := g.answer().Outputs; len(out) != 1 || len(out[0].Shape) != 1 || out[0].Shape[0] != 1 {
						die(fmt.Errorf("lean gRPC answer %v", out))
					}
				}
				return
			}
			for i := c; pace.wait() && time.Now().Before(deadline); i++ {
				r := i % len(b.bodies)
				start := time.Now()
				verify := b.infer(proto, r, 1)
				lats[c] = append(lats[c], time.Since(start))
				verify()
			}
		})
	}
	wg.Wait()
	all := slices.Concat(lats...)
	slices.Sort(all)
	return all, float64(len(all)) / d.Seconds()
}

// infer sends rows [r, r+n) and returns the function that checks the
// answer has n labels, and for a gRPC batch that they are the model's
// (called after the clock stops).
func (b *bench) infer(proto string, r, n int) (verify func()) {
	x := b.rows[r*b.nf : (r+n)*b.nf]
	if n > 1 && b.bigRow != r {
		die(fmt.Errorf("batch of rows %d not encoded", r))
	}
	switch proto {
	case "rest", "resthttp":
		body := b.big
		if n == 1 {
			body = b.bodies[r]
		}
		resp, err := b.http.Post("http://"+b.httpAddr+"/v2/models/m/infer", "application/json", bytes.NewReader(body))
		check(err)
		ans, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		check(err)
		return func() { checkLabels(resp.Proto+" "+resp.Status+" ", ans, n) }
	case "restbin":
		req, err := http.NewRequest(http.MethodPost, "http://"+b.httpAddr+"/v2/models/m/infer", bytes.NewReader(b.big))
		check(err)
		req.Header.Set("Inference-Header-Content-Length", strconv.Itoa(b.bigHeader))
		resp, err := b.http.Do(req)
		check(err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		check(err)
		hl, err := strconv.Atoi(resp.Header.Get("Inference-Header-Content-Length"))
		if resp.StatusCode != 200 || err != nil || len(body)-hl != 8*n {
			die(fmt.Errorf("REST binary answer %d: %.200s", resp.StatusCode, body))
		}
		return func() {}
	}
	req := singleRequest(x)
	if n > 1 {
		req.Inputs[0].Shape, req.Inputs[0].Contents = []int64{int64(n), int64(b.nf)}, nil
		req.RawInputContents = [][]byte{b.big}
	}
	client := b.grpc
	if proto == "grpcfloor" {
		client = b.grpcFloor
	}
	resp, err := client.ModelInfer(context.Background(), req)
	check(err)
	return func() {
		if len(resp.Outputs) != 1 || int(resp.Outputs[0].Shape[0]) != n {
			die(fmt.Errorf("gRPC answer %v", resp.Outputs))
		}
		if n > 1 && proto == "grpc" {
			// A batch's labels (raw INT64) against the model's in this
			// process.
			want := b.model.PredictDenseBatch(make([]float64, n), x)
			raw := resp.RawOutputContents
			if len(raw) != 1 || len(raw[0]) != 8*n {
				die(fmt.Errorf("gRPC batch answer: %d raw outputs", len(raw)))
			}
			for i, w := range want {
				if got := int64(binary.LittleEndian.Uint64(raw[0][8*i:])); float64(got) != w {
					die(fmt.Errorf("gRPC batch answer: row %d label %d, want %v", i, got, w))
				}
			}
		}
	}
}

// batchRequests is the number of requests batch times (-batch-requests).
var batchRequests = 21

// batch returns the rows per second of n-row requests, the median of
// batchRequests. Each request is preceded by the same rows predicted in
// this process through the Go API (model.PredictDenseBatch, which the C
// ABI's batch call runs: the floor), so that the two share the machine's
// load; it returns the rows per second of both. The same requests go to
// the servers of others too, alternated with b's (A B B A A B ...), each
// server's rows per second following b's in served.
func (b *bench) batch(proto string, n int, others ...*bench) (served []float64, inProcess, viaC float64) {
	n = min(n, b.nrows)
	all := append([]*bench{b}, others...)
	secs := make([][]float64, len(all))
	var local, c []float64
	labels := make([]float64, n)
	for i := range batchRequests {
		r := (i * n) % (b.nrows - n + 1)
		for _, x := range all {
			x.encodeBatch(proto, r, n)
		}
		start := time.Now()
		b.model.PredictDenseBatch(labels, b.rows[r*b.nf:(r+n)*b.nf])
		local = append(local, time.Since(start).Seconds())
		if capiChild != "" && n == 1000 {
			c = append(c, capiSeconds(b.dir, r))
		}
		for k := range all {
			if i%2 == 1 {
				k = len(all) - 1 - k
			}
			x := all[k]
			switch proto {
			case "restbinlean", "echobin":
				secs[k] = append(secs[k], x.leanBatch(proto, labels))
				continue
			case "grpclean":
				secs[k] = append(secs[k], x.leanGRPCBatch(labels))
				continue
			}
			start = time.Now()
			verify := x.infer(proto, r, n)
			secs[k] = append(secs[k], time.Since(start).Seconds())
			verify()
		}
	}
	for _, s := range secs {
		served = append(served, float64(n)/median(s))
	}
	if len(c) > 0 {
		viaC = float64(n) / median(c)
	}
	return served, float64(n) / median(local), viaC
}

// capiChild is capi_latency's path (-capi), "" for none; capiIn and
// capiOut talk to the child started on DIR's files.
var (
	capiChild string
	capiIn    io.Writer
	capiOut   *bufio.Scanner
)

// capiSeconds returns the seconds of one C ABI call over 1000 rows from
// row r, timed by the child (started on first use), or 0 without -capi.
func capiSeconds(dir string, r int) float64 {
	if capiChild == "" {
		return 0
	}
	if capiIn == nil {
		cmd := exec.Command(capiChild, "--child", dir)
		in, err := cmd.StdinPipe()
		check(err)
		out, err := cmd.StdoutPipe()
		check(err)
		cmd.Stderr = os.Stderr
		check(cmd.Start())
		servers = append(servers, cmd.Process)
		capiIn, capiOut = in, bufio.NewScanner(out)
	}
	_, err := fmt.Fprintln(capiIn, r)
	check(err)
	if !capiOut.Scan() {
		die(fmt.Errorf("capi_latency --child: no answer for row %d: %v", r, capiOut.Err()))
	}
	ns, err := strconv.ParseFloat(capiOut.Text(), 64)
	check(err)
	return ns / 1e9
}

// leanBatch sends the binary batch encoded last (b.big) with the lean
// HTTP/1.1 client, the whole request written in one call, and returns
// the seconds it took: "restbinlean" to svmgo serve, whose labels (raw
// INT64 after the answer's JSON) it checks against want, the same rows
// predicted in this process; "echobin" to the echo floor.
func (b *bench) leanBatch(proto string, want []float64) float64 {
	addr := b.httpAddr
	if proto == "echobin" {
		addr = b.addr["echo"]
	}
	if b.lean == nil || b.lean.addr != addr {
		if b.lean != nil {
			b.lean.c.Close()
		}
		b.lean = dialLean(addr)
		b.lean.addr = addr
	}
	req := fmt.Appendf(b.bigRequest[:0], "POST /v2/models/m/infer HTTP/1.1\r\nHost: %s\r\nInference-Header-Content-Length: %d\r\n"+
		"Content-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", addr, b.bigHeader, len(b.big))
	b.bigRequest = append(req, b.big...)
	start := time.Now()
	status := b.lean.roundTrip(b.bigRequest)
	secs := time.Since(start).Seconds()
	if !strings.HasPrefix(status, "HTTP/1.1 200 ") {
		die(fmt.Errorf("%s answer %q: %.200s", proto, status, b.lean.ans))
	}
	if proto == "restbinlean" {
		ans := b.lean.ans
		if len(ans) < 8*len(want) {
			die(fmt.Errorf("REST binary answer of %d bytes for %d rows", len(ans), len(want)))
		}
		raw := ans[len(ans)-8*len(want):]
		for i, w := range want {
			if got := int64(binary.LittleEndian.Uint64(raw[8*i:])); float64(got) != w {
				die(fmt.Errorf("REST binary answer: row %d label %d, want %v", i, got, w))
			}
		}
	}
	return secs
}

// encodeBatch encodes the request of rows [r, r+n) into b.big.
func (b *bench) encodeBatch(proto string, r, n int) {
	x := b.rows[r*b.nf : (r+n)*b.nf]
	b.bigRow = r
	var err error
	switch proto {
	case "rest":
		b.big, err = json.Marshal(restRequest{Inputs: []restInput{{Name: "x", Shape: []int{n, b.nf}, Datatype: "FP32", Data: x}}})
		check(err)
		return
	case "restbin", "restbinlean", "echobin":
		b.big, err = json.Marshal(restRequest{
			Inputs:     []restInput{{Name: "x", Shape: []int{n, b.nf}, Datatype: "FP32", Parameters: map[string]int{"binary_data_size": 4 * len(x)}}},
			Parameters: map[string]bool{"binary_data_output": true}})
		check(err)
		b.bigHeader = len(b.big)
	default:
		b.big = b.big[:0]
	}
	for _, v := range x {
		b.big = binary.LittleEndian.AppendUint32(b.big, math.Float32bits(v))
	}
}

// bigModel trains a two-class RBF model of l support vectors of 784
// features (3.1 KB each: 3300 make 10.3 MB) on random rows with a large
// gamma, so that every row is a support vector, and returns it with its
// last training row.
func bigModel(l int) (core.Model, []float32) {
	const nf = 784
	rng := rand.New(rand.NewPCG(1, 2))
	ds := data.NewDense(l, nf)
	x := make([]float32, nf)
	for i := range l {
		for j := range x {
			x[j] = rng.Float32()
		}
		check(ds.AppendDense(float64(2*(i%2)-1), x))
	}
	p := core.DefaultKernelParams()
	p.Kernel.Gamma = 10 // K ≈ I: every row a support vector, in few iterations
	m, err := core.TrainKernelModel(ds, p)
	check(err)
	return m, x
}

// writeBig writes a bigModel of 1000 support vectors (3.1 MB; a row costs
// 100 times the small linear model's multiply-adds) into dir as
// model.svmgo, beside a link to rows.f32 of from: serve.sh's large model,
// served and called through the C ABI on the same rows as the small one.
func writeBig(dir, from string) {
	m, _ := bigModel(1000)
	check(os.MkdirAll(dir, 0o755))
	check(modelfile.WriteFile(filepath.Join(dir, "model.svmgo"), m))
	rows, err := filepath.Abs(filepath.Join(from, "rows.f32"))
	check(err)
	check(os.Symlink(rows, filepath.Join(dir, "rows.f32")))
}

// startup10MB trains a kernel model of about 10 MB, puts it in a
// repository and returns its size and the median times, in ms, from
// starting svmgo serve to its first ready answer and to the answer of its
// first inference (a kernel model's prediction tables are built by then).
func startup10MB(bin, tmp, addr string) (size int64, readyMS, answerMS float64) {
	m, x := bigModel(3300)
	nf := len(x)
	dir := filepath.Join(tmp, "big", "m")
	check(os.MkdirAll(dir, 0o755))
	check(modelfile.WriteFile(filepath.Join(dir, modeldir.FileName(1)), m))
	fi, err := os.Stat(filepath.Join(dir, modeldir.FileName(1)))
	check(err)
	body, err := json.Marshal(restRequest{Inputs: []restInput{{Name: "x", Shape: []int{1, nf}, Datatype: "FP32", Data: x}}})
	check(err)
	var ready, answer []float64
	for range 5 {
		t0 := time.Now()
		cmd := start(bin, filepath.Join(tmp, "big"), addr, "")
		waitReady(addr, 30*time.Second)
		ready = append(ready, float64(time.Since(t0).Microseconds())/1e3)
		resp, err := http.Post("http://"+addr+"/v2/models/m/infer", "application/json", bytes.NewReader(body))
		check(err)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			die(fmt.Errorf("first inference: status %d", resp.StatusCode))
		}
		answer = append(answer, float64(time.Since(t0).Microseconds())/1e3)
		cmd.Process.Kill()
		cmd.Wait()
	}
	return fi.Size(), median(ready), median(answer)
}

// publishLoop publishes the model file src into the model directory dir
// every -publish-every (20 ms by default), removing older versions as svmgo watch --keep 4 does, until
// interrupted. It runs in a process of its own, so that the publisher's
// file writes and fsyncs do not stall the timing client's goroutines.
func publishLoop(src, dir string) {
	encoded, err := os.ReadFile(src)
	check(err)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	tick := time.NewTicker(publishEvery)
	for after := uint64(1 << 20); ; after++ {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		_, err := modeldir.PublishEncoded(fileio.OS, dir, encoded, after)
		check(err)
		_, err = modeldir.Retain(fileio.OS, dir, 4)
		check(err)
	}
}

// publishEvery is the publisher's interval (-publish-every).
var publishEvery = 20 * time.Millisecond

// startPublisher starts this program's publishLoop in a process of its
// own, publishing src into dir; the function it returns stops it and
// waits for the server's scan of the last version.
func startPublisher(src, dir string) (stop func()) {
	pub := exec.Command(os.Args[0], "-publish", src, "-publish-every", publishEvery.String(), dir)
	pub.Stderr = os.Stderr
	check(pub.Start())
	return func() {
		check(pub.Process.Signal(os.Interrupt))
		check(pub.Wait())
		time.Sleep(50 * time.Millisecond)
	}
}

// readInputs reads capi_latency's model and rows from dir.
func readInputs(dir string) (core.Model, []float32) {
	model, err := modelfile.ReadFile(filepath.Join(dir, "model.svmgo"))
	check(err)
	raw, err := os.ReadFile(filepath.Join(dir, "rows.f32"))
	check(err)
	rows := make([]float32, len(raw)/4)
	for i := range rows {
		rows[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return model, rows
}

// isSet reports whether the flag name was given.
func isSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// serverArgs and serverEnv are given to every svmgo serve started
// (-server-args, -server-env).
var serverArgs, serverEnv []string

// serverStderr receives the server's standard error (nil: discarded).
var serverStderr *os.File

// servers are the servers start started, which die kills: a server left
// running would hold the ports, and the next run would time it.
var servers []*os.Process

// start starts bin serve on repo at the addresses, which must be free.
func start(bin, repo, httpAddr, grpcAddr string) *exec.Cmd {
	args := []string{"serve", "--repository", repo, "--http", httpAddr, "--log.format", "json"}
	if grpcAddr != "" {
		args = append(args, "--grpc", grpcAddr)
	}
	for _, a := range []string{httpAddr, grpcAddr} {
		if a == "" || strings.HasPrefix(a, "unix:") {
			continue
		}
		ln, err := net.Listen("tcp", a)
		if err != nil {
			die(fmt.Errorf("%s is taken (a server left from an earlier run?): %w", a, err))
		}
		ln.Close()
	}
	cmd := exec.Command(bin, append(args, serverArgs...)...)
	cmd.Env = append(os.Environ(), serverEnv...)
	fifoWrap(cmd)
	if serverStderr != nil {
		cmd.Stderr = serverStderr
	}
	check(cmd.Start())
	servers = append(servers, cmd.Process)
	if *serverSlice > 0 {
		go applySlice(cmd.Process.Pid, *serverSlice)
	}
	return cmd
}

// loopbackPorts returns n loopback ports for the servers: base, base+1, …
// when base > 0, else ports the system finds free. Each of those is bound
// to port 0 and read back, and all stay bound until the last is known, so
// they differ; a fixed base made two runs at once meet on the same ports
// (the second refused to start, or timed the first's server).
func loopbackPorts(base, n int) []int {
	ports := make([]int, n)
	if base > 0 {
		for i := range ports {
			ports[i] = base + i
		}
		return ports
	}
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		check(err)
		defer ln.Close()
		ports[i] = ln.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// serveFloors serves the floors on loopback until killed: on the first of
// ports (three, comma-separated), a TCP server that reads HTTP/1.1
// requests by their Content-Length and answers each with the bytes of the
// file answer; on the second, net/http with svmgo serve's timeouts
// answering the same status, headers and body; on the third, grpc-go
// answering ModelInfer with one INT64 label.
func serveFloors(ports, answer string) {
	ps := strings.Split(ports, ",")
	if len(ps) != 3 {
		die(fmt.Errorf("-floor %q: want three ports", ports))
	}
	ans, err := os.ReadFile(answer)
	check(err)
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(ans)), nil)
	check(err)
	body, err := io.ReadAll(resp.Body)
	check(err)
	addr := func(i int) string { return "127.0.0.1:" + ps[i] }

	echo, err := net.Listen("tcp", addr(0))
	check(err)
	go serveEcho(echo, ans)
	// The same on a unix socket beside the answer file (-unix's floor).
	os.Remove(answer + ".sock")
	echoUnix, err := net.Listen("unix", answer+".sock")
	check(err)
	go serveEcho(echoUnix, ans)

	lim := serve.DefaultLimits()
	hs := &http.Server{Addr: addr(1), ReadTimeout: lim.ReadTimeout, ReadHeaderTimeout: lim.ReadTimeout,
		WriteTimeout: lim.WriteTimeout, IdleTimeout: lim.IdleTimeout,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			maps.Copy(w.Header(), resp.Header)
			w.Write(body)
		})}
	go func() { check(hs.ListenAndServe()) }()

	gl, err := net.Listen("tcp", addr(2))
	check(err)
	gs := grpc.NewServer()
	inferencepb.RegisterGRPCInferenceServiceServer(gs, floorService{})
	check(gs.Serve(gl))
}

// serveEcho answers each HTTP/1.1 request on ln's connections, read by its
// Content-Length, with the bytes ans.
func serveEcho(ln net.Listener, ans []byte) {
	for {
		c, err := ln.Accept()
		check(err)
		go func() {
			defer c.Close()
			r := bufio.NewReaderSize(c, 64<<10)
			for {
				_, n, err := readHead(r)
				if err != nil {
					return
				}
				if _, err := r.Discard(max(n, 0)); err != nil {
					return
				}
				if _, err := c.Write(ans); err != nil {
					return
				}
			}
		}()
	}
}

// floorService answers ModelInfer with one INT64 label, the request
// decoded by the generated code and otherwise unread.
type floorService struct {
	inferencepb.UnimplementedGRPCInferenceServiceServer
}

func (floorService) ModelInfer(context.Context, *inferencepb.ModelInferRequest) (*inferencepb.ModelInferResponse, error) {
	return &inferencepb.ModelInferResponse{ModelName: "m", ModelVersion: "1", Outputs: []*inferencepb.ModelInferResponse_InferOutputTensor{{
		Name: "label", Datatype: "INT64", Shape: []int64{1}, Contents: &inferencepb.InferTensorContents{Int64Contents: []int64{3}}}}}, nil
}

// waitListening waits until addr accepts a TCP connection.
func waitListening(addr string, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(time.Millisecond)
	}
	die(fmt.Errorf("%s not listening after %v", addr, timeout))
}

// waitReady polls /v2/health/ready every 200 µs until it answers 200.
func waitReady(addr string, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	c := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		if resp, err := c.Get("http://" + addr + "/v2/health/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	die(fmt.Errorf("%s not ready after %v", addr, timeout))
}

func quantile(d []time.Duration, q float64) time.Duration {
	return d[min(len(d)-1, int(q*float64(len(d))))]
}

// joinFloats writes v comma-separated, one decimal each.
func joinFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strings.Join(s, ",")
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[len(s)/2]
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func check(err error) {
	if err != nil {
		die(err)
	}
}

func die(err error) {
	fmt.Fprintln(os.Stderr, "servetime:", err)
	for _, p := range servers {
		p.Kill()
	}
	os.Exit(1)
}
