package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"net"
	"strconv"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	protoapi "google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// dialGRPC connects a grpc-go client to srv's gRPC address.
func dialGRPC(t *testing.T, srv *Server, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(srv.GRPCAddr(), append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestGRPCTransportsAgree sends the same calls to the package's own HTTP/2
// transport and to grpc-go's server (Config.GRPCGo) and compares every
// answer and status: 3,000-row batches, one started before it has
// arrived whole, one whose answer (about 100 KB with decision values and
// probabilities) is past the client's 64 KB windows, so that it waits for
// its window updates; the metadata and
// health methods; an unknown method; a message past the size cap.
func TestGRPCTransportsAgree(t *testing.T) {
	ds := heart(t)
	km := kernelModel(t, ds)
	n, nf := 3000, ds.NumFeatures()
	x := make([]float32, 0, n*nf)
	var raw []byte
	for r := range n {
		for _, v := range ds.DenseRow(r % ds.Len()) {
			x = append(x, v)
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
		}
	}
	shape := []int64{int64(n), int64(nf)}
	on := &inferencepb.InferParameter{ParameterChoice: &inferencepb.InferParameter_BoolParam{BoolParam: true}}
	typed := &inferencepb.ModelInferRequest{ModelName: "heart", Id: "typed",
		Inputs:     []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: shape, Contents: &inferencepb.InferTensorContents{Fp32Contents: x}}},
		Parameters: map[string]*inferencepb.InferParameter{"decision": on, "probability": on}}
	rawReq := &inferencepb.ModelInferRequest{ModelName: "heart", Id: "raw",
		Inputs:           []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: shape}},
		Outputs:          []*inferencepb.ModelInferRequest_InferRequestedOutputTensor{{Name: "label"}, {Name: "decision"}},
		RawInputContents: [][]byte{raw}}
	// Of the common form (label only): read as it arrives (grpcwire.go).
	rawLabels := &inferencepb.ModelInferRequest{ModelName: "heart", Id: "raw labels",
		Inputs:           []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: shape}},
		RawInputContents: [][]byte{raw}}
	single := &inferencepb.ModelInferRequest{ModelName: "heart",
		Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{1, int64(nf)},
			Contents: &inferencepb.InferTensorContents{Fp32Contents: x[:nf]}}}}

	type call struct {
		method   string
		req, out protoapi.Message
	}
	calls := func() []call {
		return []call{
			{"/inference.GRPCInferenceService/ModelInfer", typed, new(inferencepb.ModelInferResponse)},
			{"/inference.GRPCInferenceService/ModelInfer", rawReq, new(inferencepb.ModelInferResponse)},
			{"/inference.GRPCInferenceService/ModelInfer", rawLabels, new(inferencepb.ModelInferResponse)},
			{"/inference.GRPCInferenceService/ModelInfer", single, new(inferencepb.ModelInferResponse)},
			{"/inference.GRPCInferenceService/ServerLive", &inferencepb.ServerLiveRequest{}, new(inferencepb.ServerLiveResponse)},
			{"/inference.GRPCInferenceService/ServerReady", &inferencepb.ServerReadyRequest{}, new(inferencepb.ServerReadyResponse)},
			{"/inference.GRPCInferenceService/ServerMetadata", &inferencepb.ServerMetadataRequest{}, new(inferencepb.ServerMetadataResponse)},
			{"/inference.GRPCInferenceService/ModelMetadata", &inferencepb.ModelMetadataRequest{Name: "heart"}, new(inferencepb.ModelMetadataResponse)},
			{"/inference.GRPCInferenceService/ModelReady", &inferencepb.ModelReadyRequest{Name: "heart"}, new(inferencepb.ModelReadyResponse)},
			{"/inference.GRPCInferenceService/ModelReady", &inferencepb.ModelReadyRequest{Name: "nope"}, new(inferencepb.ModelReadyResponse)},
			{"/grpc.health.v1.Health/Check", &healthpb.HealthCheckRequest{}, new(healthpb.HealthCheckResponse)},
			{"/inference.GRPCInferenceService/ModelStreamInfer", &inferencepb.ServerLiveRequest{}, new(inferencepb.ServerLiveResponse)},
			{"/nope", &inferencepb.ServerLiveRequest{}, new(inferencepb.ServerLiveResponse)},
		}
	}
	type result struct {
		out  protoapi.Message
		code codes.Code
	}
	run := func(grpcGo bool) ([]result, codes.Code) {
		srv, _ := testServerConfig(t, Config{GRPCGo: grpcGo}, map[string]core.Model{"heart": km})
		conn := dialGRPC(t, srv, grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
		var out []result
		// A deadline sends grpc-timeout.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, c := range calls() {
			err := conn.Invoke(ctx, c.method, c.req, c.out)
			out = append(out, result{c.out, status.Code(err)})
		}
		small, _ := testServerConfig(t, Config{GRPCGo: grpcGo, Limits: Limits{MaxRequestBytes: 4096, MaxRows: 100, MaxJSONDepth: 16,
			MaxInFlight: 4, ReadTimeout: time.Minute, WriteTimeout: time.Minute, IdleTimeout: time.Minute}}, map[string]core.Model{"heart": km})
		_, err := inferencepb.NewGRPCInferenceServiceClient(dialGRPC(t, small)).ModelInfer(context.Background(), typed)
		return out, status.Code(err)
	}
	own, ownCap := run(false)
	ref, refCap := run(true)
	for i, c := range calls() {
		if own[i].code != ref[i].code || !protoapi.Equal(own[i].out, ref[i].out) {
			t.Errorf("%s (%d): own transport %v %.200v; grpc-go %v %.200v", c.method, i, own[i].code, own[i].out, ref[i].code, ref[i].out)
		}
	}
	if ownCap != codes.ResourceExhausted || refCap != codes.ResourceExhausted {
		t.Errorf("a message past the size cap: own transport %v, grpc-go %v; want both %v", ownCap, refCap, codes.ResourceExhausted)
	}
	resp := own[0].out.(*inferencepb.ModelInferResponse)
	if len(resp.Outputs) != 3 {
		t.Fatalf("batch answer has %d outputs, want label, decision and probability", len(resp.Outputs))
	}
	labels := resp.Outputs[0].Contents.Int64Contents
	for r := 0; r < n; r += 97 {
		if want := km.PredictDense(ds.DenseRow(r % ds.Len())); float64(labels[r]) != want {
			t.Errorf("row %d label %d, want %v", r, labels[r], want)
		}
	}
	rawOut := own[2].out.(*inferencepb.ModelInferResponse).RawOutputContents
	if len(rawOut) != 1 || len(rawOut[0]) != 8*n {
		t.Fatalf("raw batch answer: %d outputs", len(rawOut))
	}
	for r := range n {
		if got := int64(binary.LittleEndian.Uint64(rawOut[0][8*r:])); got != labels[r] {
			t.Fatalf("raw row %d label %d, typed %d", r, got, labels[r])
		}
	}
	if own[4].code != codes.OK || !own[4].out.(*inferencepb.ServerLiveResponse).Live {
		t.Errorf("ServerLive: %v %v", own[4].code, own[4].out)
	}
	if own[len(own)-1].code != codes.Unimplemented {
		t.Errorf("an unknown method: %v, want %v", own[len(own)-1].code, codes.Unimplemented)
	}
}

