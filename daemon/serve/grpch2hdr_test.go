package serve

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// grpcCallFields are the header fields of a gRPC client's call (grpc-go's,
// with a deadline).
var grpcCallFields = []string{":method", "POST", ":scheme", "http", ":path", "/inference.GRPCInferenceService/ModelInfer",
	":authority", "127.0.0.1:8001", "content-type", "application/grpc", "user-agent", "grpc-go/1.70.0",
	"te", "trailers", "grpc-timeout", "4999876u"}

// headerEvents reads the frames of in as the server did before h2Headers,
// by x/net's Framer with ReadMetaHeaders, and lists what it saw: each
// header block read (stream, END_STREAM, truncated, fields) and each
// error (a stream error, after which the connection goes on, or another,
// which ends it).
func headerEventsFramer(in []byte) []string {
	fr := http2.NewFramer(nil, bytes.NewReader(in))
	fr.SetMaxReadFrameSize(h2MaxFrame)
	fr.MaxHeaderListSize = h2MaxHeaderList
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	var ev []string
	for range 1000 {
		f, err := fr.ReadFrame()
		if err != nil {
			ev = append(ev, errorEvent(err))
			if isStreamError(err) {
				continue
			}
			return ev
		}
		if mh, ok := f.(*http2.MetaHeadersFrame); ok {
			ev = append(ev, blockEvent(mh.StreamID, mh.StreamEnded(), mh.Truncated, mh.Fields))
		}
	}
	return ev
}

// headerEventsOwn reads in as the server does now: h2Headers for header
// blocks, the Framer for every other frame.
func headerEventsOwn(in []byte, h *h2Headers) []string {
	br := bufio.NewReaderSize(bytes.NewReader(in), 32<<10)
	fr := http2.NewFramer(nil, br)
	fr.SetMaxReadFrameSize(h2MaxFrame)
	var ev []string
	for range 1000 {
		ok, err := h.read(br)
		if !ok && err == nil {
			_, err = fr.ReadFrame()
		}
		if err != nil {
			ev = append(ev, errorEvent(err))
			if isStreamError(err) {
				continue
			}
			return ev
		}
		if ok {
			ev = append(ev, blockEvent(h.id, h.ended, h.truncated, h.fields))
		}
	}
	return ev
}

func isStreamError(err error) bool {
	var se http2.StreamError
	return errors.As(err, &se)
}

// errorEvent names an error by what the connection loop does with it.
func errorEvent(err error) string {
	var se http2.StreamError
	var ce http2.ConnectionError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("stream error %d %v", se.StreamID, se.Code)
	case errors.As(err, &ce):
		return fmt.Sprintf("connection error %v", http2.ErrCode(ce))
	}
	return "failed" // the connection closes without GOAWAY
}

func blockEvent(id uint32, ended, truncated bool, fields []hpack.HeaderField) string {
	var b strings.Builder
	fmt.Fprintf(&b, "headers %d ended=%v truncated=%v", id, ended, truncated)
	for _, f := range fields {
		fmt.Fprintf(&b, " %q=%q/%v", f.Name, f.Value, f.Sensitive)
	}
	return b.String()
}

