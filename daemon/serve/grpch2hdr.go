package serve

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"strings"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Headers reads a connection's header blocks (a HEADERS frame and the
// CONTINUATION frames after it) as x/net/http2's Framer does with
// ReadMetaHeaders set, with the same checks and the same errors, but into
// buffers the connection keeps: the frame's payload, and the decoded
// fields, which the decoder's emit function (bound once) appends to a
// slice reused from block to block.
//
// Why: ReadMetaHeaders allocates ~1.2 KB a call (a MetaHeadersFrame, its
// emit closure and the Fields slice grown from nil), a GC every ~50 ms
// at 8 calls in flight, which shows in the tail. The fields' strings are
// the decoder's: a field indexed in its table (every field of a client
// that indexes, once its first call taught the table) costs nothing; only
// a literal the client does not index is a new string.
//
// The fields are valid until the next block is read; the values the call
// keeps (path, content-type, grpc-timeout) are read before that, and the
// path is looked up in maps without a copy.
type h2Headers struct {
	dec *hpack.Decoder
	buf []byte // the frame being decoded

	// The block last read.
	id        uint32
	ended     bool // END_STREAM: the call's request has no body
	truncated bool // past h2MaxHeaderList (fields: those before)
	fields    []hpack.HeaderField

	// expect is the stream whose CONTINUATION must come next (a HEADERS
	// frame refused before its block ended); 0: none.
	expect uint32

	// The block being decoded, as the emit function checks it
	// (readMetaFrame's variables).
	headersLeft, trailersLeft uint32
	sawRegular                bool
	invalid                   error
}

// errH2HeaderField is a header field x/net's Framer refuses (an invalid
// name or value, a pseudo-header after a regular one): a stream error.
var errH2HeaderField = errors.New("serve: invalid header field")

func newH2Headers() *h2Headers {
	h := &h2Headers{fields: make([]hpack.HeaderField, 0, 16)}
	h.dec = hpack.NewDecoder(4096, h.emit)
	h.dec.SetMaxStringLength(h2MaxHeaderList)
	return h
}

// emit checks a decoded field and keeps it, as readMetaFrame's emit
// function does: a bad field ends the block with a stream error, a field
// past the header list budget marks it truncated.
func (h *h2Headers) emit(hf hpack.HeaderField) {
	if !httpguts.ValidHeaderFieldValue(hf.Value) {
		h.invalid = errH2HeaderField
	}
	if strings.HasPrefix(hf.Name, ":") {
		if h.sawRegular {
			h.invalid = errH2HeaderField
		}
	} else {
		h.sawRegular = true
		if !validWireName(hf.Name) {
			h.invalid = errH2HeaderField
		}
	}
	if h.invalid != nil {
		h.dec.SetEmitEnabled(false)
		return
	}
	left, size := &h.headersLeft, hf.Size()
	if hf.Name == "trailer" {
		// x/net's estimate of the trailers it names.
		n := uint32(strings.Count(hf.Value, ",") + 1)
		left, size = &h.trailersLeft, uint32(len(hf.Value))-n+1+n*hpack.HeaderField{}.Size()
	}
	if size > *left {
		h.dec.SetEmitEnabled(false)
		h.truncated = true
		h.headersLeft, h.trailersLeft = 0, 0
		return
	}
	*left -= size
	h.fields = append(h.fields, hf)
}

// validWireName is x/net's validWireHeaderFieldName: a token of no
// upper-case letter.
func validWireName(v string) bool {
	if v == "" {
		return false
	}
	for _, r := range v {
		if !httpguts.IsTokenRune(r) || 'A' <= r && r <= 'Z' {
			return false
		}
	}
	return true
}

// frameHeader reads a frame's 9-byte header.
func frameHeader(b []byte) (n int, t http2.FrameType, flags http2.Flags, id uint32) {
	return int(b[0])<<16 | int(b[1])<<8 | int(b[2]), http2.FrameType(b[3]), http2.Flags(b[4]),
		binary.BigEndian.Uint32(b[5:9]) & (1<<31 - 1)
}

// payload reads the n bytes of the frame whose header was read.
func (h *h2Headers) payload(br *bufio.Reader, n int) ([]byte, error) {
	if cap(h.buf) < n {
		h.buf = make([]byte, n)
	}
	p := h.buf[:n]
	_, err := io.ReadFull(br, p)
	return p, err
}

