package serve

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/simd"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// helpedServer returns a server, not listening, with n helpers whatever
// GOMAXPROCS is, stopped when the test ends.
func helpedServer(t *testing.T, n int) *Server {
	s := &Server{}
	s.startHelpers(n)
	t.Cleanup(s.stopHelpers)
	return s
}

// streamCase is a model and rows to predict in a stream.
type streamCase struct {
	name    string
	v       *version
	x       []float32
	rows    int
	outputs outputs
}

// streamCases: a 10-class linear model over 300 features (random weights)
// on 700 random rows, and heart_scale's RBF model with probabilities on
// 300 rows of heart_scale with noise, all three outputs asked.
func streamCases(t *testing.T) []streamCase {
	r := rand.New(rand.NewPCG(27, 7))
	const nf, nr = 300, 10
	lm := &linear.LinearModel{Solver: linear.L2LossSVCDual, NumFeatures: nf, Bias: 1}
	for c := range nr {
		lm.Labels = append(lm.Labels, int32(c+1))
	}
	lm.W = make([]float32, (nf+1)*nr)
	for i := range lm.W {
		lm.W[i] = float32(r.NormFloat64())
	}
	lx := make([]float32, 700*nf)
	for i := range lx {
		lx[i] = float32(r.NormFloat64())
	}
	ds := heart(t)
	kx := make([]float32, 0, 300*ds.NumFeatures())
	for i := range 300 {
		for _, v := range ds.DenseRow(i % ds.Len()) {
			kx = append(kx, v+float32(0.05*r.NormFloat64()))
		}
	}
	return []streamCase{
		{"linear", newVersion("m", &modeldir.Loaded{Model: lm, Version: 1}), lx, 700, outputs{label: true}},
		{"kernel", newVersion("m", &modeldir.Loaded{Model: kernelModel(t, ds), Version: 1}), kx, 300, outputs{true, true, true}},
	}
}

// waitIdle calls handOff until a helper takes the inference (the helper
// of the last one may not be back waiting yet).
func waitIdle(t *testing.T, handOff func() bool) {
	for deadline := time.Now().Add(10 * time.Second); !handOff(); time.Sleep(50 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatal("no helper took the batch")
		}
	}
}

// sized sizes inf for c's rows and outputs, the rows still to be put in.
func sized(t *testing.T, inf *inference, c streamCase) *inference {
	inf.want = c.outputs
	lim := DefaultLimits()
	if err := inf.input([]int64{int64(c.rows), int64(c.v.info.NumFeatures)}, c.v, &lim); err != nil {
		t.Fatal(err)
	}
	return inf
}

// oneCore is the inference of c's rows by one goroutine, no helper.
func oneCore(t *testing.T, c streamCase) *inference {
	inf := sized(t, &inference{}, c)
	copy(inf.x, c.x)
	if err := inf.run(c.v); err != nil {
		t.Fatal(err)
	}
	return inf
}

// stream puts c's rows into a helped inference in chunks of random sizes,
// each checked before it is announced, as a reader does (fillFP32), and
// ends the stream with the first non-finite value's refusal, or with
// readErr after the first stop values (all when stop < 0); it fails the
// test unless a helper took the stream and claimed rows before the end.
func stream(t *testing.T, s *Server, c streamCase, r *rand.Rand, stop int, readErr error) (*inference, error) {
	inf := sized(t, s.getInference(), c)
	waitIdle(t, func() bool { return inf.startStream(c.v) })
	n := len(c.x)
	if stop >= 0 {
		n = stop
	}
	for at := 0; at < n; {
		k := min(n-at, 1+r.IntN(3*c.v.info.NumFeatures*streamRows/2))
		copy(inf.x[at:at+k], c.x[at:at+k])
		if i := simd.FirstNonFinite(inf.x[at : at+k]); i >= 0 {
			return inf, inf.endStream(rawNonFinite(at+i, c.v.info.NumFeatures, inf.x[at+i]))
		}
		at += k
		inf.arrived(at)
	}
	if stop >= 0 {
		return inf, inf.endStream(readErr)
	}
	// The helper works while rows arrive: wait for its first claim.
	for deadline := time.Now().Add(10 * time.Second); inf.st.claimed.Load() == 0; time.Sleep(50 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatal("the helper claimed no rows while they arrived")
		}
	}
	return inf, inf.endStream(nil)
}

