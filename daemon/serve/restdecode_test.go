package serve

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// TestNumberMatchesParseFloat reads numbers of every form the fast path
// and the strconv path take (short and long mantissas, small and large
// exponents, both signs, integers) and checks each against
// strconv.ParseFloat: in float32 for FP32, through float64 for FP64.
func TestNumberMatchesParseFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var toks []string
	for range 20000 {
		mant := rng.Uint64() >> rng.IntN(64)
		s := strconv.FormatUint(mant, 10)
		if d := rng.IntN(len(s) + 1); d < len(s) && rng.IntN(2) == 0 {
			s = s[:d] + "." + s[d:]
			if d == 0 {
				s = "0" + s
			}
		}
		if rng.IntN(2) == 0 {
			s += "e" + strconv.Itoa(rng.IntN(90)-45)
		}
		if rng.IntN(2) == 0 {
			s = "-" + s
		}
		toks = append(toks, s)
	}
	for range 2000 { // float32 values as json.Marshal writes them
		if f := float64(math.Float32frombits(rng.Uint32())); !math.IsNaN(f) && !math.IsInf(f, 0) {
			toks = append(toks, strconv.FormatFloat(f, 'g', -1, 32))
		}
	}
	for range 2000 { // float32 halfway points, and numbers just off them, to 17 digits
		x := math.Float32frombits(rng.Uint32() & 0x7effffff)
		mid := (float64(x) + float64(math.Nextafter32(x, float32(math.Inf(1))))) / 2
		for _, f := range []float64{mid, math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(1))} {
			toks = append(toks, strconv.FormatFloat(f, 'g', 17, 64), strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	toks = append(toks, "0", "-0", "0e999", "1e38", "3.4028235e38", "3.4028236e38", "16777217", "9007199254740993",
		"0.99215686", "1.00000000000000000000001", "123456789012345678901234567890e-20", "1e-46", "1.4e-45")
	for _, tok := range toks {
		for _, dt := range []datatype{dtFP32, dtFP64} {
			p := jsonReader{b: []byte(tok)}
			got, err := p.number(dt)
			bits := 64
			if dt == dtFP32 {
				bits = 32
			}
			f, perr := strconv.ParseFloat(tok, bits)
			want := float32(f)
			if perr != nil || math.IsInf(float64(want), 0) {
				if err == nil {
					t.Errorf("%s %q: read %v, strconv says %v", dt, tok, got, perr)
				}
				continue
			}
			if err != nil || math.Float32bits(got) != math.Float32bits(want) || p.i != len(tok) {
				t.Errorf("%s %q: read %v (%v, end %d), strconv %v", dt, tok, got, err, p.i, want)
			}
			// The same number inside an array, digits after it: read up
			// to its end only (decimalDigits reads eight bytes at a time).
			p = jsonReader{b: []byte(tok + ",12345678]")}
			if got, err := p.number(dt); err != nil || math.Float32bits(got) != math.Float32bits(want) || p.i != len(tok) {
				t.Errorf("%s %q followed by digits: read %v (%v, end %d), strconv %v", dt, tok, got, err, p.i, want)
			}
		}
	}
}

// TestDecimalDigits holds decimalDigits, eight digits at a time, to the
// digit-at-a-time loop: runs of 0 to 24 digits (mant wrapping past 19, as
// the loop's does) ended by each kind of byte next to the digits ('/' and
// ':', bytes whose +6 carries, a '.', the end of the text), from a start
// value.
func TestDecimalDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	ends := []string{"", "/", ":", ".", ",", "]", "\xfa", "\xff", "e", " "}
	for range 20000 {
		n := rng.IntN(25)
		b := make([]byte, 0, n+12)
		for range n {
			b = append(b, byte('0'+rng.IntN(10)))
		}
		end := len(b)
		b = append(b, ends[rng.IntN(len(ends))]...)
		for range rng.IntN(10) {
			b = append(b, byte('0'+rng.IntN(10)))
		}
		from := rng.Uint64() % 1000
		want := from
		for _, d := range b[:end] {
			want = want*10 + uint64(d-'0')
		}
		if len(b) > end && b[end]-'0' <= 9 {
			continue // no end byte drawn: the run goes on
		}
		got, i := decimalDigits(b, 0, from)
		if got != want || i != end {
			t.Fatalf("%q from %d: %d, end %d; want %d, end %d", b, from, got, i, want, end)
		}
	}
}

