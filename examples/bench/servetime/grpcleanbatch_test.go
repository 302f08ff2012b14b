package main

import (
	"math"
	"math/rand/v2"
	"testing"

	protoapi "google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestLeanGRPCBatch: the lean client's batch (leanGRPCBatch, a 1.2 MB
// message in 16 KB frames, frameLarge and send) is answered with the model's labels (it exits
// the test binary otherwise, as servetime does), twice on one connection
// (the second within the windows the first's WINDOW_UPDATEs gave back).
func TestLeanGRPCBatch(t *testing.T) {
	const nf, nr, rows = 300, 10, 1000
	rng := rand.New(rand.NewPCG(27, 12))
	m := &linear.LinearModel{Solver: linear.L2LossSVCDual, NumFeatures: nf, Bias: 1, W: make([]float32, (nf+1)*nr)}
	for c := range nr {
		m.Labels = append(m.Labels, int32(c))
	}
	for i := range m.W {
		m.W[i] = float32(rng.NormFloat64())
	}
	b := &bench{grpcAddr: serveModel(t, m), nf: nf, rows: make([]float32, rows*nf)}
	for i := range b.rows {
		b.rows[i] = float32(rng.NormFloat64())
	}
	msg, err := protoapi.Marshal(singleRequest(b.rows[:nf]))
	if err != nil {
		t.Fatal(err)
	}
	b.messages = [][]byte{msg}
	want := m.PredictDenseBatch(make([]float64, rows), b.rows)
	defer func() {
		if b.glean != nil {
			b.glean.close()
		}
	}()
	for range 2 {
		b.big = b.big[:0]
		for _, v := range b.rows {
			u := math.Float32bits(v)
			b.big = append(b.big, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
		}
		if secs := b.leanGRPCBatch(want); secs <= 0 {
			t.Fatalf("batch timed at %v s", secs)
		}
	}
}