// TestGRPCOwnTransport checks what only the package's own transport is
// asked: a compressed call is refused (UNIMPLEMENTED, no decompressors),
// a health watch follows readiness to the shutdown, TLS with ALPN h2, and
// a server that stays up through malformed connections and answers
// non-gRPC requests with HTTP errors.
func TestGRPCOwnTransport(t *testing.T) {
	ds := heart(t)
	km := kernelModel(t, ds)
	srv, _ := testServer(t, Limits{}, map[string]core.Model{"heart": km})
	conn := dialGRPC(t, srv)
	client := inferencepb.NewGRPCInferenceServiceClient(conn)
	ctx := context.Background()
	if _, err := client.ServerLive(ctx, &inferencepb.ServerLiveRequest{}, grpc.UseCompressor(gzip.Name)); status.Code(err) != codes.Unimplemented {
		t.Errorf("a gzip-compressed call: %v, want %v", err, codes.Unimplemented)
	}

	t.Run("malformed connections", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(27, 1))
		for i := range 30 {
			c, err := net.Dial("tcp", srv.GRPCAddr())
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if i%3 != 0 {
				b.WriteString(http2.ClientPreface)
				http2.NewFramer(&b, nil).WriteSettings()
			}
			junk := make([]byte, 1+rng.IntN(200))
			for j := range junk {
				junk[j] = byte(rng.Uint32())
			}
			b.Write(junk)
			c.Write(b.Bytes())
			c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			for {
				if _, err := c.Read(make([]byte, 4096)); err != nil {
					break
				}
			}
			c.Close()
		}
		if live, err := client.ServerLive(ctx, &inferencepb.ServerLiveRequest{}); err != nil || !live.Live {
			t.Fatalf("after malformed connections: %v, %v", live, err)
		}
	})

	t.Run("HTTP errors", func(t *testing.T) {
		for _, c := range []struct{ method, contentType, want string }{
			{"GET", "application/grpc", "405"},
			{"POST", "application/json", "415"},
		} {
			if got := h2Status(t, srv.GRPCAddr(), c.method, c.contentType); got != c.want {
				t.Errorf("%s %s: status %s, want %s", c.method, c.contentType, got, c.want)
			}
		}
	})

	t.Run("TLS", func(t *testing.T) {
		certFile, keyFile, cert := selfSignedCert(t)
		tsrv, _ := testServerConfig(t, Config{TLSCert: certFile, TLSKey: keyFile}, map[string]core.Model{"heart": km})
		pool := x509.NewCertPool()
		pool.AddCert(cert)
		tconn, err := grpc.NewClient(tsrv.GRPCAddr(), grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool})))
		if err != nil {
			t.Fatal(err)
		}
		defer tconn.Close()
		if live, err := inferencepb.NewGRPCInferenceServiceClient(tconn).ServerLive(ctx, &inferencepb.ServerLiveRequest{}); err != nil || !live.Live {
			t.Fatalf("over TLS: %v, %v", live, err)
		}
	})

	// Last: a watch follows the server to its shutdown, which ends it
	// (grpc-go's GracefulStop waits for open streams instead, until the
	// drain timeout).
	w, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := w.Recv(); err != nil || m.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("first watch answer %v, %v; want SERVING", m, err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(ctx) }()
	for {
		m, err := w.Recv()
		if err != nil {
			break
		}
		if m.Status != healthpb.HealthCheckResponse_NOT_SERVING {
			t.Errorf("watch answer at shutdown %v, want NOT_SERVING", m)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Error("Shutdown waits for the open watch")
	}
}

