package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// The tests of this file run svmgo serve (and svmgo watch --serve) as real
// processes on loopback, driven by curl and by a Python gRPC client
// generated from the vendored proto. make test-serve runs them (they
// skip under -short, as every test that builds the binary does).

// startServe starts bin with args (serve or watch, with their address
// flags at 127.0.0.1:0) and returns it once it has logged both addresses.
func startServe(t *testing.T, bin string, args ...string) (d *opsDaemon, httpAddr, grpcAddr string) {
	t.Helper()
	d = startOpsProcess(t, bin, "", args)
	addr := func(msg string) string {
		r := d.waitRecord(20*time.Second, func(r opsRecord) bool { return r.MsgText() == msg })
		a, _ := r["addr"].(string)
		return a
	}
	return d, addr("serve: http listening"), addr("serve: grpc listening")
}

// curl runs curl on the REST endpoint and returns the status and body.
func curl(t *testing.T, method, url, bodyFile string) (int, []byte) {
	t.Helper()
	args := []string{"-sS", "-X", method, "-o", "-", "-w", "\n%{http_code}", "-H", "Content-Type: application/json"}
	if bodyFile != "" {
		args = append(args, "--data-binary", "@"+bodyFile)
	}
	out, err := exec.Command("curl", append(args, url)...).Output()
	if err != nil {
		t.Fatalf("curl %s %s: %v", method, url, err)
	}
	i := bytes.LastIndexByte(out, '\n')
	code, err := strconv.Atoi(string(out[i+1:]))
	if err != nil {
		t.Fatalf("curl %s %s: status %q", method, url, out[i+1:])
	}
	return code, out[:i]
}

// confSet is one data set of the conformance test: a model trained by
// svmgo on train, predicted by svmgo predict on (the first maxRows rows
// of) test.
type confSet struct {
	name, train, test string
	trainArgs         []string // train or train-linear and its options
	prob              bool     // compare probabilities (-b 1)
	regression        bool
	maxRows           int // 0: every row
}

// confSets are heart_scale (bundled) and every set of ../shared/data.
func confSets(t *testing.T) []confSet {
	shared := "../../../../shared/data/"
	sets := []confSet{{name: "heart", train: "../../../examples/data/heart_scale.train", test: "../../../examples/data/heart_scale.test",
		trainArgs: []string{"train", "-t", "2", "-c", "4", "-b", "1"}, prob: true}}
	if _, err := os.Stat(shared + "digits.train"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("../shared/data is missing: %v", err)
		}
		t.Logf("../shared/data missing: conformance on heart_scale only")
		return sets
	}
	return append(sets,
		confSet{name: "breast_cancer", trainArgs: []string{"train-linear", "-s", "0"}, prob: true},
		confSet{name: "diabetes", trainArgs: []string{"train", "-s", "3", "-t", "2", "-c", "10"}, regression: true},
		confSet{name: "digits", trainArgs: []string{"train", "-t", "2", "-g", "0.001", "-c", "10", "-b", "1"}, prob: true},
		confSet{name: "shuttle", trainArgs: []string{"train-linear", "-s", "1"}},
		// 12733 rows of 9131 features would be 200 MB of JSON: the first 400.
		confSet{name: "debdesc_bin", trainArgs: []string{"train-linear", "-s", "1"}, maxRows: 400},
	)
}

// predictOutput runs svmgo predict [-b 1] and returns each row's label
// or value, and with -b 1 the probabilities (as printed, six digits).
func predictOutput(t *testing.T, bin, test, model string, prob bool) (values []float64, probs [][]float64) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"predict", "-q", test, model, out}
	if prob {
		args = []string{"predict", "-q", "-b", "1", test, model, out}
	}
	if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("svmgo %v: %v\n%s", args, err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if fields[0] == "labels" {
			continue
		}
		var row []float64
		for _, s := range fields {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			row = append(row, v)
		}
		values = append(values, row[0])
		if prob {
			probs = append(probs, row[1:])
		}
	}
	return values, probs
}

// closeTo reports whether got is within rel of want, relatively (or
// absolutely below 1).
func closeTo(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*max(math.Abs(want), 1)
}

