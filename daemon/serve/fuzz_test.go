package serve

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// fuzzServer is a server (not listening) of heart_scale's linear model
// as "m", with small limits so the fuzzer reaches them.
func fuzzServer(f *testing.F) (*Server, *data.Dataset) {
	ds := heart(f)
	dir := filepath.Join(f.TempDir(), "m")
	if err := os.Mkdir(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	if _, err := modeldir.Publish(dir, linearModel(f, ds, 1)); err != nil {
		f.Fatal(err)
	}
	repo := NewRepository(RepositoryOptions{})
	if err := repo.Add("m", dir); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { repo.Close() })
	lim := DefaultLimits()
	lim.MaxRequestBytes, lim.MaxRows, lim.MaxJSONDepth = 1<<16, 64, 8
	srv, err := New(repo, Config{HTTPAddr: "127.0.0.1:0", Limits: lim})
	if err != nil {
		f.Fatal(err)
	}
	return srv, ds
}

// FuzzRESTInfer sends arbitrary bodies to the REST inference endpoint: the
// answer is always 200 with outputs or a documented 4xx with
// {"error": ...}, never a panic or a 5xx.
func FuzzRESTInfer(f *testing.F) {
	srv, ds := fuzzServer(f)
	h := srv.Handler()
	row := rowsJSON(ds, []int{0}, true)
	for _, seed := range []string{
		`{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP32","data":` + row + `}]}`,
		`{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP64","data":` + rowsJSON(ds, []int{1}, false) + `}],"outputs":[{"name":"decision"}]}`,
		`{"inputs":[{"name":"x","shape":[2,13],"datatype":"INT32","data":[[1,0,0,0,0,0,0,0,0,0,0,0,-1],[0,0,0,0,0,0,0,0,0,0,0,0,0]]}],"parameters":{"decision":true}}`,
		`{"inputs":[{"name":"x","shape":[1,13],"datatype":"UINT8","data":[1,2,3,4,5,6,7,8,9,10,11,12,255]}]}`,
		`{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP32","data":[[1e39,0,0,0,0,0,0,0,0,0,0,0,0]]}]}`,
		`{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP32","data":[[1,2]]}]}`,
		`{"inputs":[{"name":"x","shape":[99999,13],"datatype":"FP32","data":[]}]}`,
		`[[[[[[[[[[[[]]]]]]]]]]]]`, `{"inputs":"x"}`, `{"id":"\"[[[[[[[[[[["}`, ``, `null`, `{"inputs":[{"shape":[1,-13]}]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v2/models/m/infer", strings.NewReader(body)))
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("answer %d is not JSON: %q", rec.Code, rec.Body.String())
		}
		switch rec.Code {
		case http.StatusOK:
			if _, ok := out["outputs"].([]any); !ok {
				t.Fatalf("200 without outputs: %v", out)
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			if msg, _ := out["error"].(string); msg == "" {
				t.Fatalf("%d without an error message: %v", rec.Code, out)
			}
		default:
			t.Fatalf("status %d for %q: %v", rec.Code, body, out)
		}
	})
}

// FuzzJSONData feeds the tensor data reader arbitrary text for a few
// shapes and datatypes: it accepts exactly rows×cols finite numbers or
// refuses with a 400, and never panics.
func FuzzJSONData(f *testing.F) {
	for _, seed := range []string{"[[1,2],[3,4]]", "[1,2,3,4]", "[[1,2],[3]]", "[1,2,3]", "[[1,2],[3,4]] x", "[-0.5e-3, 1E+2, 0, -0]", "[01]", "[1.]", "[[[]]]", "["} {
		f.Add(seed, uint8(dtFP32), uint8(2), uint8(2))
	}
	f.Fuzz(func(t *testing.T, text string, dt, rows, cols uint8) {
		d := datatype(dt % uint8(len(datatypeNames)))
		r, c := int(rows%8)+1, int(cols%8)+1
		if d == dtInvalid {
			d = dtFP64
		}
		dst := make([]float32, r*c)
		err := jsonData(dst, []byte(text), d, r, c)
		if err != nil {
			if st, _ := statusOf(err); st != http.StatusBadRequest {
				t.Fatalf("status %d for %v", st, err)
			}
			return
		}
		var back []any
		if json.Unmarshal([]byte(text), &back) != nil {
			t.Fatalf("accepted %q, which is not JSON", text)
		}
	})
}

// FuzzGRPCInfer decodes arbitrary protobuf bytes as an inference request
// and runs it through the gRPC decoder: an error is INVALID_ARGUMENT (or
// the model's NOT_FOUND), never a panic.
func FuzzGRPCInfer(f *testing.F) {
	srv, ds := fuzzServer(f)
	x := make([]float32, 0, 13)
	x = append(x, ds.DenseRow(0)...)
	for _, req := range []*inferencepb.ModelInferRequest{
		{ModelName: "m", Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{1, 13}, Contents: &inferencepb.InferTensorContents{Fp32Contents: x}}}},
		{ModelName: "m", Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "INT8", Shape: []int64{1, 13}}}, RawInputContents: [][]byte{make([]byte, 13)}},
		{ModelName: "m", Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "UINT64", Shape: []int64{1, 13}, Contents: &inferencepb.InferTensorContents{Uint64Contents: make([]uint64, 13)}}}},
	} {
		b, err := proto.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	g := &grpcService{s: srv}
	f.Fuzz(func(t *testing.T, b []byte) {
		var req inferencepb.ModelInferRequest
		if proto.Unmarshal(b, &req) != nil {
			return
		}
		var vname string
		resp, err := g.infer(&req, &vname)
		if err != nil {
			if st, _ := statusOf(err); st != http.StatusBadRequest && st != http.StatusNotFound && st != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d for %v", st, err)
			}
			return
		}
		if len(resp.Outputs) == 0 {
			t.Fatal("an answer without outputs")
		}
	})
}

// oldDecode is the first release's decoding of a REST body (oldrest_test.go).
func oldDecode(inf *inference, body []byte, v *version, lim *Limits) error {
	if err := oldCheckJSONDepth(body, lim.MaxJSONDepth); err != nil {
		return err
	}
	var req oldRESTRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return badRequestf("request JSON: %v", err)
	}
	if err := oldDecodeREST(inf, &req, v, lim); err != nil {
		return err
	}
	inf.id = req.ID
	return nil
}

// newDecode is restDecode's decoding of a REST body without binary data.
func newDecode(inf *inference, body []byte, v *version, lim *Limits) error {
	if err := decodeRESTBody(&inf.req, inf, body, v, lim); err != nil {
		return err
	}
	return inf.restInput(body, &binaryTensor{}, false, v, lim)
}

// differsOnPurpose reports whether body is one where the new decoder means
// to differ from the first release's (doc.go): it uses the binary tensor
// data extension's parameters, or spells a member name in another case
// (encoding/json matches struct fields case-insensitively).
func differsOnPurpose(body []byte) bool {
	if bytes.Contains(body, []byte("binary_data")) {
		return true
	}
	d := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		s, ok := tok.(string)
		if !ok {
			continue
		}
		for _, k := range []string{"id", "parameters", "inputs", "outputs", "name", "shape", "datatype", "data"} {
			if s != k && strings.EqualFold(s, k) {
				return true
			}
		}
	}
}

// FuzzRESTDecoderMatchesOld decodes arbitrary bodies with the REST decoder
// and with the first release's encoding/json one (the differential
// oracle): both accept or both refuse with the same status, and what they
// accept reads as the same rows (bit for bit), outputs and id.
func FuzzRESTDecoderMatchesOld(f *testing.F) {
	srv, ds := fuzzServer(f)
	_, v, err := srv.repo.resolve("m", "")
	if err != nil {
		f.Fatal(err)
	}
	row, flat := rowsJSON(ds, []int{0}, true), rowsJSON(ds, []int{1, 2}, false)
	for _, seed := range []string{
		`{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP32","data":` + row + `}]}`,
		`{"inputs":[{"data":` + flat + `,"datatype":"FP64","name":"x","shape":[2,13]}],"outputs":[{"name":"decision"}],"id":"a\"b\u00e9"}`,
		`{"id":"q","inputs":[{"name":"x","shape":[2,13],"datatype":"FP32","data":` + flat + `,"shape":[1,26]}]}`,
		`{"inputs":[{"name":"x","shape":[2,13],"datatype":"INT32","data":[[1,0,0,0,0,0,0,0,0,0,0,0,-1],[0,0,0,0,0,0,0,0,0,0,0,0,0]]}],"parameters":{"decision":true,"probability":null}}`,
		`{"inputs":[{"name":"x","shape":[1,13],"datatype":"UINT8","data":[1,2,3,4,5,6,7,8,9,10,11,12,255]}],"inputs":null}`,
		`{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP32","data":[[1e39,0,0,0,0,0,0,0,0,0,0,0,0.12345678901234567890123]]}]}`,
		`{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP64","data":[[1e-400,-0,0.5e1,12345678901234567890,0,0,0,0,0,0,0,0,3.4028235e38]]}]}`,
		`{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP32","data":[[1,2]]}], "parameters": {"decision": "yes"}}`,
		`{"inputs":[{"name":"x","shape":[99999,13],"datatype":"FP32","data":[]}]}`,
		`{"inputs":[null]}`, `{"outputs":[null],"inputs":[{}]}`, `{"inputs":[{"shape":[1,1.5]}]}`, `{"\u0069nputs":[]}`,
		`[[[[[[[[[[[[]]]]]]]]]]]]`, `{"inputs":"x"}`, `{"id":"\"[[[[[[[[[[["}`, ``, `null`, `{"inputs":[{"shape":[1,-13]}]} x`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		lim := srv.lim
		oldInf, newInf := &inference{}, &inference{}
		oldErr := oldDecode(oldInf, []byte(body), v, &lim)
		newErr := newDecode(newInf, []byte(body), v, &lim)
		if differsOnPurpose([]byte(body)) {
			return
		}
		oldSt, _ := statusOf(oldErr)
		newSt, _ := statusOf(newErr)
		if (oldErr == nil) != (newErr == nil) || oldSt != newSt {
			t.Fatalf("%q: first release %v (%d), new %v (%d)", body, oldErr, oldSt, newErr, newSt)
		}
		if oldErr != nil {
			return
		}
		if oldInf.rows != newInf.rows || oldInf.cols != newInf.cols || oldInf.want != newInf.want || oldInf.id != newInf.id {
			t.Fatalf("%q: first release %d×%d %+v id %q, new %d×%d %+v id %q", body,
				oldInf.rows, oldInf.cols, oldInf.want, oldInf.id, newInf.rows, newInf.cols, newInf.want, newInf.id)
		}
		for i, x := range oldInf.x[:oldInf.rows*oldInf.cols] {
			if y := newInf.x[i]; math.Float32bits(x) != math.Float32bits(y) {
				t.Fatalf("%q: value %d: first release %v, new %v", body, i, x, y)
			}
		}
	})
}

