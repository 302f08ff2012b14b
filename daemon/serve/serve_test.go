package serve

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// heart reads heart_scale, the small fixture the core tests use.
func heart(t testing.TB) *data.Dataset {
	t.Helper()
	ds, err := data.ReadFile("../../core/testdata/heart_scale", data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// kernelModel trains an RBF C-SVC with probabilities on ds.
func kernelModel(t testing.TB, ds *data.Dataset) *core.KernelModel {
	t.Helper()
	p := core.DefaultKernelParams()
	p.Probability = true
	m, err := core.TrainKernelModel(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// linearModel trains LIBLINEAR's default SVC with cost c on ds.
func linearModel(t testing.TB, ds *data.Dataset, c float64) *linear.LinearModel {
	t.Helper()
	p := linear.DefaultLinearParams()
	p.C = c
	m, _, err := linear.TrainLinear(ds, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// testServer serves a repository of one model directory per entry of
// models (each published as version 1 when non-nil) over REST and gRPC on
// loopback ports, until the test ends.
func testServer(t testing.TB, lim Limits, models map[string]core.Model) (*Server, string) {
	t.Helper()
	return testServerConfig(t, Config{Limits: lim}, models)
}

// testServerConfig is testServer with the rest of cfg (its addresses are
// set to loopback ports).
func testServerConfig(t testing.TB, cfg Config, models map[string]core.Model) (*Server, string) {
	t.Helper()
	root := t.TempDir()
	for name, m := range models {
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if m != nil {
			if _, err := modeldir.Publish(dir, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	repo, err := OpenRepository(root, RepositoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTPAddr, cfg.GRPCAddr = "127.0.0.1:0", "127.0.0.1:0"
	srv, err := New(repo, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		repo.Close()
	})
	return srv, root
}

// post sends body to the REST endpoint path and returns the status and
// the decoded JSON answer.
func post(t *testing.T, srv *Server, path, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post("http://"+srv.HTTPAddr()+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: answer is not a JSON object: %q", path, b)
	}
	return resp.StatusCode, out
}

// rowsJSON writes rows of ds as a nested or flat JSON array.
func rowsJSON(ds *data.Dataset, rows []int, nested bool) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		if nested {
			b.WriteByte('[')
		}
		for j, v := range ds.DenseRow(r) {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%v", v)
		}
		if nested {
			b.WriteByte(']')
		}
	}
	b.WriteByte(']')
	return b.String()
}

// TestRESTInferMatchesModel checks labels, decision values and
// probabilities over REST, nested and flat, FP32 and FP64, against the
// model's own methods on the same rows.
func TestRESTInferMatchesModel(t *testing.T) {
	ds := heart(t)
	km := kernelModel(t, ds)
	srv, _ := testServer(t, Limits{}, map[string]core.Model{"heart": km})
	rows := []int{0, 1, 2, 3, 50, 100, 269}
	for _, nested := range []bool{true, false} {
		for _, dt := range []string{"FP32", "FP64"} {
			body := fmt.Sprintf(`{"id":"r1","inputs":[{"name":"x","shape":[%d,%d],"datatype":%q,"data":%s}],"outputs":[{"name":"label"},{"name":"decision"},{"name":"probability"}]}`,
				len(rows), ds.NumFeatures(), dt, rowsJSON(ds, rows, nested))
			code, out := post(t, srv, "/v2/models/heart/infer", body)
			if code != 200 {
				t.Fatalf("nested=%v %s: status %d %v", nested, dt, code, out)
			}
			if out["id"] != "r1" || out["model_version"] != "1" || out["model_name"] != "heart" {
				t.Errorf("answer header %v", out)
			}
			outs := out["outputs"].([]any)
			if len(outs) != 3 {
				t.Fatalf("%d outputs", len(outs))
			}
			data := func(i int) []any { return outs[i].(map[string]any)["data"].([]any) }
			for i, r := range rows {
				x := ds.DenseRow(r)
				if got, want := data(0)[i].(float64), km.PredictDense(x); got != want {
					t.Errorf("row %d label %v, model %v", r, got, want)
				}
				dec := km.DecisionDense(make([]float64, 1), x)
				if got := data(1)[i].(float64); got != dec[0] {
					t.Errorf("row %d decision %v, model %v", r, got, dec[0])
				}
				prob := km.ProbabilityDense(make([]float64, 2), x)
				for c := range 2 {
					if got := data(2)[2*i+c].(float64); got != prob[c] {
						t.Errorf("row %d probability %d: %v, model %v", r, c, got, prob[c])
					}
				}
			}
		}
	}
}

// TestRESTErrors sends each kind of malformed request and checks its
// documented status and {"error": ...} body, and that the server still
// answers afterwards.
func TestRESTErrors(t *testing.T) {
	ds := heart(t)
	lin := linearModel(t, ds, 1)
	lim := DefaultLimits()
	lim.MaxRequestBytes = 4096
	lim.MaxRows = 3
	lim.MaxJSONDepth = 6
	srv, _ := testServer(t, lim, map[string]core.Model{"heart": lin, "empty": nil})
	row := rowsJSON(ds, []int{0}, true)
	in := func(shape, dt, data string) string {
		return fmt.Sprintf(`{"inputs":[{"name":"x","shape":%s,"datatype":%q,"data":%s}]}`, shape, dt, data)
	}
	cases := []struct {
		name, path, body string
		status           int
	}{
		{"not JSON", "/v2/models/heart/infer", `{"inputs":`, 400},
		{"no inputs", "/v2/models/heart/infer", `{"inputs":[]}`, 400},
		{"two inputs", "/v2/models/heart/infer", `{"inputs":[{"name":"a","shape":[1,13],"datatype":"FP32","data":` + row + `},{"name":"b","shape":[1,13],"datatype":"FP32","data":` + row + `}]}`, 400},
		{"rank 1", "/v2/models/heart/infer", in("[13]", "FP32", row), 400},
		{"wrong width", "/v2/models/heart/infer", in("[1,12]", "FP32", row), 400},
		{"zero rows", "/v2/models/heart/infer", in("[0,13]", "FP32", "[]"), 400},
		{"too few values", "/v2/models/heart/infer", in("[2,13]", "FP32", row), 400},
		{"too many values", "/v2/models/heart/infer", in("[1,13]", "FP32", "[["+strings.Repeat("1,", 13)+"1]]"), 400},
		{"string value", "/v2/models/heart/infer", in("[1,1]", "FP32", `["a"]`), 400},
		{"BYTES", "/v2/models/heart/infer", in("[1,13]", "BYTES", row), 400},
		{"fraction as INT32", "/v2/models/heart/infer", in("[1,13]", "INT32", row), 400},
		{"300 as INT8", "/v2/models/heart/infer", in("[1,13]", "INT8", "[300"+strings.Repeat(",0", 12)+"]"), 400},
		{"1e39 as FP32", "/v2/models/heart/infer", in("[1,13]", "FP32", "[1e39"+strings.Repeat(",0", 12)+"]"), 400},
		{"1e39 as FP64", "/v2/models/heart/infer", in("[1,13]", "FP64", "[1e39"+strings.Repeat(",0", 12)+"]"), 400},
		{"hex number", "/v2/models/heart/infer", in("[1,13]", "FP64", "[0x1"+strings.Repeat(",0", 12)+"]"), 400},
		{"unknown output", "/v2/models/heart/infer", `{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP32","data":` + row + `}],"outputs":[{"name":"margin"}]}`, 400},
		{"no probabilities", "/v2/models/heart/infer", `{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP32","data":` + row + `}],"parameters":{"probability":true}}`, 400},
		{"parameter not a bool", "/v2/models/heart/infer", `{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP32","data":` + row + `}],"parameters":{"decision":"yes"}}`, 400},
		{"deep JSON", "/v2/models/heart/infer", strings.Repeat("[", 7) + strings.Repeat("]", 7), 400},
		{"rows past the cap", "/v2/models/heart/infer", in("[4,13]", "FP32", "[]"), 413},
		{"body past the cap", "/v2/models/heart/infer", `{"id":"` + strings.Repeat("x", 5000) + `"}`, 413},
		{"unknown model", "/v2/models/nope/infer", in("[1,13]", "FP32", row), 404},
		{"unknown version", "/v2/models/heart/versions/7/infer", in("[1,13]", "FP32", row), 404},
		{"version not a number", "/v2/models/heart/versions/x/infer", in("[1,13]", "FP32", row), 404},
		{"model without a version", "/v2/models/empty/infer", in("[1,13]", "FP32", row), 400},
		{"unknown endpoint", "/v2/nothing", "{}", 404},
		{"GET-only endpoint", "/v2/health/live", "{}", 405},
		{"unload unknown", "/v2/repository/models/nope/unload", "{}", 404},
		{"load bad name", "/v2/repository/models/..x/load", "{}", 400},
	}
	for _, c := range cases {
		code, out := post(t, srv, c.path, c.body)
		if code != c.status {
			t.Errorf("%s: status %d, want %d (%v)", c.name, code, c.status, out)
		}
		if msg, _ := out["error"].(string); msg == "" {
			t.Errorf("%s: no error message: %v", c.name, out)
		}
	}
	code, out := post(t, srv, "/v2/models/heart/infer", in("[1,13]", "FP32", row))
	if code != 200 {
		t.Fatalf("after the bad requests: status %d %v", code, out)
	}
	want := lin.PredictDense(ds.DenseRow(0))
	if got := out["outputs"].([]any)[0].(map[string]any)["data"].([]any)[0].(float64); got != want {
		t.Errorf("label %v, want %v", got, want)
	}
}

// TestGRPCInfer checks the typed and raw input forms over gRPC, the
// status codes of bad requests, and the health service.
func TestGRPCInfer(t *testing.T) {
	ds := heart(t)
	km := kernelModel(t, ds)
	srv, _ := testServer(t, Limits{}, map[string]core.Model{"heart": km})
	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := inferencepb.NewGRPCInferenceServiceClient(conn)
	ctx := context.Background()
	hc, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || hc.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health %v, %v", hc, err)
	}
	n, nf := 5, ds.NumFeatures()
	x := make([]float32, 0, n*nf)
	var raw []byte
	for r := range n {
		for _, v := range ds.DenseRow(r) {
			x = append(x, v)
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
		}
	}
	in := &inferencepb.ModelInferRequest_InferInputTensor{Name: "x", Datatype: "FP32", Shape: []int64{int64(n), int64(nf)}}
	typed := &inferencepb.ModelInferRequest{ModelName: "heart", Id: "g1", Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{in},
		Parameters: map[string]*inferencepb.InferParameter{"probability": {ParameterChoice: &inferencepb.InferParameter_BoolParam{BoolParam: true}}}}
	in.Contents = &inferencepb.InferTensorContents{Fp32Contents: x}
	resp, err := client.ModelInfer(ctx, typed)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Id != "g1" || resp.ModelVersion != "1" || len(resp.Outputs) != 2 {
		t.Fatalf("answer %v", resp)
	}
	labels, probs := resp.Outputs[0].Contents.Int64Contents, resp.Outputs[1].Contents.Fp64Contents
	for r := range n {
		if want := km.PredictDense(ds.DenseRow(r)); float64(labels[r]) != want {
			t.Errorf("row %d label %d, want %v", r, labels[r], want)
		}
		p := km.ProbabilityDense(make([]float64, 2), ds.DenseRow(r))
		if probs[2*r] != p[0] || probs[2*r+1] != p[1] {
			t.Errorf("row %d probabilities %v, want %v", r, probs[2*r:2*r+2], p)
		}
	}
	rawIn := &inferencepb.ModelInferRequest_InferInputTensor{Name: "x", Datatype: "FP32", Shape: []int64{int64(n), int64(nf)}}
	rresp, err := client.ModelInfer(ctx, &inferencepb.ModelInferRequest{ModelName: "heart", ModelVersion: "1",
		Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{rawIn}, RawInputContents: [][]byte{raw}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rresp.RawOutputContents) != 1 || len(rresp.RawOutputContents[0]) != 8*n {
		t.Fatalf("raw answer %v", rresp)
	}
	for r := range n {
		if got := int64(binary.LittleEndian.Uint64(rresp.RawOutputContents[0][8*r:])); got != labels[r] {
			t.Errorf("raw row %d label %d, typed %d", r, got, labels[r])
		}
	}
	bad := []struct {
		name string
		req  *inferencepb.ModelInferRequest
		code codes.Code
	}{
		{"unknown model", &inferencepb.ModelInferRequest{ModelName: "nope", Inputs: typed.Inputs}, codes.NotFound},
		{"unknown version", &inferencepb.ModelInferRequest{ModelName: "heart", ModelVersion: "2", Inputs: typed.Inputs}, codes.NotFound},
		{"no input", &inferencepb.ModelInferRequest{ModelName: "heart"}, codes.InvalidArgument},
		{"short raw", &inferencepb.ModelInferRequest{ModelName: "heart", Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{rawIn}, RawInputContents: [][]byte{raw[:10]}}, codes.InvalidArgument},
		{"NaN raw", &inferencepb.ModelInferRequest{ModelName: "heart", Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{rawIn}, RawInputContents: [][]byte{append([]byte{0, 0, 0xc0, 0x7f}, raw[4:]...)}}, codes.InvalidArgument},
		{"wrong contents", &inferencepb.ModelInferRequest{ModelName: "heart", Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP64", Shape: in.Shape, Contents: in.Contents}}}, codes.InvalidArgument},
	}
	for _, b := range bad {
		_, err := client.ModelInfer(ctx, b.req)
		if status.Code(err) != b.code {
			t.Errorf("%s: %v, want code %v", b.name, err, b.code)
		}
	}
	md, err := client.ModelMetadata(ctx, &inferencepb.ModelMetadataRequest{Name: "heart"})
	if err != nil || md.Platform != "svmgo_kernel" || md.Inputs[0].Shape[1] != int64(nf) || md.Properties["labels"] != "1,-1" {
		t.Errorf("metadata %v, %v", md, err)
	}
}

// TestVersionPolicies publishes five versions, the third corrupt, and
// checks which each policy serves.
func TestVersionPolicies(t *testing.T) {
	ds := heart(t)
	dir := t.TempDir()
	for v := 1; v <= 5; v++ {
		if v == 3 {
			if err := os.WriteFile(filepath.Join(dir, modeldir.FileName(3)), []byte("not a model"), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := writeVersion(dir, uint64(v), linearModel(t, ds, float64(v))); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		policy string
		want   string
	}{
		{"latest", "[5]"}, {"latest:3", "[2 4 5]"}, {"all", "[1 2 4 5]"}, {"specific:1,3,4,9", "[1 4]"},
	} {
		p, err := ParsePolicy(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		repo := NewRepository(RepositoryOptions{Policy: p})
		if err := repo.Add("m", dir); err != nil {
			t.Fatal(err)
		}
		var got []uint64
		for _, v := range repo.model("m").versions().list {
			got = append(got, v.Version)
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("policy %s serves %v, want %s", c.policy, got, c.want)
		}
		if p.String() != c.policy && c.policy != "specific:1,3,4,9" {
			t.Errorf("policy %q prints as %q", c.policy, p)
		}
		repo.Close()
	}
	for _, bad := range []string{"", "latest:0", "latest:x", "some", "specific:", "specific:a", "all:2"} {
		if _, err := ParsePolicy(bad); err == nil {
			t.Errorf("ParsePolicy(%q) accepted", bad)
		}
	}
}

// writeVersion publishes m as version v of dir.
func writeVersion(dir string, v uint64, m core.Model) error {
	b, err := modelfile.Encode(m)
	if err != nil {
		return err
	}
	_, err = modeldir.PublishEncoded(fileio.OS, dir, b, v-1)
	return err
}

// TestInFlightBound holds every slot and checks that the next inference
// is refused at once with 429 and RESOURCE_EXHAUSTED, and answered again
// once a slot is free.
func TestInFlightBound(t *testing.T) {
	ds := heart(t)
	lim := DefaultLimits()
	lim.MaxInFlight = 2
	srv, _ := testServer(t, lim, map[string]core.Model{"heart": linearModel(t, ds, 1)})
	for range lim.MaxInFlight {
		if err := srv.acquire(); err != nil {
			t.Fatal(err)
		}
	}
	body := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP32","data":%s}]}`, rowsJSON(ds, []int{0}, false))
	if code, out := post(t, srv, "/v2/models/heart/infer", body); code != http.StatusTooManyRequests {
		t.Errorf("past the bound: %d %v", code, out)
	}
	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = inferencepb.NewGRPCInferenceServiceClient(conn).ModelInfer(context.Background(), &inferencepb.ModelInferRequest{ModelName: "heart"})
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("gRPC past the bound: %v", err)
	}
	srv.releaseSlot()
	if code, out := post(t, srv, "/v2/models/heart/infer", body); code != 200 {
		t.Errorf("with a free slot: %d %v", code, out)
	}
	srv.releaseSlot()
}

// TestSwapUnderLoad runs 8 clients while 30 versions are published, one
// in five corrupt: no request fails, every answer comes from a valid
// version, and each client sees versions in increasing order. (The
// real-process form, with RSS and latency, is TestServeSwapSoak in
// daemon/cmd/svmgo.)
func TestSwapUnderLoad(t *testing.T) {
	ds := heart(t)
	models := []core.Model{linearModel(t, ds, 0.01), linearModel(t, ds, 1)}
	srv, root := testServer(t, Limits{}, map[string]core.Model{"m": models[0]})
	dir := filepath.Join(root, "m")
	body := []byte(fmt.Sprintf(`{"inputs":[{"name":"x","shape":[2,13],"datatype":"FP32","data":%s}]}`, rowsJSON(ds, []int{0, 1}, true)))
	valid := sync.Map{}
	valid.Store("1", true)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			last := uint64(0)
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := http.Post("http://"+srv.HTTPAddr()+"/v2/models/m/infer", "application/json", bytes.NewReader(body))
				if err != nil {
					errs <- err
					return
				}
				var out struct {
					Version string `json:"model_version"`
				}
				err = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 {
					errs <- fmt.Errorf("status %d, %v", resp.StatusCode, err)
					return
				}
				if _, ok := valid.Load(out.Version); !ok {
					errs <- fmt.Errorf("answer from version %s, never published valid", out.Version)
					return
				}
				var v uint64
				fmt.Sscan(out.Version, &v)
				if v < last {
					errs <- fmt.Errorf("version %d after %d", v, last)
					return
				}
				last = v
			}
		})
	}
	m := srv.repo.model("m")
	failures := func() uint64 { return entry(&srv.repo.metrics.mu, srv.repo.metrics.failed, "m").Load() }
	// Each version is waited for (served, or counted as failed) before the
	// next, so that every corrupt one is read; TestServeSwapSoak publishes
	// without waiting.
	for v := uint64(2); v <= 31; v++ {
		f := failures()
		if v%5 == 0 {
			// Renamed in whole, as a publisher does: a file written in
			// place could be read empty first, and counted twice.
			tmp := filepath.Join(dir, ".corrupt.tmp")
			if err := os.WriteFile(tmp, []byte("corrupt"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, filepath.Join(dir, modeldir.FileName(v))); err != nil {
				t.Fatal(err)
			}
		} else {
			valid.Store(fmt.Sprint(v), true)
			if err := writeVersion(dir, v, models[v%2]); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(5 * time.Second)
		for m.versions().list[0].Version != v && failures() == f {
			if time.Now().After(deadline) {
				t.Fatalf("version %d neither served nor counted as failed", v)
			}
			time.Sleep(time.Millisecond)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := m.versions().list[0].Version; got != 31 {
		t.Errorf("serving version %d, want 31", got)
	}
	var metrics bytes.Buffer
	srv.repo.metrics.write(&metrics)
	for _, want := range []string{`svmgo_serve_load_failures_total{model="m"} 6`, `svmgo_serve_swaps_total{model="m"} 24`} {
		if !strings.Contains(metrics.String(), want) {
			t.Errorf("metrics lack %s:\n%s", want, metrics.String())
		}
	}
}