// confChunk is a slice of rows of one set sent in one request.
type confChunk struct {
	set        int
	start, end int
}

// TestServeConformance trains a model on each data set, serves them all
// from one svmgo serve process, and checks every REST route with curl and
// every gRPC method with the Python client: labels equal svmgo predict's
// exactly, regression values to 1e-6 relative, probabilities to the six
// digits svmgo predict -b 1 prints; every malformed request gets its
// documented status and the server stays up; /metrics passes promtool.
func TestServeConformance(t *testing.T) {
	bin := opsBuild(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import grpc, grpc_tools").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3-grpcio and python3-grpc-tools are not installed (make test-deps-serve)")
		}
		t.Skip("python3-grpcio and python3-grpc-tools not installed")
	}
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "repo")
	sets := confSets(t)
	type prepared struct {
		rows     [][]float32 // dense, of the model's width
		labels   []float64
		probs    [][]float64
		values   []float64
		numFeats int
	}
	prep := make([]prepared, len(sets))
	for i := range sets {
		s := &sets[i]
		if s.train == "" {
			s.train, s.test = "../../../../shared/data/"+s.name+".train", "../../../../shared/data/"+s.name+".test"
		}
		dir := filepath.Join(repo, s.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		model := filepath.Join(dir, "model-1.svmgo")
		args := append(append([]string{}, s.trainArgs[0], "-q"), s.trainArgs[1:]...)
		if b, err := exec.Command(bin, append(args, s.train, model)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: svmgo %v: %v\n%s", s.name, args, err, b)
		}
		test := s.test
		if s.maxRows > 0 {
			test = filepath.Join(tmp, s.name+".test")
			headLines(t, s.test, test, s.maxRows)
		}
		p := &prep[i]
		if s.regression {
			p.values, _ = predictOutput(t, bin, test, model, false)
		} else {
			p.labels, _ = predictOutput(t, bin, test, model, false)
		}
		if s.prob {
			_, p.probs = predictOutput(t, bin, test, model, true)
		}
		ds, err := data.ReadFile(test, data.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.numFeats = modelWidth(t, bin, model)
		for r := range ds.Len() {
			row := make([]float32, p.numFeats)
			var idx []int32
			var val []float32
			if ds.IsDense() {
				val = ds.DenseRow(r)
				idx = make([]int32, len(val))
				for k := range idx {
					idx[k] = int32(k)
				}
			} else {
				idx, val = ds.SparseRow(r)
			}
			for k, j := range idx {
				if int(j) >= p.numFeats {
					if val[k] != 0 {
						t.Fatalf("%s row %d: feature %d beyond the model's %d", s.name, r, j+1, p.numFeats)
					}
					continue
				}
				row[j] = val[k]
			}
			p.rows = append(p.rows, row)
		}
	}

	d, httpAddr, grpcAddr := startServe(t, bin, "serve", "--repository", repo, "--log.format", "json",
		"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--max-rows", "100", "--max-json-depth", "8")
	base := "http://" + httpAddr

	// The routes without a body.
	for _, c := range []struct {
		method, path string
		status       int
		has          string
	}{
		{"GET", "/v2/health/live", 200, `"live":true`},
		{"GET", "/v2/health/ready", 200, `"ready":true`},
		{"GET", "/v2", 200, `"model_repository"`},
		{"GET", "/v2/models/heart", 200, `"versions":["1"]`},
		{"GET", "/v2/models/heart/versions/1", 200, `"platform":"svmgo_kernel"`},
		{"GET", "/v2/models/heart/ready", 200, `"ready":true`},
		{"GET", "/v2/models/heart/versions/1/ready", 200, `"ready":true`},
		{"GET", "/v2/models/heart/versions/2/ready", 404, `"error"`},
		{"GET", "/v2/models/nope", 404, `"error"`},
		{"POST", "/v2/repository/index", 200, `"state":"READY"`},
		{"POST", "/v2/repository/models/heart/unload", 200, `{}`},
		{"GET", "/v2/models/heart", 404, `"error"`},
		{"POST", "/v2/repository/models/heart/load", 200, `{}`},
		{"GET", "/v2/models/heart/ready", 200, `"ready":true`},
		{"POST", "/v2/repository/models/nothere/load", 404, `"error"`},
		{"DELETE", "/v2/models/heart/infer", 405, `"error"`},
	} {
		code, body := curl(t, c.method, base+c.path, "")
		if code != c.status || !bytes.Contains(body, []byte(c.has)) {
			t.Errorf("%s %s: %d %s, want %d with %s", c.method, c.path, code, body, c.status, c.has)
		}
	}

	// Inference over REST with curl, and the same chunks over gRPC.
	type job struct {
		Model   string    `json:"model"`
		Version string    `json:"version,omitempty"`
		Rows    int       `json:"rows"`
		Cols    int       `json:"cols"`
		Data    []float32 `json:"data"`
		Raw     bool      `json:"raw"`
		Outputs []string  `json:"outputs"`
	}
	var jobs []job
	var chunks []confChunk
	for i := range sets {
		n := len(prep[i].rows)
		for start := 0; start < n; start += 100 {
			chunks = append(chunks, confChunk{i, start, min(start+100, n)})
		}
	}
	bodyFile := filepath.Join(tmp, "body.json")
	for ci, c := range chunks {
		s, p := sets[c.set], prep[c.set]
		outputs := []string{"label"}
		if s.prob {
			outputs = append(outputs, "probability")
		}
		var flat []float32
		for _, r := range p.rows[c.start:c.end] {
			flat = append(flat, r...)
		}
		version := ""
		path := "/v2/models/" + s.name + "/infer"
		if ci%2 == 1 {
			version, path = "1", "/v2/models/"+s.name+"/versions/1/infer"
		}
		jobs = append(jobs, job{Model: s.name, Version: version, Rows: c.end - c.start, Cols: p.numFeats, Data: flat, Raw: ci%2 == 0, Outputs: outputs})
		var data any = flat
		if ci%2 == 0 {
			data = p.rows[c.start:c.end] // nested
		}
		dt := "FP32"
		if ci%3 == 0 {
			dt = "FP64"
		}
		var outs []map[string]string
		for _, o := range outputs {
			outs = append(outs, map[string]string{"name": o})
		}
		req := map[string]any{"id": fmt.Sprint(ci), "inputs": []any{map[string]any{"name": "input", "shape": []int{c.end - c.start, p.numFeats}, "datatype": dt, "data": data}}, "outputs": outs}
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bodyFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
		code, body := curl(t, "POST", base+path, bodyFile)
		if code != 200 {
			t.Fatalf("%s rows %d-%d: %d %s", s.name, c.start, c.end, code, body)
		}
		var resp struct {
			ID      string `json:"id"`
			Version string `json:"model_version"`
			Outputs []struct {
				Name     string    `json:"name"`
				Datatype string    `json:"datatype"`
				Shape    []int     `json:"shape"`
				Data     []float64 `json:"data"`
			} `json:"outputs"`
		}
		if err := json.Unmarshal(body, &resp); err != nil {
			t.Fatalf("%s: %v\n%s", s.name, err, body)
		}
		got := map[string][]float64{}
		for _, o := range resp.Outputs {
			got[o.Name] = o.Data
			if o.Name == "label" && (o.Datatype == "FP64") != s.regression {
				t.Errorf("%s: label datatype %s", s.name, o.Datatype)
			}
		}
		checkOutputs(t, "REST "+s.name, s, p.labels, p.values, p.probs, c, got)
		if resp.ID != fmt.Sprint(ci) || resp.Version != "1" {
			t.Errorf("%s: id %q version %q", s.name, resp.ID, resp.Version)
		}
	}

	// Malformed requests, each with its documented status.
	row := prep[0].rows[0]
	rowJSON, _ := json.Marshal(row)
	for _, c := range []struct {
		name, path, body string
		status           int
	}{
		{"not JSON", "/v2/models/heart/infer", "{", 400},
		{"wrong width", "/v2/models/heart/infer", `{"inputs":[{"name":"x","shape":[1,3],"datatype":"FP32","data":[1,2,3]}]}`, 400},
		{"short data", "/v2/models/heart/infer", `{"inputs":[{"name":"x","shape":[2,13],"datatype":"FP32","data":[` + string(rowJSON) + `]}]}`, 400},
		{"BOOL", "/v2/models/heart/infer", `{"inputs":[{"name":"x","shape":[1,13],"datatype":"BOOL","data":` + string(rowJSON) + `}]}`, 400},
		{"deep", "/v2/models/heart/infer", strings.Repeat("[", 50) + strings.Repeat("]", 50), 400},
		{"rows", "/v2/models/heart/infer", `{"inputs":[{"name":"x","shape":[101,13],"datatype":"FP32","data":[]}]}`, 413},
		{"no probabilities", "/v2/models/shuttle/infer", `{"inputs":[{"name":"x","shape":[1,9],"datatype":"FP32","data":[1,2,3,4,5,6,7,8,9]}],"outputs":[{"name":"probability"}]}`, 400},
		{"unknown model", "/v2/models/nope/infer", "{}", 404},
		{"unknown version", "/v2/models/heart/versions/9/infer", "{}", 404},
	} {
		if c.name == "no probabilities" && len(sets) == 1 {
			continue
		}
		if err := os.WriteFile(bodyFile, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, body := curl(t, "POST", base+c.path, bodyFile)
		if code != c.status || !bytes.HasPrefix(body, []byte(`{"error":`)) {
			t.Errorf("%s: %d %s, want %d {\"error\": ...}", c.name, code, body, c.status)
		}
	}

	// gRPC: the Python client from stubs generated here from the proto.
	gen := filepath.Join(tmp, "pb")
	if err := os.Mkdir(gen, 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(python, "-m", "grpc_tools.protoc", "-I../../serve/inferencepb", "--python_out="+gen, "--grpc_python_out="+gen,
		"grpc_predict_v2.proto").CombinedOutput(); err != nil {
		t.Fatalf("grpc_tools.protoc: %v\n%s", err, b)
	}
	bad := []map[string]any{
		{"name": "unknown model", "model": "nope", "rows": 1, "cols": 13, "data": row, "want": "NOT_FOUND"},
		{"name": "unknown version", "model": "heart", "version": "5", "rows": 1, "cols": 13, "data": row, "want": "NOT_FOUND"},
		{"name": "wrong width", "model": "heart", "rows": 1, "cols": 12, "data": row[:12], "want": "INVALID_ARGUMENT"},
		{"name": "short raw", "model": "heart", "rows": 1, "cols": 13, "raw_bytes": 51, "want": "INVALID_ARGUMENT"},
		{"name": "rows past the cap", "model": "heart", "rows": 101, "cols": 13, "data": []float32{}, "want": "INVALID_ARGUMENT"},
		{"name": "unknown output", "model": "heart", "rows": 1, "cols": 13, "data": row, "outputs": []string{"margin"}, "want": "INVALID_ARGUMENT"},
		{"name": "INT8 out of range", "model": "heart", "datatype": "INT8", "rows": 1, "cols": 13, "data": append([]float32{300}, row[1:]...), "want": "INVALID_ARGUMENT"},
	}
	jobFile, outFile := filepath.Join(tmp, "job.json"), filepath.Join(tmp, "grpc.json")
	b, err := json.Marshal(map[string]any{"requests": jobs, "bad": bad})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jobFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "testdata/oip_grpc_client.py", grpcAddr, jobFile, outFile)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+gen)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python gRPC client: %v\n%s", err, b)
	}
	var gout struct {
		Live, Ready bool
		Health      int
		Server      struct{ Name string }
		Models      map[string]struct {
			Versions   []string
			Platform   string
			Ready      bool
			InputShape []int64 `json:"input_shape"`
		}
		Answers []struct {
			Version string
			Outputs map[string]struct {
				Datatype string
				Shape    []int64
				Data     []float64
			}
		}
		Bad []struct{ Name, Code, Want string }
	}
	b, err = os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &gout); err != nil {
		t.Fatal(err)
	}
	if !gout.Live || !gout.Ready || gout.Health != 1 || gout.Server.Name != "svmgo" {
		t.Errorf("gRPC live %v ready %v health %d server %q", gout.Live, gout.Ready, gout.Health, gout.Server.Name)
	}
	for i, s := range sets {
		m := gout.Models[s.name]
		if !m.Ready || len(m.Versions) != 1 || m.InputShape[1] != int64(prep[i].numFeats) {
			t.Errorf("gRPC metadata of %s: %+v", s.name, m)
		}
	}
	if len(gout.Answers) != len(chunks) {
		t.Fatalf("gRPC: %d answers for %d requests", len(gout.Answers), len(chunks))
	}
	for i, c := range chunks {
		s, p := sets[c.set], prep[c.set]
		got := map[string][]float64{}
		for name, o := range gout.Answers[i].Outputs {
			got[name] = o.Data
		}
		checkOutputs(t, "gRPC "+s.name, s, p.labels, p.values, p.probs, c, got)
	}
	for _, b := range gout.Bad {
		if b.Code != b.Want {
			t.Errorf("gRPC %s: %s, want %s", b.Name, b.Code, b.Want)
		}
	}

	// The C-free examples run as documented against this server.
	for _, ex := range [][]string{{python, "../../../examples/serve/client.py", base, "heart"}, {"bash", "../../../examples/serve/curl.sh", base, "heart"}} {
		out, err := exec.Command(ex[0], ex[1:]...).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte(`"model_version"`)) && !bytes.Contains(out, []byte("version 1")) {
			t.Errorf("%s: %v\n%s", ex[1], err, out)
		}
	}

	// Still up, and the metrics pass promtool and count what was asked.
	if code, _ := curl(t, "GET", base+"/v2/health/live", ""); code != 200 {
		t.Errorf("after the bad requests: live %d", code)
	}
	promtoolCheck(t, httpAddr)
	_, metrics := curl(t, "GET", base+"/metrics", "")
	for _, want := range []string{`svmgo_serve_requests_total{model="heart",version="1",protocol="grpc",status="OK"}`,
		`svmgo_serve_requests_total{model="",version="",protocol="rest",status="404"}`, `svmgo_serve_models `} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	d.signal(syscall.SIGTERM)
	select {
	case <-d.exited:
		if d.waitErr != nil {
			t.Errorf("exit after SIGTERM: %v", d.waitErr)
		}
	case <-time.After(15 * time.Second):
		t.Error("no exit 15 s after SIGTERM")
	}
}

