package serve

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"math"
	"net"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	protoapi "google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// h2Frames builds a client's frames after the preface, for the seeds of
// FuzzGRPCOwnTransport.
type h2Frames struct {
	out bytes.Buffer
	fr  *http2.Framer
	hb  bytes.Buffer
	enc *hpack.Encoder
}

func newH2Frames() *h2Frames {
	b := &h2Frames{}
	b.fr = http2.NewFramer(&b.out, nil)
	b.fr.AllowIllegalWrites = true // the seeds break the protocol on purpose
	b.enc = hpack.NewEncoder(&b.hb)
	return b
}

// settings writes the SETTINGS a client opens with (windows large
// enough for every answer).
func (b *h2Frames) settings() *h2Frames {
	b.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 30})
	b.fr.WriteWindowUpdate(0, 1<<30-65535)
	return b
}

// block is the HPACK encoding of fields.
func (b *h2Frames) block(fields ...string) []byte {
	b.hb.Reset()
	for i := 0; i+1 < len(fields); i += 2 {
		b.enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	return bytes.Clone(b.hb.Bytes())
}

// call opens stream id calling method of the inference service.
func (b *h2Frames) call(id uint32, method string, end bool) *h2Frames {
	b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, EndHeaders: true, EndStream: end,
		BlockFragment: b.block(":method", "POST", ":scheme", "http", ":path", "/inference.GRPCInferenceService/"+method,
			":authority", "x", "content-type", "application/grpc")})
	return b
}

// data sends b on stream id in frames of at most n bytes.
func (b *h2Frames) data(id uint32, msg []byte, n int, end bool) *h2Frames {
	for len(msg) > n {
		b.fr.WriteData(id, false, msg[:n])
		msg = msg[n:]
	}
	b.fr.WriteData(id, end, msg)
	return b
}

func (b *h2Frames) bytes() []byte { return bytes.Clone(b.out.Bytes()) }

// grpcMessage is m as gRPC's length-prefixed message.
func grpcMessage(t testing.TB, m protoapi.Message) []byte {
	msg, err := protoapi.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg))), msg...)
}

