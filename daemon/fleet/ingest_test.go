package fleet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/libsvmgo/libsvmgo/daemon/store"
	"github.com/libsvmgo/libsvmgo/daemon/watchd"
)

// testBatch returns LIBSVM text of rows rows unique to batch i: row j is
// "±1 1:i 2:j 3:..." so the store's rows name their batch.
func testBatch(i, rows int) string {
	var b strings.Builder
	for j := range rows {
		label := "+1"
		if (i+j)%2 == 1 {
			label = "-1"
		}
		x3 := float64((i*7+j*3)%11) / 11
		if label == "+1" {
			x3 += 1
		}
		b.WriteString(label + " 1:" + strconv.Itoa(i) + " 2:" + strconv.Itoa(j) + " 3:" + strconv.FormatFloat(x3, 'g', 6, 64) + "\n")
	}
	return b.String()
}

// waitDrained waits until the consumer has no message pending or in
// flight.
func waitDrained(t testing.TB, js jetstream.JetStream, stream, durable string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := js.Consumer(ctx, stream, durable)
		var info *jetstream.ConsumerInfo
		if err == nil {
			info, err = c.Info(ctx)
		}
		cancel()
		if err == nil && info.NumPending == 0 && info.NumAckPending == 0 && info.Delivered.Stream > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("consumer not drained after %v: %+v, %v", timeout, info, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestIngestFromStream feeds an in-process daemon from a stream: good
// batches are stored once each (a second message of the same bytes is a
// duplicate), a bad one and one with an unknown format header are
// terminated and kept in rejected/ with their reasons, a CSV batch with a
// weight-column header is read as CSV, and a file in incoming/ is
// ingested beside the stream.
func TestIngestFromStream(t *testing.T) {
	hub := startHub(t)
	_, js := connect(t, hub.URL())
	root := t.TempDir()
	cfg := watchd.DefaultConfig()
	cfg.Root = root
	cfg.Store = store.Config{Capacity: 1000, MaxFeatures: 8, CapacityNonzeros: 8000, Policy: store.EvictNonSVOldest}
	d, err := watchd.New(cfg, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan *watchd.Message)
	d.SetSource(ch)
	icfg := IngestConfig{Stream: "BATCHES", Subjects: []string{"batches.>"}}
	ingestDone := make(chan error, 1)
	go func() { ingestDone <- Ingest(ctx, js, icfg, ch, testLog(t)) }()
	runDone := make(chan error, 1)
	go func() { runDone <- d.Run(ctx) }()

	// The stream exists once Ingest made it.
	waitFor(t, 10*time.Second, func() bool {
		_, err := js.Stream(context.Background(), "BATCHES")
		return err == nil
	})
	pub := func(data string, h nats.Header) uint64 {
		t.Helper()
		msg := &nats.Msg{Subject: "batches.x", Data: []byte(data), Header: h}
		ack, err := js.PublishMsg(context.Background(), msg)
		if err != nil {
			t.Fatal(err)
		}
		return ack.Sequence
	}
	good := []string{testBatch(1, 4), testBatch(2, 5)}
	csv := "label,x1,x2,w\n1,0.5,1,2\n-1,0.25,0,1\n1,0.75,1,3\n"
	pub(good[0], nil)
	badSeq := pub("+1 1:0.5\nnot a row\n", nil)
	pub(good[1], nil)
	pub(good[0], nil) // the same bytes again: a duplicate
	pub(csv, nats.Header{HeaderFormat: {"csv"}, HeaderWeightColumn: {"4"}})
	fmtSeq := pub(good[0], nats.Header{HeaderFormat: {"parquet"}})
	fileBatch := testBatch(3, 2)
	if err := os.WriteFile(filepath.Join(root, "incoming", "f.txt"), []byte(fileBatch), 0o644); err != nil {
		t.Fatal(err)
	}
	waitDrained(t, js, "BATCHES", DefaultDurable, 30*time.Second)
	waitFor(t, 10*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(root, "done", "f.txt"))
		return err == nil
	})
	cancel()
	if err := <-runDone; err != nil {
		t.Fatal(err)
	}
	var metrics bytes.Buffer
	d.WriteMetrics(&metrics) // after Run: a batch is counted just after it is settled
	if err := <-ingestDone; err != nil {
		t.Fatal(err)
	}

	st, err := store.Open(filepath.Join(root, "state"), cfg.Store)
	if err != nil {
		t.Fatal(err)
	}
	want := map[store.Hash]bool{}
	for _, s := range []string{good[0], good[1], csv, fileBatch} {
		want[store.Hash(sha256.Sum256([]byte(s)))] = true
	}
	got := st.Hashes()
	if len(got) != len(want) {
		t.Errorf("store holds %d batches, want %d", len(got), len(want))
	}
	for _, h := range got {
		if !want[h] {
			t.Errorf("store holds batch %x, never published as a good batch", h[:8])
		}
	}
	if n := st.Len(); n != 4+5+3+2 {
		t.Errorf("store holds %d rows, want %d", n, 4+5+3+2)
	}
	for seq, why := range map[uint64]string{badSeq: "BATCHES-" + strconv.Itoa(int(badSeq)) + ".txt:2", fmtSeq: "parquet"} {
		name := "BATCHES-" + strconv.Itoa(int(seq)) + ".txt"
		reason, err := os.ReadFile(filepath.Join(root, "rejected", name+".reason"))
		if err != nil {
			t.Errorf("rejected message %d: %v", seq, err)
			continue
		}
		if !strings.Contains(string(reason), why) {
			t.Errorf("reason of message %d = %q, want it to name %q", seq, reason, why)
		}
		if _, err := os.Stat(filepath.Join(root, "rejected", name)); err != nil {
			t.Errorf("rejected message %d not kept: %v", seq, err)
		}
	}
	for _, want := range []string{"svmgo_batches_ingested_total 4", "svmgo_batches_rejected_total 2", "svmgo_batches_duplicate_total 1"} {
		if !strings.Contains(metrics.String(), want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// waitFor polls cond every 20 ms until it holds, failing after timeout.
func waitFor(t testing.TB, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met after %v", timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// testLog logs through t.Log when FLEET_LOG is set, and discards otherwise.
func testLog(t testing.TB) *slog.Logger {
	if os.Getenv("FLEET_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(tWriter{t}, nil))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