// TestStreamedBatchMatchesOneCore: a batch predicted by its goroutine and
// a helper (rows arriving in random chunks, the rest shared) answers the
// same bits as one goroutine predicting it whole; a non-finite value
// anywhere is refused with the message of checking in order (the first
// one), and a read that fails with its error, the helper stopped either
// way (the next stream takes it).
func TestStreamedBatchMatchesOneCore(t *testing.T) {
	s := helpedServer(t, 1)
	r := rand.New(rand.NewPCG(27, 8))
	for _, c := range streamCases(t) {
		want := oneCore(t, c)
		for trial := range 20 {
			inf, err := stream(t, s, c, r, -1, nil)
			if err != nil {
				t.Fatalf("%s trial %d: %v", c.name, trial, err)
			}
			if err := inf.run(c.v); err != nil {
				t.Fatal(err)
			}
			sameOutputs(t, c, inf, want, "streamed")
			inf.release()
		}

		bad := slices.Clone(c.x)
		nf := c.v.info.NumFeatures
		for trial := range 10 {
			copy(bad, c.x)
			first := r.IntN(len(bad))
			bad[first] = float32(math.NaN())
			if trial%2 == 0 && first+1 < len(bad) {
				bad[first+1+r.IntN(len(bad)-first-1)] = float32(math.Inf(-1))
			}
			wantErr := rawData(make([]float32, len(bad)), f32bytes(bad), dtFP32, c.rows, nf)
			if wantErr == nil {
				t.Fatal("rawData took a NaN")
			}
			bc := c
			bc.x = bad
			inf, err := stream(t, s, bc, r, -1, nil)
			if err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("%s: non-finite value %d: %v, want %v", c.name, first, err, wantErr)
			}
			inf.release()

			// The read fails inside row first/nf, before value first: the
			// read error stands.
			readErr := errors.New("connection reset")
			inf, err = stream(t, s, bc, r, first, readErr)
			if err != readErr {
				t.Fatalf("%s: read failing before non-finite value %d: %v, want the read's error", c.name, first, err)
			}
			inf.release()
		}
	}
}

// sameOutputs fails the test unless inf's outputs are want's, bit for bit.
func sameOutputs(t *testing.T, c streamCase, inf, want *inference, how string) {
	t.Helper()
	for _, o := range []struct {
		asked     bool
		name      string
		got, want []float64
	}{{c.outputs.label, "labels", inf.labels, want.labels}, {c.outputs.decision, "decision values", inf.decision, want.decision},
		{c.outputs.probability, "probabilities", inf.prob, want.prob}} {
		if o.asked && (len(o.want) == 0 || !slices.Equal(o.got[:len(o.want)], o.want)) {
			t.Fatalf("%s: %s %s differ from one core's", c.name, how, o.name)
		}
	}
}

// f32bytes returns x's little-endian bytes.
func f32bytes(x []float32) []byte {
	b := make([]byte, 0, 4*len(x))
	for _, v := range x {
		b = append(b, byte(math.Float32bits(v)), byte(math.Float32bits(v)>>8), byte(math.Float32bits(v)>>16), byte(math.Float32bits(v)>>24))
	}
	return b
}

