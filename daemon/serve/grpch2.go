package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	protoapi "google.golang.org/protobuf/proto"
)

// h2Server answers gRPC over HTTP/2 with a connection loop of the
// package's own in place of grpc-go's server, for the services registered
// with it (grpc.ServiceRegistrar: the generated Register functions work):
// every unary method, and server-streaming methods (the health service's
// Watch).
//
// Why: grpc-go's server hands each request from the connection's reader
// goroutine to a stream worker and each answer to the connection's writer
// goroutine ("loopy"), each hand-off a goroutine wake-up, often of a thread
// on the other CPU. Its own do-nothing server took 132 µs at p50 for a
// single-row call on the idle 2-vCPU machine against 43 µs for a TCP echo
// (examples/bench/serve.sh's floors). Here the connection's reader
// goroutine decodes a small unary call, runs it and writes its answer
// (HEADERS, DATA and trailers in one write) itself, when no other frame is
// waiting to be read; a call that is large (a batch) or arrives behind
// other frames runs on a goroutine of its own, so that one connection's
// calls still use both CPUs.
//
// What it does of HTTP/2 (RFC 9113) and gRPC's protocol over it: the
// preface and SETTINGS, PING, GOAWAY on shutdown (then the calls in flight
// finish), RST_STREAM both ways, flow control both ways (a window of
// grpcWindow for each stream and the connection; an answer waits for the
// client's window when it does not fit), frames and HPACK through
// x/net/http2's Framer (but DATA, whose payload is read straight into the
// call's body: readData), the request's size cap (RESOURCE_EXHAUSTED, as grpc-go's
// MaxRecvMsgSize), grpc-timeout (for streams), identity encoding only
// (UNIMPLEMENTED otherwise, as grpc-go without decompressors), and
// trailers-only answers for errors. Incoming metadata is not given to the
// handlers (none of the services reads any).
type h2Server struct {
	lim    Limits
	tls    *tls.Config
	log    *slog.Logger
	unary  map[string]h2Unary
	early  map[string]h2Early
	stream map[string]h2StreamMethod

	mu      sync.Mutex
	ln      net.Listener
	conns   map[*h2Conn]struct{}
	closing bool
	wg      sync.WaitGroup // connection goroutines
}

// h2Unary answers one unary call: msg is the request message, valid for
// the call only; the answer is a protobuf message or a *wireResponse.
type h2Unary func(ctx context.Context, msg []byte) (any, error)

// h2Early answers a large unary call started before its request has
// arrived whole: msg is the whole request's length, its first bytes in
// place, the rest arriving as arr tells.
type h2Early func(ctx context.Context, msg []byte, arr arriving) (any, error)

// h2StreamMethod is a server-streaming method and the service it calls.
type h2StreamMethod struct {
	impl any
	desc grpc.StreamDesc
}

// The HTTP/2 settings the server announces.
const (
	// h2MaxFrame is the largest frame a client may send: a batch then
	// arrives in fewer, larger frames than HTTP/2's default 16 KB.
	h2MaxFrame = 1 << 20
	// h2MaxHeaderList caps a call's decoded headers, as REST's
	// maxHeaderBytes.
	h2MaxHeaderList = 64 << 10
	// h2MaxStreams caps the calls open on one connection; past it a call
	// is refused (REFUSED_STREAM, which a client may retry elsewhere).
	h2MaxStreams = 1024
	// h2InlineBytes is the largest request answered on the reader's own
	// goroutine.
	h2InlineBytes = 64 << 10
	// h2EarlyBytes is the smallest request started early (handleUnary).
	h2EarlyBytes = 64 << 10
	// h2EarlyField is the field whose start starts a call early:
	// ModelInferRequest's raw_input_contents, which protobuf's encoders
	// write last (fields in the order of their numbers).
	h2EarlyField = 7
)