// checkOutputs compares one chunk's answer with svmgo predict's output.
func checkOutputs(t *testing.T, who string, s confSet, labels, values []float64, probs [][]float64, c confChunk, got map[string][]float64) {
	t.Helper()
	lab := got["label"]
	if len(lab) != c.end-c.start {
		t.Fatalf("%s rows %d-%d: %d labels", who, c.start, c.end, len(lab))
	}
	for k, v := range lab {
		r := c.start + k
		switch {
		case s.regression && !closeTo(v, values[r], 1e-6):
			t.Errorf("%s row %d: value %v, svmgo predict %v", who, r, v, values[r])
		case !s.regression && v != labels[r]:
			t.Errorf("%s row %d: label %v, svmgo predict %v", who, r, v, labels[r])
		}
	}
	if !s.prob {
		return
	}
	pr := got["probability"]
	nc := len(probs[0])
	if len(pr) != nc*len(lab) {
		t.Fatalf("%s: %d probabilities for %d rows of %d classes", who, len(pr), len(lab), nc)
	}
	for k := range lab {
		for j := range nc {
			// svmgo predict -b 1 prints %.6g: within half a unit of its sixth digit.
			if want := probs[c.start+k][j]; math.Abs(pr[k*nc+j]-want) > 5e-6*math.Abs(want)+1e-300 {
				t.Errorf("%s row %d class %d: probability %v, svmgo predict %v", who, c.start+k, j, pr[k*nc+j], want)
			}
		}
	}
}

