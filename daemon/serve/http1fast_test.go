package serve

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// fastCases are requests the fast path takes and ones it leaves to
// net/http (fast false).
var fastCases = []struct {
	req  string
	fast bool
}{
	{"POST /v2/models/m/infer HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\nhello", true},
	{"GET /v2/health/ready HTTP/1.1\r\nhost: x\r\nuser-agent: h2load nghttp2/1.64.0\r\naccept: */*\r\n\r\n", true},
	{"POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", true},
	{"POST /a HTTP/1.1\r\nHost: x\r\nconnection: Keep-Alive\r\nX-Weird_Name: a  b\t\r\nEmpty:\r\ncontent-length:007\r\n\r\nabcdefgh", true},
	{"HEAD /v2 HTTP/1.1\r\nHost: x\r\n\r\n", true},
	{"GET /a;b=c,d:e@f~g$h&i+j HTTP/1.1\r\nHost: x\r\n\r\n", true},
	{"POST / HTTP/1.1\r\nHost: x\r\nInference-Header-Content-Length: 12\r\nContent-Length: 3\r\n\r\nabc", true},
	{"GET /a?b=c HTTP/1.1\r\nHost: x\r\n\r\n", false},
	{"GET /a%20b HTTP/1.1\r\nHost: x\r\n\r\n", false},
	{"GET /a(b) HTTP/1.1\r\nHost: x\r\n\r\n", false},
	{"GET http://x/a HTTP/1.1\r\nHost: x\r\n\r\n", false},
	{"GET * HTTP/1.1\r\nHost: x\r\n\r\n", false},
	{"GET /a HTTP/1.0\r\nHost: x\r\n\r\n", false},
	{"PUT /a HTTP/1.1\r\nHost: x\r\n\r\n", false},
	{"GET  /a HTTP/1.1\r\nHost: x\r\n\r\n", false},
	{"POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", false},
	{"POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", false},
	{"POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc", false},
	{"POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1 2\r\n\r\nabc", false},
	{"GET /a HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", false},
	{"GET /a HTTP/1.1\r\nHost: x\r\nAccept: a\r\nAccept: b\r\n\r\n", false},
	{"GET /a HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\n\r\n", false},
	{"GET /a HTTP/1.1\r\nHost: x\r\nPragma: no-cache\r\n\r\n", false},
	{"GET /a HTTP/1.1\r\nHost : x\r\n\r\n", false},
	{"GET /a HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", false},
	{"GET /a HTTP/1.1\r\nHost: \xc3\xa9\r\n\r\n", false},
	{"GET /a HTTP/1.1\r\nHost: x\nAccept: y\r\n\r\n", false},
	{"GET /a HTTP/1.1\r\nHost: x\r\n", false}, // the head not complete
	{"GET /a HTTP/1.1\r\nNo-Colon\r\n\r\n", false},
}

// parseBoth reads req with the fast path (nil when it leaves it) and with
// net/http's ReadRequest, each from a buffer holding all of req, and
// returns each one's request, body (ending in "<error>" when reading it
// failed) and the bytes left after the body.
func parseBoth(t testing.TB, req string) (fast, slow *http.Request, fastBody, slowBody, fastRest, slowRest []byte, slowErr error) {
	read := func(r *http.Request, br *bufio.Reader) (body, rest []byte) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			// A body cut short (or, for ReadRequest, a malformed chunked
			// one) is told apart from one read whole.
			body = append(body, "<error>"...)
		}
		rest, _ = io.ReadAll(br)
		return body, rest
	}
	br := bufio.NewReaderSize(strings.NewReader(req), 16<<10)
	br.Peek(1)
	if fast = newFastRequest().read(br); fast != nil {
		fastBody, fastRest = read(fast, br)
	}
	br = bufio.NewReaderSize(strings.NewReader(req), 16<<10)
	if slow, slowErr = http.ReadRequest(br); slowErr == nil {
		slowBody, slowRest = read(slow, br)
	}
	return
}

