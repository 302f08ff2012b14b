package serve

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// http1Server serves the REST endpoints over HTTP/1.1 with a connection
// loop of its own in place of net/http's server. net/http starts a
// goroutine for each request to watch the connection while the handler
// runs, and wakes it again when the handler is done (its connReader's
// background read): on loopback that goroutine's start, its wake-ups and
// the deadlines that stop it cost more than a single-row inference
// (examples/bench/serve.sh's floors: net/http's server against a TCP
// echo). Requests are read with net/http's own parser (http.ReadRequest)
// and answered by the same http.Handler; an answer is buffered and sent
// with its Content-Length in one write, unless the handler set a
// Content-Length before writing, when it streams.
//
// Timeouts as net/http's: ReadTimeout from a request's first byte to its
// body's end, WriteTimeout for the answer, IdleTimeout between requests.
// Request headers are capped at maxHeaderBytes (431 past it). HTTP/2 is
// not offered (gRPC is the protocol for HTTP/2).
type http1Server struct {
	handler http.Handler
	lim     Limits
	tls     *tls.Config
	log     *slog.Logger

	mu      sync.Mutex
	ln      net.Listener
	conns   map[*http1Conn]bool // value: a request is being answered
	closing bool
	wg      sync.WaitGroup // connection goroutines
}

// maxHeaderBytes caps a request's line and headers.
const maxHeaderBytes = 64 << 10

// http1Conn is one client connection and its reusable buffers.
type http1Conn struct {
	c    net.Conn
	lr   io.LimitedReader // under br: caps the headers while they are read
	br   *bufio.Reader
	bw   *bufio.Writer
	resp http1Response
	fast *fastRequest // http1fast.go
	// remote is c.RemoteAddr().String(), made once: a request's
	// RemoteAddr.
	remote string
}

func newHTTP1Server(ln net.Listener, h http.Handler, lim Limits, tlsConfig *tls.Config, log *slog.Logger) *http1Server {
	return &http1Server{handler: h, lim: lim, tls: tlsConfig, log: log, ln: ln, conns: map[*http1Conn]bool{}}
}

// serve accepts connections until shutdown, as http.Server.Serve; it
// returns http.ErrServerClosed after shutdown or close.
func (s *http1Server) serve() error {
	ln := s.ln
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return http.ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("serve: http accept failed; retrying", "err", err, "after", backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		if s.tls != nil {
			c = tls.Server(c, s.tls)
		}
		hc := &http1Conn{c: c, fast: newFastRequest(), remote: c.RemoteAddr().String()}
		hc.lr.R = c
		hc.br = bufio.NewReaderSize(&hc.lr, 16<<10)
		hc.bw = bufio.NewWriterSize(c, 16<<10)
		hc.resp.header = http.Header{}
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			c.Close()
			return http.ErrServerClosed
		}
		s.conns[hc] = false
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serveConn(hc)
	}
}

// setBusy marks hc as answering a request (busy) or idle; it reports
// false when the server is shutting down and hc should close instead.
func (s *http1Server) setBusy(hc *http1Conn, busy bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[hc] = busy
	return true
}

