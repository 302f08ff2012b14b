package main

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestServeHTTPShutdownAndServeError: serveHTTP answers until stopped, its
// stop waits for Serve to return and logs nothing for a graceful shutdown;
// a listener that fails under Serve is logged as an error.
func TestServeHTTPShutdownAndServeError(t *testing.T) {
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := serveHTTP(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }), log)
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" {
		t.Fatalf("body %q", body)
	}
	stop()
	if _, err := http.Get("http://" + ln.Addr().String() + "/"); err == nil {
		t.Error("the server still answers after stop")
	}
	if logs.Len() != 0 {
		t.Errorf("a graceful shutdown logged: %s", logs.String())
	}

	broken := &failingListener{Listener: mustListen(t)}
	stop = serveHTTP(broken, http.NotFoundHandler(), log)
	for deadline := time.Now().Add(10 * time.Second); logs.String() == "" && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	stop()
	if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "accept fails") {
		t.Errorf("a failing listener was not logged as an error: %q", logs.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the server goroutine's log
// writes and the test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func (b *syncBuffer) Len() int { return len(b.String()) }

// failingListener is a listener whose Accept fails at once, as a listener
// broken under a running server does.
type failingListener struct{ net.Listener }

func (l *failingListener) Accept() (net.Conn, error) { return nil, errors.New("accept fails") }

func mustListen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}