// h2HeaderSeeds are frame sequences of header blocks, valid and not.
func h2HeaderSeeds() [][]byte {
	call := func(b *h2Frames) []byte { return b.block(grpcCallFields...) }
	big := strings.Repeat("x", 20000)
	seeds := []func(b *h2Frames){
		func(b *h2Frames) { // two calls: the second indexed
			b.call(1, "ModelInfer", true).call(3, "ModelInfer", false)
		},
		func(b *h2Frames) { // split in three frames, then a DATA frame
			blk := call(b)
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: blk[:5]})
			b.fr.WriteContinuation(1, false, blk[5:9])
			b.fr.WriteContinuation(1, true, blk[9:])
			b.fr.WriteData(1, true, []byte{0, 0, 0, 0, 0})
		},
		func(b *h2Frames) { // padded, with priority
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 5, BlockFragment: call(b), EndHeaders: true, EndStream: true,
				PadLength: 7, Priority: http2.PriorityParam{StreamDep: 3, Weight: 9, Exclusive: true}})
		},
		func(b *h2Frames) { // CONTINUATION of another stream, then of none
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: call(b)[:3]})
			b.fr.WriteContinuation(3, true, nil)
		},
		func(b *h2Frames) { b.fr.WriteContinuation(1, true, call(b)) },
		func(b *h2Frames) { // a PING between HEADERS and its CONTINUATION
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: call(b)[:3]})
			b.fr.WritePing(false, [8]byte{})
		},
		func(b *h2Frames) { // a header list past the cap
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, EndHeaders: true, BlockFragment: b.block(
				":method", "POST", ":path", "/x", "a", big, "b", big, "c", big, "d", big)})
			b.call(3, "ModelInfer", true)
		},
		func(b *h2Frames) { // trailer budget
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, EndHeaders: true, BlockFragment: b.block(
				":method", "POST", "trailer", strings.Repeat("a,", 30000))})
		},
		func(b *h2Frames) { // invalid fields: upper case, pseudo after regular, bad value, unknown pseudo, twice
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, EndHeaders: true, BlockFragment: b.block(":method", "POST", "Upper", "x")})
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, EndHeaders: true, BlockFragment: b.block("a", "b", ":path", "/x")})
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 5, EndHeaders: true, BlockFragment: b.block("a", "b\x00")})
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 7, EndHeaders: true, BlockFragment: b.block(":foo", "b")})
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 9, EndHeaders: true, BlockFragment: b.block(":path", "/", ":path", "/")})
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 11, EndHeaders: true, BlockFragment: b.block(":path", "/", ":status", "200")})
			b.call(13, "ModelInfer", true)
		},
		func(b *h2Frames) { // an invalid field, then a CONTINUATION
			blk := b.block("Upper", "x", "a", "b")
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: blk})
			b.fr.WriteContinuation(1, true, call(b))
		},
		func(b *h2Frames) { // padding past the payload, then its CONTINUATION
			b.fr.WriteRawFrame(http2.FrameHeaders, http2.FlagHeadersPadded, 1, []byte{9, 0x82})
			b.fr.WriteContinuation(1, true, call(b))
			b.call(3, "ModelInfer", true)
		},
		func(b *h2Frames) { // HEADERS on stream 0, truncated HPACK
			b.fr.WriteRawFrame(http2.FrameHeaders, http2.FlagHeadersEndHeaders, 0, call(b))
		},
		func(b *h2Frames) {
			blk := call(b)
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, EndHeaders: true, BlockFragment: blk[:len(blk)-2]})
		},
		func(b *h2Frames) { // a dynamic table size update, then sensitive fields
			b.hb.Reset()
			b.enc.SetMaxDynamicTableSizeLimit(100)
			b.enc.SetMaxDynamicTableSize(100)
			b.enc.WriteField(hpack.HeaderField{Name: ":method", Value: "POST"})
			b.enc.WriteField(hpack.HeaderField{Name: "authorization", Value: "secret", Sensitive: true})
			b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, EndHeaders: true, BlockFragment: bytes.Clone(b.hb.Bytes())})
		},
	}
	var out [][]byte
	for _, s := range seeds {
		b := newH2Frames()
		s(b)
		out = append(out, b.bytes())
	}
	return out
}

// TestH2HeadersAgree: on the seeds, h2Headers reads what x/net's Framer
// with ReadMetaHeaders reads, and fails as it fails.
func TestH2HeadersAgree(t *testing.T) {
	for i, in := range h2HeaderSeeds() {
		want := headerEventsFramer(in)
		got := headerEventsOwn(in, newH2Headers())
		if !slices.Equal(got, want) {
			t.Errorf("seed %d:\n got %q\nwant %q", i, got, want)
		}
	}
}

// FuzzH2Headers: on any frames, h2Headers reads what x/net's Framer with
// ReadMetaHeaders reads (the same blocks, fields and flags), and fails as
// it fails (a stream error on the same stream, after which both go on, or
// the same connection error, or a failure).
func FuzzH2Headers(f *testing.F) {
	for _, s := range h2HeaderSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want := headerEventsFramer(in)
		got := headerEventsOwn(in, newH2Headers())
		if !slices.Equal(got, want) {
			t.Fatalf("\n got %q\nwant %q", got, want)
		}
	})
}