func (s *http1Server) serveConn(hc *http1Conn) {
	c := hc.c
	defer func() {
		if err := recover(); err != nil {
			s.log.Error("serve: http handler panicked", "remote", c.RemoteAddr().String(), "err", err)
		}
		c.Close()
		s.mu.Lock()
		delete(s.conns, hc)
		s.mu.Unlock()
		s.wg.Done()
	}()
	for {
		// The cap on the headers counts what the buffer reads ahead too
		// (a body's first bytes arrive with the headers).
		hc.lr.N = maxHeaderBytes + int64(hc.br.Size())
		c.SetReadDeadline(time.Now().Add(s.lim.IdleTimeout))
		if _, err := hc.br.Peek(1); err != nil {
			return
		}
		if !s.setBusy(hc, true) {
			return
		}
		now := time.Now()
		c.SetReadDeadline(now.Add(s.lim.ReadTimeout))
		// A request of the common form is read without allocating
		// (http1fast.go); any other by net/http's parser.
		req := hc.fast.read(hc.br)
		var err error
		if req == nil {
			req, err = http.ReadRequest(hc.br)
		}
		if err != nil {
			switch {
			case hc.lr.N <= 0:
				s.refuse(hc, now, http.StatusRequestHeaderFieldsTooLarge, "request headers larger than "+strconv.Itoa(maxHeaderBytes)+" bytes")
			case !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !isTimeout(err):
				s.refuse(hc, now, http.StatusBadRequest, "malformed HTTP request: "+err.Error())
			}
			return
		}
		hc.lr.N = 1<<63 - 1
		req.RemoteAddr = hc.remote
		if tc, ok := c.(*tls.Conn); ok {
			st := tc.ConnectionState()
			req.TLS = &st
		}
		if req.ProtoAtLeast(1, 1) && req.Host == "" {
			s.refuse(hc, now, http.StatusBadRequest, "missing the Host header")
			return
		}
		var cont *continueReader
		if e := req.Header.Get("Expect"); e != "" {
			if !http1ExpectsContinue(e) {
				s.refuse(hc, now, http.StatusExpectationFailed, "unsupported Expect: "+e)
				return
			}
			if req.ProtoAtLeast(1, 1) && req.ContentLength != 0 {
				cont = &continueReader{ReadCloser: req.Body, hc: hc}
				req.Body = cont
			}
		}
		c.SetWriteDeadline(now.Add(s.lim.WriteTimeout))
		w := &hc.resp
		w.reset(hc, req.Method == http.MethodHead)
		s.handler.ServeHTTP(w, req)
		// The rest of an unread body, when small, is read so that the
		// connection can serve the next request; a large one, one that
		// failed (a timeout), or one the client has not sent yet (it waits
		// for 100 Continue) closes it.
		keep := !req.Close
		if cont != nil && !cont.sent {
			keep = false
		} else if _, err := io.CopyN(io.Discard, req.Body, 256<<10); err != io.EOF {
			keep = false
		}
		s.mu.Lock()
		keep = keep && !s.closing
		s.mu.Unlock()
		if err := w.finish(now, keep); err != nil || !keep {
			if err == nil {
				closeWriteAndWait(c)
			}
			return
		}
		if !s.setBusy(hc, false) {
			return
		}
	}
}

// refuse answers a request that never reached a handler with status and
// {"error": msg}, closing the connection after it.
func (s *http1Server) refuse(hc *http1Conn, now time.Time, status int, msg string) {
	hc.c.SetWriteDeadline(now.Add(s.lim.WriteTimeout))
	w := &hc.resp
	w.reset(hc, false)
	writeError(w, status, msg)
	if w.finish(now, false) == nil {
		closeWriteAndWait(hc.c)
	}
}