// TestLoneZeros reads data of zeros in each position of an array, beside
// -0, 0.0 and zeros with space, flat and nested, in FP32 and INT32, and
// refuses a leading zero.
func TestLoneZeros(t *testing.T) {
	for _, c := range []struct {
		text string
		want []float32
	}{
		{"[0,0,0]", []float32{0, 0, 0}},
		{"[0, 0 ,0 ]", []float32{0, 0, 0}},
		{"[1,0,2]", []float32{1, 0, 2}},
		{"[[0,5],[0.0,0]]", []float32{0, 5, 0, 0}},
		{"[0e3,0,-0]", []float32{0, 0, float32(math.Copysign(0, -1))}},
	} {
		for _, dt := range []datatype{dtFP32, dtINT32} {
			dst := make([]float32, len(c.want))
			rows, cols := 1, len(c.want)
			if c.text[1] == '[' {
				rows, cols = 2, 2
			}
			err := jsonData(dst, []byte(c.text), dt, rows, cols)
			if err != nil {
				t.Fatalf("%s %s: %v", dt, c.text, err)
			}
			for i := range dst {
				if math.Float32bits(dst[i]) != math.Float32bits(c.want[i]) {
					t.Fatalf("%s %s: %v, want %v", dt, c.text, dst, c.want)
				}
			}
		}
	}
	for _, text := range []string{"[00,1]", "[0,01]", "[0,0", "[0,0,]"} {
		if err := jsonData(make([]float32, 2), []byte(text), dtFP32, 1, 2); err == nil {
			t.Errorf("%s: read", text)
		}
	}
}

// TestRESTDecodeAllocations checks that decoding a REST body (data after
// its shape, and before it), predicting and encoding the answer allocate
// nothing once the pooled buffers have grown.
func TestRESTDecodeAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	ds := heart(t)
	v := newVersion("m", &modeldir.Loaded{Model: kernelModel(t, ds), Version: 1})
	lim := DefaultLimits()
	rows := rowsJSON(ds, []int{0, 1, 2}, true)
	for _, body := range []string{
		`{"id":"r","inputs":[{"name":"x","shape":[3,13],"datatype":"FP32","data":` + rows + `}],"outputs":[{"name":"decision"}],"parameters":{"probability":true}}`,
		`{"inputs":[{"data":` + rows + `,"datatype":"FP64","name":"x","shape":[3,13]}]}`,
	} {
		inf, b := &inference{}, []byte(body)
		step := func() {
			inf.want, inf.binary = outputs{}, outputs{}
			if err := newDecode(inf, b, v, &lim); err != nil {
				t.Fatal(err)
			}
			if err := inf.run(v); err != nil {
				t.Fatal(err)
			}
			inf.out, _ = restEncode(inf.out[:0], v, inf)
		}
		step()
		if n := testing.AllocsPerRun(50, step); n != 0 {
			t.Errorf("%.40s...: %v allocations a request", body, n)
		}
	}
}

