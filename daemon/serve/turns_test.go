package serve

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	protoapi "google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// TestTurnsFirstComeFirstServed queues five requests behind one holding
// the only turn: none works before the holder ends its turn, they work in
// the order they came, and the holder, coming back at once, waits behind
// them (a turn is handed to the longest waiter, not taken by whoever asks
// first).
func TestTurnsFirstComeFirstServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &Server{turns: newTurns(1)}
		holder := new(inference)
		s.takeTurn(holder)
		var order []int
		for i := range 5 {
			go func() {
				inf := new(inference)
				s.takeTurn(inf)
				order = append(order, i) // one turn: no other goroutine writes meanwhile
				s.endTurn(inf)
			}()
			synctest.Wait() // i waits before i+1 comes
		}
		if len(order) != 0 {
			t.Fatalf("%v worked while the only turn was held", order)
		}
		s.endTurn(holder)
		s.takeTurn(holder)
		if want := []int{0, 1, 2, 3, 4}; !slices.Equal(order, want) {
			t.Errorf("worked in the order %v, want %v before the holder's next turn", order, want)
		}
		s.endTurn(holder)
		if holder.turn {
			t.Error("endTurn left the inference holding its turn")
		}
	})
}

// TestNewTurns checks the number of turns Config.Workers gives.
func TestNewTurns(t *testing.T) {
	for _, w := range []int{-1, 0} {
		if q := newTurns(w); q != nil {
			t.Errorf("Workers %d: a queue of %d turns, want none", w, cap(q))
		}
	}
	if got := cap(newTurns(3)); got != 3 {
		t.Errorf("Workers 3: %d turns", got)
	}
}

// TestGRPCEarlyCallHoldsNoTurn starts a large raw batch on one connection
// of a server with one turn and holds back the rest of its rows, then
// sends a single row on the same connection: it is answered while the
// batch waits, and the batch once its rows come. A batch that took the
// turn while its rows arrive would wait for the connection's reader,
// which waits for the turn to answer the single row.
func TestGRPCEarlyCallHoldsNoTurn(t *testing.T) {
	ds := heart(t)
	srv, _ := testServerConfig(t, Config{Workers: 1}, map[string]core.Model{"heart": linearModel(t, ds, 1)})
	n, nf := 10000, ds.NumFeatures()
	raw := make([]byte, 0, 4*n*nf)
	for r := range n {
		for _, v := range ds.DenseRow(r % ds.Len()) {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
		}
	}
	frame := func(q *inferencepb.ModelInferRequest) []byte {
		msg, err := protoapi.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg))), msg...)
	}
	batch := frame(&inferencepb.ModelInferRequest{ModelName: "heart",
		Inputs:           []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{int64(n), int64(nf)}}},
		RawInputContents: [][]byte{raw}})
	row := frame(&inferencepb.ModelInferRequest{ModelName: "heart",
		Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{1, int64(nf)},
			Contents: &inferencepb.InferTensorContents{Fp32Contents: ds.DenseRow(0)}}}})

	h := dialH2(t, srv.GRPCAddr())
	h.headers(1, "ModelInfer")
	h.data(1, batch[:40<<10], false)
	h.send()
	time.Sleep(10 * time.Millisecond) // the batch starts with part of its rows
	h.headers(3, "ModelInfer")
	h.data(3, row, true)
	h.send()
	statuses := map[uint32]string{}
	h.statuses(statuses, 3)
	h.data(1, batch[40<<10:], true)
	h.send()
	h.statuses(statuses, 1)
	if statuses[3] != "0" || statuses[1] != "0" {
		t.Errorf("grpc-status of the single row %s, of the batch %s; want 0 and 0", statuses[3], statuses[1])
	}
}

// TestSchedSlice starts a server with a 100 µs scheduler slice: every
// thread of the process has it (se.slice in /proc/self/task/*/sched, on
// Linux 6.12+, whose EEVDF takes the custom slice), and a slice outside
// the kernel's range is refused.
func TestSchedSlice(t *testing.T) {
	if _, err := New(nil, Config{HTTPAddr: "127.0.0.1:0", SchedSlice: 50 * time.Microsecond}); err == nil {
		t.Error("a 50 µs slice was accepted")
	}
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	st, err := os.ReadFile("/proc/self/sched")
	if err != nil || !bytes.Contains(st, []byte("se.slice")) {
		t.Skip("no se.slice in /proc/self/sched: a kernel without EEVDF's custom slices")
	}
	ds := heart(t)
	testServerConfig(t, Config{SchedSlice: 100 * time.Microsecond}, map[string]core.Model{"heart": linearModel(t, ds, 1)})
	tasks, err := filepath.Glob("/proc/self/task/*/sched")
	if err != nil || len(tasks) == 0 {
		t.Fatal(tasks, err)
	}
	for _, task := range tasks {
		st, err := os.ReadFile(task)
		if err != nil {
			continue // the thread ended
		}
		_, rest, _ := bytes.Cut(st, []byte("se.slice"))
		_, rest, _ = bytes.Cut(rest, []byte(":"))
		line, _, _ := bytes.Cut(rest, []byte("\n"))
		if got := string(bytes.TrimSpace(line)); got != "100000" {
			t.Errorf("%s: se.slice %s ns, want 100000", task, got)
		}
	}
}
