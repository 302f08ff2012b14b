// Command servetime times svmgo serve over the Open Inference Protocol on
// the model and rows that examples/bench/capi_latency.c used through the
// C ABI, so that examples/bench/serve.sh can put the two side by side.
//
// Usage:
//
//	servetime -bin bin/svmgo [-seconds 2] DIR
//
// DIR holds capi_latency's outputs: model.svmgo and rows.f32 (little-endian
// float32, row-major, NumFeatures a row). servetime starts bin serve on
// loopback ports with a repository holding that model and measures, each
// request timed alone with the monotonic clock, clients in this process:
//
//   - single-row inference, label only, over REST (JSON, FP32, keep-alive)
//     and gRPC (typed fp32_contents), with 1 and with 8 concurrent clients,
//     for -seconds each: p50 and p99 per request, and requests per second;
//   - a 1000-row batch over REST and over gRPC (raw_input_contents): the
//     median of 21 requests, as rows per second;
//   - single-row gRPC p99 with one client while a new version of the model
//     is published every 20 ms, next to the same client without swaps,
//     alternating three rounds of each (the medians are reported);
//   - startup to ready with a 10 MB kernel model (trained here on random
//     rows with a large gamma, so every row is a support vector): from
//     starting the process to the first 200 of /v2/health/ready, polled
//     every 200 µs, median of 5 starts.
//
// It checks that every answer is 200 / OK with a label and prints one line
// of key=value fields (see serve.sh).
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

func main() {
	bin := flag.String("bin", "bin/svmgo", "the svmgo binary")
	seconds := flag.Float64("seconds", 2, "seconds of each single-row measurement")
	flag.Parse()
	if flag.NArg() != 1 {
		die(fmt.Errorf("usage: servetime -bin BIN DIR"))
	}
	dir := flag.Arg(0)
	model, err := modelfile.ReadFile(filepath.Join(dir, "model.svmgo"))
	check(err)
	nf := model.Info().NumFeatures
	raw, err := os.ReadFile(filepath.Join(dir, "rows.f32"))
	check(err)
	rows := make([]float32, len(raw)/4)
	for i := range rows {
		rows[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	nrows := len(rows) / nf

	tmp, err := os.MkdirTemp("", "servetime")
	check(err)
	defer os.RemoveAll(tmp)
	modelDir := filepath.Join(tmp, "repo", "m")
	check(os.MkdirAll(modelDir, 0o755))
	encoded, err := os.ReadFile(filepath.Join(dir, "model.svmgo"))
	check(err)
	_, err = modeldir.PublishEncoded(fileio.OS, modelDir, encoded, 0)
	check(err)
	srv := start(*bin, filepath.Join(tmp, "repo"), "127.0.0.1:18470", "127.0.0.1:18471")
	defer srv.Process.Kill()
	waitReady("127.0.0.1:18470", 10*time.Second)

	b := &bench{bigRow: -1, httpAddr: "127.0.0.1:18470", nf: nf, rows: rows, nrows: nrows,
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	conn, err := grpc.NewClient("127.0.0.1:18471", grpc.WithTransportCredentials(insecure.NewCredentials()))
	check(err)
	defer conn.Close()
	b.grpc = inferencepb.NewGRPCInferenceServiceClient(conn)
	b.singleBodies()

	d := time.Duration(*seconds * float64(time.Second))
	out := []string{fmt.Sprintf("features=%d rows=%d", nf, nrows)}
	for _, proto := range []string{"rest", "grpc"} {
		for _, clients := range []int{1, 8} {
			lat, rps := b.single(proto, clients, d)
			out = append(out, fmt.Sprintf("%s_%d_p50_us=%.1f %s_%d_p99_us=%.1f %s_%d_rps=%.0f",
				proto, clients, us(quantile(lat, 0.5)), proto, clients, us(quantile(lat, 0.99)), proto, clients, rps))
		}
	}
	for _, proto := range []string{"rest", "grpc"} {
		out = append(out, fmt.Sprintf("%s_batch_rows_per_s=%.0f", proto, b.batch(proto, 1000)))
	}
	var calm, swapping []float64
	for range 3 {
		lat, _ := b.single("grpc", 1, d/2)
		calm = append(calm, us(quantile(lat, 0.99)))
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			for after := uint64(1 << 20); ; after++ {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				_, err := modeldir.PublishEncoded(fileio.OS, modelDir, encoded, after)
				check(err)
			}
		})
		lat, _ = b.single("grpc", 1, d/2)
		close(stop)
		wg.Wait()
		swapping = append(swapping, us(quantile(lat, 0.99)))
	}
	out = append(out, fmt.Sprintf("grpc_1_p99_calm_us=%.1f grpc_1_p99_swapping_us=%.1f", median(calm), median(swapping)))
	srv.Process.Kill()
	srv.Wait()

	size, startup := startup10MB(*bin, tmp)
	out = append(out, fmt.Sprintf("startup_model_bytes=%d startup_ms=%.2f", size, startup))
	fi, err := os.Stat(*bin)
	check(err)
	out = append(out, fmt.Sprintf("binary_bytes=%d", fi.Size()))
	fmt.Println(strings.Join(out, " "))
}

type bench struct {
	httpAddr string
	http     *http.Client
	grpc     inferencepb.GRPCInferenceServiceClient
	nf       int
	rows     []float32
	nrows    int
	bodies   [][]byte // single-row REST bodies, for the first 100 rows
	// big is the encoded batch request (REST JSON, or gRPC's raw bytes) of
	// the rows from bigRow, made before the clock starts: the client's
	// encoding is not the server's cost.
	big    []byte
	bigRow int
}

// singleBodies encodes the first 100 rows as single-row REST requests
// (cycled, in cache, as capi_latency's single-row calls are).
func (b *bench) singleBodies() {
	for r := range min(100, b.nrows) {
		body, err := json.Marshal(map[string]any{"inputs": []any{map[string]any{"name": "x", "shape": []int{1, b.nf}, "datatype": "FP32", "data": b.rows[r*b.nf : (r+1)*b.nf]}}})
		check(err)
		b.bodies = append(b.bodies, body)
	}
}

// single runs clients concurrent clients of single-row requests for d and
// returns every request's latency, sorted, and the requests per second.
func (b *bench) single(proto string, clients int, d time.Duration) ([]time.Duration, float64) {
	lats := make([][]time.Duration, clients)
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := c; time.Now().Before(deadline); i++ {
				r := i % len(b.bodies)
				start := time.Now()
				b.infer(proto, r, 1)
				lats[c] = append(lats[c], time.Since(start))
			}
		})
	}
	wg.Wait()
	all := slices.Concat(lats...)
	slices.Sort(all)
	return all, float64(len(all)) / d.Seconds()
}

