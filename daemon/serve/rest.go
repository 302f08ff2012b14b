package serve

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/libsvmgo/libsvmgo/daemon/buildinfo"
)

// Handler returns the REST endpoints (doc.go lists them) and /metrics.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	get := func(pattern string, h http.HandlerFunc) { mux.HandleFunc(pattern, only(http.MethodGet, h)) }
	post := func(pattern string, h http.HandlerFunc) { mux.HandleFunc(pattern, only(http.MethodPost, h)) }
	get("/v2/health/live", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]bool{"live": true})
	})
	get("/v2/health/ready", func(w http.ResponseWriter, _ *http.Request) {
		if !s.ready() {
			writeError(w, http.StatusBadRequest, "not ready: a model has no version loaded yet, or the server is shutting down")
			return
		}
		writeJSON(w, http.StatusOK, map[string]bool{"ready": true})
	})
	get("/v2", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, serverMetadata())
	})
	get("/v2/models/{model}", s.modelMetadata)
	get("/v2/models/{model}/versions/{version}", s.modelMetadata)
	get("/v2/models/{model}/ready", s.modelReady)
	get("/v2/models/{model}/versions/{version}/ready", s.modelReady)
	post("/v2/models/{model}/infer", s.restInfer)
	post("/v2/models/{model}/versions/{version}/infer", s.restInfer)
	post("/v2/repository/index", s.repositoryIndex)
	post("/v2/repository/models/{model}/load", s.repositoryLoad)
	post("/v2/repository/models/{model}/unload", s.repositoryUnload)
	get("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		s.repo.metrics.write(w)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
	})
	return mux
}

// only answers other methods than method with 405 and the JSON error.
func only(method string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
			w.Header().Set("Allow", method)
			writeError(w, http.StatusMethodNotAllowed, r.Method+" not allowed here; use "+method)
			return
		}
		h(w, r)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// writeError writes {"error": msg} with status.
func writeError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// writeErr writes err with the status statusOf gives it.
func writeErr(w http.ResponseWriter, err error) {
	st, _ := statusOf(err)
	writeError(w, st, err.Error())
}

// serverMeta is the answer to GET /v2 (and gRPC's ServerMetadata).
type serverMeta struct {
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	Extensions []string `json:"extensions"`
}

func serverMetadata() serverMeta {
	return serverMeta{Name: "svmgo", Version: buildinfo.Read().Version, Extensions: []string{"model_repository", "binary_tensor_data"}}
}

// tensorMetadata describes one input or output tensor.
type tensorMetadata struct {
	Name     string  `json:"name"`
	Datatype string  `json:"datatype"`
	Shape    []int64 `json:"shape"`
}

// metadata is a model's metadata, as both protocols give it.
type metadata struct {
	Name       string            `json:"name"`
	Versions   []string          `json:"versions"`
	Platform   string            `json:"platform"`
	Inputs     []tensorMetadata  `json:"inputs"`
	Outputs    []tensorMetadata  `json:"outputs"`
	Properties map[string]string `json:"properties"`
}

// metadataOf describes the model name: every version served, or only
// ver; the tensors are those of the newest of them.
func (s *Server) metadataOf(name, ver string) (*metadata, error) {
	m, v, err := s.repo.resolve(name, ver)
	if err != nil {
		return nil, err
	}
	md := &metadata{Name: name, Versions: []string{v.name}}
	if ver == "" {
		md.Versions = md.Versions[:0]
		for _, x := range m.versions().list {
			md.Versions = append(md.Versions, x.name)
		}
	}
	info := v.info
	md.Platform = "svmgo_" + info.Kind
	md.Inputs = []tensorMetadata{{Name: "input", Datatype: "FP32", Shape: []int64{-1, int64(info.NumFeatures)}}}
	md.Outputs = []tensorMetadata{
		{Name: OutputLabel, Datatype: v.labelDatatype(), Shape: []int64{-1}},
		{Name: OutputDecision, Datatype: "FP64", Shape: []int64{-1, int64(info.NumDecisionValues)}},
	}
	if v.prob != nil {
		md.Outputs = append(md.Outputs, tensorMetadata{Name: OutputProbability, Datatype: "FP64", Shape: []int64{-1, int64(len(info.Labels))}})
	}
	md.Properties = map[string]string{"task": info.Task.String(), "version_policy": m.policy.String(), "newest_version": v.name}
	if len(info.Labels) > 0 {
		b := make([]byte, 0, 4*len(info.Labels))
		for i, l := range info.Labels {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(l), 10)
		}
		md.Properties["labels"] = string(b)
	}
	return md, nil
}

