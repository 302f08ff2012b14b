package main

import (
	"encoding/binary"
	"fmt"
	"time"

	protoapi "google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// maxFrame is the largest DATA frame the lean client sends: HTTP/2's
// default SETTINGS_MAX_FRAME_SIZE, which grpc-go's server keeps (it reads
// no larger frame).
const maxFrame = 16384

// frameLarge writes the frames of a call of the message req, of any size
// within the server's flow control windows, into g.out: its DATA in frames
// of at most maxFrame bytes; send then writes them in one call. It refuses
// a message past the windows rather than wait for them (the server's
// SETTINGS, and its WINDOW_UPDATEs for what it has read, are read with
// each answer: a single-row call first gives it the server's windows).
func (g *leanGRPC) frameLarge(req []byte) {
	if int64(len(req))+5 > min(g.window, g.initial) {
		die(fmt.Errorf("lean gRPC client: a %d-byte message is past the server's flow control window (%d, %d)", len(req), g.window, g.initial))
	}
	g.headers()
	var prefix [5]byte
	binary.BigEndian.PutUint32(prefix[1:], uint32(len(req)))
	msg := append(prefix[:], req...)
	for len(msg) > 0 {
		n := min(len(msg), maxFrame)
		check(g.fr.WriteData(g.stream, n == len(msg), msg[:n]))
		msg = msg[n:]
	}
	g.window -= int64(len(req)) + 5
}

// send writes the frames in g.out in one call and reads the answer.
func (g *leanGRPC) send() {
	_, err := g.c.Write(g.out.Bytes())
	check(err)
	g.out.Reset()
	g.read()
}

// leanGRPCBatch sends the raw batch encoded last (b.big, rows from
// b.bigRow) as one ModelInfer call of the lean gRPC client and returns the
// seconds from the call's first byte written to its answer's last byte
// read; the request is marshalled and framed before the clock starts (a
// client's encoding is not the server's cost), and the answer's labels are
// checked against want, the same rows predicted in this process.
func (b *bench) leanGRPCBatch(want []float64) float64 {
	if b.glean == nil {
		b.glean = dialLeanGRPC(b.grpcAddr)
		b.glean.call(b.messages[0]) // the server's SETTINGS and windows
	}
	n := len(want)
	req, err := protoapi.Marshal(&inferencepb.ModelInferRequest{ModelName: "m", RawInputContents: [][]byte{b.big},
		Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{int64(n), int64(b.nf)}}}})
	check(err)
	b.glean.frameLarge(req)
	start := time.Now()
	b.glean.send()
	secs := time.Since(start).Seconds()
	raw := b.glean.answer().RawOutputContents
	if len(raw) != 1 || len(raw[0]) != 8*n {
		die(fmt.Errorf("lean gRPC batch answer: %d raw outputs", len(raw)))
	}
	for i, w := range want {
		if got := int64(binary.LittleEndian.Uint64(raw[0][8*i:])); float64(got) != w {
			die(fmt.Errorf("lean gRPC batch answer: row %d label %d, want %v", i, got, w))
		}
	}
	return secs
}