// TestSharedBatchMatchesOneCore: a decoded batch shared with a helper
// (run) answers the same bits as one goroutine; a batch too small, or
// with no helper idle, is predicted alone.
func TestSharedBatchMatchesOneCore(t *testing.T) {
	s := helpedServer(t, 1)
	for _, c := range streamCases(t) {
		want := oneCore(t, c)
		inf := sized(t, s.getInference(), c)
		copy(inf.x, c.x)
		if err := inf.prepare(c.v); err != nil {
			t.Fatal(err)
		}
		waitIdle(t, func() bool { return inf.share(c.v) })
		sameOutputs(t, c, inf, want, "shared")
		inf.release()
	}
	c := streamCases(t)[0]
	inf := s.getInference()
	lim := DefaultLimits()
	if err := inf.input([]int64{2*shareRows - 1, int64(c.v.info.NumFeatures)}, c.v, &lim); err != nil {
		t.Fatal(err)
	}
	if inf.share(c.v) {
		t.Fatalf("a batch of %d rows was shared", 2*shareRows-1)
	}
}

// TestClaimsNeverSmall: however rows arrive, the claims cover the batch
// once, in order, each of shareRows rows or more (a linear model predicts
// fewer than 8 rows on another path, whose labels may differ on a near
// tie).
func TestClaimsNeverSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 9))
	for trial := range 2000 {
		rows := 2*shareRows + r.IntN(2000)
		st := &rowStream{rows: int64(rows)}
		var next int
		take := func() bool {
			from, to, ok := st.claim()
			if !ok {
				return false
			}
			if from != next || to <= from || to-from < shareRows && to != rows {
				t.Fatalf("trial %d (%d rows): claim [%d, %d) after %d", trial, rows, from, to, next)
			}
			if to-from < shareRows {
				t.Fatalf("trial %d (%d rows): claim [%d, %d) of fewer than %d rows", trial, rows, from, to, shareRows)
			}
			next = to
			return true
		}
		for ready := 0; ready < rows; {
			ready = min(rows, ready+1+r.IntN(300))
			st.ready.Store(int64(ready))
			for r.IntN(2) == 0 && take() {
			}
		}
		st.end.Store(true)
		for take() {
		}
		if next != rows {
			t.Fatalf("trial %d: claims end at %d of %d rows", trial, next, rows)
		}
	}
}

// TestStreamAllocates: a streamed batch allocates nothing once the pooled
// inference has its buffers.
func TestStreamAllocates(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops sync.Pool items")
	}
	s := helpedServer(t, 1)
	c := streamCases(t)[0]
	lim := DefaultLimits()
	shape := []int64{int64(c.rows), int64(c.v.info.NumFeatures)}
	step := func() {
		inf := s.getInference()
		if err := inf.input(shape, c.v, &lim); err != nil {
			t.Fatal(err)
		}
		waitIdle(t, func() bool { return inf.startStream(c.v) })
		for at := 0; at < len(c.x); at += rawChunk {
			k := min(len(c.x)-at, rawChunk)
			copy(inf.x[at:at+k], c.x[at:at+k])
			inf.arrived(at + k)
		}
		if err := inf.endStream(nil); err != nil {
			t.Fatal(err)
		}
		if err := inf.run(c.v); err != nil {
			t.Fatal(err)
		}
		inf.release()
	}
	step()
	if n := testing.AllocsPerRun(20, step); n != 0 {
		t.Fatalf("a streamed batch: %v allocations, want 0", n)
	}
}