func (s *Server) modelMetadata(w http.ResponseWriter, r *http.Request) {
	md, err := s.metadataOf(r.PathValue("model"), r.PathValue("version"))
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, md)
}

func (s *Server) modelReady(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("model")
	if _, _, err := s.repo.resolve(name, r.PathValue("version")); err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": name, "ready": true})
}

// restInfer answers POST .../infer.
func (s *Server) restInfer(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	name, ver := r.PathValue("model"), r.PathValue("version")
	if err := s.acquire(); err != nil {
		s.answerError(w, start, name, "", err)
		return
	}
	defer s.releaseSlot()
	inf := s.getInference()
	defer inf.release()
	defer s.endTurn(inf)
	v, err := s.restDecode(inf, w, r, name, ver)
	if err == nil {
		err = inf.run(v)
	}
	vname := ""
	if v != nil {
		vname = v.name
	}
	if err != nil {
		s.answerError(w, start, name, vname, err)
		return
	}
	var jsonLen int
	inf.out, jsonLen = restEncode(inf.out[:0], v, inf)
	h := w.Header()
	if jsonLen < len(inf.out) {
		h["Content-Type"] = octetStream
		h[headerLengthKey] = []string{strconv.Itoa(jsonLen)}
	} else {
		h["Content-Type"] = applicationJSON
	}
	if len(inf.out) > 2048 {
		// Smaller answers, written whole before the handler returns, get
		// their Content-Length from net/http without an allocation.
		h["Content-Length"] = []string{strconv.Itoa(len(inf.out))}
	}
	w.Write(inf.out)
	s.repo.metrics.observe(name, vname, "rest", "200", time.Since(start).Seconds())
}

// headerLengthKey is the binary tensor data extension's header (in its
// canonical form): the length of the JSON text that begins a body whose
// binary tensors follow it.
const headerLengthKey = "Inference-Header-Content-Length"

// The Content-Type values of an answer, shared so that setting one
// allocates nothing.
var (
	applicationJSON = []string{"application/json"}
	octetStream     = []string{"application/octet-stream"}
)

// answerError writes err and counts it. A name the repository does not
// hold is counted under model "".
func (s *Server) answerError(w http.ResponseWriter, start time.Time, name, ver string, err error) {
	st, _ := statusOf(err)
	writeError(w, st, err.Error())
	if s.repo.model(name) == nil {
		name = ""
	}
	s.repo.metrics.observe(name, ver, "rest", strconv.Itoa(st), time.Since(start).Seconds())
}

// restDecode reads the request body into inf and resolves the version it
// runs on, which it returns (nil when none was resolved): an unknown model
// or version is answered before the body is decoded. Past the size cap the
// connection is closed after the answer (the rest of the body is not
// read).
func (s *Server) restDecode(inf *inference, w http.ResponseWriter, r *http.Request, name, ver string) (*version, error) {
	if hs := r.Header[headerLengthKey]; len(hs) == 1 && r.ContentLength >= 0 && r.ContentLength <= s.lim.MaxRequestBytes {
		if n, err := strconv.ParseUint(hs[0], 10, 63); err == nil && n <= uint64(r.ContentLength) {
			return s.restDecodeBinary(inf, r, name, ver, int(n))
		}
	}
	if err := s.readBody(inf, w, r); err != nil {
		return nil, err
	}
	s.takeTurn(inf)
	_, v, err := s.repo.resolve(name, ver)
	if err != nil {
		return nil, err
	}
	text, bin, binary := inf.body, binaryTensor{}, false
	if hs := r.Header[headerLengthKey]; len(hs) > 0 {
		n, err := strconv.ParseUint(hs[0], 10, 63)
		if err != nil || len(hs) > 1 || n > uint64(len(text)) {
			return v, badRequestf("%s %q: want one length of at most the body's %d bytes", headerLengthKey, hs, len(text))
		}
		text, bin.b, binary = text[:n], text[n:], true
	}
	if err := decodeRESTBody(&inf.req, inf, text, v, &s.lim); err != nil {
		return v, err
	}
	return v, inf.restInput(text, &bin, binary, v, &s.lim)
}