// h2Status sends one HTTP/2 request with method and content type to addr
// and returns the answer's :status.
func h2Status(t *testing.T, addr, method, contentType string) string {
	t.Helper()
	h := dialH2(t, addr)
	h.headersWith(1, true, []hpack.HeaderField{{Name: ":method", Value: method}, {Name: ":scheme", Value: "http"},
		{Name: ":path", Value: "/inference.GRPCInferenceService/ServerLive"}, {Name: ":authority", Value: addr},
		{Name: "content-type", Value: contentType}})
	h.send()
	for {
		f, err := h.fr.ReadFrame()
		if err != nil {
			t.Fatalf("%s %s: %v before an answer", method, contentType, err)
		}
		if m, ok := f.(*http2.MetaHeadersFrame); ok && m.StreamID == 1 {
			return m.PseudoValue("status")
		}
	}
}

// TestGRPCHeaderValues checks the grpc-timeout reader and the
// grpc-message encoder against gRPC's HTTP/2 protocol text.
func TestGRPCHeaderValues(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1H", time.Hour, true}, {"2M", 2 * time.Minute, true}, {"30S", 30 * time.Second, true},
		{"250m", 250 * time.Millisecond, true}, {"99999999u", 99999999 * time.Microsecond, true}, {"7n", 7, true},
		{"", 0, false}, {"S", 0, false}, {"10", 0, false}, {"10s", 0, false}, {"-1S", 0, false}, {"123456789S", 0, false},
	} {
		if got, ok := parseGRPCTimeout(c.in); got != c.want || ok != c.ok {
			t.Errorf("parseGRPCTimeout(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	for in, want := range map[string]string{
		"plain text: 1 < 2": "plain text: 1 < 2",
		"100% sure":         "100%25 sure",
		"a\nb":              "a%0Ab",
		"naïve":             "na%C3%AFve",
	} {
		if got := encodeGRPCMessage(in); got != want {
			t.Errorf("encodeGRPCMessage(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestGRPCEarlyCallCut sends, on one connection, a large raw batch cut
// short by the client's end of stream (answered with an error), another
// reset by the client while it arrives, and a small call after them, which
// is answered: a call started before its request has arrived whole
// (grpch2.go's startEarly) ends whatever its client does. Then a batch
// refused for a NaN while the rest of its rows arrive, and a whole one.
func TestGRPCEarlyCallCut(t *testing.T) {
	ds := heart(t)
	srv, _ := testServer(t, Limits{}, map[string]core.Model{"heart": kernelModel(t, ds)})
	n, nf := 10000, ds.NumFeatures()
	raw := make([]byte, 0, 4*n*nf)
	for r := range n {
		for _, v := range ds.DenseRow(r % ds.Len()) {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
		}
	}
	msg, err := protoapi.Marshal(&inferencepb.ModelInferRequest{ModelName: "heart",
		Inputs:           []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{int64(n), int64(nf)}}},
		RawInputContents: [][]byte{raw}})
	if err != nil {
		t.Fatal(err)
	}
	body := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
	body = append(body, msg...)
	live := binary.BigEndian.AppendUint32([]byte{0}, 0) // an empty ServerLiveRequest

	h := dialH2(t, srv.GRPCAddr())
	h.headers(1, "ModelInfer")
	h.data(1, body[:100<<10], true) // cut short
	h.headers(3, "ModelInfer")
	h.data(3, body[:100<<10], false)
	h.fr.WriteRSTStream(3, http2.ErrCodeCancel)
	h.headers(5, "ServerLive")
	h.fr.WriteDataPadded(5, true, live, make([]byte, 7)) // padded: read past the padding
	h.send()
	statuses := map[uint32]string{}
	h.statuses(statuses, 5)
	if statuses[5] != "0" {
		t.Errorf("the call after them: grpc-status %s, want 0", statuses[5])
	}
	h.statuses(statuses, 1) // it may come after the last call's
	if statuses[1] == "0" {
		t.Error("a request cut short was answered OK")
	}

	// A batch with a NaN in its fourth row, read into the rows as it
	// arrives, is refused; the whole batch after it is answered.
	nan := append([]byte(nil), body...)
	binary.LittleEndian.PutUint32(nan[len(nan)-len(raw)+4*(3*nf+2):], math.Float32bits(float32(math.NaN())))
	h.headers(7, "ModelInfer")
	h.data(7, nan[:40<<10], false)
	h.send()
	time.Sleep(10 * time.Millisecond) // the call starts with part of its rows
	h.data(7, nan[40<<10:], true)
	h.headers(9, "ModelInfer")
	h.data(9, body, true)
	h.send()
	h.statuses(statuses, 7)
	h.statuses(statuses, 9)
	if statuses[7] != strconv.Itoa(int(codes.InvalidArgument)) || statuses[9] != "0" {
		t.Errorf("a batch with a NaN: grpc-status %s, want %d; the batch after it: %s, want 0", statuses[7], codes.InvalidArgument, statuses[9])
	}

	// A batch for a model not served is answered (NOT_FOUND) once it has
	// arrived: its buffer is written until then.
	nope, err := protoapi.Marshal(&inferencepb.ModelInferRequest{ModelName: "nope",
		Inputs:           []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{int64(n), int64(nf)}}},
		RawInputContents: [][]byte{raw}})
	if err != nil {
		t.Fatal(err)
	}
	nope = append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(nope))), nope...)
	h.headers(11, "ModelInfer")
	h.data(11, nope[:40<<10], false)
	h.send()
	time.Sleep(10 * time.Millisecond)
	h.data(11, nope[40<<10:], true)
	h.headers(13, "ModelInfer")
	h.data(13, body, true)
	h.send()
	h.statuses(statuses, 11)
	h.statuses(statuses, 13)
	if statuses[11] != strconv.Itoa(int(codes.NotFound)) || statuses[13] != "0" {
		t.Errorf("a batch for no model: grpc-status %s, want %d; the batch after it: %s, want 0", statuses[11], codes.NotFound, statuses[13])
	}
}