// TestServedBatchesOnTwoCores: batches large enough for a helper (2000
// rows of heart_scale with noise, an RBF model), over REST's binary tensor
// data and gRPC's raw contents, answer the model's labels; a non-finite
// value is refused with the first one's index over both protocols.
func TestServedBatchesOnTwoCores(t *testing.T) {
	ds := heart(t)
	km := kernelModel(t, ds)
	srv, _ := testServer(t, Limits{}, map[string]core.Model{"heart": km})
	r := rand.New(rand.NewPCG(27, 10))
	const n = 2000 // raw contents past minPending: read from grpc-go's buffers
	nf := ds.NumFeatures()
	x := make([]float32, 0, n*nf)
	for i := range n {
		for _, v := range ds.DenseRow(i % ds.Len()) {
			x = append(x, v+float32(0.05*r.NormFloat64()))
		}
	}
	want := km.PredictDenseBatch(make([]float64, n), x)
	header := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[%d,%d],"datatype":"FP32","parameters":{"binary_data_size":%d}}],"parameters":{"binary_data_output":true}}`, n, nf, 4*len(x))
	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := inferencepb.NewGRPCInferenceServiceClient(conn)
	grpcBatch := func(x []float32) (*inferencepb.ModelInferResponse, error) {
		return client.ModelInfer(context.Background(), &inferencepb.ModelInferRequest{ModelName: "heart", RawInputContents: [][]byte{f32bytes(x)},
			Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{n, int64(nf)}}}})
	}
	for trial := range 5 {
		resp, body := binaryRequest(t, "http://"+srv.HTTPAddr()+"/v2/models/heart/infer", header, x)
		if resp.StatusCode != 200 || len(body) < 8*n {
			t.Fatalf("REST binary batch: %d %.200s", resp.StatusCode, body)
		}
		gresp, err := grpcBatch(x)
		if err != nil || len(gresp.RawOutputContents) != 1 || len(gresp.RawOutputContents[0]) != 8*n {
			t.Fatalf("gRPC raw batch: %v %v", gresp, err)
		}
		for i, w := range want {
			if got := int64(binary.LittleEndian.Uint64(body[len(body)-8*n+8*i:])); float64(got) != w {
				t.Fatalf("trial %d: REST row %d label %d, want %v", trial, i, got, w)
			}
			if got := int64(binary.LittleEndian.Uint64(gresp.RawOutputContents[0][8*i:])); float64(got) != w {
				t.Fatalf("trial %d: gRPC row %d label %d, want %v", trial, i, got, w)
			}
		}

		bad := slices.Clone(x)
		k := r.IntN(len(bad))
		bad[k] = float32(math.Inf(1))
		msg := rawNonFinite(k, nf, bad[k]).Error()
		resp, body = binaryRequest(t, "http://"+srv.HTTPAddr()+"/v2/models/heart/infer", header, bad)
		if resp.StatusCode != 400 || !strings.Contains(string(body), msg) {
			t.Fatalf("REST binary batch with value %d infinite: %d %s, want 400 %q", k, resp.StatusCode, body, msg)
		}
		if _, err := grpcBatch(bad); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), msg) {
			t.Fatalf("gRPC raw batch with value %d infinite: %v, want %q", k, err, msg)
		}
	}
}

// panicOnce panics in its first PredictDenseBatch call, as a model with a
// bug would.
type panicOnce struct {
	core.Model
	done atomic.Bool
}

var errPredictBug = errors.New("predict bug")

func (m *panicOnce) PredictDenseBatch(dst []float64, x []float32) []float64 {
	if m.done.CompareAndSwap(false, true) {
		panic(errPredictBug)
	}
	return m.Model.PredictDenseBatch(dst, x)
}

// TestHelperPanicReachesRequest: a predict that panics on the helper
// panics in the request's goroutine (whose server recovers it, as when it
// predicted alone), and the helper serves the next batch.
func TestHelperPanicReachesRequest(t *testing.T) {
	s := helpedServer(t, 1)
	c := streamCases(t)[0]
	want := oneCore(t, c)
	c.v = newVersion("m", &modeldir.Loaded{Model: &panicOnce{Model: c.v.Model}, Version: 1})
	r := rand.New(rand.NewPCG(27, 11))
	func() {
		defer func() {
			if p := recover(); p != errPredictBug {
				t.Fatalf("recovered %v, want the helper's panic", p)
			}
		}()
		stream(t, s, c, r, -1, nil) // the helper's first claim panics
		t.Fatal("no panic reached the request's goroutine")
	}()
	inf, err := stream(t, s, c, r, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := inf.run(c.v); err != nil {
		t.Fatal(err)
	}
	sameOutputs(t, c, inf, want, "streamed after a panic")
}