// binaryRequest is a REST request of the binary tensor data extension:
// the JSON header, then x as little-endian FP32.
func binaryRequest(t *testing.T, url, header string, x []float32) (*http.Response, []byte) {
	t.Helper()
	body := []byte(header)
	for _, v := range x {
		body = binary.LittleEndian.AppendUint32(body, math.Float32bits(v))
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Inference-Header-Content-Length", strconv.Itoa(len(header)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestBinaryTensorData sends rows as binary tensor data and asks for the
// labels and decision values as binary outputs (Triton's binary tensor data
// extension), checks them against the model, and checks the refusals.
func TestBinaryTensorData(t *testing.T) {
	ds := heart(t)
	km := kernelModel(t, ds)
	srv, _ := testServer(t, Limits{}, map[string]core.Model{"heart": km})
	url := "http://" + srv.HTTPAddr() + "/v2/models/heart/infer"
	n, nf := 4, ds.NumFeatures()
	var x []float32
	for r := range n {
		x = append(x, ds.DenseRow(r)...)
	}
	header := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[%d,%d],"datatype":"FP32","parameters":{"binary_data_size":%d}}],`+
		`"outputs":[{"name":"label","parameters":{"binary_data":true}},{"name":"decision"}],"parameters":{"binary_data_output":true}}`, n, nf, 4*len(x))
	resp, b := binaryRequest(t, url, header, x)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	hl, err := strconv.Atoi(resp.Header.Get("Inference-Header-Content-Length"))
	if err != nil || hl > len(b) || resp.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("headers %v", resp.Header)
	}
	var out struct {
		Outputs []struct {
			Name       string
			Datatype   string
			Shape      []int
			Parameters struct {
				BinaryDataSize int `json:"binary_data_size"`
			}
			Data []float64
		}
	}
	if err := json.Unmarshal(b[:hl], &out); err != nil {
		t.Fatalf("JSON header %q: %v", b[:hl], err)
	}
	if len(out.Outputs) != 2 || out.Outputs[0].Parameters.BinaryDataSize != 8*n || out.Outputs[1].Parameters.BinaryDataSize != 8*n ||
		out.Outputs[0].Data != nil || len(b) != hl+16*n {
		t.Fatalf("answer %+v, %d bytes after the header", out, len(b)-hl)
	}
	for r := range n {
		row := ds.DenseRow(r)
		label := int64(binary.LittleEndian.Uint64(b[hl+8*r:]))
		dec := math.Float64frombits(binary.LittleEndian.Uint64(b[hl+8*n+8*r:]))
		if float64(label) != km.PredictDense(row) || dec != km.DecisionDense(make([]float64, 1), row)[0] {
			t.Errorf("row %d: label %d decision %v, model %v %v", r, label, dec, km.PredictDense(row), km.DecisionDense(make([]float64, 1), row))
		}
	}
	// A binary input with JSON outputs: binary_data false on the output.
	jsonOut := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[%d,%d],"datatype":"FP32","parameters":{"binary_data_size":%d}}],"outputs":[{"name":"label","parameters":{"binary_data":false}}]}`, n, nf, 4*len(x))
	resp, b = binaryRequest(t, url, jsonOut, x)
	if resp.StatusCode != 200 || resp.Header.Get("Inference-Header-Content-Length") != "" || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("JSON answer %d %v: %s", resp.StatusCode, resp.Header, b)
	}
	for _, c := range []struct {
		name, header string
		x            []float32
	}{
		{"size past the bytes", fmt.Sprintf(`{"inputs":[{"name":"x","shape":[%d,%d],"datatype":"FP32","parameters":{"binary_data_size":%d}}]}`, n, nf, 4*len(x)+4), x},
		{"bytes short of the shape", fmt.Sprintf(`{"inputs":[{"name":"x","shape":[%d,%d],"datatype":"FP32","parameters":{"binary_data_size":%d}}]}`, n, nf, 4*len(x)-4), x[:len(x)-1]},
		{"bytes without a size", fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,%d],"datatype":"FP32","data":%s}]}`, nf, rowsJSON(ds, []int{0}, true)), x[:1]},
		{"data and a size", fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,%d],"datatype":"FP32","data":%s,"parameters":{"binary_data_size":%d}}]}`, nf, rowsJSON(ds, []int{0}, true), 4*nf), x[:nf]},
		{"a NaN", fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,%d],"datatype":"FP32","parameters":{"binary_data_size":%d}}]}`, nf, 4*nf), append([]float32{float32(math.NaN())}, x[1:nf]...)},
		{"a non-bool binary_data", fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,%d],"datatype":"FP32","parameters":{"binary_data_size":%d}}],"outputs":[{"name":"label","parameters":{"binary_data":1}}]}`, nf, 4*nf), x[:nf]},
	} {
		resp, b := binaryRequest(t, url, c.header, c.x)
		if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(b, []byte(`"error"`)) {
			t.Errorf("%s: %d %s", c.name, resp.StatusCode, b)
		}
	}
	// The header says more than the body holds; and binary_data_size with no header.
	for _, c := range []struct {
		name, hdr, body string
	}{
		{"header past the body", "9999", `{}`},
		{"size without the header", "", fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,%d],"datatype":"FP32","parameters":{"binary_data_size":4}}]}`, nf)},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(c.body)))
		if c.hdr != "" {
			req.Header.Set("Inference-Header-Content-Length", c.hdr)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d", c.name, resp.StatusCode)
		}
	}
}

// TestBinaryTensorDataOneConnection sends binary tensor data requests one
// after another on one kept-alive connection, each answer read before the
// next request: FP32 read from the connection straight into the rows, FP64
// read through the body buffer, and refusals whose binary data the server
// never needed (an unknown model, a NaN): each answer is the right one, and
// what a refusal left unread is read, so that the next request on the
// connection is answered too.
func TestBinaryTensorDataOneConnection(t *testing.T) {
	ds := heart(t)
	km := kernelModel(t, ds)
	srv, _ := testServer(t, Limits{}, map[string]core.Model{"heart": km})
	c, err := net.Dial("tcp", srv.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	// 312 KB of FP32: past what the connection loop reads of a body a
	// handler left (256 KB) before it gives up on the connection.
	n, nf := 6000, ds.NumFeatures()
	var x []float32
	for r := range n {
		x = append(x, ds.DenseRow(r%ds.Len())...)
	}
	fp32 := func(x []float32) []byte {
		var b []byte
		for _, v := range x {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		return b
	}
	var fp64 []byte
	for _, v := range x {
		fp64 = binary.LittleEndian.AppendUint64(fp64, math.Float64bits(float64(v)))
	}
	nan := slices.Clone(x)
	nan[nf+2] = float32(math.NaN())
	late := slices.Clone(x) // past the first chunk the server reads and checks
	late[40000] = float32(math.Inf(-1))
	header := func(dt string, size int) string {
		return fmt.Sprintf(`{"inputs":[{"name":"x","shape":[%d,%d],"datatype":"%s","parameters":{"binary_data_size":%d}}]}`, n, nf, dt, size)
	}
	for _, c2 := range []struct {
		name, model, header string
		bin                 []byte
		status              int
		want                string // in the answer
	}{
		{"FP32", "heart", header("FP32", 4*len(x)), fp32(x), 200, ""},
		{"an unknown model", "nosuch", header("FP32", 4*len(x)), fp32(x), 404, "nosuch"},
		{"FP64", "heart", header("FP64", 8*len(x)), fp64, 200, ""},
		{"a NaN", "heart", header("FP32", 4*len(x)), fp32(nan), 400, fmt.Sprintf("value %d (row 1) is NaN", nf+2)},
		{"an infinity later", "heart", header("FP32", 4*len(x)), fp32(late), 400, fmt.Sprintf("value 40000 (row %d) is -Inf", 40000/nf)},
		{"a size not the shape's", "heart", header("FP32", 4*len(x)-4), fp32(x[1:]), 400, "raw input has"},
		{"FP32 again", "heart", header("FP32", 4*len(x)), fp32(x), 200, ""},
	} {
		body := append([]byte(c2.header), c2.bin...)
		req := fmt.Appendf(nil, "POST /v2/models/%s/infer HTTP/1.1\r\nHost: x\r\nInference-Header-Content-Length: %d\r\nContent-Length: %d\r\n\r\n",
			c2.model, len(c2.header), len(body))
		if _, err := c.Write(append(req, body...)); err != nil {
			t.Fatalf("%s: %v", c2.name, err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", c2.name, err)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != c2.status || !bytes.Contains(b, []byte(c2.want)) {
			t.Fatalf("%s: %d %s (%v), want %d with %q", c2.name, resp.StatusCode, b, err, c2.status, c2.want)
		}
		if c2.status != 200 {
			continue
		}
		var out struct{ Outputs []struct{ Data []float64 } }
		if err := json.Unmarshal(b, &out); err != nil || len(out.Outputs) != 1 || len(out.Outputs[0].Data) != n {
			t.Fatalf("%s: answer %s (%v)", c2.name, b, err)
		}
		for r, got := range out.Outputs[0].Data {
			if want := km.PredictDense(ds.DenseRow(r % ds.Len())); got != want {
				t.Errorf("%s: row %d label %v, model %v", c2.name, r, got, want)
			}
		}
	}
}