// closeWriteAndWait half-closes a connection and reads what the client
// still sends (a body not read) for up to 100 ms before the full close:
// closing with unread bytes would reset the connection, and a reset can
// discard the answer before the client reads it.
func closeWriteAndWait(c net.Conn) {
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
		c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		io.Copy(io.Discard, c)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// http1ExpectsContinue reports whether an Expect header asks for 100
// Continue, the one expectation served.
func http1ExpectsContinue(e string) bool { return strings.EqualFold(e, "100-continue") }

// continueReader is a request body whose client waits for 100 Continue
// before sending it: the first read sends it.
type continueReader struct {
	io.ReadCloser
	hc   *http1Conn
	sent bool
	err  error
}

func (r *continueReader) Read(p []byte) (int, error) {
	if !r.sent {
		r.sent = true
		if _, err := r.hc.c.Write([]byte("HTTP/1.1 100 Continue\r\n\r\n")); err != nil {
			r.err = err
		}
	}
	if r.err != nil {
		return 0, r.err
	}
	return r.ReadCloser.Read(p)
}

// http1Response is the http.ResponseWriter of one request: the answer is
// kept in buf and written with its Content-Length by finish, unless the
// handler set Content-Length before its first Write, which then goes out
// at once (a large answer is not copied).
type http1Response struct {
	hc      *http1Conn
	header  http.Header
	status  int
	head    bool // a HEAD request: headers only
	buf     []byte
	sent    bool  // the status line and headers are written
	length  int64 // the Content-Length sent, when sent
	written int64 // body bytes written after the headers
	date    [29]byte
	dateSec int64
}

func (w *http1Response) reset(hc *http1Conn, head bool) {
	w.hc, w.status, w.head, w.sent, w.written = hc, 0, head, false, 0
	w.buf = w.buf[:0]
	if cap(w.buf) > 1<<20 {
		w.buf = nil
	}
	clear(w.header)
}

func (w *http1Response) Header() http.Header { return w.header }

func (w *http1Response) WriteHeader(status int) {
	if w.status == 0 && status >= 200 {
		w.status = status
	}
}

func (w *http1Response) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if !w.sent && len(w.buf) == 0 {
		if cl := w.header.Get("Content-Length"); cl != "" {
			n, err := strconv.ParseInt(cl, 10, 64)
			if err == nil && n >= 0 {
				if err := w.writeHeader(time.Now(), n, true); err != nil {
					return 0, err
				}
			}
		}
	}
	if !w.sent {
		w.buf = append(w.buf, p...)
		return len(p), nil
	}
	if w.head {
		return len(p), nil
	}
	if w.written+int64(len(p)) > w.length {
		return 0, http.ErrContentLength
	}
	w.written += int64(len(p))
	return w.hc.bw.Write(p)
}

// writeHeader writes the status line and headers with Content-Length n.
func (w *http1Response) writeHeader(now time.Time, n int64, keep bool) error {
	bw := w.hc.bw
	if w.status == 0 {
		w.status = http.StatusOK
	}
	bw.WriteString("HTTP/1.1 ")
	bw.WriteString(strconv.Itoa(w.status))
	bw.WriteByte(' ')
	bw.WriteString(http.StatusText(w.status))
	bw.WriteString("\r\nDate: ")
	if sec := now.Unix(); sec != w.dateSec {
		w.dateSec = sec
		now.UTC().AppendFormat(w.date[:0], http.TimeFormat)
	}
	bw.Write(w.date[:])
	w.header.Del("Content-Length")
	w.header.Del("Transfer-Encoding")
	w.header.Del("Connection")
	bw.WriteString("\r\nContent-Length: ")
	bw.WriteString(strconv.FormatInt(n, 10))
	if !keep {
		bw.WriteString("\r\nConnection: close")
	}
	bw.WriteString("\r\n")
	if err := w.header.Write(bw); err != nil {
		return err
	}
	_, err := bw.WriteString("\r\n")
	w.sent, w.length = true, n
	return err
}

// finish writes what the handler left (the buffered answer, with its
// length) and flushes. An answer streamed with a Content-Length it did
// not fill ends the connection: the client cannot tell where the next
// answer begins.
func (w *http1Response) finish(now time.Time, keep bool) error {
	if !w.sent {
		if err := w.writeHeader(now, int64(len(w.buf)), keep); err != nil {
			return err
		}
		if !w.head {
			w.written = int64(len(w.buf))
			w.hc.bw.Write(w.buf)
		}
	}
	if err := w.hc.bw.Flush(); err != nil {
		return err
	}
	if !w.head && w.written != w.length {
		return http.ErrContentLength
	}
	return nil
}

// shutdown stops accepting, closes idle connections, and waits for those
// answering a request to finish (each closes after its answer); when ctx
// ends first it closes them all and returns ctx's error.
func (s *http1Server) shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	if s.ln != nil {
		s.ln.Close()
	}
	for hc, busy := range s.conns {
		if !busy {
			hc.c.Close()
		}
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.close()
		<-done
		return ctx.Err()
	}
}

// close stops accepting and closes every connection at once.
func (s *http1Server) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	if s.ln != nil {
		s.ln.Close()
	}
	for hc := range s.conns {
		hc.c.Close()
	}
}
