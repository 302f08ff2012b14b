package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
)

// rawExchange writes req on a new connection to srv's REST address and
// reads answers until the connection closes or the answers to the requests
// of methods have come (GET for "").
func rawExchange(t *testing.T, srv *Server, req string, methods ...string) (answers []*http.Response, bodies []string, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", srv.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	for _, m := range methods {
		resp, err := http.ReadResponse(br, &http.Request{Method: m})
		if err != nil {
			return answers, bodies, true
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		answers, bodies = append(answers, resp), append(bodies, string(b))
	}
	_, err = br.ReadByte()
	return answers, bodies, err != nil && !isTimeout(err)
}

// TestHTTP1Connection drives the REST connection loop with raw requests:
// pipelined requests on one connection answered in order, a chunked body,
// HEAD without a body, HTTP/1.0 closing after its answer, a missing Host,
// headers past the cap (431), an unknown Expect (417), and an over-size
// body announced with Expect: 100-continue refused without 100 Continue.
func TestHTTP1Connection(t *testing.T) {
	ds := heart(t)
	lim := DefaultLimits()
	lim.MaxRequestBytes = 4096
	lim.IdleTimeout = 300 * time.Millisecond
	srv, _ := testServer(t, lim, map[string]core.Model{"heart": linearModel(t, ds, 1)})
	m := linearModel(t, ds, 1)
	body := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,%d],"datatype":"FP32","data":%s}]}`, ds.NumFeatures(), rowsJSON(ds, []int{0}, false))
	infer := func(extra string) string {
		return fmt.Sprintf("POST /v2/models/heart/infer HTTP/1.1\r\nHost: x\r\n%sContent-Length: %d\r\n\r\n%s", extra, len(body), body)
	}
	label := func(b string) float64 {
		var out struct{ Outputs []struct{ Data []float64 } }
		if err := json.Unmarshal([]byte(b), &out); err != nil || len(out.Outputs) != 1 || len(out.Outputs[0].Data) != 1 {
			t.Fatalf("answer %q: %v", b, err)
		}
		return out.Outputs[0].Data[0]
	}
	want := m.PredictDense(ds.DenseRow(0))

	// Three pipelined requests: three answers in order; the connection
	// stays open until the idle timeout closes it.
	rs, bs, closed := rawExchange(t, srv, infer("")+"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n"+infer(""), "POST", "GET", "POST")
	if len(rs) != 3 || rs[0].StatusCode != 200 || label(bs[0]) != want || rs[1].StatusCode != 200 || bs[1] != "{\"live\":true}\n" ||
		rs[2].StatusCode != 200 || label(bs[2]) != want || !closed {
		t.Errorf("pipelined: %d answers %q, closed %v", len(rs), bs, closed)
	}
	if rs[0].Header.Get("Date") == "" || rs[0].ContentLength != int64(len(bs[0])) {
		t.Errorf("answer headers %v", rs[0].Header)
	}

	// A chunked body.
	chunked := fmt.Sprintf("POST /v2/models/heart/infer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
	if rs, bs, _ := rawExchange(t, srv, chunked, "POST"); len(rs) != 1 || rs[0].StatusCode != 200 || label(bs[0]) != want {
		t.Errorf("chunked: %d answers %q", len(rs), bs)
	}

	// HEAD: the headers of GET's answer, no body (the next answer follows
	// at once).
	rs, bs, _ = rawExchange(t, srv, "HEAD /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\nGET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n", "HEAD", "GET")
	if len(rs) != 2 || rs[0].StatusCode != 200 || rs[0].ContentLength != 14 || bs[0] != "" || bs[1] != "{\"live\":true}\n" {
		t.Errorf("HEAD: %d answers %q", len(rs), bs)
	}

	for _, c := range []struct {
		name, req string
		status    int
	}{
		{"HTTP/1.0", "GET /v2/health/live HTTP/1.0\r\n\r\n", 200},
		{"no Host", "GET /v2/health/live HTTP/1.1\r\n\r\n", 400},
		{"headers past the cap", "GET /v2/health/live HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", maxHeaderBytes+20<<10) + "\r\n\r\n", 431},
		{"unknown Expect", "POST /v2/models/heart/infer HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}", 417},
		{"malformed", "POST /v2/models/heart/infer HTTP/1.1\r\nHost: x\r\nContent-Length: x\r\n\r\n", 400},
		{"over-size body awaiting 100 Continue", "POST /v2/models/heart/infer HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n", 413},
	} {
		rs, bs, closed := rawExchange(t, srv, c.req, "")
		if len(rs) != 1 || rs[0].StatusCode != c.status || !closed {
			t.Errorf("%s: %d answers %v %q, closed %v; want %d, then the connection closed", c.name, len(rs), rs, bs, closed, c.status)
			continue
		}
		if c.status != 200 && !strings.HasPrefix(bs[0], `{"error":`) {
			t.Errorf("%s: answer %q, want a JSON error", c.name, bs[0])
		}
	}

	// Expect: 100-continue with a body the handler reads: 100 Continue,
	// then the answer, on a connection that stays open.
	c, err := net.Dial("tcp", srv.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	head, _, _ := strings.Cut(infer("Expect: 100-continue\r\n"), "\r\n\r\n")
	io.WriteString(c, head+"\r\n\r\n")
	br := bufio.NewReader(c)
	if line, err := br.ReadString('\n'); err != nil || line != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("before the body: %q, %v; want 100 Continue", line, err)
	}
	br.ReadString('\n')
	io.WriteString(c, body)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || label(string(b)) != want || resp.Close {
		t.Errorf("after 100 Continue: %d %q, close %v", resp.StatusCode, b, resp.Close)
	}
}

// TestHTTP1ShutdownDrains shuts the server down while a request is being
// answered (its body still arriving) and while another connection is
// idle: the idle one closes at once, the busy one gets its answer, with
// Connection: close, and Shutdown returns once it has.
func TestHTTP1ShutdownDrains(t *testing.T) {
	ds := heart(t)
	srv, _ := testServer(t, DefaultLimits(), map[string]core.Model{"heart": linearModel(t, ds, 1)})
	body := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,%d],"datatype":"FP32","data":%s}]}`, ds.NumFeatures(), rowsJSON(ds, []int{0}, false))
	idle, err := net.Dial("tcp", srv.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	busy, err := net.Dial("tcp", srv.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	fmt.Fprintf(busy, "POST /v2/models/heart/infer HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:10])
	time.Sleep(50 * time.Millisecond) // the request is being read
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(context.Background()) }()
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := idle.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Errorf("idle connection during shutdown: %v, want closed", err)
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned (%v) while a request was in progress", err)
	case <-time.After(50 * time.Millisecond):
	}
	io.WriteString(busy, body[10:])
	busy.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(busy), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !resp.Close {
		t.Errorf("request in progress at shutdown: %d, close %v; want 200 and Connection: close", resp.StatusCode, resp.Close)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("Shutdown did not return after the last answer")
	}
}