// headLines copies the first n lines of src to dst.
func headLines(t *testing.T, src, dst string, n int) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfterN(b, []byte("\n"), n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	if err := os.WriteFile(dst, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
}

// modelWidth returns the number of features of a model file, as svmgo
// inspect reports it.
func modelWidth(t *testing.T, bin, model string) int {
	t.Helper()
	out, err := exec.Command(bin, "inspect", model).Output()
	if err != nil {
		t.Fatalf("svmgo inspect %s: %v", model, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "nr_feature" {
			if n, err := strconv.Atoi(strings.ReplaceAll(f[1], ",", "")); err == nil {
				return n
			}
		}
	}
	t.Fatalf("svmgo inspect %s: no nr_feature line\n%s", model, out)
	return 0
}

// TestWatchServe runs svmgo watch --serve.http --serve.grpc on the demo's
// batches with a client inferring without pause from the first published
// version on: the client sees every version the daemon publishes, in
// order, and no request fails.
func TestWatchServe(t *testing.T) {
	bin := opsBuild(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "incoming"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, httpAddr, _ := startServe(t, bin, "watch", "--root", root, "--log.format", "json", "--train.options", "-s 1 -B 1 -e 0.001",
		"--serve.http", "127.0.0.1:0", "--serve.grpc", "127.0.0.1:0", "--serve.name", "heart")
	d.root = root
	d.waitRecord(20*time.Second, func(r opsRecord) bool { return r.MsgText() == "daemon started" })
	batches, err := filepath.Glob("../../../examples/demo/batches/heart-*.txt")
	if err != nil || len(batches) < 2 {
		t.Fatalf("demo batches: %v %v", batches, err)
	}
	published := func() []string {
		var vs []string
		for _, r := range d.records() {
			if r.MsgText() == "model published" {
				vs = append(vs, strconv.FormatInt(r.Int("version"), 10))
			}
		}
		return vs
	}
	body, _ := json.Marshal(map[string]any{"inputs": []any{map[string]any{"name": "x", "shape": []int{1, 13}, "datatype": "FP32",
		"data": []float32{0.708333, 1, 1, -0.320755, -0.105023, -1, 1, -0.419847, -1, -0.225806, 0, 1, -1}}}})
	var mu sync.Mutex
	var seen []string
	var requests int
	clientErr := make(chan error, 1)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			resp, err := http.Post("http://"+httpAddr+"/v2/models/heart/infer", "application/json", bytes.NewReader(body))
			if err != nil {
				clientErr <- err
				return
			}
			var out struct {
				Version string `json:"model_version"`
			}
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 {
				clientErr <- fmt.Errorf("request %d: status %d, %v", requests, resp.StatusCode, err)
				return
			}
			mu.Lock()
			requests++
			if len(seen) == 0 || seen[len(seen)-1] != out.Version {
				seen = append(seen, out.Version)
			}
			mu.Unlock()
		}
	}
	for i, b := range batches {
		text, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		d.drop(filepath.Base(b), string(text))
		deadline := time.Now().Add(30 * time.Second)
		for len(published()) <= i {
			if time.Now().After(deadline) {
				t.Fatalf("batch %s: no version published\n%s", b, d.logs.String())
			}
			time.Sleep(2 * time.Millisecond)
		}
		if i == 0 {
			// From the first version on, every request must succeed.
			for code := 0; code != 200; code, _ = probe(t, httpAddr, "/v2/models/heart/ready") {
				time.Sleep(time.Millisecond)
			}
			wg.Go(client)
		}
		want := published()[i]
		for {
			mu.Lock()
			last := ""
			if len(seen) > 0 {
				last = seen[len(seen)-1]
			}
			mu.Unlock()
			if last == want {
				break
			}
			select {
			case err := <-clientErr:
				t.Fatal(err)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("client never saw version %s (saw %v)", want, seen)
			}
			time.Sleep(time.Millisecond)
		}
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-clientErr:
		t.Fatal(err)
	default:
	}
	if got, want := strings.Join(seen, " "), strings.Join(published(), " "); got != want {
		t.Errorf("client saw versions %s; the daemon published %s", got, want)
	}
	t.Logf("%d requests, versions seen in order: %v", requests, seen)
	d.signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(20 * time.Second):
		t.Error("no exit 20 s after SIGTERM")
	}
}
