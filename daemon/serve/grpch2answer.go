package serve

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"
	grpcmd "google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	protoapi "google.golang.org/protobuf/proto"
)

// The answers of the package's own HTTP/2 transport (grpch2.go): a unary
// call's HEADERS, DATA and trailers written in one write when they fit
// the client's windows, else by a goroutine that waits for its window
// updates; errors as gRPC's trailers-only answers; server-streaming calls.

// h2Sender is an answer that waits for the client's stream window (a
// large one, or a stream's): its window and whether the client reset it.
type h2Sender struct {
	window  int64
	reset   bool
	headers bool // the answer's HEADERS went out
	cancel  context.CancelFunc
}

// finishCall answers the unary call id with resp, or with err's status,
// and releases its request, body in the pooled buffer req.
func (c *h2Conn) finishCall(id uint32, req *[]byte, body []byte, resp any, err error) {
	defer c.active.Add(-1)
	var out *[]byte
	if err == nil {
		out = msgBufPool.Get().(*[]byte)
		*out, err = appendMessage(append((*out)[:0], 0, 0, 0, 0, 0), resp)
	}
	releaseBody(req, body)
	if err != nil {
		if out != nil {
			putMsgBuf(out)
		}
		c.answerError(id, false, err)
		return
	}
	b := *out
	binary.BigEndian.PutUint32(b[1:5], uint32(len(b)-5))
	c.wmu.Lock()
	if c.closed {
		c.wmu.Unlock()
		putMsgBuf(out)
		return
	}
	if n := int64(len(b)); n <= c.sendWindow && n <= c.peerInitial {
		c.writeHeaders(id)
		c.writeData(id, b)
		c.sendWindow -= n
		c.writeStatus(id, codes.OK, "", false)
		c.flush()
		c.wmu.Unlock()
		putMsgBuf(out)
		return
	}
	// An answer past the client's window waits for it, on a goroutine of
	// its own (the reader's must go on reading the window updates).
	snd := &h2Sender{window: c.peerInitial}
	c.sending[id] = snd
	c.wmu.Unlock()
	c.active.Add(1)
	c.handlers.Add(1)
	go func() {
		defer c.handlers.Done()
		defer c.active.Add(-1)
		defer putMsgBuf(out)
		c.wmu.Lock()
		defer c.wmu.Unlock()
		defer delete(c.sending, id)
		if c.send(id, snd, b) == nil {
			c.writeStatus(id, codes.OK, "", false)
			c.flush()
		}
	}()
}

// appendMessage appends the answer resp's wire bytes to b.
func appendMessage(b []byte, resp any) ([]byte, error) {
	switch r := resp.(type) {
	case *wireResponse:
		b = append(b, r.sc.msg...)
		r.release()
		return b, nil
	case protoapi.Message:
		b, err := protoapi.MarshalOptions{}.MarshalAppend(b, r)
		if err != nil {
			return b, status.Errorf(codes.Internal, "grpc: error while marshaling: %v", err)
		}
		return b, nil
	}
	return b, status.Errorf(codes.Internal, "grpc: %T is not a protobuf message", resp)
}

// send writes the answer's HEADERS (once) and b as DATA, waiting for the
// client's windows as it goes; wmu is held. It fails when the connection
// closed or the client reset the stream.
func (c *h2Conn) send(id uint32, snd *h2Sender, b []byte) error {
	if !snd.headers {
		c.writeHeaders(id)
		snd.headers = true
	}
	for len(b) > 0 {
		for !c.closed && !snd.reset && (c.sendWindow <= 0 || snd.window <= 0) {
			c.flush()
			c.wcond.Wait()
		}
		if c.closed || snd.reset {
			return io.ErrClosedPipe
		}
		k := int(min(int64(len(b)), c.sendWindow, snd.window))
		c.writeData(id, b[:k])
		c.sendWindow -= int64(k)
		snd.window -= int64(k)
		b = b[k:]
	}
	return nil
}

// writeHeaders encodes an answer's HEADERS; wmu is held.
func (c *h2Conn) writeHeaders(id uint32) {
	c.hbuf.Reset()
	c.henc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	c.henc.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/grpc"})
	c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.hbuf.Bytes(), EndHeaders: true})
}

// writeData encodes b as DATA frames of the largest size every client
// accepts (HTTP/2's default, 16 KB); wmu is held.
func (c *h2Conn) writeData(id uint32, b []byte) {
	for len(b) > 0 {
		k := min(len(b), 16384)
		c.fr.WriteData(id, false, b[:k])
		b = b[k:]
	}
}

// writeStatus encodes the trailers ending a call with code and msg, or,
// with only set, the whole answer of a call that failed before its
// HEADERS (gRPC's trailers-only answer); wmu is held.
func (c *h2Conn) writeStatus(id uint32, code codes.Code, msg string, only bool) {
	c.hbuf.Reset()
	if only {
		c.henc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
		c.henc.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/grpc"})
	}
	c.henc.WriteField(hpack.HeaderField{Name: "grpc-status", Value: strconv.Itoa(int(code))})
	if msg != "" {
		c.henc.WriteField(hpack.HeaderField{Name: "grpc-message", Value: encodeGRPCMessage(msg)})
	}
	c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.hbuf.Bytes(), EndHeaders: true, EndStream: true})
}

// answerError answers a call with err's status (trailers only); open:
// the client is still sending, and is told to stop (RST_STREAM NO_ERROR).
func (c *h2Conn) answerError(id uint32, open bool, err error) {
	st := status.Convert(err)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed {
		return
	}
	c.writeStatus(id, st.Code(), st.Message(), true)
	if open {
		c.fr.WriteRSTStream(id, http2.ErrCodeNo)
	}
	c.flush()
}