// TestGRPCConnectionBufferBound opens calls on one connection whose
// requests, each within the size cap, together pass twice the cap before
// any is whole: the one that passes it is refused (RESOURCE_EXHAUSTED),
// the others are answered once their requests end.
func TestGRPCConnectionBufferBound(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxRequestBytes = 4096
	srv, _ := testServer(t, lim, map[string]core.Model{"heart": kernelModel(t, heart(t))})
	msg := binary.BigEndian.AppendUint32([]byte{0}, 3000)
	msg = append(msg, make([]byte, 3000)...)  // a ServerLiveRequest of unknown fields
	msg[5], msg[6], msg[7] = 0x7a, 0xb5, 0x17 // field 15, bytes, 2997 long
	h := dialH2(t, srv.GRPCAddr())
	for id := uint32(1); id <= 5; id += 2 {
		h.headers(id, "ServerLive")
		h.data(id, msg[:len(msg)-1], false)
	}
	for id := uint32(1); id <= 3; id += 2 {
		h.data(id, msg[len(msg)-1:], true)
	}
	h.send()
	statuses := map[uint32]string{}
	h.statuses(statuses, 1)
	h.statuses(statuses, 3)
	h.statuses(statuses, 5)
	if statuses[1] != "0" || statuses[3] != "0" || statuses[5] != strconv.Itoa(int(codes.ResourceExhausted)) {
		t.Errorf("grpc-status of the three calls %v, want 0, 0, %d", statuses, codes.ResourceExhausted)
	}
}

