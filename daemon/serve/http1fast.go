package serve

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/url"
	"slices"
)

// A request of the common form is read without allocating: net/http's
// ReadRequest makes a Request, a URL, a header map and a string for every
// header name and value of every request (about 1.1 KB for a single-row
// inference: most of what a request allocated, and so most of the
// collections at 8 in flight, heapfloor.go). fastRequest reads the request
// line and headers from the connection's buffer into a Request, URL and
// header map of the connection's, reused from request to request, with its
// strings interned per connection (a client sends the same names, target
// and mostly the same values each time). It takes only what it can read
// exactly as ReadRequest would: the whole head already buffered, GET,
// POST or HEAD, HTTP/1.1, an origin-form target of characters a URL's path
// keeps as they are, header names of token characters, values of visible
// ASCII, spaces and tabs, at most one Host and one Content-Length (digits
// only), no Transfer-Encoding, and Connection only "close" or
// "keep-alive". Anything else is left in the buffer for ReadRequest, with
// its own errors (TestFastRequestAgrees, FuzzFastRequest compare the two).
// The handlers do not keep a request past ServeHTTP, so reusing it is safe.
type fastRequest struct {
	req    http.Request
	url    url.URL
	header http.Header
	body   fastBody
	// strs interns strings read from requests (at most maxInterned).
	strs map[string]string
	// seen lists the header names of the request being read: a name the
	// last request had and this one has not is deleted from header.
	seen []string
}

// maxInterned caps the strings a connection interns: a client whose
// values change every request (a counter) has them allocated as
// ReadRequest would.
const maxInterned = 256

// maxFastHeaders caps the header lines the fast path reads.
const maxFastHeaders = 32

func newFastRequest() *fastRequest {
	return &fastRequest{header: http.Header{}, strs: map[string]string{}}
}

// fastBody is a request body of known length read from the connection's
// buffer, as ReadRequest's body for a Content-Length.
type fastBody struct {
	r *bufio.Reader
	n int64 // bytes left
}

func (b *fastBody) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	if err == io.EOF && b.n > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (b *fastBody) Close() error { return nil }

// intern returns b as a string, the same string each time for the same
// bytes once interned.
func (f *fastRequest) intern(b []byte) string {
	if s, ok := f.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(f.strs) < maxInterned {
		f.strs[s] = s
	}
	return s
}

// read reads the request at the start of br's buffer when it is of the
// common form, consuming its head; nil (nothing consumed) otherwise.
func (f *fastRequest) read(br *bufio.Reader) *http.Request {
	buf, _ := br.Peek(br.Buffered())
	end := bytes.Index(buf, []byte("\r\n\r\n"))
	if end < 0 {
		return nil
	}
	head := buf[:end+2] // lines, each ending in CRLF
	nl := bytes.Index(head, []byte("\r\n"))
	line := head[:nl]
	head = head[nl+2:]

	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return nil
	}
	var method string
	switch string(line[:sp]) {
	case http.MethodGet:
		method = http.MethodGet
	case http.MethodPost:
		method = http.MethodPost
	case http.MethodHead:
		method = http.MethodHead
	default:
		return nil
	}
	line = line[sp+1:]
	sp = bytes.IndexByte(line, ' ')
	if sp < 1 || string(line[sp+1:]) != "HTTP/1.1" || line[0] != '/' {
		return nil
	}
	target := line[:sp]
	for _, c := range target {
		if !pathKept(c) {
			return nil
		}
	}

	f.seen = f.seen[:0]
	var host string
	hosts, lengths := 0, 0
	length := int64(0)
	closing := false
	for len(head) > 0 {
		nl := bytes.Index(head, []byte("\r\n"))
		line := head[:nl]
		head = head[nl+2:]
		colon := bytes.IndexByte(line, ':')
		if colon < 1 || colon > 64 || len(f.seen) == maxFastHeaders {
			return nil
		}
		var canon [64]byte
		name := canon[:colon]
		upper := true
		for i, c := range line[:colon] {
			if !isTokenByte(c) {
				return nil
			}
			if upper && 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			} else if !upper && 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			name[i] = c
			upper = c == '-'
		}
		value := line[colon+1:]
		for _, c := range value {
			if c < ' ' && c != '\t' || c > '~' {
				return nil
			}
		}
		value = bytes.Trim(value, " \t")
		switch string(name) {
		case "Transfer-Encoding", "Pragma":
			return nil // chunked bodies; ReadRequest adds Cache-Control to a Pragma
		case "Content-Length":
			if lengths++; lengths > 1 || len(value) == 0 || len(value) > 18 {
				return nil
			}
			length = 0
			for _, c := range value {
				if c < '0' || c > '9' {
					return nil
				}
				length = length*10 + int64(c-'0')
			}
		case "Connection":
			switch {
			case asciiEqualFold(value, "close"):
				closing = true
			case !asciiEqualFold(value, "keep-alive"):
				return nil
			}
		case "Host":
			if hosts++; hosts > 1 {
				return nil
			}
		}
		key := f.intern(name)
		for _, k := range f.seen {
			if k == key {
				return nil // a repeated header: ReadRequest's list of values
			}
		}
		f.seen = append(f.seen, key)
		v := f.intern(value)
		if key == "Host" {
			host = v // the request's Host, not a header (as ReadRequest)
			continue
		}
		// The value slice of a name the last request had is reused.
		f.header[key] = append(f.header[key][:0], v)
	}
	for k := range f.header {
		if !slices.Contains(f.seen, k) {
			delete(f.header, k)
		}
	}

	path := f.intern(target)
	f.url = url.URL{Path: path}
	f.body = fastBody{r: br, n: length}
	f.req = http.Request{Method: method, URL: &f.url, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: f.header, ContentLength: length, Close: closing, Host: host, RequestURI: path}
	if length > 0 {
		f.req.Body = &f.body
	} else {
		f.req.Body = http.NoBody
	}
	br.Discard(end + 4)
	return &f.req
}

// pathKept reports whether c stands for itself in a URL path: a target of
// these parses to a Path equal to it and no RawPath.
func pathKept(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '-', '_', '.', '~', '$', '&', '+', ',', '/', ':', ';', '=', '@':
		return true
	}
	return false
}

// isTokenByte reports whether c may be in a header name (RFC 9110's tchar).
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// asciiEqualFold reports whether b is s, ignoring ASCII case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