func newH2Server(lim Limits, tlsConfig *tls.Config, log *slog.Logger) *h2Server {
	if tlsConfig != nil {
		tlsConfig = tlsConfig.Clone()
		tlsConfig.NextProtos = []string{"h2"}
	}
	return &h2Server{lim: lim, tls: tlsConfig, log: log, unary: map[string]h2Unary{}, early: map[string]h2Early{},
		stream: map[string]h2StreamMethod{}, conns: map[*h2Conn]struct{}{}}
}

// RegisterService serves impl's methods as desc describes them (its
// unary methods and its server-streaming ones); it implements
// grpc.ServiceRegistrar.
func (s *h2Server) RegisterService(desc *grpc.ServiceDesc, impl any) {
	for _, m := range desc.Methods {
		h := m.Handler
		s.unary["/"+desc.ServiceName+"/"+m.MethodName] = func(ctx context.Context, msg []byte) (any, error) {
			return h(impl, ctx, func(v any) error { return unmarshalMessage(msg, v) }, nil)
		}
	}
	for _, sd := range desc.Streams {
		if sd.ClientStreams {
			panic("serve: client-streaming method " + sd.StreamName + " is not served")
		}
		s.stream["/"+desc.ServiceName+"/"+sd.StreamName] = h2StreamMethod{impl, sd}
	}
}

// handleUnary answers the unary method at path with h instead of the
// handler RegisterService took from its description, and with early (when
// not nil) a request of h2EarlyBytes or more whose last field begins with
// the bytes received (a batch's raw payload): so a batch is read into
// place, checked and predicted while it arrives.
func (s *h2Server) handleUnary(path string, h h2Unary, early h2Early) {
	s.unary[path] = h
	if early != nil {
		s.early[path] = early
	}
}

// unmarshalMessage is protobuf's Unmarshal of msg into v, with gRPC's
// answer when it fails.
func unmarshalMessage(msg []byte, v any) error {
	m, ok := v.(protoapi.Message)
	if !ok {
		return status.Errorf(codes.Internal, "grpc: %T is not a protobuf message", v)
	}
	if err := protoapi.Unmarshal(msg, m); err != nil {
		return unmarshalError(err)
	}
	return nil
}

// serve accepts connections on ln until shutdown; it returns
// grpc.ErrServerStopped then.
func (s *h2Server) serve(ln net.Listener) error {
	s.mu.Lock()
	s.ln = ln
	closing := s.closing
	s.mu.Unlock()
	if closing {
		ln.Close()
		return grpc.ErrServerStopped
	}
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return grpc.ErrServerStopped
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("serve: grpc accept failed; retrying", "err", err, "after", backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		if s.tls != nil {
			nc = tls.Server(nc, s.tls)
		}
		c := newH2Conn(s, nc)
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			nc.Close()
			return grpc.ErrServerStopped
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go c.serve()
	}
}

// shutdown stops accepting, tells every connection to open no more calls
// (GOAWAY) and waits for the unary calls in flight to be answered, then
// closes the connections (ending streams such as health watches); when
// ctx ends first it closes them at once and returns ctx's error.
func (s *h2Server) shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	if s.ln != nil {
		s.ln.Close()
	}
	conns := make([]*h2Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.goAway(http2.ErrCodeNo)
	}
	var err error
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
wait:
	for _, c := range conns {
		for c.active.Load() > 0 {
			select {
			case <-ctx.Done():
				err = ctx.Err()
				break wait
			case <-tick.C:
			}
		}
	}
	s.close()
	s.wg.Wait()
	return err
}

// close stops accepting and closes every connection at once.
func (s *h2Server) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	if s.ln != nil {
		s.ln.Close()
	}
	for c := range s.conns {
		c.nc.Close()
	}
}