// TestH2HeadersAllocs: a call's header block, once the decoder's table
// holds its fields (a client's second call on the connection), is read
// without allocating, whole in a HEADERS frame or split across
// CONTINUATION frames.
func TestH2HeadersAllocs(t *testing.T) {
	b := newH2Frames()
	first := b.block(grpcCallFields...)
	next := b.block(grpcCallFields...)
	b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: first, EndHeaders: true})
	warm := b.bytes()
	b.out.Reset()
	b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: next, EndHeaders: true})
	whole := b.bytes()
	b.out.Reset()
	b.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: next[:3]})
	b.fr.WriteContinuation(3, true, next[3:])
	split := b.bytes()

	for name, in := range map[string][]byte{"whole": whole, "split": split} {
		h := newH2Headers()
		rd := bytes.NewReader(warm)
		br := bufio.NewReaderSize(rd, 32<<10)
		if ok, err := h.read(br); !ok || err != nil {
			t.Fatal(ok, err)
		}
		var err error
		allocs := testing.AllocsPerRun(100, func() {
			rd.Reset(in)
			br.Reset(rd)
			if ok, e := h.read(br); !ok || e != nil {
				err = fmt.Errorf("read: %v %v", ok, e)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if allocs != 0 {
			t.Errorf("%s: %v allocations a header block, want 0", name, allocs)
		}
		if got := h.pseudoValue("path"); got != "/inference.GRPCInferenceService/ModelInfer" || len(h.fields) != len(grpcCallFields)/2 {
			t.Errorf("%s: path %q, %d fields", name, got, len(h.fields))
		}
	}
}

// rawGRPCClient makes single-row calls with a client that allocates
// nothing (frames built once, the stream id written in place, answers read
// by their frame headers), so that the allocations of a loop of its calls
// are the server's: the call's header block is grpc-go's (indexed after the
// first call), without a deadline (with one, each call's context is a
// timer). It returns the function making one call.
func rawGRPCClient(tb testing.TB) func() {
	srv, x := linearServer(tb, 300)
	nc, err := net.Dial("tcp", srv.GRPCAddr())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { nc.Close() })
	msg := grpcMessage(tb, benchGRPCRequest(x))
	f := newH2Frames()
	fields := grpcCallFields[:len(grpcCallFields)-2]
	f.out.WriteString(http2.ClientPreface)
	f.settings()
	f.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: f.block(fields...), EndHeaders: true})
	f.data(1, msg, 16384, true)
	first := f.bytes()
	f.out.Reset()
	f.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: f.block(fields...), EndHeaders: true})
	f.data(3, msg, 16384, true)
	call := f.bytes()
	br := bufio.NewReaderSize(nc, 64<<10)
	// answer reads frames up to the call's trailers (HEADERS with
	// END_STREAM on stream id).
	answer := func(id uint32) {
		for {
			hdr, err := br.Peek(9)
			if err != nil {
				tb.Fatal(err)
			}
			n, t, flags, sid := frameHeader(hdr)
			if t == http2.FrameRSTStream || t == http2.FrameGoAway {
				tb.Fatalf("frame %v", t)
			}
			br.Discard(9 + n)
			if t == http2.FrameHeaders && sid == id && flags.Has(http2.FlagHeadersEndStream) {
				return
			}
		}
	}
	if _, err := nc.Write(first); err != nil {
		tb.Fatal(err)
	}
	answer(1)
	// The offsets of the stream ids of call's frames, rewritten per call.
	var at []int
	for i := 0; i < len(call); {
		n, _, _, _ := frameHeader(call[i:])
		at = append(at, i+5)
		i += 9 + n
	}
	id := uint32(3)
	return func() {
		for _, i := range at {
			binary.BigEndian.PutUint32(call[i:], id)
		}
		if _, err := nc.Write(call); err != nil {
			tb.Fatal(err)
		}
		answer(id)
		id += 2
	}
}

// BenchmarkGRPCRawSingleRow times single-row calls of rawGRPCClient: its
// allocations are the server's.
func BenchmarkGRPCRawSingleRow(b *testing.B) {
	call := rawGRPCClient(b)
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
}

// TestGRPCSingleRowAllocs: a single-row call of the common form allocates
// nothing in the server once its connection is warm (header block read
// into the connection's buffers, its h2Stream reused, request and answer
// pooled).
func TestGRPCSingleRowAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	call := rawGRPCClient(t)
	for range 100 {
		call()
	}
	if allocs := testing.AllocsPerRun(1000, call); allocs != 0 {
		t.Errorf("%v allocations a call in the server, want 0", allocs)
	}
}