// restDecodeBinary is restDecode for a body of known length (within the
// size cap) in the binary tensor data extension, whose JSON is the first
// n bytes: the JSON is read and decoded first, then the tensor's bytes
// are read from the connection straight into the rows (binaryTensor), not
// through the body buffer: a 1000-row batch is 3.1 MB copied once fewer.
// Whatever of the body an error leaves unread is read and discarded, so
// that the connection serves the next request as after a body read whole.
func (s *Server) restDecodeBinary(inf *inference, r *http.Request, name, ver string, n int) (*version, error) {
	inf.body = grow(inf.body, n)
	if _, err := io.ReadFull(r.Body, inf.body); err != nil {
		return nil, badRequestf("reading the request: %v", err)
	}
	bin := binaryTensor{r: r.Body, n: r.ContentLength - int64(n)}
	defer func() {
		if bin.n > 0 {
			io.CopyN(io.Discard, r.Body, bin.n)
		}
	}()
	_, v, err := s.repo.resolve(name, ver)
	if err != nil {
		return nil, err
	}
	if err := decodeRESTBody(&inf.req, inf, inf.body, v, &s.lim); err != nil {
		return v, err
	}
	return v, inf.restInput(inf.body, &bin, true, v, &s.lim)
}

// binaryTensor is the binary tensor data that follows a request's JSON:
// in memory (b), or the next n bytes of r, not yet read.
type binaryTensor struct {
	b []byte
	r io.Reader
	n int64
}

func (t *binaryTensor) size() int64 {
	if t.r != nil {
		return t.n
	}
	return int64(len(t.b))
}

// read reads t, of datatype dt, into inf's rows as rawData does. FP32 on a
// little-endian machine is read from t.r straight into the rows and then
// checked; any other input still to be read is read after the JSON in
// inf.body first.
func (inf *inference) read(t *binaryTensor, dt datatype) error {
	if t.r == nil {
		return rawData(inf.x, t.b, dt, inf.rows, inf.cols)
	}
	n := inf.rows * inf.cols
	if dt == dtFP32 && nativeLittleEndian && t.n == 4*int64(n) {
		// A chunk at a time, each checked while it is still in cache (or
		// checked and predicted by a streamed batch's helper); a refusal
		// leaves the rest for restDecodeBinary to drain.
		return fillFP32(inf.x[:n], inf.cols, func(c []byte, at int) error {
			inf.arrived(at)
			if _, err := io.ReadFull(t.r, c); err != nil {
				t.n = 0
				return badRequestf("reading the request: %v", err)
			}
			t.n -= int64(len(c))
			return nil
		})
	}
	start := len(inf.body)
	inf.body = slices.Grow(inf.body, int(t.n))[:start+int(t.n)]
	_, err := io.ReadFull(t.r, inf.body[start:])
	t.n = 0
	if err != nil {
		return badRequestf("reading the request: %v", err)
	}
	return rawData(inf.x, inf.body[start:], dt, inf.rows, inf.cols)
}

// readBody reads the request body into inf.body, refusing one past the
// size cap. A body of known length is read straight into the pooled buffer.
func (s *Server) readBody(inf *inference, w http.ResponseWriter, r *http.Request) error {
	tooLarge := func() error { return tooLargef("request body larger than %d bytes", s.lim.MaxRequestBytes) }
	if n := r.ContentLength; n >= 0 {
		if n > s.lim.MaxRequestBytes {
			return tooLarge()
		}
		inf.body = grow(inf.body, int(n))
		if _, err := io.ReadFull(r.Body, inf.body); err != nil {
			return badRequestf("reading the request: %v", err)
		}
		return nil
	}
	buf := bytes.NewBuffer(inf.body[:0])
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, s.lim.MaxRequestBytes)); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return tooLarge()
		}
		return badRequestf("reading the request: %v", err)
	}
	inf.body = buf.Bytes()
	return nil
}