// h2Conn is one client connection. The reader goroutine (serve) owns the
// framer's reading side and the streams being received; everything
// written goes through out under wmu, in the order the frames are encoded
// (HPACK's state depends on it).
type h2Conn struct {
	s  *h2Server
	nc net.Conn
	br *bufio.Reader
	fr *http2.Framer
	hh *h2Headers // reads HEADERS and CONTINUATION frames

	// The reader goroutine's own.
	streams     map[uint32]*h2Stream // calls being received
	buffered    int64                // bytes of their bodies
	lastID      uint32               // the highest stream a client opened
	spare       *h2Stream            // a call answered on the reader goroutine, for the next
	recvUnacked int64                // connection-level bytes not yet given back

	// active counts the unary calls opened and not yet answered (for a
	// graceful shutdown); handlers the goroutines running calls.
	active   atomic.Int32
	handlers sync.WaitGroup

	wmu          sync.Mutex
	wcond        sync.Cond // on wmu: a window grew, or the connection closed
	out          bytes.Buffer
	henc         *hpack.Encoder
	hbuf         bytes.Buffer
	sendWindow   int64                // the client's connection-level window
	peerInitial  int64                // the client's initial stream window
	sending      map[uint32]*h2Sender // answers that may wait for a window
	closed       bool                 // the connection failed or closed
	goneAway     bool                 // a GOAWAY was sent: no new calls
	writeTimeout time.Duration
}

// h2Stream is a call being received.
type h2Stream struct {
	id     uint32
	unary  h2Unary
	early  h2Early // nil: the method is not started early
	stream *h2StreamMethod
	// msg holds the pooled buffer of body, the bytes received so far
	// (gRPC's length-prefixed messages), which the reader appends to;
	// once the call started early (arrival set), the call owns msg and
	// the reader appends no further than the one message's end.
	msg      *[]byte
	body     []byte
	unacked  int64 // stream-level bytes not yet given back
	deadline time.Time
	arrival  *h2Arrival
	noEarly  bool // the request cannot be started early
	// recv is the body's bytes received: len(body), or more once a call
	// started early has them read into its rows (h2Arrival.rows).
	recv int
}

// msgBufPool holds request and answer buffers.
var msgBufPool = sync.Pool{New: func() any { return new([]byte) }}

// releaseBody puts body, held in the pooled buffer b (nil: none), back.
func releaseBody(b *[]byte, body []byte) {
	if b != nil {
		*b = body
		putMsgBuf(b)
	}
}

func putMsgBuf(b *[]byte) {
	if cap(*b) <= 4<<20 {
		*b = (*b)[:0]
		msgBufPool.Put(b)
	}
}

func newH2Conn(s *h2Server, nc net.Conn) *h2Conn {
	c := &h2Conn{s: s, nc: nc, streams: map[uint32]*h2Stream{}, sendWindow: 65535, peerInitial: 65535,
		sending: map[uint32]*h2Sender{}, writeTimeout: s.lim.WriteTimeout}
	c.wcond.L = &c.wmu
	c.br = bufio.NewReaderSize(nc, 32<<10)
	c.fr = http2.NewFramer(&c.out, c.br)
	c.fr.SetMaxReadFrameSize(h2MaxFrame)
	c.fr.MaxHeaderListSize = h2MaxHeaderList
	c.fr.SetReuseFrames()
	c.hh = newH2Headers()
	c.henc = hpack.NewEncoder(&c.hbuf)
	return c
}