// agree reports how fast and slow differ in what the handlers read.
func agree(fast, slow *http.Request) string {
	for _, c := range []struct {
		what string
		a, b any
	}{
		{"method", fast.Method, slow.Method}, {"path", fast.URL.Path, slow.URL.Path}, {"raw path", fast.URL.RawPath, slow.URL.RawPath},
		{"query", fast.URL.RawQuery, slow.URL.RawQuery}, {"URL host", fast.URL.Host, slow.URL.Host}, {"request URI", fast.RequestURI, slow.RequestURI},
		{"proto", fast.Proto, slow.Proto}, {"major", fast.ProtoMajor, slow.ProtoMajor}, {"minor", fast.ProtoMinor, slow.ProtoMinor},
		{"header", fast.Header, slow.Header}, {"length", fast.ContentLength, slow.ContentLength}, {"close", fast.Close, slow.Close},
		{"host", fast.Host, slow.Host}, {"transfer encoding", fast.TransferEncoding, slow.TransferEncoding}, {"trailer", fast.Trailer, slow.Trailer},
		{"no body", fast.Body == http.NoBody, slow.Body == http.NoBody},
	} {
		if !reflect.DeepEqual(c.a, c.b) {
			return c.what
		}
	}
	return ""
}

// TestFastRequestAgrees: a request the fast path takes reads exactly as
// net/http's ReadRequest reads it; the others are left to ReadRequest
// with nothing consumed.
func TestFastRequestAgrees(t *testing.T) {
	for _, c := range fastCases {
		fast, slow, fb, sb, fr, sr, err := parseBoth(t, c.req)
		if (fast != nil) != c.fast {
			t.Errorf("%q: fast path took it: %v, want %v", c.req, fast != nil, c.fast)
			continue
		}
		if fast == nil {
			continue
		}
		if err != nil {
			t.Errorf("%q: fast path took what ReadRequest refuses: %v", c.req, err)
			continue
		}
		if d := agree(fast, slow); d != "" {
			t.Errorf("%q: %s differs: fast %+v, net/http %+v", c.req, d, fast, slow)
		}
		if !bytes.Equal(fb, sb) || !bytes.Equal(fr, sr) {
			t.Errorf("%q: body %q rest %q, net/http's %q %q", c.req, fb, fr, sb, sr)
		}
	}
}

// TestFastRequestReuse: a connection's second request reuses the first's
// Request and header map, with the first's headers gone and the bytes after
// each body where net/http would leave them; reading it allocates nothing.
func TestFastRequestReuse(t *testing.T) {
	a := "POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-A: 1\r\nContent-Length: 3\r\n\r\nabc"
	b := "GET /v2/health/ready HTTP/1.1\r\nHost: x\r\nX-B: 2\r\n\r\n"
	f := newFastRequest()
	br := bufio.NewReaderSize(strings.NewReader(a+b), 16<<10)
	br.Peek(1)
	r := f.read(br)
	if r == nil || r.Header.Get("X-A") != "1" {
		t.Fatalf("first request %+v", r)
	}
	if body, _ := io.ReadAll(r.Body); string(body) != "abc" {
		t.Fatalf("first body %q", body)
	}
	r2 := f.read(br)
	if r2 != r || r2.Method != "GET" || r2.Header.Get("X-A") != "" || r2.Header.Get("X-B") != "2" || r2.Body != http.NoBody || len(r2.Header) != 1 || r2.Host != "x" {
		t.Fatalf("second request %+v", r2)
	}
	sr := strings.NewReader(a)
	allocs := testing.AllocsPerRun(100, func() {
		sr.Reset(a)
		br.Reset(sr)
		br.Peek(1)
		r := f.read(br)
		if r == nil {
			t.Fatal("not read")
		}
		io.Copy(io.Discard, r.Body)
	})
	if allocs != 0 {
		t.Errorf("%v allocations a request, want 0", allocs)
	}
}

// FuzzFastRequest: whatever the fast path takes, net/http's ReadRequest
// takes too and reads alike.
func FuzzFastRequest(f *testing.F) {
	for _, c := range fastCases {
		f.Add(c.req)
	}
	f.Fuzz(func(t *testing.T, req string) {
		fast, slow, fb, sb, fr, sr, err := parseBoth(t, req)
		if fast == nil {
			return
		}
		if err != nil {
			t.Fatalf("%q: fast path took what ReadRequest refuses: %v", req, err)
		}
		if d := agree(fast, slow); d != "" {
			t.Fatalf("%q: %s differs: fast %+v, net/http %+v", req, d, fast, slow)
		}
		if !bytes.Equal(fb, sb) || !bytes.Equal(fr, sr) {
			t.Fatalf("%q: body %q rest %q, net/http's %q %q", req, fb, fr, sb, sr)
		}
	})
}
