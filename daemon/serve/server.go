package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// grpcWindow is the HTTP/2 flow-control window of a gRPC stream and
// connection, in bytes.
const grpcWindow = 4 << 20

// Limits bound what one request, and all requests together, may take. A
// request past a limit is refused with its own status (doc.go) and the
// server carries on.
type Limits struct {
	// MaxRequestBytes caps a request body (REST) or message (gRPC).
	MaxRequestBytes int64
	// MaxRows caps the rows of one inference request.
	MaxRows int
	// MaxJSONDepth caps the nesting of a REST request's JSON.
	MaxJSONDepth int
	// MaxInFlight bounds the inference requests answered at once, both
	// protocols together; past it a request is refused at once (HTTP 429,
	// gRPC RESOURCE_EXHAUSTED) rather than queued.
	MaxInFlight int
	// ReadTimeout and WriteTimeout bound reading a REST request and
	// writing its answer; IdleTimeout a kept-alive connection's wait.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
}

// DefaultLimits are the limits of svmgo serve's flags' defaults.
func DefaultLimits() Limits {
	return Limits{
		MaxRequestBytes: 16 << 20,
		MaxRows:         65536,
		MaxJSONDepth:    16,
		MaxInFlight:     256,
		ReadTimeout:     30 * time.Second,
		WriteTimeout:    30 * time.Second,
		IdleTimeout:     120 * time.Second,
	}
}

// validate refuses limits that would refuse every request.
func (l Limits) validate() error {
	if l.MaxRequestBytes < 1 || l.MaxRows < 1 || l.MaxJSONDepth < 4 || l.MaxInFlight < 1 ||
		l.ReadTimeout <= 0 || l.WriteTimeout <= 0 || l.IdleTimeout <= 0 {
		return fmt.Errorf("serve: limits %+v: sizes, rows and in-flight must be at least 1, JSON depth at least 4 (an input's rows), timeouts positive", l)
	}
	return nil
}

// Config configures a Server.
type Config struct {
	// HTTPAddr and GRPCAddr are where the REST and gRPC endpoints listen:
	// host:port, or unix:PATH for a unix socket (mode 0660). Empty: that
	// protocol is not served. A TCP address off the loopback interface
	// needs TLS (TLSCert, TLSKey) or Insecure.
	HTTPAddr, GRPCAddr string
	// TLSCert and TLSKey are PEM files; both set serves TLS on both
	// protocols.
	TLSCert, TLSKey string
	// Insecure allows a non-loopback TCP address without TLS.
	Insecure bool
	// Limits; the zero value means DefaultLimits.
	Limits Limits
	// Logger; nil discards.
	Logger *slog.Logger
	// BusyPoll is how long a connection's reader polls its socket
	// without blocking before it blocks (busypoll.go): a reader that
	// polls keeps its CPU from idling, so that an interactive client's
	// next request is read without a wake-up, at the cost of up to
	// BusyPoll of CPU time a read. Zero: reads block at once.
	BusyPoll time.Duration
	// GRPCGo serves gRPC with grpc-go's server instead of the package's
	// own HTTP/2 connection loop (grpch2.go), for comparison: the same
	// services and answers, with grpc-go's goroutine hand-offs.
	GRPCGo bool
	// SchedSlice, when positive, is the scheduler slice of the server's
	// threads (Linux 6.12+: an EEVDF custom slice, 100 µs to 100 ms):
	// on a busy machine a thread woken by a request runs after about that
	// long rather than the kernel's default slice (schedslice_linux.go).
	SchedSlice time.Duration
	// HeapFloor, when positive, is the least heap goal the collector is
	// paced to, in bytes (heapfloor.go): while the live heap is small,
	// GOGC's percentage is raised so that a collection runs once that
	// much is allocated rather than at the runtime's 4 MB, fewer
	// collections interrupting requests for up to that much more memory.
	// It is process-wide, as GOGC is. Zero: the runtime's own pacing.
	HeapFloor uint64
	// Workers, when positive, is the inference requests worked on at
	// once, the others waiting for their turn, first come first served
	// (turns.go). Zero or negative, the default: no queue, every request
	// is worked on as soon as its connection's goroutine reads it.
	Workers int
}

// Server answers the Open Inference Protocol over REST and gRPC for the
// models of a Repository (doc.go).
type Server struct {
	repo     *Repository
	cfg      Config
	lim      Limits
	log      *slog.Logger
	tls      *tls.Config
	inFlight chan struct{}
	turns    chan struct{} // turns.go; nil: no queue
	draining atomic.Bool

	httpSrv *http1Server
	grpcSrv *grpc.Server // with Config.GRPCGo
	h2Srv   *h2Server    // otherwise
	health  *health.Server
	// healthStatus is the status last given to health (healthSet: once).
	healthMu     sync.Mutex
	healthStatus healthpb.HealthCheckResponse_ServingStatus
	healthSet    bool
	httpLn       net.Listener
	grpcLn       net.Listener
	wg           sync.WaitGroup
	// helpers take a large batch's rows to predict with its request's
	// goroutine (batchstream.go).
	helpers     chan *inference
	helpersQuit chan struct{}
	helpersStop sync.Once
	helpersWG   sync.WaitGroup
	// sliceStop ends keepSchedSlice's rescans (once, however often
	// Shutdown is called).
	sliceStop     chan struct{}
	sliceStopOnce sync.Once
	heapFloor     *heapFloor // nil: none
}