// serve reads the connection's frames until it fails or closes.
func (c *h2Conn) serve() {
	defer c.finish()
	c.nc.SetReadDeadline(time.Now().Add(c.s.lim.ReadTimeout))
	var preface [len(http2.ClientPreface)]byte
	if _, err := io.ReadFull(c.br, preface[:]); err != nil || string(preface[:]) != http2.ClientPreface {
		return
	}
	c.wmu.Lock()
	c.fr.WriteSettings(
		http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: h2MaxStreams},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: grpcWindow},
		http2.Setting{ID: http2.SettingMaxFrameSize, Val: h2MaxFrame},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: h2MaxHeaderList},
	)
	c.fr.WriteWindowUpdate(0, grpcWindow-65535)
	c.flush()
	c.wmu.Unlock()
	if f, err := c.fr.ReadFrame(); err != nil {
		return
	} else if sf, ok := f.(*http2.SettingsFrame); !ok || sf.IsAck() {
		c.goAway(http2.ErrCodeProtocol)
		return
	} else if err := c.settings(sf); err != nil {
		c.goAway(codeOf(err))
		return
	}
	c.nc.SetReadDeadline(time.Time{})
	for {
		ok, err := c.hh.read(c.br)
		if ok && err == nil {
			err = c.headers(c.hh)
		} else if !ok {
			ok, err = c.readData()
		}
		if !ok && err == nil {
			var f http2.Frame
			if f, err = c.fr.ReadFrame(); err == nil {
				err = c.frame(f)
			}
		}
		if err == nil {
			continue
		}
		var se http2.StreamError
		if errors.As(err, &se) {
			c.reset(se.StreamID, se.Code)
			continue
		}
		var ce http2.ConnectionError
		if errors.As(err, &ce) {
			c.goAway(http2.ErrCode(ce))
		}
		return
	}
}

func codeOf(err error) http2.ErrCode {
	var ce http2.ConnectionError
	if errors.As(err, &ce) {
		return http2.ErrCode(ce)
	}
	return http2.ErrCodeInternal
}

// finish closes the connection after its reader stopped: calls still
// running see it closed, streams are cancelled.
func (c *h2Conn) finish() {
	c.wmu.Lock()
	c.closed = true
	for _, snd := range c.sending {
		if snd.cancel != nil {
			snd.cancel()
		}
	}
	c.wcond.Broadcast()
	c.wmu.Unlock()
	c.nc.Close()
	for _, st := range c.streams {
		c.drop(st)
	}
	c.handlers.Wait()
	c.s.mu.Lock()
	delete(c.s.conns, c)
	c.s.mu.Unlock()
	c.s.wg.Done()
}

// forget removes a call from those being received.
func (c *h2Conn) forget(st *h2Stream) {
	if _, ok := c.streams[st.id]; ok {
		delete(c.streams, st.id)
		c.buffered -= int64(st.recv)
	}
}

// drop forgets a call being received without answering it (one started
// early is told, and answers to nobody).
func (c *h2Conn) drop(st *h2Stream) {
	c.forget(st)
	if st.arrival != nil {
		st.arrival.fail(errCallGone)
		return
	}
	releaseBody(st.msg, st.body)
	st.msg, st.body = nil, nil
	if st.unary != nil {
		c.active.Add(-1)
	}
}

// frame handles one frame read.
func (c *h2Conn) frame(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.SettingsFrame:
		if f.IsAck() {
			return nil
		}
		return c.settings(f)
	case *http2.PingFrame:
		if !f.IsAck() {
			c.wmu.Lock()
			c.fr.WritePing(true, f.Data)
			c.flush()
			c.wmu.Unlock()
		}
	case *http2.WindowUpdateFrame:
		c.wmu.Lock()
		defer c.wmu.Unlock()
		if f.StreamID == 0 {
			if c.sendWindow += int64(f.Increment); c.sendWindow > 1<<31-1 {
				return http2.ConnectionError(http2.ErrCodeFlowControl)
			}
		} else if snd := c.sending[f.StreamID]; snd != nil {
			snd.window += int64(f.Increment)
		}
		c.wcond.Broadcast()
	case *http2.RSTStreamFrame:
		if st := c.streams[f.StreamID]; st != nil {
			c.drop(st)
		}
		c.wmu.Lock()
		if snd := c.sending[f.StreamID]; snd != nil {
			snd.reset = true
			if snd.cancel != nil {
				snd.cancel()
			}
			c.wcond.Broadcast()
		}
		c.wmu.Unlock()
	case *http2.PushPromiseFrame:
		return http2.ConnectionError(http2.ErrCodeProtocol) // a client may not push
	}
	return nil // GOAWAY (the client closes when done), PRIORITY, unknown types
}

