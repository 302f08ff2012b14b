package serve

import (
	"io"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
)

// Busy polling: a connection's reader polls its socket without blocking,
// for up to a budget, before it blocks as a net.Conn does.
//
// Why: on a virtual machine with idle vCPUs (no other load), a thread that
// blocks lets its vCPU halt, and the next request's wake-up then waits for
// the hypervisor to resume that vCPU. On the 2-vCPU Firecracker VM of
// examples/bench (guest halt polling off: haltpoll.guest_halt_poll_ns=0)
// that made the loopback TCP echo's single-row round trip ~74 µs idle
// against ~13 µs with the same vCPUs kept busy by other work, and so a
// single-row request slower on an idle machine than on a loaded one
// (examples/serve/README.md, "Latency on an idle machine"). A reader that
// polls for a short while keeps its vCPU running, and the next request of
// an interactive client (one that sends as soon as it has its answer) is
// read without a wake-up.
//
// The cost is CPU time that would otherwise be idle, bounded three ways:
// by the budget a read; by the number of connections polling at once, one
// fewer than GOMAXPROCS (so none with GOMAXPROCS 1): a poller yields its
// P between polls, to let what its last request readied (a handler,
// grpc-go's stream worker) run at once on the same P, but while it is
// runnable the Go scheduler checks the network only from another P, so
// another P must be free to see the other connections' requests; and per
// connection, by polling only while its last wait for data was within the
// budget (a client that pauses longer between requests is read by
// blocking, at no cost, until it sends within the budget again).

// maxBusyPoll caps Config.BusyPoll: past a millisecond a poll is no
// longer about a wake-up's tens of microseconds.
const maxBusyPoll = time.Millisecond

// busyPollListener wraps each accepted TCP or unix connection in a
// busyPollConn sharing one count of pollers.
type busyPollListener struct {
	net.Listener
	budget  time.Duration
	polling *atomic.Int32 // connections polling now
	pollers int32         // most connections polling at once
}

// withBusyPoll returns ln whose connections busy-poll for budget before a
// blocking read; ln itself when budget is not positive or GOMAXPROCS is 1.
func withBusyPoll(ln net.Listener, budget time.Duration) net.Listener {
	pollers := runtime.GOMAXPROCS(0) - 1
	if budget <= 0 || pollers < 1 {
		return ln
	}
	return &busyPollListener{Listener: ln, budget: budget, polling: new(atomic.Int32), pollers: int32(pollers)}
}

func (l *busyPollListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	sc, ok := c.(syscallConn)
	if !ok {
		return c, nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c, nil
	}
	return newBusyPollConn(c, rc, l), nil
}

// syscallConn is a connection with a file descriptor (*net.TCPConn,
// *net.UnixConn) that can also close its writing half.
type syscallConn interface {
	net.Conn
	syscall.Conn
	CloseWrite() error
}

// busyPollConn is a connection whose Read polls first (see above). Its
// Read is called by one goroutine at a time, as every reader of a stream
// connection is (the HTTP/1.1 and HTTP/2 connection loops, grpc-go's
// reader).
type busyPollConn struct {
	net.Conn
	rc syscall.RawConn
	l  *busyPollListener
	// short: the last wait for data was within the budget, so the next
	// read polls.
	short bool
	// readFn is readOnce as a func value, made once: rc.Read takes a
	// func, and a closure made at each poll would be allocated.
	readFn func(fd uintptr) bool
	buf    []byte // readOnce's destination, its count and error
	n      int
	err    error
	// polls and polled count reads that polled and those of them that
	// found data within the budget (read by tests, from other goroutines).
	polls, polled atomic.Int32
}

func newBusyPollConn(c net.Conn, rc syscall.RawConn, l *busyPollListener) *busyPollConn {
	bc := &busyPollConn{Conn: c, rc: rc, l: l, short: true}
	bc.readFn = bc.readOnce
	return bc
}

func (c *busyPollConn) Read(p []byte) (int, error) {
	if len(p) > 0 && c.short {
		if c.l.polling.Add(1) <= c.l.pollers {
			n, err, ok := c.poll(p)
			c.l.polling.Add(-1)
			if ok {
				return n, err
			}
			// Nothing within the budget: block, and poll again only once
			// data comes within the budget of a blocking read's start.
			c.short = false
			return c.Conn.Read(p)
		}
		c.l.polling.Add(-1)
	}
	start := time.Now()
	n, err := c.Conn.Read(p)
	c.short = time.Since(start) <= c.l.budget
	return n, err
}

// poll reads p without blocking until data comes or the budget ends; ok
// is false when the budget ended, or when the socket cannot be read
// without blocking (closed, past its read deadline: the blocking Read
// then returns the error net.Conn gives).
func (c *busyPollConn) poll(p []byte) (n int, err error, ok bool) {
	c.polls.Add(1)
	c.buf = p
	defer func() { c.buf = nil }()
	start := time.Now()
	for {
		if c.rc.Read(c.readFn) != nil {
			return 0, nil, false
		}
		switch {
		case c.err == nil && c.n > 0:
			c.polled.Add(1)
			return c.n, nil, true
		case c.err == nil:
			return 0, io.EOF, true
		case c.err == syscall.EINTR:
			continue
		case c.err != syscall.EAGAIN:
			return 0, &net.OpError{Op: "read", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(),
				Err: os.NewSyscallError("read", c.err)}, true
		}
		if time.Since(start) > c.l.budget {
			return 0, nil, false
		}
		// Lets what this connection's last request readied run on this P
		// at once rather than wait for another P's thread to wake.
		runtime.Gosched()
	}
}

// readOnce reads c.buf once without blocking (the socket is non-blocking)
// and reports done, so that rc.Read never waits.
func (c *busyPollConn) readOnce(fd uintptr) bool {
	c.n, c.err = syscall.Read(int(fd), c.buf)
	return true
}

// CloseWrite closes the writing half (closeWriteAndWait).
func (c *busyPollConn) CloseWrite() error { return c.Conn.(syscallConn).CloseWrite() }