// New checks cfg and returns a server of repo's models; Start listens.
func New(repo *Repository, cfg Config) (*Server, error) {
	if cfg.Limits == (Limits{}) {
		cfg.Limits = DefaultLimits()
	}
	if err := cfg.Limits.validate(); err != nil {
		return nil, err
	}
	if cfg.SchedSlice != 0 && (cfg.SchedSlice < 100*time.Microsecond || cfg.SchedSlice > 100*time.Millisecond) {
		return nil, fmt.Errorf("serve: scheduler slice %v: want 100µs to 100ms", cfg.SchedSlice)
	}
	if cfg.BusyPoll < 0 || cfg.BusyPoll > maxBusyPoll {
		return nil, fmt.Errorf("serve: busy poll %v: want 0 to %v", cfg.BusyPoll, maxBusyPoll)
	}
	if cfg.HTTPAddr == "" && cfg.GRPCAddr == "" {
		return nil, errors.New("serve: neither an HTTP nor a gRPC address")
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return nil, errors.New("serve: --tls-cert and --tls-key go together")
	}
	s := &Server{repo: repo, cfg: cfg, lim: cfg.Limits, log: cfg.Logger, inFlight: make(chan struct{}, cfg.Limits.MaxInFlight),
		turns: newTurns(cfg.Workers)}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("serve: TLS: %w", err)
		}
		s.tls = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	for _, a := range []string{cfg.HTTPAddr, cfg.GRPCAddr} {
		if err := checkBind(a, s.tls != nil || cfg.Insecure); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// checkBind refuses a TCP address off the loopback interface unless the
// server is protected (TLS) or told it need not be (--insecure): the
// endpoints have no authentication of their own.
func checkBind(addr string, open bool) error {
	if addr == "" || strings.HasPrefix(addr, "unix:") || open {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("serve: address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("serve: address %q is not on the loopback interface: give --tls-cert and --tls-key, or --insecure", addr)
	}
	return nil
}

// listen listens on addr: TCP, or unix:PATH (a stale socket there is
// removed; the new one gets mode 0660).
func listen(addr string) (net.Listener, error) {
	path, ok := strings.CutPrefix(addr, "unix:")
	if !ok {
		return net.Listen("tcp", addr)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSocket == 0 {
			return nil, fmt.Errorf("serve: %s exists and is not a socket", path)
		}
		os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o660); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// Start listens on the configured addresses and serves in the background
// until Shutdown.
func (s *Server) Start() error {
	if s.cfg.SchedSlice > 0 {
		s.sliceStop = make(chan struct{})
		if err := keepSchedSlice(s.cfg.SchedSlice, s.sliceStop); err != nil {
			return fmt.Errorf("serve: scheduler slice %v: %w", s.cfg.SchedSlice, err)
		}
	}
	s.heapFloor = startHeapFloor(s.cfg.HeapFloor)
	s.startHelpers(runtime.GOMAXPROCS(0) - 1)
	if s.cfg.HTTPAddr != "" {
		ln, err := listen(s.cfg.HTTPAddr)
		if err != nil {
			return fmt.Errorf("serve: http: %w", err)
		}
		s.httpLn = ln
		s.httpSrv = newHTTP1Server(withBusyPoll(ln, s.cfg.BusyPoll), s.Handler(), s.lim, s.tls, s.log)
		s.wg.Go(func() {
			if err := s.httpSrv.serve(); !errors.Is(err, http.ErrServerClosed) {
				s.log.Error("serve: http server stopped", "err", err)
			}
		})
		s.log.Info("serve: http listening", "addr", addrString(ln))
	}
	if s.cfg.GRPCAddr != "" {
		ln, err := listen(s.cfg.GRPCAddr)
		if err != nil {
			if s.httpSrv != nil {
				s.httpSrv.close()
			}
			return fmt.Errorf("serve: grpc: %w", err)
		}
		s.grpcLn = ln
		s.health = health.NewServer()
		update := s.updateHealth
		s.repo.onChange.Store(&update)
		s.updateHealth()
		if s.cfg.GRPCGo {
			s.startGRPCGo(ln)
		} else {
			s.h2Srv = newH2Server(s.lim, s.tls, s.log)
			g := &grpcService{s: s}
			inferencepb.RegisterGRPCInferenceServiceServer(s.h2Srv, g)
			// ModelInfer reads the request's wire bytes (grpcwire.go), a
			// batch's raw rows as they arrive.
			s.h2Srv.handleUnary(inferencepb.GRPCInferenceService_ModelInfer_FullMethodName, g.modelInferWire, g.modelInferArriving)
			healthpb.RegisterHealthServer(s.h2Srv, s.health)
			s.wg.Go(func() {
				if err := s.h2Srv.serve(withBusyPoll(ln, s.cfg.BusyPoll)); !errors.Is(err, grpc.ErrServerStopped) {
					s.log.Error("serve: grpc server stopped", "err", err)
				}
			})
		}
		s.log.Info("serve: grpc listening", "addr", addrString(ln))
	}
	return nil
}

// startGRPCGo serves gRPC on ln with grpc-go's server (Config.GRPCGo).
func (s *Server) startGRPCGo(ln net.Listener) {
	// Flow-control windows of a few MB: a 1000-row batch is megabytes,
	// and with HTTP/2's 64 KB initial window its transfer waits for
	// window updates until gRPC's estimate has grown the window. Fixed
	// windows also turn off that estimate's BDP pings, which cost a
	// single row more than the inference: without them grpc-go's client
	// took 1.38x the p50 and the server 1.59x the CPU a request
	// (servetime, 4 alternated runs, load 11-17). Measured the same
	// way against these options, lean client, p50 and server CPU:
	// without NumStreamWorkers 0.99x and 1.05x; with SharedWriteBuffer
	// 0.98x and 1.03x, with a 64 KB ReadBufferSize 1.07x and 1.13x
	// (neither set); with WriteBufferSize 0 (each frame written at
	// once) 1.37x and 1.48x.
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(int(min(s.lim.MaxRequestBytes, 1<<31-1))),
		grpc.ConnectionTimeout(s.lim.ReadTimeout),
		grpc.InitialWindowSize(grpcWindow),
		grpc.InitialConnWindowSize(grpcWindow),
		// A fixed set of goroutines answers the streams instead of a
		// new goroutine for each request.
		grpc.NumStreamWorkers(uint32(runtime.GOMAXPROCS(0))),
		// ModelInfer requests reach modelInferHandler as wire bytes.
		grpc.ForceServerCodecV2(newWireCodec()),
	}
	if s.tls != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(s.tls)))
	}
	s.grpcSrv = grpc.NewServer(opts...)
	s.grpcSrv.RegisterService(inferServiceDesc(), &grpcService{s: s})
	healthpb.RegisterHealthServer(s.grpcSrv, s.health)
	s.wg.Go(func() {
		if err := s.grpcSrv.Serve(withBusyPoll(ln, s.cfg.BusyPoll)); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			s.log.Error("serve: grpc server stopped", "err", err)
		}
	})
}

