package serve

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	protoapi "google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// The benchmarks below time one single-row inference on a model of the
// shape examples/bench/serve.sh uses (784 features, 10 classes, linear),
// per layer: the REST handler alone (server side, no sockets), the gRPC
// service alone, and both protocols end to end over loopback (client and
// server in this process, which is what their CPU profiles separate by
// call stack).

const benchFeatures, benchClasses = 784, 10

// benchRows returns rows of benchFeatures values k/255, as an 8-bit image
// scaled to [0, 1] is (Fashion-MNIST's rows in serve.sh): written shortest,
// most take 8 or 9 digits.
func benchRows(n int) []float32 {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, n*benchFeatures)
	for i := range x {
		if rng.IntN(2) == 0 { // half the pixels of an image are 0
			x[i] = float32(rng.IntN(256)) / 255
		}
	}
	return x
}

// benchServer serves a 784-feature, 10-class linear model as "m" on
// loopback (REST and gRPC) until b ends.
func benchServer(b *testing.B) (*Server, []float32) { return linearServer(b, 300) }

// linearServer is benchServer with the model trained on l rows (fewer
// train faster, for tests under the race detector).
func linearServer(b testing.TB, l int) (*Server, []float32) {
	return linearServerConfig(b, l, Config{})
}

// linearServerConfig is linearServer with the rest of cfg (its addresses
// are set to loopback ports).
func linearServerConfig(b testing.TB, l int, cfg Config) (*Server, []float32) {
	x := benchRows(l)
	ds := data.NewDense(l, benchFeatures)
	for i := range l {
		if err := ds.AppendDense(float64(i%benchClasses), x[i*benchFeatures:(i+1)*benchFeatures]); err != nil {
			b.Fatal(err)
		}
	}
	p := linear.DefaultLinearParams()
	m, _, err := linear.TrainLinear(ds, p)
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	dir := filepath.Join(root, "m")
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if _, err := modeldir.Publish(dir, m); err != nil {
		b.Fatal(err)
	}
	repo, err := OpenRepository(root, RepositoryOptions{})
	if err != nil {
		b.Fatal(err)
	}
	cfg.HTTPAddr, cfg.GRPCAddr = "127.0.0.1:0", "127.0.0.1:0"
	srv, err := New(repo, cfg)
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		srv.Shutdown(context.Background())
		repo.Close()
	})
	return srv, x
}

