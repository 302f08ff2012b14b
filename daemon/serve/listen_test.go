package serve

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/libsvmgo/libsvmgo/core"
)

// TestBindNeedsTLSOffLoopback checks that New refuses a TCP address off
// the loopback interface unless TLS or Insecure is given, and accepts
// loopback names and unix sockets.
func TestBindNeedsTLSOffLoopback(t *testing.T) {
	repo := NewRepository(RepositoryOptions{})
	for _, c := range []struct {
		addr     string
		insecure bool
		ok       bool
	}{
		{"127.0.0.1:0", false, true}, {"[::1]:0", false, true}, {"localhost:0", false, true}, {"unix:/tmp/x.sock", false, true},
		{"0.0.0.0:8000", false, false}, {":8000", false, false}, {"192.0.2.1:8000", false, false}, {"example.com:80", false, false},
		{"0.0.0.0:8000", true, true},
	} {
		_, err := New(repo, Config{HTTPAddr: c.addr, Insecure: c.insecure})
		if (err == nil) != c.ok {
			t.Errorf("New(%q, insecure=%v): %v", c.addr, c.insecure, err)
		}
	}
	if _, err := New(repo, Config{}); err == nil {
		t.Error("New without addresses accepted")
	}
	if _, err := New(repo, Config{HTTPAddr: "127.0.0.1:0", TLSCert: "c.pem"}); err == nil {
		t.Error("New with a certificate and no key accepted")
	}
}

// TestUnixSocket serves REST on a unix socket: mode 0660, answering.
func TestUnixSocket(t *testing.T) {
	ds := heart(t)
	path := filepath.Join(t.TempDir(), "oip.sock")
	dir := filepath.Join(t.TempDir(), "heart")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeVersion(dir, 1, linearModel(t, ds, 1)); err != nil {
		t.Fatal(err)
	}
	repo := NewRepository(RepositoryOptions{})
	if err := repo.Add("heart", dir); err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	srv, err := New(repo, Config{HTTPAddr: "unix:" + path})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o660 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket %v, %v: want a socket of mode 0660", fi.Mode(), err)
	}
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", path)
	}}}
	resp, err := c.Get("http://oip/v2/models/heart/ready")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("ready over the socket: %d", resp.StatusCode)
	}
}

// TestSlowClientTimesOut sends half a request and stalls: the server
// answers (or closes) once the read timeout has passed, and keeps
// answering others.
func TestSlowClientTimesOut(t *testing.T) {
	ds := heart(t)
	lim := DefaultLimits()
	lim.ReadTimeout = 300 * time.Millisecond
	srv, _ := testServer(t, lim, map[string]core.Model{"heart": linearModel(t, ds, 1)})
	conn, err := net.Dial("tcp", srv.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /v2/models/heart/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"inputs\":")
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a stalled request held its connection %v", took)
	}
	if err == nil && !strings.Contains(line, "400") {
		t.Errorf("answer to a stalled request: %q", line)
	}
	if code, _ := post(t, srv, "/v2/models/heart/infer", "{"); code != 400 {
		t.Errorf("server after the stalled client: %d", code)
	}
}