func addrString(ln net.Listener) string {
	if ln.Addr().Network() == "unix" {
		return "unix:" + ln.Addr().String()
	}
	return ln.Addr().String()
}

// HTTPAddr returns the address the REST endpoints listen on (the port
// chosen when the configured one was 0), "" when none.
func (s *Server) HTTPAddr() string {
	if s.httpLn == nil {
		return ""
	}
	return addrString(s.httpLn)
}

// GRPCAddr is HTTPAddr for the gRPC endpoint.
func (s *Server) GRPCAddr() string {
	if s.grpcLn == nil {
		return ""
	}
	return addrString(s.grpcLn)
}

// ready reports the server's readiness: not draining, and every model
// with a version to serve.
func (s *Server) ready() bool { return !s.draining.Load() && s.repo.Ready() }

// updateHealth sets the gRPC health service's status ("" is the whole
// server; each model by name too).
func (s *Server) updateHealth() {
	if s.health == nil {
		return
	}
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if s.ready() {
		st = healthpb.HealthCheckResponse_SERVING
	}
	// A swap calls this too; the health service's lock and its watchers
	// are touched only when readiness changed.
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	if s.healthSet && s.healthStatus == st {
		return
	}
	s.healthSet, s.healthStatus = true, st
	s.health.SetServingStatus("", st)
	s.health.SetServingStatus(inferencepb.GRPCInferenceService_ServiceDesc.ServiceName, st)
}

// acquire takes a slot of the in-flight bound, or refuses at once.
func (s *Server) acquire() error {
	if s.draining.Load() {
		return errDraining
	}
	select {
	case s.inFlight <- struct{}{}:
		s.repo.metrics.inFlight.Add(1)
		return nil
	default:
		return errBusy
	}
}

func (s *Server) releaseSlot() {
	s.repo.metrics.inFlight.Add(-1)
	<-s.inFlight
}

// Shutdown drains the server: readiness turns false at once (so a load
// balancer stops sending), new inferences are refused with 503 /
// UNAVAILABLE, and the requests in flight finish; when ctx ends first
// the connections are closed. It then stops following the models.
func (s *Server) Shutdown(ctx context.Context) error {
	s.draining.Store(true)
	if s.sliceStop != nil {
		s.sliceStopOnce.Do(func() { close(s.sliceStop) })
	}
	if s.health != nil {
		s.health.Shutdown()
	}
	var errs []error
	if s.httpSrv != nil {
		if err := s.httpSrv.shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if s.h2Srv != nil {
		if err := s.h2Srv.shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if s.grpcSrv != nil {
		done := make(chan struct{})
		go func() { s.grpcSrv.GracefulStop(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			s.grpcSrv.Stop()
			<-done
			errs = append(errs, ctx.Err())
		}
	}
	s.wg.Wait()
	s.stopHelpers()
	s.heapFloor.stop()
	return errors.Join(errs...)
}