// singleRowJSON is the REST body of one row: its input's members in the
// protocol's order (name, shape, datatype, data), as Triton's and KServe's
// clients write them, or with "data" first, as json.Marshal writes a Go map.
func singleRowJSON(b testing.TB, row []float32, dataFirst bool) []byte {
	in := any(struct {
		Name     string    `json:"name"`
		Shape    []int     `json:"shape"`
		Datatype string    `json:"datatype"`
		Data     []float32 `json:"data"`
	}{"x", []int{1, len(row)}, "FP32", row})
	if dataFirst {
		in = map[string]any{"name": "x", "shape": []int{1, len(row)}, "datatype": "FP32", "data": row}
	}
	body, err := json.Marshal(map[string]any{"inputs": []any{in}})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// discardWriter is a ResponseWriter that keeps nothing, so that the REST
// handler's benchmark counts the handler's own allocations only.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }

func BenchmarkRESTHandlerSingleRow(b *testing.B) {
	srv, x := benchServer(b)
	h := srv.Handler()
	for _, dataFirst := range []bool{false, true} {
		name := "data-last"
		if dataFirst {
			name = "data-first"
		}
		b.Run(name, func(b *testing.B) {
			benchHandler(b, h, singleRowJSON(b, x[:benchFeatures], dataFirst), nil)
		})
	}
}

func BenchmarkRESTLoopbackSingleRow(b *testing.B) {
	srv, x := benchServer(b)
	body := singleRowJSON(b, x[:benchFeatures], false)
	url := "http://" + srv.HTTPAddr() + "/v2/models/m/infer"
	c := &http.Client{}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

func benchGRPCRequest(x []float32) *inferencepb.ModelInferRequest {
	return &inferencepb.ModelInferRequest{ModelName: "m", Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{
		Name: "x", Datatype: "FP32", Shape: []int64{1, benchFeatures},
		Contents: &inferencepb.InferTensorContents{Fp32Contents: x[:benchFeatures]}}}}
}

// BenchmarkGRPCServiceSingleRow times the service's answer to a request's
// wire bytes: read straight into the rows (wire), or unmarshalled by
// protobuf first (proto, the generated handler's way).
func BenchmarkGRPCServiceSingleRow(b *testing.B) {
	srv, x := benchServer(b)
	g := &grpcService{s: srv}
	wire, err := protoapi.Marshal(benchGRPCRequest(x))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			resp, err := g.modelInferWire(context.Background(), wire)
			if err != nil {
				b.Fatal(err)
			}
			resp.(*wireResponse).release() // as the transports do once it is sent
		}
	})
	b.Run("proto", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req := new(inferencepb.ModelInferRequest)
			if err := protoapi.Unmarshal(wire, req); err != nil {
				b.Fatal(err)
			}
			if _, err := g.ModelInfer(context.Background(), req); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// grpcTransports runs f as a sub-benchmark on a server of each gRPC
// transport: the package's own ("own") and grpc-go's (Config.GRPCGo).
func grpcTransports(b *testing.B, f func(b *testing.B, srv *Server, x []float32)) {
	for _, grpcGo := range []bool{false, true} {
		name := map[bool]string{false: "own", true: "grpc-go"}[grpcGo]
		b.Run(name, func(b *testing.B) {
			srv, x := linearServerConfig(b, 300, Config{GRPCGo: grpcGo})
			f(b, srv, x)
		})
	}
}

func BenchmarkGRPCLoopbackSingleRow(b *testing.B) { grpcTransports(b, benchGRPCSingleRow) }

func benchGRPCSingleRow(b *testing.B, srv *Server, x []float32) {
	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	c := inferencepb.NewGRPCInferenceServiceClient(conn)
	req := benchGRPCRequest(x)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.ModelInfer(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSwap times what a swap costs the server: a new version of the
// benchmark model published, then the watcher's scan that loads, checks and
// warms it and stores the new version set (the work a running server does
// once a version arrives, on its own cores).
func BenchmarkSwap(b *testing.B) {
	srv, _ := benchServer(b)
	m := srv.repo.model("m")
	encoded, err := os.ReadFile(m.versions().list[0].Path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	next := uint64(2)
	for b.Loop() {
		b.StopTimer()
		if _, err := modeldir.PublishEncoded(fileio.OS, m.dir, encoded, next-1); err != nil {
			b.Fatal(err)
		}
		if _, err := modeldir.Retain(fileio.OS, m.dir, 4); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		m.watcher.Rescan()
		if got := m.versions().list[0].Version; got != next {
			b.Fatalf("serving version %d, want %d", got, next)
		}
		next++
	}
}

// BenchmarkRESTLoopbackBatch times a 1000-row request over loopback as
// binary tensor data (the rows as raw FP32 after the JSON header, the
// labels back as raw INT64).
func BenchmarkRESTLoopbackBatch(b *testing.B) {
	srv, _ := benchServer(b)
	const n = 1000
	x := benchRows(n)
	header := []byte(`{"inputs":[{"name":"x","shape":[1000,784],"datatype":"FP32","parameters":{"binary_data_size":3136000}}],"parameters":{"binary_data_output":true}}`)
	body := append([]byte(nil), header...)
	for _, v := range x {
		body = binary.LittleEndian.AppendUint32(body, math.Float32bits(v))
	}
	url := "http://" + srv.HTTPAddr() + "/v2/models/m/infer"
	c := &http.Client{}
	hl := strconv.Itoa(len(header))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Inference-Header-Content-Length", hl)
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

// BenchmarkRESTHandlerBinaryBatch is the REST handler alone on a 1000-row
// batch as binary tensor data (Content-Length known: the rows are read
// from the body straight into the pooled float32 rows), labels answered
// as binary data.
func BenchmarkRESTHandlerBinaryBatch(b *testing.B) {
	srv, _ := benchServer(b)
	h := srv.Handler()
	const n = 1000
	header := fmt.Appendf(nil, `{"inputs":[{"name":"x","shape":[%d,%d],"datatype":"FP32","parameters":{"binary_data_size":%d}}],"parameters":{"binary_data_output":true}}`,
		n, benchFeatures, 4*n*benchFeatures)
	body := slices.Clone(header)
	for _, v := range benchRows(n) {
		body = binary.LittleEndian.AppendUint32(body, math.Float32bits(v))
	}
	benchHandler(b, h, body, http.Header{headerLengthKey: {strconv.Itoa(len(header))}})
}

// benchHandler times h answering an inference request of body to model m,
// with header's fields, the request and its answer's writer reused.
func benchHandler(b *testing.B, h http.Handler, body []byte, header http.Header) {
	rd := bytes.NewReader(body)
	req, err := http.NewRequest(http.MethodPost, "/v2/models/m/infer", rd)
	if err != nil {
		b.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		rd.Reset(body)
		req.Body = io.NopCloser(rd)
		w.code = 0
		h.ServeHTTP(w, req)
		if w.code != 0 && w.code != http.StatusOK {
			b.Fatalf("status %d", w.code)
		}
	}
}

// BenchmarkGRPCLoopbackBatch times a 1000-row request over loopback with
// its rows as raw_input_contents (little-endian FP32), grpc-go's client.
func BenchmarkGRPCLoopbackBatch(b *testing.B) { grpcTransports(b, benchGRPCBatch) }

func benchGRPCBatch(b *testing.B, srv *Server, _ []float32) {
	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	c := inferencepb.NewGRPCInferenceServiceClient(conn)
	const n = 1000
	raw := make([]byte, 0, 4*n*benchFeatures)
	for _, v := range benchRows(n) {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
	}
	req := &inferencepb.ModelInferRequest{ModelName: "m", RawInputContents: [][]byte{raw},
		Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{n, benchFeatures}}}}
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		resp, err := c.ModelInfer(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.GetRawOutputContents()) != 1 || len(resp.GetRawOutputContents()[0]) != 8*n {
			b.Fatalf("answer %v", resp.GetOutputs())
		}
	}
}

// BenchmarkJSONDataSingleRow reads one row's "data" (784 numbers k/255,
// half of them 0, as json.Marshal writes float32 values) into float32
// features: the numbers' share of a single-row REST request.
func BenchmarkJSONDataSingleRow(b *testing.B) {
	x := benchRows(1)
	text, err := json.Marshal(x)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]float32, len(x))
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if err := jsonData(dst, text, dtFP32, 1, len(x)); err != nil {
			b.Fatal(err)
		}
	}
}
