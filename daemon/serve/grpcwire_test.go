package serve

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	protoapi "google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// TestEncodeResponseMatchesProto checks that encodeResponse writes the
// bytes protobuf writes for grpcResponse's message, for class labels
// (negative, zero and large ones, whose varints take 1 to 10 bytes) and
// regression values, each output alone and all three, typed and raw, with
// an id and without.
func TestEncodeResponseMatchesProto(t *testing.T) {
	inf := &inference{rows: 3, k: 2, c: 4,
		labels:   []float64{-1, 0, 1 << 40},
		decision: []float64{0.5, -2.25, 1e-300, -0.0, 7, 3},
		prob:     []float64{0.1, 0.2, 0.3, 0.4, 0.25, 0.25, 0.25, 0.25, 1, 0, 0, 0},
	}
	for _, task := range []core.Task{core.TaskClassification, core.TaskRegression} {
		v := &version{model: "m", name: "12", info: core.ModelInfo{Task: task}}
		for _, want := range []outputs{{label: true}, {decision: true}, {probability: true}, {true, true, true}} {
			for _, raw := range []bool{false, true} {
				for _, id := range []string{"", "request-7"} {
					inf.want = want
					name := fmt.Sprintf("task %v, outputs %+v, raw %v, id %q", task, want, raw, id)
					wantBytes, err := protoapi.Marshal(grpcResponse(id, v, inf, raw))
					if err != nil {
						t.Fatal(err)
					}
					r := encodeResponse(id, v, inf, raw)
					if got := r.sc.msg; !bytes.Equal(got, wantBytes) {
						t.Errorf("%s:\n got % x\nwant % x", name, got, wantBytes)
					}
					r.release()
				}
			}
		}
	}
}

// TestWireCodecLeavesRaw feeds the wire codec requests split into grpc-go
// buffers of many sizes (a few bytes, an HTTP/2 frame and odd ones,
// so that tags, lengths and the payload straddle buffers), their large raw
// payload left in the buffers, and checks each answer equals the answer
// to the request's bytes in one piece: rows read straight from the
// buffers, a non-finite value past the first chunk named by index, FP64
// read after filling in the payload, a payload of the wrong size, two raw
// entries (protobuf's path) and a field after the payload. Freeing the
// buffers afterwards, as grpc-go does, panics if the codec freed them too.
func TestWireCodecLeavesRaw(t *testing.T) {
	const rows = 22 // 69 KB of FP32: just past minPending
	srv, x := linearServer(t, rows)
	g := &grpcService{s: srv}
	fp32 := make([]byte, 0, 4*len(x))
	fp64 := make([]byte, 0, 8*len(x))
	for _, v := range x {
		fp32 = binary.LittleEndian.AppendUint32(fp32, math.Float32bits(v))
		fp64 = binary.LittleEndian.AppendUint64(fp64, math.Float64bits(float64(v)))
	}
	nan := slices.Clone(fp32)
	binary.LittleEndian.PutUint32(nan[4*(rawChunk+5):], 0x7fc00000)
	req := func(dt string, raws ...[]byte) []byte {
		b, err := protoapi.Marshal(&inferencepb.ModelInferRequest{ModelName: "m", RawInputContents: raws,
			Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: dt, Shape: []int64{rows, benchFeatures}}}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	idAfter := protowire.AppendString(protowire.AppendTag(req("FP32", fp32), 3, protowire.BytesType), "after")
	cases := []struct {
		name    string
		b       []byte
		pending bool // the payload is left in the buffers
	}{
		{"FP32", req("FP32", fp32), true},
		{"FP32 NaN", req("FP32", nan), true},
		{"FP64", req("FP64", fp64), true},
		{"short", req("FP32", fp32[:len(fp32)-4]), true},
		{"two raw", req("FP32", fp32, fp32), false},
		{"id after", idAfter, true},
	}
	codec := newWireCodec()
	ctx := context.Background()
	for _, c := range cases {
		want, wantErr := g.modelInferWire(ctx, c.b)
		for _, size := range []int{3, 1000, 16384, 16389, len(c.b) - 1} {
			var data mem.BufferSlice
			for p := c.b; len(p) > 0; p = p[min(size, len(p)):] {
				data = append(data, mem.Copy(p[:min(size, len(p))], mem.DefaultBufferPool()))
			}
			w := new(wireRequest)
			if err := codec.Unmarshal(data, w); err != nil {
				t.Fatal(err)
			}
			if w.pending.ok != c.pending {
				t.Fatalf("%s, buffers of %d: payload pending %v, want %v", c.name, size, w.pending.ok, c.pending)
			}
			got, err := g.modelInferRequest(ctx, w)
			w.release()
			data.Free()
			if status.Code(err) != status.Code(wantErr) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("%s, buffers of %d: error %v, want %v", c.name, size, err, wantErr)
			}
			if err == nil && !protoapi.Equal(responseMessage(t, got), responseMessage(t, want)) {
				t.Fatalf("%s, buffers of %d: %v, want %v", c.name, size, responseMessage(t, got), responseMessage(t, want))
			}
		}
	}
}

// TestWireFP32Contents checks the wire path's typed fp32_contents against
// protobuf's: the same labels for finite rows (one and two), and for a
// NaN or an infinity at the first, a middle and the last value the same
// INVALID_ARGUMENT naming that value's index.
func TestWireFP32Contents(t *testing.T) {
	srv, x := linearServer(t, 4)
	g := &grpcService{s: srv}
	ctx := context.Background()
	req := func(rows int, vals []float32) []byte {
		b, err := protoapi.Marshal(&inferencepb.ModelInferRequest{ModelName: "m", Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{
			Name: "x", Datatype: "FP32", Shape: []int64{int64(rows), benchFeatures}, Contents: &inferencepb.InferTensorContents{Fp32Contents: vals}}}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	viaProto := func(b []byte) (*inferencepb.ModelInferResponse, error) {
		var m inferencepb.ModelInferRequest
		if err := protoapi.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return g.ModelInfer(ctx, &m)
	}
	for _, rows := range []int{1, 2} {
		b := req(rows, x[:rows*benchFeatures])
		got, err := g.modelInferWire(ctx, b)
		want, werr := viaProto(b)
		if err != nil || werr != nil {
			t.Fatalf("%d rows: %v; through protobuf %v", rows, err, werr)
		}
		if !protoapi.Equal(responseMessage(t, got), want) {
			t.Fatalf("%d rows: %v, want %v", rows, responseMessage(t, got), want)
		}
	}
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		for _, i := range []int{0, 391, benchFeatures - 1} {
			vals := slices.Clone(x[:benchFeatures])
			vals[i] = bad
			b := req(1, vals)
			_, err := g.modelInferWire(ctx, b)
			_, werr := viaProto(b)
			msg := fmt.Sprintf("input fp32_contents value %d is %v: features must be finite float32 values", i, bad)
			if err == nil || werr == nil || status.Convert(err).Message() != msg || err.Error() != werr.Error() {
				t.Fatalf("%v at %d: %v; through protobuf %v; want %q", bad, i, err, werr, msg)
			}
		}
	}
}