// rawH2 is an HTTP/2 client connection written frame by frame.
type rawH2 struct {
	t       *testing.T
	c       net.Conn
	fr      *http2.Framer
	out, hb bytes.Buffer
	enc     *hpack.Encoder
}

func dialH2(t *testing.T, addr string) *rawH2 {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	h := &rawH2{t: t, c: c}
	h.fr = http2.NewFramer(&h.out, bufio.NewReader(c))
	h.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	h.enc = hpack.NewEncoder(&h.hb)
	h.out.WriteString(http2.ClientPreface)
	// Windows large enough for every answer: this client gives none back.
	h.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 30})
	h.fr.WriteWindowUpdate(0, 1<<30-65535)
	return h
}

// headers opens stream id calling method of the inference service.
func (h *rawH2) headers(id uint32, method string) {
	h.headersWith(id, false, []hpack.HeaderField{{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"},
		{Name: ":path", Value: "/inference.GRPCInferenceService/" + method}, {Name: ":authority", Value: "x"},
		{Name: "content-type", Value: "application/grpc"}})
}

// headersWith opens stream id with fields, ending it when end is set.
func (h *rawH2) headersWith(id uint32, end bool, fields []hpack.HeaderField) {
	h.hb.Reset()
	for _, f := range fields {
		h.enc.WriteField(f)
	}
	h.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: h.hb.Bytes(), EndHeaders: true, EndStream: end})
}