// restInput checks a decoded REST request (inf.req, decoded from text, with
// bin the binary tensor data after it when binary) against version v and
// the limits and reads its input into inf, in the order encoding/json's
// decoder of the first release checked them.
func (inf *inference) restInput(text []byte, bin *binaryTensor, binary bool, v *version, lim *Limits) (err error) {
	q := &inf.req
	if q.inputs != 1 {
		return badRequestf("want exactly one input tensor, got %d", q.inputs)
	}
	in := &q.in
	dt := parseDatatype(in.datatype)
	if dt == dtInvalid {
		return badRequestf("input datatype %q: want FP32, FP64 or an INT/UINT type", in.datatype)
	}
	if err := inf.input(in.shape, v, lim); err != nil {
		return err
	}
	// The outputs are decoded before the data so that binary data can be
	// predicted as it arrives (batchstream.go); their error is answered
	// after the data's, as before.
	outErr := inf.restOutputs(q)
	if outErr == nil && bin.r != nil && inf.startStream(v) {
		defer func() { err = inf.endStream(err) }()
	}
	switch {
	case in.binarySize >= 0:
		if !binary {
			return badRequestf("input parameter binary_data_size needs the %s header", headerLengthKey)
		}
		if in.data.ok {
			return badRequestf(`input has both "data" and binary_data_size`)
		}
		if in.binarySize != bin.size() {
			return badRequestf("input binary_data_size is %d, but %d bytes follow the JSON", in.binarySize, bin.size())
		}
		if err := inf.read(bin, dt); err != nil {
			return err
		}
	case bin.size() > 0:
		return badRequestf("%d bytes follow the JSON, but the input has no binary_data_size", bin.size())
	case !in.data.ok:
		return badRequestf(`input has no "data"`)
	case in.parsed.data == in.data && in.parsed.rows == inf.rows && in.parsed.cols == inf.cols && in.parsed.dt == dt:
		// read while the body was scanned
	default:
		if err := jsonData(inf.x, text[in.data.start:in.data.end], dt, inf.rows, inf.cols); err != nil {
			return err
		}
	}
	if outErr != nil {
		return outErr
	}
	inf.id = q.id
	return nil
}

// restOutputs reads the outputs a decoded REST request asks for, and
// which of them go as binary tensor data, into inf.
func (inf *inference) restOutputs(q *restRequest) error {
	binDefault, err := q.binaryOutput.value("binary_data_output")
	if err != nil {
		return err
	}
	var named outputs // outputs whose binary_data parameter was given
	for i := range q.outputs {
		o := &q.outputs[i]
		if err := inf.want.add(o.name); err != nil {
			return err
		}
		if o.binary != paramAbsent {
			on, err := o.binary.value("binary_data")
			if err != nil {
				return err
			}
			named.add(o.name)
			inf.binary.set(o.name, on)
		}
	}
	for _, k := range [...]string{OutputDecision, OutputProbability} {
		p := q.decision
		if k == OutputProbability {
			p = q.probability
		}
		on, err := p.value(k)
		if err != nil {
			return err
		}
		if on {
			inf.want.label = true
			inf.want.add(k)
		}
	}
	if binDefault {
		inf.binary.label = inf.binary.label || !named.label
		inf.binary.decision = inf.binary.decision || !named.decision
		inf.binary.probability = inf.binary.probability || !named.probability
	}
	return nil
}

// value is p as a boolean parameter named name: absent is false.
func (p param) value(name string) (bool, error) {
	if p == paramOther {
		return false, badRequestf("parameter %q: want true or false", name)
	}
	return p == paramTrue, nil
}