// refuse answers a call refused on its headers.
func (c *h2Conn) refuse(id uint32, open bool, code codes.Code, msg string) {
	c.answerError(id, open, status.Error(code, msg))
}

// httpError answers a request that is not gRPC with an HTTP status.
func (c *h2Conn) httpError(id uint32, open bool, code string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.hbuf.Reset()
	c.henc.WriteField(hpack.HeaderField{Name: ":status", Value: code})
	c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.hbuf.Bytes(), EndHeaders: true, EndStream: true})
	if open {
		c.fr.WriteRSTStream(id, http2.ErrCodeNo)
	}
	c.flush()
}

// reset resets a stream.
func (c *h2Conn) reset(id uint32, code http2.ErrCode) {
	if st := c.streams[id]; st != nil {
		c.drop(st)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.fr.WriteRSTStream(id, code)
	c.flush()
}

// goAway tells the client that no call past the last one it opened will
// be answered, with code (NO_ERROR for a shutdown).
func (c *h2Conn) goAway(code http2.ErrCode) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.goneAway || c.closed {
		return
	}
	c.goneAway = true
	// lastID is the reader's; a GOAWAY carrying the highest id possible
	// refuses nothing opened meanwhile, and new streams are refused by
	// goneAway.
	c.fr.WriteGoAway(1<<31-1, code, nil)
	c.flush()
}

// flush writes what out holds; wmu is held. A failed write closes the
// connection (the reader then stops).
func (c *h2Conn) flush() {
	if c.out.Len() == 0 || c.closed {
		c.out.Reset()
		return
	}
	c.nc.SetWriteDeadline(time.Now().Add(c.writeTimeout))
	_, err := c.nc.Write(c.out.Bytes())
	c.out.Reset()
	if err != nil {
		c.closed = true
		c.wcond.Broadcast()
		c.nc.Close()
	}
}

// openStream registers a server-streaming call's answer, on the reader's
// goroutine before the call's own starts: a RST_STREAM read right after
// the request then finds it and cancels the call (registered by the
// call's goroutine, it came too late for such a reset, and the call ran
// until the connection closed).
func (c *h2Conn) openStream(st *h2Stream) (context.Context, *h2Sender) {
	var ctx context.Context
	var cancel context.CancelFunc
	if st.deadline.IsZero() {
		ctx, cancel = context.WithCancel(context.Background())
	} else {
		ctx, cancel = context.WithDeadline(context.Background(), st.deadline)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	snd := &h2Sender{window: c.peerInitial, cancel: cancel}
	c.sending[st.id] = snd
	return ctx, snd
}

// runStream runs a server-streaming call opened by openStream, on its own
// goroutine.
func (c *h2Conn) runStream(ctx context.Context, st *h2Stream, snd *h2Sender, msg []byte) {
	defer snd.cancel()
	ss := &h2ServerStream{c: c, id: st.id, snd: snd, ctx: ctx, msg: msg}
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				c.s.log.Error("serve: grpc stream handler panicked", "err", p)
				err = status.Errorf(codes.Internal, "grpc: the handler panicked: %v", p)
			}
		}()
		return st.stream.desc.Handler(st.stream.impl, ss)
	}()
	releaseBody(st.msg, st.body)
	if ctx.Err() == context.DeadlineExceeded && err != nil {
		err = status.Error(codes.DeadlineExceeded, "context deadline exceeded")
	}
	s := status.Convert(err)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	delete(c.sending, st.id)
	if c.closed || snd.reset {
		return
	}
	c.writeStatus(st.id, s.Code(), s.Message(), !snd.headers)
	c.flush()
}

// h2ServerStream is grpc.ServerStream for a server-streaming call.
type h2ServerStream struct {
	c    *h2Conn
	id   uint32
	snd  *h2Sender
	ctx  context.Context
	msg  []byte // the request, until RecvMsg read it
	read bool
}

func (ss *h2ServerStream) SetHeader(grpcmd.MD) error  { return nil }
func (ss *h2ServerStream) SendHeader(grpcmd.MD) error { return nil }
func (ss *h2ServerStream) SetTrailer(grpcmd.MD)       {}
func (ss *h2ServerStream) Context() context.Context   { return ss.ctx }

// RecvMsg reads the call's one request; io.EOF after it.
func (ss *h2ServerStream) RecvMsg(m any) error {
	if ss.read {
		return io.EOF
	}
	ss.read = true
	return unmarshalMessage(ss.msg, m)
}

// SendMsg sends m, waiting for the client's window.
func (ss *h2ServerStream) SendMsg(m any) error {
	b, err := appendMessage([]byte{0, 0, 0, 0, 0}, m)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(b[1:5], uint32(len(b)-5))
	c := ss.c
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.send(ss.id, ss.snd, b); err != nil {
		return status.Error(codes.Canceled, "the client closed the stream")
	}
	c.flush()
	return nil
}

// encodeGRPCMessage percent-encodes a grpc-message value: bytes outside
// printable ASCII, and '%'.
func encodeGRPCMessage(msg string) string {
	clean := true
	for i := 0; i < len(msg); i++ {
		if b := msg[i]; b < ' ' || b > '~' || b == '%' {
			clean = false
			break
		}
	}
	if clean {
		return msg
	}
	var sb strings.Builder
	for i := 0; i < len(msg); i++ {
		if b := msg[i]; b < ' ' || b > '~' || b == '%' {
			fmt.Fprintf(&sb, "%%%02X", b)
		} else {
			sb.WriteByte(b)
		}
	}
	return sb.String()
}
