package serve

import (
	"context"
	"encoding/binary"
	"math"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	protoapi "google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/core/simd"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// A ModelInfer request of the common form (model name, version, id, one
// input tensor with its shape and datatype, its values as fp32_contents or
// one raw_input_contents entry, no parameters, no outputs named) is read
// straight from its wire bytes into the pooled rows: no request message,
// no copy of the values; its answer is encoded straight to wire bytes
// (encodeResponse), with no response message either. Every other request
// is unmarshalled by protobuf into an inferencepb.ModelInferRequest and
// answered as before, so the answers are the same
// (FuzzGRPCWireMatchesProto checks it). Against protobuf's encoding of
// the answer: 5 allocations a single-row request instead of 7, 128 bytes
// instead of 552 (BenchmarkGRPCServiceSingleRow/wire); server CPU a request
// 0.95x single-row and 0.90x a 1000-row raw batch (servetime, 5 alternated
// runs, load 26-28).

// wireRequest is a ModelInfer request's wire bytes, which wireCodec copies
// in for modelInferHandler (pooled: its buffer grows to the largest
// request seen, up to the size cap).
//
// A large raw_input_contents payload (a batch) is not copied in: grpc-go
// hands the message over as the HTTP/2 frames' buffers, and the rows are
// read from those straight into the pooled rows (rawInto), one copy of a
// 1000-row batch's 3.1 MB fewer. Until then its span of b, pending, is
// left unwritten and data holds a reference to the buffers; fill writes
// it for whatever needs the whole message. Server CPU a 1000-row raw
// batch: 0.85x (servetime, 5 alternated runs, load 21-23).
type wireRequest struct {
	b       []byte
	data    mem.BufferSlice // referenced while pending
	pending span            // the raw payload's span of b, not yet written
	// arr, when set, is b still arriving: the package's own HTTP/2
	// transport starts a large call while its raw payload, the message's
	// last field, is still arriving (grpch2.go).
	arr arriving
}

// arriving is a request message whose bytes are still arriving.
type arriving interface {
	// wait returns once the message's first n bytes are in place; an
	// error means they never will be (the call was reset or its
	// connection closed; its answer goes nowhere).
	wait(n int) error
	// rows has the message's bytes from offset from on read straight into
	// dst rather than into the message's buffer; it returns the offset
	// from which they are (those before it are in the buffer). Until the
	// whole message has arrived (or wait fails), dst may be written.
	rows(dst []byte, from int) (int, error)
}

// minPending is the smallest raw payload left in grpc-go's buffers (below
// it, the copy is cheaper than the bookkeeping).
const minPending = 64 << 10

var wireRequestPool = sync.Pool{New: func() any { return new(wireRequest) }}

// wireCodec is gRPC's protobuf codec, except that it hands a ModelInfer
// request's bytes to modelInferHandler as they are, and sends the answers
// modelInferHandler encodes itself (wireResponse) as they are.
type wireCodec struct{ encoding.CodecV2 }

func newWireCodec() wireCodec { return wireCodec{encoding.GetCodecV2(proto.Name)} }

func (c wireCodec) Marshal(v any) (mem.BufferSlice, error) {
	if r, ok := v.(*wireResponse); ok {
		data := mem.BufferSlice{mem.Copy(r.sc.msg, mem.DefaultBufferPool())}
		r.release()
		return data, nil
	}
	return c.CodecV2.Marshal(v)
}

func (c wireCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if w, ok := v.(*wireRequest); ok {
		w.b = grow(w.b, data.Len())
		if !w.leaveRaw(data) {
			data.CopyTo(w.b)
		}
		return nil
	}
	return c.CodecV2.Unmarshal(data, v)
}

// leaveRaw copies the message data into w.b except the payload of its one
// raw_input_contents field (7) when that is at least minPending bytes,
// which stays in data (w.pending, w.data referenced). It reports false,
// leaving nothing pending, for a message of another shape (then copied
// whole, for parse or protobuf to judge).
func (w *wireRequest) leaveRaw(data mem.BufferSlice) bool {
	if len(data) < 2 || len(w.b) < minPending {
		return false
	}
	r := pieceReader{data: data}
	var pending span
	for r.at < len(w.b) {
		tag, ok := r.varint(w.b)
		if !ok || protowire.Type(tag&7) != protowire.BytesType {
			return false
		}
		n, ok := r.varint(w.b)
		if !ok || n > uint64(len(w.b)-r.at) {
			return false
		}
		if protowire.Number(tag>>3) == 7 && n >= minPending {
			if pending.ok {
				return false // a second raw entry: protobuf's to judge
			}
			pending = span{r.at, r.at + int(n), true}
			r.skip(int(n))
			continue
		}
		r.copy(w.b[r.at : r.at+int(n)])
	}
	if !pending.ok {
		return false
	}
	data.Ref()
	w.data, w.pending = data, pending
	return true
}

// fill writes the pending raw payload into w.b, or waits for the rest of
// b to arrive.
func (w *wireRequest) fill() {
	if w.arr != nil {
		w.arr.wait(len(w.b))
		return
	}
	if !w.pending.ok {
		return
	}
	r := pieceReader{data: w.data}
	r.skip(w.pending.start)
	r.copy(w.b[w.pending.start:w.pending.end])
	w.release()
}

// release drops the reference to grpc-go's buffers.
func (w *wireRequest) release() {
	if w.pending.ok {
		w.data.Free()
		w.data, w.pending = nil, span{}
	}
}

// rawInto is rawData for the raw payload p (pending in grpc-go's buffers,
// or arriving into b), into inf.x: FP32 on a little-endian machine is
// copied a chunk at a time as it is there, each checked while in cache
// (or, streamed, checked and predicted by a helper as they are copied:
// batchstream.go); anything else (another datatype, a size rawData
// refuses) is filled in and read by rawData.
func (w *wireRequest) rawInto(inf *inference, dt datatype, p span) error {
	n := inf.rows * inf.cols
	if dt != dtFP32 || !nativeLittleEndian || p.end-p.start != 4*n {
		w.fill()
		return rawData(inf.x, w.b[p.start:p.end], dt, inf.rows, inf.cols)
	}
	if w.arr != nil {
		// The rows are read straight into inf.x from the switch on; the
		// part before it is copied from b here.
		x := inf.x[:n]
		from, err := w.arr.rows(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), 4*n), p.start)
		if err != nil {
			return err
		}
		// inf.x is pooled: whatever this returns, it is written until the
		// whole message has arrived.
		defer w.arr.wait(len(w.b))
		return fillFP32(x, inf.cols, func(c []byte, at int) error {
			inf.arrived(at)
			off := p.start + 4*at
			if err := w.arr.wait(off + len(c)); err != nil {
				return err
			}
			if off < from {
				copy(c, w.b[off:min(from, off+len(c))])
			}
			return nil
		})
	}
	r := pieceReader{data: w.data}
	r.skip(p.start)
	return fillFP32(inf.x[:n], inf.cols, func(c []byte, at int) error {
		inf.arrived(at)
		r.copy(c)
		return nil
	})
}