// restEncode appends the answer of a finished inference to b and returns
// it with the length of its JSON text: the whole answer, unless outputs
// go as binary tensor data, which then follows the JSON.
func restEncode(b []byte, v *version, inf *inference) ([]byte, int) {
	b = append(b, `{"model_name":`...)
	b = strconv.AppendQuote(b, v.model)
	b = append(b, `,"model_version":"`...)
	b = append(b, v.name...)
	b = append(b, '"')
	if inf.id != "" {
		b = append(b, `,"id":`...)
		b = strconv.AppendQuote(b, inf.id)
	}
	b = append(b, `,"outputs":[`...)
	first := true
	tensor := func(name, dt string, data []float64, cols int, binary bool) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"name":"`...)
		b = append(b, name...)
		b = append(b, `","datatype":"`...)
		b = append(b, dt...)
		b = append(b, `","shape":[`...)
		b = strconv.AppendInt(b, int64(inf.rows), 10)
		if cols > 0 {
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(cols), 10)
		}
		if binary {
			b = append(b, `],"parameters":{"binary_data_size":`...)
			b = strconv.AppendInt(b, int64(8*len(data)), 10)
			b = append(b, "}}"...)
			return
		}
		b = append(b, `],"data":[`...)
		integer := dt == "INT64"
		for i, x := range data {
			if i > 0 {
				b = append(b, ',')
			}
			if integer {
				b = strconv.AppendInt(b, int64(x), 10)
			} else {
				b = appendJSONFloat(b, x)
			}
		}
		b = append(b, "]}"...)
	}
	labelDT := v.labelDatatype()
	if inf.want.label {
		tensor(OutputLabel, labelDT, inf.labels, 0, inf.binary.label)
	}
	if inf.want.decision {
		tensor(OutputDecision, "FP64", inf.decision, inf.k, inf.binary.decision)
	}
	if inf.want.probability {
		tensor(OutputProbability, "FP64", inf.prob, inf.c, inf.binary.probability)
	}
	b = append(b, "]}\n"...)
	jsonLen := len(b)
	if inf.want.label && inf.binary.label {
		b = appendRaw(b, inf.labels, labelDT == "INT64")
	}
	if inf.want.decision && inf.binary.decision {
		b = appendRaw(b, inf.decision, false)
	}
	if inf.want.probability && inf.binary.probability {
		b = appendRaw(b, inf.prob, false)
	}
	return b, jsonLen
}

// appendRaw appends data as the protocol's raw tensor contents:
// little-endian INT64 when integer, else FP64.
func appendRaw(b []byte, data []float64, integer bool) []byte {
	for _, x := range data {
		if integer {
			b = binary.LittleEndian.AppendUint64(b, uint64(int64(x)))
		} else {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return b
}

// appendJSONFloat appends x in the shortest form that reads back exactly;
// JSON has no NaN or infinity, which become null.
func appendJSONFloat(b []byte, x float64) []byte {
	if x != x || x > 1.7976931348623157e308 || x < -1.7976931348623157e308 {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

// repositoryIndex answers POST /v2/repository/index: every model with its
// versions and state.
func (s *Server) repositoryIndex(w http.ResponseWriter, _ *http.Request) {
	type entry struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
		State   string `json:"state"`
		Reason  string `json:"reason,omitempty"`
	}
	out := []entry{}
	for _, n := range s.repo.Names() {
		m := s.repo.model(n)
		if m == nil {
			continue
		}
		vs := m.versions().list
		if len(vs) == 0 {
			e := entry{Name: n, State: "UNAVAILABLE", Reason: "no valid version yet"}
			if sk := m.watcher.LastSkip(); sk != nil {
				e.Reason = sk.Err.Error()
			}
			out = append(out, e)
		}
		for _, v := range vs {
			out = append(out, entry{Name: n, Version: v.name, State: "READY"})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) repositoryLoad(w http.ResponseWriter, r *http.Request) {
	if err := s.repo.Load(r.PathValue("model")); err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{})
}

func (s *Server) repositoryUnload(w http.ResponseWriter, r *http.Request) {
	if err := s.repo.Unload(r.PathValue("model")); err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{})
}
