package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
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

// envInt returns the integer in environment variable name, def when unset.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

// rssKB returns the resident set of process pid in KiB (VmRSS).
func rssKB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(rest)[0])
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// quantile returns the q-quantile of sorted durations.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(q*float64(len(d))))]
}

// TestServeSwapSoak runs 8 clients (4 REST, 4 gRPC) of single-row
// inferences against svmgo serve, first with no swap, then while versions
// are published (one in five corrupt: garbage, truncated, or a flipped
// payload byte). No request may fail; every answer must come from a
// version published valid, with that version's prediction; each client
// sees versions in increasing order; RSS stays bounded. It logs p50 and
// p99 with and without swaps. SVMGO_SERVE_SOAK_SECONDS and
// SVMGO_SERVE_SOAK_VERSIONS set the run (make serve-soak: 60 and 500).
func TestServeSwapSoak(t *testing.T) {
	bin := opsBuild(t)
	seconds := envInt(t, "SVMGO_SERVE_SOAK_SECONDS", 6)
	versions := envInt(t, "SVMGO_SERVE_SOAK_VERSIONS", 60)
	tmp := t.TempDir()
	// Two models that disagree on some rows: a kernel and a linear one.
	var encoded [2][]byte
	var models [2]core.Model
	for i, args := range [][]string{{"train", "-q", "-t", "2", "-c", "4"}, {"train-linear", "-q", "-s", "2", "-c", "0.001"}} {
		path := filepath.Join(tmp, fmt.Sprint("m", i))
		if code, _, errOut := svmgo(t, append(args, "../../../examples/data/heart_scale.train", path)...); code != 0 {
			t.Fatal(errOut)
		}
		var err error
		if encoded[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		if models[i], err = modelfile.Decode(encoded[i]); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := data.ReadFile("../../../examples/data/heart_scale.test", data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nrows := ds.Len()
	// want[v%2][r]: the label version v gives row r.
	var want [2][]float64
	for i, m := range models {
		for r := range nrows {
			want[i] = append(want[i], m.PredictDense(ds.DenseRow(r)))
		}
	}
	dir := filepath.Join(tmp, "repo", "m")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := modeldir.PublishEncoded(fileio.OS, dir, encoded[1], 0); err != nil {
		t.Fatal(err)
	}
	d, httpAddr, grpcAddr := startServe(t, bin, "serve", "--repository", filepath.Join(tmp, "repo"), "--log.format", "json",
		"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0")
	pid := d.cmd.Process.Pid

	var valid sync.Map // version → true, stored before it is published
	valid.Store("1", true)
	var phase atomic.Int32 // 0: warm-up, 1: no swaps, 2: swaps
	var lat [3][8][]time.Duration
	var requests, failures atomic.Int64
	failed := make(chan string, 16)
	fail := func(format string, args ...any) {
		failures.Add(1)
		select {
		case failed <- fmt.Sprintf(format, args...):
		default:
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	bodies := make([][]byte, nrows)
	for r := range nrows {
		bodies[r], _ = json.Marshal(map[string]any{"inputs": []any{map[string]any{"name": "x", "shape": []int{1, 13}, "datatype": "FP32", "data": ds.DenseRow(r)}}})
	}
	check := func(c int, last *uint64, r int, version string, label float64) {
		if _, ok := valid.Load(version); !ok {
			fail("client %d: answer from version %s, never published valid", c, version)
			return
		}
		v, _ := strconv.ParseUint(version, 10, 64)
		if v < *last {
			fail("client %d: version %d after %d", c, v, *last)
		}
		*last = v
		if label != want[v%2][r] {
			fail("client %d: row %d label %v from version %d, which gives %v", c, r, label, v, want[v%2][r])
		}
	}
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	grpcClient := inferencepb.NewGRPCInferenceServiceClient(conn)
	httpClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: 30 * time.Second}
	for c := range 8 {
		wg.Go(func() {
			var last uint64
			for i := c; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r := i % nrows
				p := phase.Load()
				start := time.Now()
				var version string
				var label float64
				if c < 4 {
					resp, err := httpClient.Post("http://"+httpAddr+"/v2/models/m/infer", "application/json", bytes.NewReader(bodies[r]))
					if err != nil {
						fail("client %d: %v", c, err)
						return
					}
					var out struct {
						Version string `json:"model_version"`
						Outputs []struct {
							Data []float64 `json:"data"`
						} `json:"outputs"`
					}
					err = json.NewDecoder(resp.Body).Decode(&out)
					resp.Body.Close()
					if err != nil || resp.StatusCode != 200 || len(out.Outputs) != 1 {
						fail("client %d: status %d, %v", c, resp.StatusCode, err)
						return
					}
					version, label = out.Version, out.Outputs[0].Data[0]
				} else {
					resp, err := grpcClient.ModelInfer(context.Background(), &inferencepb.ModelInferRequest{ModelName: "m",
						Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{1, 13},
							Contents: &inferencepb.InferTensorContents{Fp32Contents: ds.DenseRow(r)}}}})
					if err != nil {
						fail("client %d: %v", c, err)
						return
					}
					version, label = resp.ModelVersion, float64(resp.Outputs[0].Contents.Int64Contents[0])
				}
				lat[p][c] = append(lat[p][c], time.Since(start))
				requests.Add(1)
				check(c, &last, r, version, label)
			}
		})
	}
	time.Sleep(500 * time.Millisecond) // warm-up: connections, pools
	rss0 := rssKB(t, pid)
	phase.Store(1)
	baseline := time.Duration(seconds) * time.Second / 3
	time.Sleep(baseline)
	phase.Store(2)
	swapStart := time.Now()
	interval := time.Duration(seconds) * time.Second * 2 / 3 / time.Duration(versions)
	rssMax, corrupt := rss0, 0
	for v := uint64(2); v <= uint64(versions)+1; v++ {
		if v%5 == 0 {
			corrupt++
			b := slices.Clone(encoded[v%2])
			switch v % 3 {
			case 0:
				b = []byte("not a model file")
			case 1:
				b = b[:len(b)/2]
			default:
				b[len(b)-1] ^= 0xff // CRC mismatch
			}
			if _, err := modeldir.PublishEncoded(fileio.OS, dir, b, v-1); err != nil {
				t.Fatal(err)
			}
		} else {
			valid.Store(strconv.FormatUint(v, 10), true)
			if _, err := modeldir.PublishEncoded(fileio.OS, dir, encoded[v%2], v-1); err != nil {
				t.Fatal(err)
			}
		}
		rssMax = max(rssMax, rssKB(t, pid))
		time.Sleep(time.Until(swapStart.Add(time.Duration(v-1) * interval)))
	}
	swapTime := time.Since(swapStart)
	close(stop)
	wg.Wait()
	close(failed)
	for msg := range failed {
		t.Error(msg)
	}
	if n := failures.Load(); n > 0 {
		t.Errorf("%d of %d requests failed or answered wrongly", n, requests.Load())
	}
	var stats [3][]time.Duration
	for p := 1; p <= 2; p++ {
		for c := range 8 {
			stats[p] = append(stats[p], lat[p][c]...)
		}
		slices.Sort(stats[p])
	}
	t.Logf("%d requests by 8 clients (4 REST, 4 gRPC, single rows); %d versions published in %v (%d corrupt)",
		requests.Load(), versions, swapTime.Round(time.Millisecond), corrupt)
	t.Logf("without swaps: %d requests, p50 %v, p99 %v", len(stats[1]), quantile(stats[1], 0.5), quantile(stats[1], 0.99))
	t.Logf("during swaps:  %d requests, p50 %v, p99 %v", len(stats[2]), quantile(stats[2], 0.5), quantile(stats[2], 0.99))
	t.Logf("RSS %d KiB after warm-up, at most %d KiB while swapping", rss0, rssMax)
	if len(stats[1]) == 0 || len(stats[2]) == 0 {
		t.Error("a phase saw no request")
	}
	// Models are tens of kilobytes: a leak of one per swap, or of request
	// buffers, would show; the allocator's own growth under 8 clients
	// stays well inside this.
	if rssMax > rss0+64<<10 {
		t.Errorf("RSS grew from %d KiB to %d KiB while swapping", rss0, rssMax)
	}
	final := strconv.Itoa(versions + 1)
	if (versions+1)%5 == 0 {
		final = strconv.Itoa(versions)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := probe(t, httpAddr, "/v2/models/m")
		if code == 200 && strings.Contains(body, `"versions":["`+final+`"]`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("newest valid version %s not served: %s", final, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