// pieceReader reads a mem.BufferSlice front to back across its buffers.
type pieceReader struct {
	data mem.BufferSlice
	i    int // the buffer being read
	off  int // the offset in it
	at   int // the offset in the whole
}

// copy fills dst from the reader, which must hold len(dst) more bytes.
func (r *pieceReader) copy(dst []byte) {
	for len(dst) > 0 {
		b := r.data[r.i].ReadOnlyData()[r.off:]
		k := copy(dst, b)
		dst, r.off, r.at = dst[k:], r.off+k, r.at+k
		if r.off == len(r.data[r.i].ReadOnlyData()) {
			r.i, r.off = r.i+1, 0
		}
	}
}

// skip moves the reader n bytes on; it must hold them.
func (r *pieceReader) skip(n int) {
	for n > 0 {
		k := min(n, r.data[r.i].Len()-r.off)
		n, r.off, r.at = n-k, r.off+k, r.at+k
		if r.off == r.data[r.i].Len() {
			r.i, r.off = r.i+1, 0
		}
	}
}

// varint reads a varint, copying its bytes into dst at their offset; false
// when it is malformed or runs past the end.
func (r *pieceReader) varint(dst []byte) (uint64, bool) {
	var x uint64
	for k := 0; k < 10 && r.at < len(dst); k++ {
		r.copy(dst[r.at : r.at+1])
		c := dst[r.at-1]
		x |= uint64(c&0x7f) << (7 * k)
		if c < 0x80 {
			return x, true
		}
	}
	return 0, false
}

