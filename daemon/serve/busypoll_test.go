package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// busyPollPair returns a busy-polling server end (budget, with pollers
// allowed at once) of a loopback TCP connection and its client end.
func busyPollPair(t *testing.T, budget time.Duration, pollers int32) (*busyPollConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	bl := &busyPollListener{Listener: ln, budget: budget, polling: new(atomic.Int32), pollers: pollers}
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := bl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); client.Close() })
	return c.(*busyPollConn), client
}

// TestBusyPollConn checks the poller's contract on a real socket: data
// sent while it polls is read by polling; a read that waited past the
// budget turns polling off until a blocking read waits within it; EOF,
// a past read deadline and a full count of pollers give what a plain
// net.Conn gives, and the writing half closes.
func TestBusyPollConn(t *testing.T) {
	// A budget far above a read's time, and a pause far above the budget,
	// so that a loaded machine's stalls do not turn one into the other.
	c, client := busyPollPair(t, 10*time.Millisecond, 1)
	buf := make([]byte, 16)
	// Sent before the read: the first poll finds it.
	client.Write([]byte("a"))
	time.Sleep(5 * time.Millisecond)
	if n, err := c.Read(buf); n != 1 || err != nil || c.polled.Load() != 1 || !c.short {
		t.Fatalf("read %d, %v; polled %d, short %v", n, err, c.polled.Load(), c.short)
	}
	// Sent 200 ms after the read starts: the poll ends, the read blocks,
	// and the next read does not poll.
	go func() { time.Sleep(200 * time.Millisecond); client.Write([]byte("bc")) }()
	if n, err := c.Read(buf); n != 2 || err != nil || c.polls.Load() != 2 || c.polled.Load() != 1 || c.short {
		t.Fatalf("read %d, %v; polls %d, polled %d, short %v", n, err, c.polls.Load(), c.polled.Load(), c.short)
	}
	// A blocking read whose data is there at once: polling is back on.
	client.Write([]byte("d"))
	time.Sleep(5 * time.Millisecond)
	if n, err := c.Read(buf); n != 1 || err != nil || c.polls.Load() != 2 || !c.short {
		t.Fatalf("read %d, %v; polls %d, short %v", n, err, c.polls.Load(), c.short)
	}
	// Every poller slot taken: the read blocks without polling.
	c.l.polling.Add(1)
	client.Write([]byte("e"))
	if n, err := c.Read(buf); n != 1 || err != nil || c.polls.Load() != 2 || c.l.polling.Load() != 1 {
		t.Fatalf("read %d, %v; polls %d, polling %d", n, err, c.polls.Load(), c.l.polling.Load())
	}
	c.l.polling.Add(-1)
	// A read deadline in the past: the net.Conn's timeout error.
	c.SetReadDeadline(time.Now().Add(-time.Second))
	if _, err := c.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v", err)
	}
	c.SetReadDeadline(time.Time{})
	// The writing half closes; the client sees EOF and closes; the
	// poller sees EOF.
	if err := c.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Read(buf); err != io.EOF {
		t.Fatalf("client read after CloseWrite: %v", err)
	}
	client.Close()
	if n, err := c.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("read after the peer closed: %d, %v", n, err)
	}
	if c.l.polling.Load() != 0 {
		t.Fatalf("%d pollers left counted", c.l.polling.Load())
	}
}

// TestBusyPollReadAllocs checks that a read that polls allocates nothing.
func TestBusyPollReadAllocs(t *testing.T) {
	c, client := busyPollPair(t, time.Millisecond, 1)
	buf := make([]byte, 1)
	allocs := testing.AllocsPerRun(100, func() {
		client.Write(buf)
		if n, err := c.Read(buf); n != 1 || err != nil {
			t.Fatalf("read %d, %v", n, err)
		}
	})
	if allocs != 0 || c.polled.Load() == 0 {
		t.Fatalf("%v allocations a read; %d of %d polls found data", allocs, c.polled.Load(), c.polls.Load())
	}
}

// TestBusyPollServes checks that a server with BusyPoll answers REST and
// gRPC as without it, that its REST connection is read by polling while
// the client sends back to back, and that a second connection is answered
// while the first one's reader polls.
func TestBusyPollServes(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("busy polling is off with GOMAXPROCS 1")
	}
	ds := heart(t)
	lm := linearModel(t, ds, 1)
	srv, _ := testServerConfig(t, Config{BusyPoll: time.Millisecond}, map[string]core.Model{"heart": lm})
	body := `{"inputs":[{"name":"x","shape":[1,13],"datatype":"FP32","data":` + rowsJSON(ds, []int{0}, false) + `}]}`
	req := fmt.Sprintf("POST /v2/models/heart/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	want := fmt.Sprintf(`"data":[%d]`, int(lm.PredictDense(ds.DenseRow(0))))
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", srv.HTTPAddr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c, bufio.NewReader(c)
	}
	roundTrip := func(c net.Conn, r *bufio.Reader) {
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		resp, err := readResponse(r)
		if err != nil || !strings.Contains(resp, want) {
			t.Fatalf("answer %q, %v; want %s", resp, err, want)
		}
	}
	c1, r1 := dial()
	for range 200 {
		roundTrip(c1, r1)
	}
	var polls, polled int
	srv.httpSrv.mu.Lock()
	for hc := range srv.httpSrv.conns {
		bc := hc.c.(*busyPollConn)
		polls, polled = polls+int(bc.polls.Load()), polled+int(bc.polled.Load())
	}
	srv.httpSrv.mu.Unlock()
	// The first request and any pause past 1 ms (a loaded machine) are
	// read by blocking; a back-to-back client is mostly read by polling.
	t.Logf("%d of 200 requests read by polling (%d polls)", polled, polls)
	if polled < 20 {
		t.Errorf("%d of 200 requests read by polling (%d polls)", polled, polls)
	}
	// A second connection while the first polls.
	c2, r2 := dial()
	for range 20 {
		roundTrip(c1, r1)
		roundTrip(c2, r2)
	}

	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := inferencepb.NewGRPCInferenceServiceClient(conn)
	x := ds.DenseRow(1)
	for range 50 {
		resp, err := client.ModelInfer(context.Background(), &inferencepb.ModelInferRequest{ModelName: "heart",
			Inputs: []*inferencepb.ModelInferRequest_InferInputTensor{{Name: "x", Datatype: "FP32", Shape: []int64{1, int64(len(x))},
				Contents: &inferencepb.InferTensorContents{Fp32Contents: x}}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Outputs[0].Contents.Int64Contents; len(got) != 1 || float64(got[0]) != lm.PredictDense(x) {
			t.Fatalf("gRPC label %v, want %v", got, lm.PredictDense(x))
		}
	}
}

// readResponse reads one HTTP/1.1 answer with a Content-Length and
// returns its headers and body.
func readResponse(r *bufio.Reader) (string, error) {
	var b strings.Builder
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return b.String(), err
		}
		b.WriteString(line)
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			fmt.Sscan(strings.TrimSpace(v), &n)
		}
		if line == "\r\n" {
			break
		}
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	b.Write(body)
	return b.String(), err
}

// TestBusyPollConfig checks that New refuses a negative busy poll and one
// past maxBusyPoll.
func TestBusyPollConfig(t *testing.T) {
	repo := NewRepository(RepositoryOptions{})
	for _, d := range []time.Duration{-time.Microsecond, 2 * time.Millisecond} {
		if _, err := New(repo, Config{HTTPAddr: "127.0.0.1:0", BusyPoll: d}); err == nil {
			t.Errorf("BusyPoll %v accepted", d)
		}
	}
}