// FuzzGRPCOwnTransport feeds arbitrary bytes after the client preface to
// a live connection of the package's own HTTP/2 transport (grpch2.go), on
// loopback, then a PING and the end of the client's side: the server must
// not panic, must close the connection within a deadline (having answered
// what it could), must answer a fresh valid call afterwards, and must leave
// no goroutine behind. The seeds are real frames: calls whole, a batch
// started early, PING, SETTINGS, RST_STREAM, WINDOW_UPDATE, header blocks
// with pseudo-headers missing, repeated or unknown, a header list past the
// cap, DATA past the window, CONTINUATION without HEADERS, a stream id
// going backwards.
func FuzzGRPCOwnTransport(f *testing.F) {
	ds := heart(f)
	nf := ds.NumFeatures()
	lim := DefaultLimits()
	lim.MaxRequestBytes = 256 << 10
	srv, _ := testServer(f, lim, map[string]core.Model{"heart": linearModel(f, ds, 1)})
	addr := srv.GRPCAddr()

	single := grpcMessage(f, &inferencepb.ModelInferRequest{ModelName: "heart",
		Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{1, int64(nf)},
			Contents: &inferencepb.InferTensorContents{Fp32Contents: ds.DenseRow(0)}}}})
	rows := h2EarlyBytes/(4*nf) + 10 // past h2EarlyBytes: started early
	var raw []byte
	for r := range rows {
		for _, v := range ds.DenseRow(r % ds.Len()) {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
		}
	}
	batch := grpcMessage(f, &inferencepb.ModelInferRequest{ModelName: "heart",
		Inputs:           []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{int64(rows), int64(nf)}}},
		RawInputContents: [][]byte{raw}})
	live := grpcMessage(f, &inferencepb.ServerLiveRequest{})

	seeds := map[string]func(b *h2Frames){
		"unary": func(b *h2Frames) { b.call(1, "ModelInfer", false).data(1, single, 16384, true) },
		"raw batch": func(b *h2Frames) {
			b.call(1, "ModelInfer", false).data(1, batch, 16384, true)
		},
		"batch cut short then reset": func(b *h2Frames) {
			b.call(1, "ModelInfer", false).data(1, batch[:len(batch)/2], 16384, false)
			b.fr.WriteRSTStream(1, http2.ErrCodeCancel)
			b.call(3, "ModelInfer", false).data(3, batch[:len(batch)/2], 16384, true)
		},
		"ping": func(b *h2Frames) { b.fr.WritePing(false, [8]byte{1, 2, 3}) },
		"settings": func(b *h2Frames) {
			b.fr.WriteSettings(http2.Setting{ID: http2.SettingHeaderTableSize, Val: 0},
				http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0},
				http2.Setting{ID: http2.SettingMaxFrameSize, Val: 16384})
			b.fr.WriteSettingsAck()
			b.call(1, "ModelInfer", false).data(1, single, 16384, true)
			b.fr.WriteWindowUpdate(1, 10)
		},
		"rst_stream": func(b *h2Frames) {
			b.call(1, "ServerLive", false)
			b.fr.WriteRSTStream(1, http2.ErrCodeCancel)
			b.fr.WriteRSTStream(7, http2.ErrCodeCancel)
			b.call(3, "ServerLive", false).data(3, live, 16384, true)
		},
		"window_update": func(b *h2Frames) {
			b.fr.WriteWindowUpdate(0, 1)
			b.fr.WriteWindowUpdate(1, 1<<31-1)
			b.call(1, "ServerLive", false).data(1, live, 16384, true)
			b.fr.WriteWindowUpdate(0, 1<<31-1)
		},
		"missing path": func(b *h2Frames) {
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, EndHeaders: true, EndStream: true,
				BlockFragment: b.block(":method", "POST", ":scheme", "http", "content-type", "application/grpc")})
		},
		"duplicated and bad pseudo-headers": func(b *h2Frames) {
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, EndHeaders: true,
				BlockFragment: b.block(":method", "POST", ":method", "GET", ":path", "/inference.GRPCInferenceService/ServerLive",
					":path", "/a", ":bogus", "1", "content-type", "application/grpc", ":scheme", "http")})
			b.data(1, live, 16384, true)
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, EndHeaders: true, EndStream: true,
				BlockFragment: b.block(":status", "200", "Content-Type", "application/grpc", "grpc-timeout", "1n")})
		},
		"huge header": func(b *h2Frames) {
			big := b.block(":method", "POST", ":path", "/inference.GRPCInferenceService/ServerLive", "content-type", "application/grpc",
				"x-big", strings.Repeat("a", h2MaxHeaderList+1))
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: big[:16384]})
			for big = big[16384:]; len(big) > 16384; big = big[16384:] {
				b.fr.WriteContinuation(1, false, big[:16384])
			}
			b.fr.WriteContinuation(1, true, big)
			b.data(1, live, 16384, true)
		},
		"header list past the cap": func(b *h2Frames) {
			fields := []string{":method", "POST", ":path", "/inference.GRPCInferenceService/ServerLive", "content-type", "application/grpc"}
			for i := range h2MaxHeaderList / 1000 {
				fields = append(fields, "x-many-"+strconv.Itoa(i), strings.Repeat("b", 1000)) // distinct: not indexed
			}
			big := b.block(fields...)
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: big[:16384]})
			for big = big[16384:]; len(big) > 16384; big = big[16384:] {
				b.fr.WriteContinuation(1, false, big[:16384])
			}
			b.fr.WriteContinuation(1, true, big)
			b.data(1, live, 16384, true)
		},
		"data past the window": func(b *h2Frames) {
			b.call(1, "ServerLive", false)
			chunk := make([]byte, h2MaxFrame)
			for range grpcWindow/h2MaxFrame + 1 {
				b.fr.WriteData(1, false, chunk)
			}
		},
		"continuation without headers": func(b *h2Frames) {
			b.fr.WriteContinuation(1, true, b.block(":method", "POST"))
		},
		"stream id backwards": func(b *h2Frames) {
			b.call(5, "ServerLive", false).data(5, live, 16384, true)
			b.call(3, "ServerLive", false).data(3, live, 16384, true)
			b.data(1, live, 16384, true)
		},
		"health watch left open": func(b *h2Frames) {
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, EndHeaders: true,
				BlockFragment: b.block(":method", "POST", ":scheme", "http", ":path", "/grpc.health.v1.Health/Watch",
					":authority", "x", "content-type", "application/grpc", "grpc-timeout", "50m")})
			b.data(1, []byte{0, 0, 0, 0, 0}, 16384, true)
		},
		"odd frames": func(b *h2Frames) {
			b.fr.WritePriority(1, http2.PriorityParam{StreamDep: 1})
			b.fr.WriteRawFrame(0xfa, 0, 0, []byte("unknown"))
			b.fr.WriteDataPadded(1, true, live, make([]byte, 9))
			b.fr.WriteGoAway(0, http2.ErrCodeNo, nil)
			b.fr.WritePushPromise(http2.PushPromiseParam{StreamID: 1, PromiseID: 2, EndHeaders: true})
		},
		"truncated frame": func(b *h2Frames) {
			b.call(1, "ServerLive", false)
			b.out.Write([]byte{0, 1, 0, byte(http2.FrameData), 1, 0, 0, 0, 1, 0, 0})
		},
	}
	for _, name := range slices.Sorted(maps.Keys(seeds)) {
		b := newH2Frames().settings()
		seeds[name](b)
		f.Add(b.bytes())
	}
	f.Add(newH2Frames().bytes()) // nothing after the preface

	valid := newH2Frames().settings().call(1, "ModelInfer", false).data(1, single, 16384, true).bytes()
	f.Fuzz(func(t *testing.T, in []byte) {
		before := runtime.NumGoroutine()
		if err := h2Exchange(srv, in); err != nil {
			t.Fatal(err)
		}
		// A fresh valid call is answered.
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write(append([]byte(http2.ClientPreface), valid...)); err != nil {
			t.Fatal(err)
		}
		fr := http2.NewFramer(nil, bufio.NewReader(c))
		fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
		if got := grpcStatusOf(fr, 1); got != "0" {
			t.Fatalf("a valid call after the input: grpc-status %q, want 0", got)
		}
		c.Close()
		// Every goroutine the two connections started ends.
		for wait := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > before; {
			if time.Now().After(wait) {
				var st strings.Builder
				pprof.Lookup("goroutine").WriteTo(&st, 1)
				t.Fatalf("%d goroutines before the input, %d after:\n%s", before, runtime.NumGoroutine(), st.String())
			}
			time.Sleep(time.Millisecond)
		}
	})
}