// inferServiceDesc is the generated service description with
// modelInferHandler in place of the generated ModelInfer handler.
func inferServiceDesc() *grpc.ServiceDesc {
	d := inferencepb.GRPCInferenceService_ServiceDesc
	d.Methods = append([]grpc.MethodDesc(nil), d.Methods...)
	for i := range d.Methods {
		if d.Methods[i].MethodName == "ModelInfer" {
			d.Methods[i].Handler = modelInferHandler
		}
	}
	return &d
}

// modelInferHandler answers ModelInfer from the request's wire bytes
// (grpcService.inferWire). The server has no interceptors; were one given,
// the request is unmarshalled for it as the generated handler does.
func modelInferHandler(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
	w := wireRequestPool.Get().(*wireRequest)
	defer func() {
		w.release()
		if cap(w.b) <= 4<<20 {
			wireRequestPool.Put(w)
		}
	}()
	if err := dec(w); err != nil {
		return nil, err
	}
	g := srv.(*grpcService)
	if interceptor != nil {
		w.fill()
		req := new(inferencepb.ModelInferRequest)
		if err := protoapi.Unmarshal(w.b, req); err != nil {
			return nil, unmarshalError(err)
		}
		info := &grpc.UnaryServerInfo{Server: srv, FullMethod: inferencepb.GRPCInferenceService_ModelInfer_FullMethodName}
		return interceptor(ctx, req, info, func(ctx context.Context, req any) (any, error) {
			return g.ModelInfer(ctx, req.(*inferencepb.ModelInferRequest))
		})
	}
	return g.modelInferRequest(ctx, w)
}

// unmarshalError is gRPC's answer to a message protobuf cannot read.
func unmarshalError(err error) error {
	return status.Errorf(codes.Internal, "grpc: failed to unmarshal the received message: %v", err)
}

// modelInferWire is ModelInfer on a request's wire bytes b, valid for the
// call only. Its answer is a *wireResponse for a request of the common
// form, else the *inferencepb.ModelInferResponse ModelInfer gives.
func (g *grpcService) modelInferWire(ctx context.Context, b []byte) (any, error) {
	w := wireRefPool.Get().(*wireRequest)
	w.b = b
	resp, err := g.modelInferRequest(ctx, w)
	*w = wireRequest{} // b is the caller's
	wireRefPool.Put(w)
	return resp, err
}

// wireRefPool holds modelInferWire's wireRequests (a call's ~100 B:
// modelInferRequest lets it escape), apart from wireRequestPool's, whose
// own buffers b they would drop.
var wireRefPool = sync.Pool{New: func() any { return new(wireRequest) }}

// modelInferArriving is modelInferWire on b, whose first bytes only have
// arrived (wireRequest.arr).
func (g *grpcService) modelInferArriving(ctx context.Context, b []byte, arr arriving) (any, error) {
	return g.modelInferRequest(ctx, &wireRequest{b: b, arr: arr})
}

// modelInferRequest is modelInferWire on w, whose raw payload may be
// pending or arriving.
func (g *grpcService) modelInferRequest(ctx context.Context, w *wireRequest) (any, error) {
	q := wireInfer{pending: w}
	ok := q.parse(w.b)
	if ok && w.pending.ok && w.pending != q.raw {
		ok = false // not the payload parse found: cannot happen, but the rows must be the request's
	}
	if !ok {
		w.fill()
		req := new(inferencepb.ModelInferRequest)
		if err := protoapi.Unmarshal(w.b, req); err != nil {
			return nil, unmarshalError(err)
		}
		return g.ModelInfer(ctx, req)
	}
	start := time.Now()
	name, vname := "", ""
	resp, err := g.inferWireParsed(&q, &name, &vname)
	if err := g.answer(start, name, vname, err); err != nil {
		return nil, err
	}
	return resp, nil
}