// read reads the next frame when it is HEADERS or CONTINUATION (of up to
// h2MaxFrame bytes: a larger one is left to the Framer, which refuses
// it), a HEADERS frame with its CONTINUATION frames; it reports false,
// having read nothing of it, for any other frame (after dropping the
// CONTINUATION frames of a HEADERS frame refused for its padding). A block read whole is in
// h.id, h.ended, h.truncated and h.fields. Errors are the Framer's: a
// ConnectionError, a StreamError, or the connection's failure.
func (h *h2Headers) read(br *bufio.Reader) (bool, error) {
	hdr, err := br.Peek(9)
	if err != nil {
		return false, nil
	}
	n, t, flags, id := frameHeader(hdr)
	if n > h2MaxFrame {
		return false, nil
	}
	if h.expect != 0 && (t != http2.FrameContinuation || id != h.expect) || h.expect == 0 && t == http2.FrameContinuation {
		return true, http2.ConnectionError(http2.ErrCodeProtocol)
	}
	switch t {
	case http2.FrameContinuation:
		// Of a HEADERS frame refused (its padding): read and dropped.
		br.Discard(9)
		if flags.Has(http2.FlagContinuationEndHeaders) {
			h.expect = 0
		}
		if _, err := br.Discard(n); err != nil {
			return true, err
		}
		return h.read(br) // as if the next frame came first
	case http2.FrameHeaders:
	default:
		return false, nil
	}
	br.Discard(9)
	endHeaders := flags.Has(http2.FlagHeadersEndHeaders)
	if !endHeaders {
		h.expect = id
	}
	p, err := h.payload(br, n)
	if err != nil {
		return true, err
	}
	if id == 0 { // checked once the payload is read, as the Framer does
		return true, http2.ConnectionError(http2.ErrCodeProtocol)
	}
	pad := 0
	if flags.Has(http2.FlagHeadersPadded) {
		if len(p) < 1 {
			return true, io.ErrUnexpectedEOF
		}
		pad, p = int(p[0]), p[1:]
	}
	if flags.Has(http2.FlagHeadersPriority) {
		if len(p) < 5 {
			return true, io.ErrUnexpectedEOF
		}
		p = p[5:]
	}
	if len(p) < pad {
		return true, http2.StreamError{StreamID: id, Code: http2.ErrCodeProtocol}
	}
	p = p[:len(p)-pad]

	h.id, h.ended, h.truncated = id, flags.Has(http2.FlagHeadersEndStream), false
	h.fields = h.fields[:0]
	h.headersLeft, h.trailersLeft = h2MaxHeaderList, h2MaxHeaderList
	h.sawRegular, h.invalid = false, nil
	h.dec.SetEmitEnabled(true)
	for {
		// As readMetaFrame: a fragment much past the budget left, or any
		// after an invalid field, ends the connection undecoded.
		if int64(len(p)) > 2*int64(h.headersLeft+h.trailersLeft) || h.invalid != nil {
			return true, http2.ConnectionError(http2.ErrCodeProtocol)
		}
		if _, err := h.dec.Write(p); err != nil {
			return true, http2.ConnectionError(http2.ErrCodeCompression)
		}
		if endHeaders {
			break
		}
		hdr, err := br.Peek(9)
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				err = io.ErrUnexpectedEOF
			}
			return true, err
		}
		n, t, flags, cid := frameHeader(hdr)
		if n > h2MaxFrame {
			return true, http2.ErrFrameTooLarge
		}
		if t != http2.FrameContinuation || cid != id {
			return true, http2.ConnectionError(http2.ErrCodeProtocol)
		}
		br.Discard(9)
		if endHeaders = flags.Has(http2.FlagContinuationEndHeaders); endHeaders {
			h.expect = 0
		}
		if p, err = h.payload(br, n); err != nil {
			return true, err
		}
	}
	if err := h.dec.Close(); err != nil {
		return true, http2.ConnectionError(http2.ErrCodeCompression)
	}
	if h.invalid != nil || !h.pseudosValid() {
		return true, http2.StreamError{StreamID: id, Code: http2.ErrCodeProtocol, Cause: errH2HeaderField}
	}
	return true, nil
}

// pseudosValid is the Framer's checkPseudos: known pseudo-headers, none
// twice, not a request's and a response's together.
func (h *h2Headers) pseudosValid() bool {
	pf := h.pseudo()
	var request, response bool
	for i, hf := range pf {
		switch hf.Name {
		case ":method", ":path", ":scheme", ":authority", ":protocol":
			request = true
		case ":status":
			response = true
		default:
			return false
		}
		for _, hf2 := range pf[:i] {
			if hf.Name == hf2.Name {
				return false
			}
		}
	}
	return !(request && response)
}

// pseudo returns the block's pseudo-header fields; regular the others.
func (h *h2Headers) pseudo() []hpack.HeaderField {
	return h.fields[:h.split()]
}

func (h *h2Headers) regular() []hpack.HeaderField {
	return h.fields[h.split():]
}

func (h *h2Headers) split() int {
	for i, hf := range h.fields {
		if !hf.IsPseudo() {
			return i
		}
	}
	return len(h.fields)
}

// pseudoValue is the value of the pseudo-header :name, "" without it.
func (h *h2Headers) pseudoValue(name string) string {
	for _, hf := range h.pseudo() {
		if hf.Name[1:] == name {
			return hf.Value
		}
	}
	return ""
}
