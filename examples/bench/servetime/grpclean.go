package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"net"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	protoapi "google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// leanGRPC is a gRPC client of the kind a C++ synchronous client is: one
// HTTP/2 connection, a unary call's HEADERS and DATA frames written in one
// call, then the answer's frames read in the calling goroutine until the
// trailers. grpc-go's client hands each call to a writer goroutine and each
// answer back from a reader goroutine: two goroutine hops and their
// wake-ups a round trip that are the client's, not the server's.
//
// It sends only small messages: it refuses to send past the server's flow
// control window rather than wait for it (the answer's DATA and the
// server's WINDOW_UPDATEs are read with each call, so a single-row
// client never comes near it). Control frames owed to the server (SETTINGS
// and PING acknowledgements, WINDOW_UPDATEs for the answers' bytes) go out
// with the next call's write.
type leanGRPC struct {
	c       net.Conn
	fr      *http2.Framer
	out     bytes.Buffer // the next write: owed control frames, then a call
	hpack   *hpack.Encoder
	hbuf    bytes.Buffer
	stream  uint32
	window  int64 // the server's connection-level send window left to us
	initial int64 // the server's initial stream window
	unacked int64 // answer bytes received since the last WINDOW_UPDATE sent
	path    string
	// msg is the last answer's message (without gRPC's 5-byte prefix);
	// status its grpc-status.
	msg    []byte
	status string
}

// leanWindow is the receive window the client advertises (connection and
// streams): large, so that the server never waits on the client.
const leanWindow = 1 << 30

func dialLeanGRPC(addr string) *leanGRPC {
	c, err := dial(addr)
	check(err)
	g := &leanGRPC{c: c, window: 65535, initial: 65535, path: "/inference.GRPCInferenceService/ModelInfer"}
	g.fr = http2.NewFramer(&g.out, bufio.NewReaderSize(c, 64<<10))
	g.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	g.hpack = hpack.NewEncoder(&g.hbuf)
	g.out.WriteString(http2.ClientPreface)
	check(g.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: leanWindow}))
	check(g.fr.WriteWindowUpdate(0, leanWindow-65535))
	return g
}

func (g *leanGRPC) close() { g.c.Close() }

// call sends the message req (a marshalled ModelInferRequest) as one
// unary call and reads its answer into g.msg and g.status.
func (g *leanGRPC) call(req []byte) {
	if int64(len(req))+5 > min(g.window, g.initial) {
		die(fmt.Errorf("lean gRPC client: a %d-byte message is past the server's flow control window", len(req)))
	}
	g.headers()
	var prefix [5]byte
	binary.BigEndian.PutUint32(prefix[1:], uint32(len(req)))
	check(g.fr.WriteData(g.stream, true, append(prefix[:], req...)))
	g.window -= int64(len(req)) + 5
	_, err := g.c.Write(g.out.Bytes())
	check(err)
	g.out.Reset()
	g.read()
}

// headers opens the next stream with a unary call's HEADERS, into g.out.
func (g *leanGRPC) headers() {
	if g.stream == 0 {
		g.stream = 1
	} else {
		g.stream += 2 // a client's streams are odd
	}
	g.hbuf.Reset()
	for _, f := range [...]hpack.HeaderField{
		{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"}, {Name: ":path", Value: g.path},
		{Name: ":authority", Value: g.c.RemoteAddr().String()}, {Name: "content-type", Value: "application/grpc"},
		{Name: "te", Value: "trailers"},
	} {
		check(g.hpack.WriteField(f))
	}
	check(g.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: g.stream, BlockFragment: g.hbuf.Bytes(), EndHeaders: true}))
}

// read reads frames until the trailers of the current stream.
func (g *leanGRPC) read() {
	g.msg, g.status = g.msg[:0], ""
	for {
		f, err := g.fr.ReadFrame()
		check(err)
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				continue
			}
			check(f.ForeachSetting(func(s http2.Setting) error {
				if s.ID == http2.SettingInitialWindowSize {
					g.initial = int64(s.Val)
				}
				return nil
			}))
			check(g.fr.WriteSettingsAck())
		case *http2.PingFrame:
			if !f.IsAck() {
				check(g.fr.WritePing(true, f.Data))
			}
		case *http2.WindowUpdateFrame:
			if f.StreamID == 0 {
				g.window += int64(f.Increment)
			}
		case *http2.DataFrame:
			g.msg = append(g.msg, f.Data()...)
			if g.unacked += int64(f.Length); g.unacked > leanWindow/2 {
				check(g.fr.WriteWindowUpdate(0, uint32(g.unacked)))
				g.unacked = 0
			}
		case *http2.MetaHeadersFrame:
			if st := f.PseudoValue("status"); st != "" && st != "200" {
				die(fmt.Errorf("lean gRPC client: HTTP status %s", st))
			}
			for _, h := range f.RegularFields() {
				if h.Name == "grpc-status" {
					g.status = h.Value
				}
			}
			if f.StreamEnded() && f.StreamID == g.stream {
				if len(g.msg) < 5 && g.status == "0" {
					die(fmt.Errorf("lean gRPC client: an OK answer without a message"))
				}
				if len(g.msg) >= 5 {
					g.msg = g.msg[5:]
				}
				return
			}
		case *http2.RSTStreamFrame:
			die(fmt.Errorf("lean gRPC client: stream reset (%v)", f.ErrCode))
		case *http2.GoAwayFrame:
			die(fmt.Errorf("lean gRPC client: GOAWAY (%v)", f.ErrCode))
		}
	}
}

// answer unmarshals the last answer's message, refusing a status not OK.
func (g *leanGRPC) answer() *inferencepb.ModelInferResponse {
	if g.status != "0" {
		die(fmt.Errorf("lean gRPC client: grpc-status %s", g.status))
	}
	resp := new(inferencepb.ModelInferResponse)
	check(protoapi.Unmarshal(g.msg, resp))
	return resp
}