// inferWireParsed is infer for a request read by wireInfer.parse; it sets
// *name to the model's name when the repository holds it (a string of the
// repository's, which the metrics may keep) and *vname to the version.
func (g *grpcService) inferWireParsed(q *wireInfer, name, vname *string) (*wireResponse, error) {
	s := g.s
	if err := s.acquire(); err != nil {
		return nil, err
	}
	defer s.releaseSlot()
	m, v, err := s.repo.resolve(q.str(q.model), q.str(q.version))
	if m != nil {
		*name = m.name
	}
	if err != nil {
		return nil, err
	}
	*vname = v.name
	inf := s.getInference()
	defer inf.release()
	if q.pending == nil || q.pending.arr == nil {
		// A call started while its rows still arrive (grpch2early.go)
		// works without a turn: it waits for its connection's reader,
		// which may itself wait for a turn.
		s.takeTurn(inf)
		defer s.endTurn(inf)
	}
	if err := q.input(inf, v, &s.lim); err != nil {
		return nil, err
	}
	if err := inf.run(v); err != nil {
		return nil, err
	}
	return encodeResponse(q.str(q.id), v, inf, q.raw.ok), nil
}

// wireResponse is a ModelInferResponse as wire bytes, in the pooled
// scratch they were encoded into: the package's own transport appends
// them to its answer (appendMessage), wireCodec copies them to a buffer of
// grpc-go's pool, which grpc-go frees once it has written them; each then
// releases the response. Pooled with its scratch, a call allocates none.
type wireResponse struct{ sc *responseScratch }

var wireResponsePool = sync.Pool{New: func() any { return new(wireResponse) }}

// release gives r and its scratch back; r's bytes are gone.
func (r *wireResponse) release() {
	if sc := r.sc; cap(sc.msg)+cap(sc.tensor)+cap(sc.contents) <= 4<<20 {
		responseScratchPool.Put(sc)
	}
	r.sc = nil
	wireResponsePool.Put(r)
}

// responseScratch holds the buffers appendResponse encodes into, pooled:
// they grow to the largest answer seen, up to the size the pool keeps.
type responseScratch struct{ msg, tensor, contents []byte }

var responseScratchPool = sync.Pool{New: func() any { return new(responseScratch) }}

// encodeResponse is grpcResponse's answer encoded straight to its wire
// bytes, without building the message (TestEncodeResponseMatchesProto:
// the same bytes protobuf writes for grpcResponse's message). id may share
// the request's bytes: it is copied.
func encodeResponse(id string, v *version, inf *inference, raw bool) *wireResponse {
	sc := responseScratchPool.Get().(*responseScratch)
	sc.msg = sc.appendResponse(sc.msg[:0], id, v, inf, raw)
	r := wireResponsePool.Get().(*wireResponse)
	r.sc = sc
	return r
}