// infer sends rows [r, r+n) and checks the answer has n labels.
func (b *bench) infer(proto string, r, n int) {
	x := b.rows[r*b.nf : (r+n)*b.nf]
	if n > 1 && b.bigRow != r {
		die(fmt.Errorf("batch of rows %d not encoded", r))
	}
	if proto == "rest" {
		body := b.big
		if n == 1 {
			body = b.bodies[r]
		}
		resp, err := b.http.Post("http://"+b.httpAddr+"/v2/models/m/infer", "application/json", bytes.NewReader(body))
		check(err)
		var out struct {
			Outputs []struct {
				Data []float64 `json:"data"`
			} `json:"outputs"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		check(err)
		if resp.StatusCode != 200 || len(out.Outputs) != 1 || len(out.Outputs[0].Data) != n {
			die(fmt.Errorf("REST answer %d %v", resp.StatusCode, out))
		}
		return
	}
	in := &inferencepb.ModelInferRequest_InferInputTensor{Name: "x", Datatype: "FP32", Shape: []int64{int64(n), int64(b.nf)}}
	req := &inferencepb.ModelInferRequest{ModelName: "m", Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{in}}
	if n == 1 {
		in.Contents = &inferencepb.InferTensorContents{Fp32Contents: x}
	} else {
		req.RawInputContents = [][]byte{b.big}
	}
	resp, err := b.grpc.ModelInfer(context.Background(), req)
	check(err)
	if len(resp.Outputs) != 1 || int(resp.Outputs[0].Shape[0]) != n {
		die(fmt.Errorf("gRPC answer %v", resp.Outputs))
	}
}

// batch returns the rows per second of n-row requests, the median of 21.
func (b *bench) batch(proto string, n int) float64 {
	n = min(n, b.nrows)
	var secs []float64
	for i := range 21 {
		r := (i * n) % (b.nrows - n + 1)
		b.encodeBatch(proto, r, n)
		start := time.Now()
		b.infer(proto, r, n)
		secs = append(secs, time.Since(start).Seconds())
	}
	return float64(n) / median(secs)
}

// encodeBatch encodes the request of rows [r, r+n) into b.big.
func (b *bench) encodeBatch(proto string, r, n int) {
	x := b.rows[r*b.nf : (r+n)*b.nf]
	b.bigRow = r
	if proto == "rest" {
		var err error
		b.big, err = json.Marshal(map[string]any{"inputs": []any{map[string]any{"name": "x", "shape": []int{n, b.nf}, "datatype": "FP32", "data": x}}})
		check(err)
		return
	}
	b.big = make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b.big[4*i:], math.Float32bits(v))
	}
}

// startup10MB trains a kernel model of about 10 MB, puts it in a
// repository and returns its size and the median time, in ms, from
// starting svmgo serve to its first ready answer.
func startup10MB(bin, tmp string) (int64, float64) {
	const nf, l = 784, 3300 // 3300 support vectors of 784 float32: 10.3 MB
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
	dir := filepath.Join(tmp, "big", "m")
	check(os.MkdirAll(dir, 0o755))
	check(modelfile.WriteFile(filepath.Join(dir, modeldir.FileName(1)), m))
	fi, err := os.Stat(filepath.Join(dir, modeldir.FileName(1)))
	check(err)
	var ms []float64
	for range 5 {
		t0 := time.Now()
		cmd := start(bin, filepath.Join(tmp, "big"), "127.0.0.1:18472", "")
		waitReady("127.0.0.1:18472", 30*time.Second)
		ms = append(ms, float64(time.Since(t0).Microseconds())/1e3)
		cmd.Process.Kill()
		cmd.Wait()
	}
	return fi.Size(), median(ms)
}

// start starts bin serve on repo at the addresses.
func start(bin, repo, httpAddr, grpcAddr string) *exec.Cmd {
	cmd := exec.Command(bin, "serve", "--repository", repo, "--http", httpAddr, "--grpc", grpcAddr, "--log.format", "json")
	check(cmd.Start())
	return cmd
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
	os.Exit(1)
}
