package serve

import (
	"context"
	"encoding/binary"
	"io"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
)

// A large ModelInfer call started before its request has arrived whole:
// the reader of the package's own HTTP/2 transport (grpch2.go) starts it
// once the message's last field, a batch's raw payload, begins to arrive,
// and puts the rest in place as it comes, into the body or, once the call
// has its rows, straight into them; the call checks and predicts the rows
// as they arrive (batchstream.go).

// h2Arrival is what the reader and a call started early share: how much of
// the request is in place, or why the rest never will be; and where its
// raw payload's bytes go once the call has its rows (rows).
type h2Arrival struct {
	got    atomic.Int64 // bytes of the body in place
	err    error        // set before failed
	failed atomic.Bool
	wake   chan struct{} // capacity 1: got, switched or failed changed

	n        int // the message's length
	mu       sync.Mutex
	dst      []byte // the rows, from message offset dstFrom; under mu until switched
	dstFrom  int
	switched atomic.Bool // the reader reads into dst from switchAt on
	switchAt int         // a body offset, set before switched
}

// rows has the bytes of the message from offset from on read straight into
// dst (the call's rows) rather than into the body, from the reader's next
// read on; it returns the message offset from which they are (those
// before it are in the body), once the reader has switched, or the
// message's end when it arrived whole first.
func (a *h2Arrival) rows(dst []byte, from int) (int, error) {
	a.mu.Lock()
	a.dst, a.dstFrom = dst, from
	a.mu.Unlock()
	for {
		switch {
		case a.switched.Load():
			return a.switchAt - 5, nil
		case a.got.Load() == int64(5+a.n):
			return a.n, nil
		case a.failed.Load():
			return 0, a.err
		}
		<-a.wake
	}
}

// wait returns once the first n bytes of the message (after its 5-byte
// prefix) are in place.
func (a *h2Arrival) wait(n int) error {
	for a.got.Load() < int64(5+n) {
		if a.failed.Load() {
			return a.err
		}
		<-a.wake
	}
	return nil
}

func (a *h2Arrival) signal() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// fail tells the call that the rest of its request will not come.
func (a *h2Arrival) fail(err error) {
	if !a.failed.Load() {
		a.err = err
		a.failed.Store(true)
		a.signal()
	}
}

// errCallGone is why a call started early gets no more of its request.
var errCallGone = status.Error(codes.Canceled, "the client reset the call or closed the connection")

// startEarly starts a large call once its request's last field, the raw
// payload, has begun to arrive (handleUnary); the reader then puts the
// rest in place as it comes (arrive).
func (c *h2Conn) startEarly(st *h2Stream) {
	b := st.body
	if len(b) < 5 {
		return
	}
	n := int(binary.BigEndian.Uint32(b[1:5]))
	if n < h2EarlyBytes || b[0] != 0 {
		st.noEarly = true
		return
	}
	switch lastFieldBegun(b[5:], n, h2EarlyField) {
	case fieldLater:
		return
	case fieldNever:
		st.noEarly = true
		return
	}
	a := &h2Arrival{wake: make(chan struct{}, 1), n: n}
	a.got.Store(int64(len(b)))
	st.arrival = a
	msg := b[5 : 5+n] // receive made room for the whole message
	c.handlers.Add(1)
	go func() {
		defer c.handlers.Done()
		resp, err := c.callEarly(st, msg)
		// The reader writes the body until the message has arrived whole
		// or never will (an answer may come first: an unknown model);
		// only then may the body go back to its pool.
		a.wait(n)
		c.finishCall(st.id, st.msg, b[:0], resp, err)
	}()
	if len(b) == 5+n {
		c.forget(st) // all there: the call has it
	}
}

// arrive reads a DATA frame's size bytes of a call started early into
// place (the body, or the call's rows once it has them there: rows), up to
// the end of its one message (a second message is not read), and tells
// the call.
func (c *h2Conn) arrive(st *h2Stream, size int) error {
	a := st.arrival
	end := 5 + int(binary.BigEndian.Uint32(st.body[1:5]))
	k := min(size, end-st.recv)
	a.mu.Lock()
	if a.dst != nil && !a.switched.Load() {
		a.switchAt = st.recv
		a.switched.Store(true)
	}
	a.mu.Unlock()
	var err error
	if a.switched.Load() {
		at := st.recv - 5 - a.dstFrom
		_, err = io.ReadFull(c.br, a.dst[at:at+k])
	} else {
		b := st.body
		st.body = b[:len(b)+k] // receive made room for the whole message
		_, err = io.ReadFull(c.br, st.body[len(b):])
	}
	if err != nil {
		return err
	}
	st.recv += k
	c.buffered += int64(k)
	a.got.Store(int64(st.recv))
	a.signal()
	if st.recv == end {
		c.forget(st) // all there: the call has it
	}
	_, err = c.br.Discard(size - k)
	return err
}

// What lastFieldBegun found.
const (
	fieldLater = iota // more bytes will tell
	fieldNever        // the message is not of that shape
	fieldBegun        // its last field is num and has begun
)

// lastFieldBegun reports whether b, the first bytes of a protobuf message
// of n bytes, holds the whole of the message but for the value of field
// num, its last, length-delimited field.
func lastFieldBegun(b []byte, n int, num protowire.Number) int {
	for i := 0; ; {
		tag, k := protowire.ConsumeVarint(b[i:])
		if k < 0 {
			return fieldLater // a short tag: more bytes will tell, or end will
		}
		if protowire.Type(tag&7) != protowire.BytesType {
			return fieldNever
		}
		l, k2 := protowire.ConsumeVarint(b[i+k:])
		if k2 < 0 {
			return fieldLater
		}
		start := i + k + k2
		if l > uint64(n-start) {
			return fieldNever
		}
		end := start + int(l)
		if protowire.Number(tag>>3) == num {
			if end != n {
				return fieldNever
			}
			return fieldBegun
		}
		if end > len(b) {
			return fieldLater
		}
		i = end
	}
}

// callEarly runs a call started early, turning a panic into an INTERNAL
// answer as call does.
func (c *h2Conn) callEarly(st *h2Stream, msg []byte) (any, error) {
	ctx := context.Background()
	if !st.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, st.deadline)
		defer cancel()
	}
	early := st.early
	return c.call(ctx, func(ctx context.Context, msg []byte) (any, error) {
		return early(ctx, msg, st.arrival)
	}, msg)
}
