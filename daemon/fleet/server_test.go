package fleet

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// natsServerBin finds Debian's nats-server (make test-deps-fleet installs
// it): a test skips without it unless CI is set, where it fails.
func natsServerBin(t testing.TB) string {
	t.Helper()
	for _, p := range []string{os.Getenv("NATS_SERVER"), "nats-server", "/usr/sbin/nats-server", "/usr/bin/nats-server"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("nats-server not found (make test-deps-fleet installs it)")
	}
	t.Skip("nats-server not found (make test-deps-fleet installs it)")
	return ""
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// natsServer is a real nats-server process on loopback: a hub (JetStream,
// a store directory, a leaf-node listener, the JetStream domain "hub") or
// a leaf node (no JetStream of its own: its clients name the domain "hub",
// whose API the leaf connection carries).
type natsServer struct {
	t        testing.TB
	bin      string
	name     string
	port     int
	leafPort int // the hub's leaf-node listener; 0 for a leaf
	conf     string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// startHub starts a JetStream hub with its store under t.TempDir().
func startHub(t testing.TB) *natsServer {
	s := &natsServer{t: t, bin: natsServerBin(t), name: "hub", port: freePort(t), leafPort: freePort(t)}
	dir := t.TempDir()
	s.conf = filepath.Join(dir, "hub.conf")
	writeConf(t, s.conf, fmt.Sprintf(`server_name: hub
listen: 127.0.0.1:%d
jetstream { store_dir: %q, domain: hub, max_memory_store: 64MB, max_file_store: 1GB }
leafnodes { listen: 127.0.0.1:%d }
max_payload: 8MB
`, s.port, filepath.Join(dir, "js"), s.leafPort))
	s.start()
	return s
}

// startLeaf starts a leaf node connecting to the hub's leaf-node listener
// at hubLeafAddr (the hub's, or a cuttable proxy's).
func startLeaf(t testing.TB, name, hubLeafAddr string) *natsServer {
	s := &natsServer{t: t, bin: natsServerBin(t), name: name, port: freePort(t)}
	s.conf = filepath.Join(t.TempDir(), name+".conf")
	writeConf(t, s.conf, fmt.Sprintf(`server_name: %s
listen: 127.0.0.1:%d
leafnodes { reconnect: 1, remotes [ { url: "nats-leaf://%s" } ] }
`, name, s.port, hubLeafAddr))
	s.start()
	return s
}

func writeConf(t testing.TB, path, conf string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
}

// URL is the server's client URL.
func (s *natsServer) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.port) }

// start starts the process and waits until it accepts clients.
func (s *natsServer) start() {
	s.t.Helper()
	cmd := exec.Command(s.bin, "-c", s.conf)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &syncWriter{w: &out}, &syncWriter{w: &out}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	s.t.Cleanup(func() { s.kill() })
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("nats-server %s did not start: %v\n%s", s.name, err, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pid returns the running server's process id.
func (s *natsServer) pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd.Process.Pid
}

// kill kills the server with SIGKILL and waits for it.
func (s *natsServer) kill() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
}

// restart kills the server and starts it again on the same port and store.
func (s *natsServer) restart() {
	s.kill()
	s.start()
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// connect connects a test client to url, failing the test on error.
func connect(t testing.TB, url string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := Connect(ConnOptions{URL: url, Name: t.Name(), ReconnectWait: 50 * time.Millisecond}, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.NewWithDomain(nc, "hub")
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// cutProxy forwards TCP from its own loopback port to target until cut:
// a cut closes every connection and refuses new ones until healed, as a
// network partition does to a leaf node.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	conns  []net.Conn
}

func newCutProxy(t testing.TB, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.setCut(true) })
	go p.serve()
	return p
}

func (p *cutProxy) Addr() string { return p.ln.Addr().String() }

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		u, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns = append(p.conns, c, u)
		p.mu.Unlock()
		go func() { io.Copy(u, c); u.Close() }()
		go func() { io.Copy(c, u); c.Close() }()
	}
}

// setCut cuts (true) or heals (false) the link.
func (p *cutProxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}