// data sends b on stream id in 16 KB frames, the last ending the stream
// when end is set.
func (h *rawH2) data(id uint32, b []byte, end bool) {
	for len(b) > 16384 {
		h.fr.WriteData(id, false, b[:16384])
		b = b[16384:]
	}
	h.fr.WriteData(id, end, b)
}

// send writes the frames so far.
func (h *rawH2) send() {
	if _, err := h.c.Write(h.out.Bytes()); err != nil {
		h.t.Fatal(err)
	}
	h.out.Reset()
}

// statuses reads frames, noting each stream's grpc-status, until stream
// id has one.
func (h *rawH2) statuses(into map[uint32]string, id uint32) {
	for into[id] == "" {
		f, err := h.fr.ReadFrame()
		if err != nil {
			h.t.Fatalf("%v before stream %d's answer (answers so far %v)", err, id, into)
		}
		if m, ok := f.(*http2.MetaHeadersFrame); ok && m.StreamEnded() {
			for _, hf := range m.RegularFields() {
				if hf.Name == "grpc-status" {
					into[m.StreamID] = hf.Value
				}
			}
		}
	}
}

// TestGRPCSettingsOutOfRange sends SETTINGS values RFC 9113 (6.5.2) makes
// connection errors: the server answers each with a GOAWAY of the code
// the RFC names and closes the connection.
func TestGRPCSettingsOutOfRange(t *testing.T) {
	srv, _ := testServer(t, Limits{}, map[string]core.Model{"heart": linearModel(t, heart(t), 1)})
	for _, c := range []struct {
		s    http2.Setting
		want http2.ErrCode
	}{
		{http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 31}, http2.ErrCodeFlowControl},
		{http2.Setting{ID: http2.SettingMaxFrameSize, Val: 16383}, http2.ErrCodeProtocol},
		{http2.Setting{ID: http2.SettingMaxFrameSize, Val: 1 << 24}, http2.ErrCodeProtocol},
		{http2.Setting{ID: http2.SettingEnablePush, Val: 2}, http2.ErrCodeProtocol},
	} {
		h := dialH2(t, srv.GRPCAddr())
		h.fr.WriteSettings(c.s)
		h.send()
		var code http2.ErrCode = 1 << 31 // none
		for {
			f, err := h.fr.ReadFrame()
			if err != nil {
				break
			}
			if g, ok := f.(*http2.GoAwayFrame); ok {
				code = g.ErrCode
			}
		}
		if code != c.want {
			t.Errorf("SETTINGS %v: GOAWAY %v, want %v", c.s, code, c.want)
		}
	}
}

// TestGRPCWatchResetAtOnce resets health watches in the same write as
// their requests: each watch ends (its answer leaves the connection's
// table of answers), though the RST_STREAM is read before the watch's
// goroutine has started.
func TestGRPCWatchResetAtOnce(t *testing.T) {
	srv, _ := testServer(t, Limits{}, map[string]core.Model{"heart": linearModel(t, heart(t), 1)})
	h := dialH2(t, srv.GRPCAddr())
	for id := uint32(1); id <= 39; id += 2 {
		h.headersWith(id, false, []hpack.HeaderField{{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"},
			{Name: ":path", Value: "/grpc.health.v1.Health/Watch"}, {Name: ":authority", Value: "x"},
			{Name: "content-type", Value: "application/grpc"}})
		h.fr.WriteData(id, true, []byte{0, 0, 0, 0, 0})
		h.fr.WriteRSTStream(id, http2.ErrCodeCancel)
	}
	h.send()
	open := func() int {
		n := 0
		srv.h2Srv.mu.Lock()
		defer srv.h2Srv.mu.Unlock()
		for c := range srv.h2Srv.conns {
			c.wmu.Lock()
			n += len(c.sending)
			c.wmu.Unlock()
		}
		return n
	}
	for wait := time.Now().Add(2 * time.Second); open() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(wait) {
			t.Fatalf("%d watches reset with their requests still answered", open())
		}
	}
}