// h2Exchange writes the client preface, in and a PING to a connection to
// srv's own transport, reading what the server sends. When in ends at a
// frame's end, the PING must be acknowledged (the server read every frame
// before it) or the connection closed; then, once the calls it opened are
// answered (or after a short wait: an answer may wait for a window the
// input never gives), the client ends its side and the server must close
// the connection, all within a deadline.
func h2Exchange(srv *Server, in []byte) error {
	c, err := net.Dial("tcp", srv.GRPCAddr())
	if err != nil {
		return err
	}
	defer c.Close()
	const deadline = 3 * time.Second
	c.SetDeadline(time.Now().Add(deadline))
	acked := make(chan struct{})
	read := make(chan error, 1)
	go func() {
		fr := http2.NewFramer(nil, c)
		fr.SetMaxReadFrameSize(1 << 24)
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				read <- err
				return
			}
			if p, ok := f.(*http2.PingFrame); ok && p.IsAck() && p.Data == h2FuzzPing {
				close(acked)
			}
		}
	}()
	var tail bytes.Buffer
	http2.NewFramer(&tail, nil).WritePing(false, h2FuzzPing)
	if _, err := c.Write(append(append([]byte(http2.ClientPreface), in...), tail.Bytes()...)); err != nil && !isConnReset(err) {
		return err
	}
	if framesEnd(in) {
		select {
		case <-acked:
		case err := <-read:
			if err != nil && !isConnReset(err) {
				return errors.New("no PING acknowledgement: " + err.Error())
			}
			return nil
		}
		for wait := time.Now().Add(200 * time.Millisecond); srv.h2Srv.calls() > 0 && time.Now().Before(wait); {
			time.Sleep(100 * time.Microsecond)
		}
	}
	c.(*net.TCPConn).CloseWrite()
	if err := <-read; err != nil && !isConnReset(err) {
		return errors.New("the server did not close the connection within " + deadline.String() + ": " + err.Error())
	}
	return nil
}

// h2FuzzPing is the data of h2Exchange's PING.
var h2FuzzPing = [8]byte{'f', 'u', 'z', 'z'}

// framesEnd reports whether b is whole frames (by their lengths).
func framesEnd(b []byte) bool {
	for len(b) >= 9 {
		n := 9 + (int(b[0])<<16 | int(b[1])<<8 | int(b[2]))
		if n > len(b) {
			return false
		}
		b = b[n:]
	}
	return len(b) == 0
}

// calls is the number of unary calls open on s's connections.
func (s *h2Server) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		n += int(c.active.Load())
	}
	return n
}

// isConnReset reports whether err is the server closing the connection
// before reading everything the client sent (the kernel then resets it).
func isConnReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// grpcStatusOf reads frames until stream id's grpc-status, which it
// returns ("" when the connection fails first).
func grpcStatusOf(fr *http2.Framer, id uint32) string {
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return ""
		}
		if m, ok := f.(*http2.MetaHeadersFrame); ok && m.StreamID == id && m.StreamEnded() {
			for _, hf := range m.RegularFields() {
				if hf.Name == "grpc-status" {
					return hf.Value
				}
			}
			return ""
		}
	}
}