// appendResponse appends to b the ModelInferResponse grpcResponse builds,
// in the order protobuf writes its fields (by number; empty strings left
// out, repeated scalars packed).
func (sc *responseScratch) appendResponse(b []byte, id string, v *version, inf *inference, raw bool) []byte {
	b = appendStringField(b, 1, v.model)
	b = appendStringField(b, 2, v.name)
	b = appendStringField(b, 3, id)
	tensor := func(b []byte, name, dt string, data []float64, cols int) []byte {
		t := appendStringField(sc.tensor[:0], 1, name)
		t = appendStringField(t, 2, dt)
		shape := protowire.AppendVarint(sc.contents[:0], uint64(inf.rows))
		if cols > 0 {
			shape = protowire.AppendVarint(shape, uint64(cols))
		}
		t = protowire.AppendTag(t, 3, protowire.BytesType)
		t = protowire.AppendBytes(t, shape)
		if !raw {
			// InferTensorContents: int64_contents (3) or fp64_contents (7).
			var c []byte
			if dt == "INT64" {
				c = protowire.AppendTag(sc.contents[:0], 3, protowire.BytesType)
				n := 0
				for _, x := range data {
					n += protowire.SizeVarint(uint64(int64(x)))
				}
				c = protowire.AppendVarint(c, uint64(n))
				for _, x := range data {
					c = protowire.AppendVarint(c, uint64(int64(x)))
				}
			} else {
				c = protowire.AppendTag(sc.contents[:0], 7, protowire.BytesType)
				c = protowire.AppendVarint(c, uint64(8*len(data)))
				c = appendRaw(c, data, false)
			}
			t = protowire.AppendTag(t, 5, protowire.BytesType)
			t = protowire.AppendBytes(t, c)
			sc.contents = c
		}
		sc.tensor = t
		b = protowire.AppendTag(b, 5, protowire.BytesType)
		return protowire.AppendBytes(b, t)
	}
	type output struct {
		want, integer bool
		name, dt      string
		data          []float64
		cols          int
	}
	outs := [...]output{
		{inf.want.label, v.labelDatatype() == "INT64", OutputLabel, v.labelDatatype(), inf.labels, 0},
		{inf.want.decision, false, OutputDecision, "FP64", inf.decision, inf.k},
		{inf.want.probability, false, OutputProbability, "FP64", inf.prob, inf.c},
	}
	for _, o := range outs {
		if o.want {
			b = tensor(b, o.name, o.dt, o.data, o.cols)
		}
	}
	if raw {
		for _, o := range outs {
			if o.want {
				b = protowire.AppendTag(b, 6, protowire.BytesType)
				b = protowire.AppendVarint(b, uint64(8*len(o.data)))
				b = appendRaw(b, o.data, o.integer)
			}
		}
	}
	return b
}

// appendStringField appends string field num holding s, which proto3
// leaves out when it is empty.
func appendStringField(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// wireInfer is what parse keeps of a ModelInfer request: spans of its
// wire bytes.
type wireInfer struct {
	b                  []byte
	model, version, id span
	name, datatype     span // of the one input tensor
	shape              span // its packed dims
	fp32               span // its packed fp32_contents
	raw                span // the one raw_input_contents entry
	inputs             int  // input tensors
	contentsSeen       bool // an InferTensorContents was read
	// pending is the request, whose raw payload (raw) may still be in
	// grpc-go's buffers.
	pending *wireRequest
}

// str returns the span s of q.b as a string sharing its bytes (for lookups
// during the call only).
func (q *wireInfer) str(s span) string {
	return unsafeString(q.b[s.start:s.end])
}

// parse reads the fields of the common form (the package comment above)
// and reports whether b is a request of that form with valid UTF-8
// strings, each field at most once and in protobuf's wire types; false
// sends the request to protobuf.
func (q *wireInfer) parse(b []byte) bool {
	q.b = b
	var input span
	ok := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, at int) bool {
		if typ != protowire.BytesType {
			return false
		}
		s := span{at, at + len(v), true}
		switch num {
		case 1:
			return setOnce(&q.model, s) && utf8.Valid(v)
		case 2:
			return setOnce(&q.version, s) && utf8.Valid(v)
		case 3:
			return setOnce(&q.id, s) && utf8.Valid(v)
		case 5:
			q.inputs++
			return setOnce(&input, s)
		case 7:
			return setOnce(&q.raw, s)
		}
		return false // parameters, outputs, unknown fields
	})
	if !ok || q.inputs != 1 {
		return false
	}
	ok = fields(b[input.start:input.end], func(num protowire.Number, typ protowire.Type, v []byte, at int) bool {
		if typ != protowire.BytesType {
			return false // an unpacked shape among them
		}
		s := span{input.start + at, input.start + at + len(v), true}
		switch num {
		case 1:
			return setOnce(&q.name, s) && utf8.Valid(v)
		case 2:
			return setOnce(&q.datatype, s) && utf8.Valid(v)
		case 3:
			return setOnce(&q.shape, s)
		case 5:
			return q.contents(v, s.start)
		}
		return false // parameters, unknown fields
	})
	if !ok || !q.raw.ok && q.str(q.datatype) != "FP32" {
		return false // typed contents of another datatype
	}
	for p := b[q.shape.start:q.shape.end]; len(p) > 0; {
		_, n := protowire.ConsumeVarint(p)
		if n < 0 {
			return false
		}
		p = p[n:]
	}
	return true
}