// FuzzGRPCWireMatchesProto answers arbitrary bytes as a ModelInfer request
// both ways: from the wire bytes (modelInferWire, reading the common form
// itself) and through protobuf's unmarshalling into a ModelInferRequest
// (the generated handler's way). Both give the same status code and, on
// success, equal answers.
func FuzzGRPCWireMatchesProto(f *testing.F) {
	srv, ds := fuzzServer(f)
	x := append([]float32(nil), ds.DenseRow(0)...)
	var raw []byte
	for r := range 2 {
		for _, v := range ds.DenseRow(r) {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
		}
	}
	in := func(dt string, shape ...int64) []*inferencepb.ModelInferRequest_InferInputTensor {
		return []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: dt, Shape: shape}}
	}
	typed := in("FP32", 1, 13)
	typed[0].Contents = &inferencepb.InferTensorContents{Fp32Contents: x}
	nan := in("FP32", 1, 13)
	nan[0].Contents = &inferencepb.InferTensorContents{Fp32Contents: append([]float32{float32(math.NaN())}, x[1:]...)}
	common := []*inferencepb.ModelInferRequest{
		{ModelName: "m", Id: "a", Inputs: typed},
		{ModelName: "m", ModelVersion: "1", Inputs: in("FP32", 2, 13), RawInputContents: [][]byte{raw}},
		{ModelName: "m", Inputs: in("INT8", 1, 13), RawInputContents: [][]byte{make([]byte, 13)}},
		{ModelName: "m", Inputs: in("FP32", 2, 13), RawInputContents: [][]byte{raw[:20]}},
		{ModelName: "m", ModelVersion: "9", Inputs: typed},
		{ModelName: "nope", Inputs: typed},
		{ModelName: "m", Inputs: nan},
		{ModelName: "m", Inputs: in("FP32", 1, 12)},
	}
	for _, req := range common {
		b, err := proto.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		var q wireInfer
		if !q.parse(b) {
			f.Fatalf("%v: not read as the common form", req)
		}
		f.Add(b)
	}
	for _, req := range []*inferencepb.ModelInferRequest{
		{ModelName: "m", Inputs: append(typed, typed...)},
		{ModelName: "m", Inputs: typed, Outputs: []*inferencepb.ModelInferRequest_InferRequestedOutputTensor{{Name: "decision"}}},
		{ModelName: "m", Inputs: typed, Parameters: map[string]*inferencepb.InferParameter{"decision": {ParameterChoice: &inferencepb.InferParameter_BoolParam{BoolParam: true}}}},
		{ModelName: "m", Inputs: in("FP64", 1, 13)},
		{ModelName: "m", Inputs: in("FP32", 2, 13), RawInputContents: [][]byte{raw, raw}},
	} {
		b, err := proto.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	g := &grpcService{s: srv}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, b []byte) {
		wresp, werr := g.modelInferWire(ctx, b)
		var presp *inferencepb.ModelInferResponse
		var perr error
		var req inferencepb.ModelInferRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			perr = unmarshalError(err)
		} else {
			presp, perr = g.ModelInfer(ctx, &req)
		}
		if status.Code(werr) != status.Code(perr) {
			t.Fatalf("from the wire: %v; through protobuf: %v", werr, perr)
		}
		if werr == nil && !proto.Equal(responseMessage(t, wresp), presp) {
			t.Fatalf("from the wire: %v; through protobuf: %v", responseMessage(t, wresp), presp)
		}
	})
}

// responseMessage returns modelInferWire's answer resp as a message: a
// wireResponse's bytes unmarshalled by protobuf.
func responseMessage(t testing.TB, resp any) *inferencepb.ModelInferResponse {
	t.Helper()
	switch r := resp.(type) {
	case *inferencepb.ModelInferResponse:
		return r
	case *wireResponse:
		m := new(inferencepb.ModelInferResponse)
		if err := proto.Unmarshal(r.sc.msg, m); err != nil {
			t.Fatalf("the wire answer does not unmarshal: %v", err)
		}
		return m
	}
	t.Fatalf("answer of type %T", resp)
	return nil
}