// settings applies the client's settings and acknowledges them.
func (c *h2Conn) settings(f *http2.SettingsFrame) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	err := f.ForeachSetting(func(st http2.Setting) error {
		if err := st.Valid(); err != nil {
			return err // a frame size out of range, ENABLE_PUSH not 0 or 1 (RFC 9113 6.5.2; the Framer refuses a window past 2^31-1)
		}
		switch st.ID {
		case http2.SettingInitialWindowSize:
			delta := int64(st.Val) - c.peerInitial
			c.peerInitial = int64(st.Val)
			for _, snd := range c.sending {
				snd.window += delta
			}
		case http2.SettingHeaderTableSize:
			c.henc.SetMaxDynamicTableSizeLimit(st.Val)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.fr.WriteSettingsAck()
	c.flush()
	c.wcond.Broadcast()
	return nil
}

// headers opens a call (or ends one whose client sent trailers).
func (c *h2Conn) headers(f *h2Headers) error {
	id := f.id
	if st := c.streams[id]; st != nil {
		if !f.ended {
			return http2.ConnectionError(http2.ErrCodeProtocol)
		}
		c.end(st)
		return nil
	}
	if id <= c.lastID && id%2 == 1 {
		return nil // a stream answered, reset or whose call has its request: frames after it are ignored
	}
	if id%2 == 0 {
		return http2.ConnectionError(http2.ErrCodeProtocol)
	}
	c.lastID = id
	c.wmu.Lock()
	refuse := c.goneAway || len(c.streams)+len(c.sending) >= h2MaxStreams
	c.wmu.Unlock()
	if refuse {
		c.reset(id, http2.ErrCodeRefusedStream)
		return nil
	}
	if f.truncated {
		c.refuse(id, !f.ended, codes.ResourceExhausted, fmt.Sprintf("request headers past %d bytes", h2MaxHeaderList))
		return nil
	}
	if m := f.pseudoValue("method"); m != "POST" {
		c.httpError(id, !f.ended, "405")
		return nil
	}
	st := c.spare
	if st == nil {
		st = new(h2Stream)
	}
	c.spare = nil
	*st = h2Stream{id: id}
	var encoding, timeout string
	ct := false
	for _, h := range f.regular() {
		switch h.Name {
		case "content-type":
			ct = h.Value == "application/grpc" || strings.HasPrefix(h.Value, "application/grpc+") || strings.HasPrefix(h.Value, "application/grpc;")
		case "grpc-encoding":
			encoding = h.Value
		case "grpc-timeout":
			timeout = h.Value
		}
	}
	if !ct {
		c.httpError(id, !f.ended, "415")
		return nil
	}
	path := f.pseudoValue("path")
	if h, ok := c.s.unary[path]; ok {
		st.unary, st.early = h, c.s.early[path]
	} else if sm, ok := c.s.stream[path]; ok {
		st.stream = &sm
	} else {
		c.refuse(id, !f.ended, codes.Unimplemented, unknownMethod(path))
		return nil
	}
	if encoding != "" && encoding != "identity" {
		c.refuse(id, !f.ended, codes.Unimplemented, fmt.Sprintf("grpc: Decompressor is not installed for grpc-encoding %q", encoding))
		return nil
	}
	if timeout != "" {
		d, ok := parseGRPCTimeout(timeout)
		if !ok {
			c.refuse(id, !f.ended, codes.Internal, fmt.Sprintf("malformed grpc-timeout %q", timeout))
			return nil
		}
		st.deadline = time.Now().Add(d)
	}
	if st.unary != nil {
		c.active.Add(1)
	}
	c.streams[id] = st
	if f.ended {
		c.end(st)
	}
	return nil
}

// unknownMethod is grpc-go's answer to a path it does not serve.
func unknownMethod(path string) string {
	service, method, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if !ok {
		return fmt.Sprintf("malformed method name: %q", path)
	}
	return fmt.Sprintf("unknown method %s for service %s", method, service)
}

// parseGRPCTimeout reads gRPC's timeout header: up to 8 digits and a unit.
func parseGRPCTimeout(v string) (time.Duration, bool) {
	if len(v) < 2 || len(v) > 9 {
		return 0, false
	}
	n, err := strconv.ParseInt(v[:len(v)-1], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	unit := map[byte]time.Duration{'H': time.Hour, 'M': time.Minute, 'S': time.Second, 'm': time.Millisecond, 'u': time.Microsecond, 'n': time.Nanosecond}[v[len(v)-1]]
	if unit == 0 {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// readData reads the next frame when it is DATA (any but the ones the
// Framer refuses: on stream 0, or past the frame size), its payload
// straight from the connection's buffer into the call's body rather than
// through the Framer's buffer (a 1000-row batch is 3.1 MB: one copy
// fewer), and gives the client its window back. It reports false, having
// read nothing, for any other frame.
func (c *h2Conn) readData() (bool, error) {
	hdr, err := c.br.Peek(9)
	if err != nil || http2.FrameType(hdr[3]) != http2.FrameData {
		return false, nil // the Framer reads it, or reports the error
	}
	n := int(hdr[0])<<16 | int(hdr[1])<<8 | int(hdr[2])
	id := binary.BigEndian.Uint32(hdr[5:9]) & (1<<31 - 1)
	flags := http2.Flags(hdr[4])
	if id == 0 || n > h2MaxFrame {
		return false, nil
	}
	c.br.Discard(9)
	if id > c.lastID {
		return true, http2.ConnectionError(http2.ErrCodeProtocol) // DATA on a stream never opened
	}
	size, pad := n, 0
	if flags.Has(http2.FlagDataPadded) {
		b, err := c.br.ReadByte()
		if err != nil {
			return true, err
		}
		if pad, size = int(b), n-1-int(b); size < 0 {
			return true, http2.ConnectionError(http2.ErrCodeProtocol)
		}
	}
	c.recvUnacked += int64(n)
	st := c.streams[id]
	if st == nil {
		_, err = c.br.Discard(size) // a stream answered or reset
	} else {
		st.unacked += int64(n)
		var callErr error
		if st.arrival != nil {
			err = c.arrive(st, size)
		} else if callErr, err = c.receive(st, size); callErr != nil && err == nil {
			c.drop(st)
			c.answerError(id, true, callErr)
		} else if err == nil && st.early != nil && !st.noEarly {
			c.startEarly(st)
		}
		st = c.streams[id] // nil once answered, or with its call
	}
	if err == nil {
		_, err = c.br.Discard(pad)
	}
	if err != nil {
		return true, err
	}
	end := flags.Has(http2.FlagDataEndStream)
	var update bool
	c.wmu.Lock()
	if c.recvUnacked >= grpcWindow/4 {
		c.fr.WriteWindowUpdate(0, uint32(c.recvUnacked))
		c.recvUnacked, update = 0, true
	}
	if st != nil && !end && st.unacked >= grpcWindow/4 {
		c.fr.WriteWindowUpdate(id, uint32(st.unacked))
		st.unacked, update = 0, true
	}
	if update {
		c.flush()
	}
	c.wmu.Unlock()
	if st != nil && end {
		c.end(st)
	}
	return true, nil
}

// receive reads a DATA frame's size bytes into the call's body,
// refusing a message past the size cap as soon as its length prefix is
// read, and a call whose bytes would take the calls being received on the
// connection past twice the cap (many large calls at once: refused, as
// past the in-flight bound, rather than held in memory without bound).
// callErr is the call's answer, ioErr the connection's failure.
func (c *h2Conn) receive(st *h2Stream, size int) (callErr, ioErr error) {
	if size == 0 {
		return nil, nil
	}
	max := c.s.lim.MaxRequestBytes
	if c.buffered+int64(size) > 2*max {
		_, err := c.br.Discard(size)
		return status.Errorf(codes.ResourceExhausted, "the calls being received on this connection are past %d bytes: retry later", 2*max), err
	}
	if st.msg == nil {
		st.msg = msgBufPool.Get().(*[]byte)
		st.body = *st.msg
	}
	had := len(st.body)
	m := slices.Grow(st.body, size)[:had+size]
	st.body, st.recv = m, len(m)
	c.buffered += int64(size)
	if _, err := io.ReadFull(c.br, m[had:]); err != nil {
		return nil, err
	}
	if had < 5 && len(m) >= 5 {
		n := int64(binary.BigEndian.Uint32(m[1:5]))
		if n > max {
			return status.Errorf(codes.ResourceExhausted, "grpc: received message larger than max (%d vs. %d)", n, max), nil
		}
		if need := 5 + int(n); cap(m) < need {
			st.body = append(make([]byte, 0, need), m...)
		}
	}
	if int64(len(m)) > 5+max {
		return status.Errorf(codes.ResourceExhausted, "grpc: received message larger than max (%d vs. %d)", len(m)-5, max), nil
	}
	return nil, nil
}

// end runs a call whose request has been received whole (or tells one
// started early that the rest of it will not come).
func (c *h2Conn) end(st *h2Stream) {
	c.forget(st)
	if st.arrival != nil {
		st.arrival.fail(status.Error(codes.Internal, "grpc: a truncated request message"))
		return
	}
	body := st.body
	msg, err := oneMessage(body)
	if err != nil {
		if st.unary != nil {
			c.finishCall(st.id, st.msg, body, nil, err)
		} else {
			releaseBody(st.msg, body)
			c.answerError(st.id, false, err)
		}
		return
	}
	if st.stream != nil {
		ctx, snd := c.openStream(st)
		c.handlers.Add(1)
		go func() {
			defer c.handlers.Done()
			c.runStream(ctx, st, snd, msg)
		}()
		return
	}
	if len(body) <= h2InlineBytes && c.br.Buffered() == 0 {
		c.runUnary(st, msg)
		c.spare = st // answered, referenced by nothing else
		return
	}
	c.handlers.Add(1)
	go func() {
		defer c.handlers.Done()
		c.runUnary(st, msg)
	}()
}

// oneMessage returns the one message of a unary call's body: gRPC's
// length-prefixed message, uncompressed.
func oneMessage(body []byte) ([]byte, error) {
	switch {
	case len(body) < 5:
		return nil, status.Error(codes.Internal, "grpc: a unary call without its request message")
	case body[0]&1 != 0:
		return nil, status.Error(codes.Internal, "grpc: compressed flag set with identity or empty encoding")
	}
	n := int(binary.BigEndian.Uint32(body[1:5]))
	switch {
	case n > len(body)-5:
		return nil, status.Error(codes.Internal, "grpc: a truncated request message")
	case n < len(body)-5:
		return nil, status.Error(codes.Unimplemented, "grpc: more than one request message for a unary call")
	}
	return body[5:], nil
}

// runUnary runs a unary call and answers it.
func (c *h2Conn) runUnary(st *h2Stream, msg []byte) {
	ctx := context.Background()
	if !st.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, st.deadline)
		defer cancel()
	}
	resp, err := c.call(ctx, st.unary, msg)
	c.finishCall(st.id, st.msg, st.body, resp, err)
}

// call runs h, turning a panic into an INTERNAL answer.
func (c *h2Conn) call(ctx context.Context, h h2Unary, msg []byte) (resp any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.s.log.Error("serve: grpc handler panicked", "err", p)
			resp, err = nil, status.Errorf(codes.Internal, "grpc: the handler panicked: %v", p)
		}
	}()
	return h(ctx, msg)
}