// contents reads an InferTensorContents holding fp32_contents (packed) at
// most, at offset off of q.b.
func (q *wireInfer) contents(b []byte, off int) bool {
	if q.contentsSeen {
		return false // a second contents message: protobuf merges them
	}
	q.contentsSeen = true
	return fields(b, func(num protowire.Number, typ protowire.Type, v []byte, at int) bool {
		if num != 6 || typ != protowire.BytesType || len(v)%4 != 0 {
			return false
		}
		return setOnce(&q.fp32, span{off + at, off + at + len(v), true})
	})
}

func setOnce(dst *span, s span) bool {
	if dst.ok {
		return false
	}
	*dst = s
	return true
}

// fields calls f with each field of the protobuf message b: its number,
// wire type, the value's bytes when it is length-delimited, and their
// offset in b. It stops, reporting false, when f does or b is malformed.
func fields(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte, at int) bool) bool {
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return false
		}
		i += n
		var v []byte
		at := i
		if typ == protowire.BytesType {
			v, n = protowire.ConsumeBytes(b[i:])
			at = i + protowire.SizeVarint(uint64(len(v)))
		} else {
			n = protowire.ConsumeFieldValue(num, typ, b[i:])
		}
		if n < 0 || !f(num, typ, v, at) {
			return false
		}
		i += n
	}
	return true
}

// input checks the parsed request against version v and the limits and
// reads its values into inf, as decodeGRPC does for the message.
func (q *wireInfer) input(inf *inference, v *version, lim *Limits) (err error) {
	dt := parseDatatype(q.str(q.datatype))
	if dt == dtInvalid {
		return badRequestf("input datatype %q: want FP32, FP64 or an INT/UINT type", q.str(q.datatype))
	}
	var shapeBuf [4]int64
	shape := shapeBuf[:0]
	for p := q.b[q.shape.start:q.shape.end]; len(p) > 0; { // checked by parse
		d, n := protowire.ConsumeVarint(p)
		shape = append(shape, int64(d))
		p = p[n:]
	}
	if err := inf.input(shape, v, lim); err != nil {
		return err
	}
	if q.raw.ok {
		if w := q.pending; w != nil && (w.pending.ok || w.arr != nil) {
			if inf.startStream(v) {
				defer func() { err = inf.endStream(err) }()
			}
			return w.rawInto(inf, dt, q.raw)
		}
		return rawData(inf.x, q.b[q.raw.start:q.raw.end], dt, inf.rows, inf.cols)
	}
	vals := q.b[q.fp32.start:q.fp32.end]
	if len(vals) != 4*len(inf.x) {
		return badRequestf("input fp32_contents has %d values; the shape needs %d", len(vals)/4, len(inf.x))
	}
	if nativeLittleEndian {
		// Packed fp32_contents are little-endian float32 values: one copy
		// and simd.FirstNonFinite, not a value at a time (a single row of
		// 784: 21,000 instructions of the server's a request, cachegrind).
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(inf.x))), len(vals)), vals)
		if i := simd.FirstNonFinite(inf.x); i >= 0 {
			return fp32NonFinite(i, inf.x[i])
		}
		return nil
	}
	for i := range inf.x {
		x := math.Float32frombits(binary.LittleEndian.Uint32(vals[4*i:]))
		if math.Float32bits(x)&0x7f800000 == 0x7f800000 {
			return fp32NonFinite(i, x)
		}
		inf.x[i] = x
	}
	return nil
}

// fp32NonFinite refuses fp32_contents whose value i is x, not finite.
func fp32NonFinite(i int, x float32) error {
	return badRequestf("input fp32_contents value %d is %v: features must be finite float32 values", i, x)
}
