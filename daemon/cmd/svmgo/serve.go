//go:build !svmgo_batch

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/libsvmgo/libsvmgo/daemon/serve"
)

const serveUsage = `usage: svmgo serve --repository DIR [flags]

Serves the models of DIR over the Open Inference Protocol (KServe v2): REST
on --http and inference.GRPCInferenceService on --grpc. Each subdirectory of
DIR is a model of its name, in the layout svmgo watch publishes into its
models/ (model-<version>.svmgo) or in Triton's (<version>/model.svmgo or
<version>/model.onnx); each is followed, and a new valid version
is swapped in without a failed request; a file that fails to load is
skipped and counted. Addresses are host:port or unix:PATH (mode 0660); a
TCP address off the loopback interface needs --tls-cert and --tls-key, or
--insecure. SIGINT/SIGTERM drain: readiness goes false, requests in flight
finish (up to --drain-timeout). Endpoints, outputs and error codes: the
package documentation of daemon/serve (go doc ./daemon/serve).

Exit status: 0 after a signal, 1 on a runtime failure, 2 on a usage error.

flags:
`

// serveFlags are the flags svmgo serve and svmgo watch --serve share:
// addresses, TLS, limits. prefix is "" for serve and "serve." for watch.
type serveFlags struct {
	cfg          serve.Config
	policy       string
	modelPolicy  multiFlag
	drainTimeout time.Duration
}

// multiFlag is a flag that may be given many times.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// defaultHeapFloorMiB is --heap-floor-mib's default: four times the
// runtime's 4 MB minimum goal, so a small model's server collects a
// quarter as often, for up to 12 MB more memory (serve.Config.HeapFloor;
// 8 MiB paid for gRPC but not for REST's h2load figure: 5 alternated
// rounds under chrt -f 20 at load 19-29, p99 / p50 REST h2load 2.28 (as
// before) / 2.27 (8 MiB) / 2.08 (16 MiB), wrk 2.67 / 2.44 / 2.22, gRPC
// 2.96 / 2.67 / 2.71; with the collector off 2.09, 2.13, 2.71).
const defaultHeapFloorMiB = 16

func addServeFlags(fs *flag.FlagSet, prefix string, f *serveFlags, httpDefault, grpcDefault string) {
	c, lim := &f.cfg, serve.DefaultLimits()
	c.Limits = lim
	c.HeapFloor = defaultHeapFloorMiB << 20
	fs.StringVar(&c.HTTPAddr, prefix+"http", httpDefault, "REST address: host:port or unix:PATH; empty: no REST")
	fs.StringVar(&c.GRPCAddr, prefix+"grpc", grpcDefault, "gRPC address: host:port or unix:PATH; empty: no gRPC")
	fs.StringVar(&c.TLSCert, prefix+"tls-cert", "", "PEM certificate: serve TLS on both protocols (with --tls-key)")
	fs.StringVar(&c.TLSKey, prefix+"tls-key", "", "PEM private key of --tls-cert")
	fs.BoolVar(&c.Insecure, prefix+"insecure", false, "allow a TCP address off the loopback interface without TLS")
	fs.StringVar(&f.policy, prefix+"policy", "latest", "version policy of every model: latest, latest:N, all or specific:V[,V...]")
	fs.Var(&f.modelPolicy, prefix+"model-policy", "NAME=POLICY: version policy of one model (repeatable)")
	fs.Int64Var(&c.Limits.MaxRequestBytes, prefix+"max-request-bytes", lim.MaxRequestBytes, "largest request body or gRPC message (413 / gRPC's RESOURCE_EXHAUSTED past it)")
	fs.IntVar(&c.Limits.MaxRows, prefix+"max-rows", lim.MaxRows, "most rows in one inference request (413 / INVALID_ARGUMENT past it)")
	fs.IntVar(&c.Limits.MaxJSONDepth, prefix+"max-json-depth", lim.MaxJSONDepth, "deepest JSON nesting of a REST request (400 past it)")
	fs.IntVar(&c.Limits.MaxInFlight, prefix+"max-in-flight", lim.MaxInFlight, "inference requests answered at once (429 / RESOURCE_EXHAUSTED past it)")
	fs.DurationVar(&c.Limits.ReadTimeout, prefix+"read-timeout", lim.ReadTimeout, "longest time to read a REST request")
	fs.DurationVar(&c.Limits.WriteTimeout, prefix+"write-timeout", lim.WriteTimeout, "longest time to answer a REST request")
	fs.DurationVar(&c.Limits.IdleTimeout, prefix+"idle-timeout", lim.IdleTimeout, "longest wait of an idle kept-alive REST connection")
	fs.DurationVar(&c.BusyPoll, prefix+"busy-poll", 0, "how long a connection's reader polls for the next request before it blocks (e.g. 50us; at most 1ms): lower single-row latency on an idle machine for up to that much CPU a read; 0: off")
	fs.DurationVar(&c.SchedSlice, prefix+"sched-slice", 0, "scheduler slice of the server's threads (Linux 6.12+, e.g. 100us): on a busy machine a thread woken by a request runs after about that long rather than the kernel's default slice; 0: the default")
	fs.Func(prefix+"heap-floor-mib", "least heap goal of the garbage collector, MiB (GOGC's percentage raised while the live heap is smaller): fewer collections interrupting requests, for up to that much more memory; 0: the runtime's own pacing (default "+strconv.Itoa(defaultHeapFloorMiB)+")", func(v string) error {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return err
		}
		c.HeapFloor = n << 20
		return nil
	})
	fs.IntVar(&c.Workers, prefix+"workers", 0, "inference requests worked on at once, the others served first come first served (GOMAXPROCS-1 leaves a CPU to poll the network and to clients on a busy machine); 0: no queue, each request worked on as soon as it is read")
	fs.BoolVar(&c.GRPCGo, prefix+"grpc-go", false, "serve gRPC with grpc-go's server instead of serve's own HTTP/2 loop (the same services and answers; for comparison)")
	fs.DurationVar(&f.drainTimeout, prefix+"drain-timeout", 10*time.Second, "on SIGINT/SIGTERM, longest wait for requests in flight")
}

// repositoryOptions parses the version policies.
func (f *serveFlags) repositoryOptions(log *slog.Logger) (serve.RepositoryOptions, error) {
	opt := serve.RepositoryOptions{Logger: log, Policies: map[string]serve.Policy{}}
	var err error
	if opt.Policy, err = serve.ParsePolicy(f.policy); err != nil {
		return opt, err
	}
	for _, mp := range f.modelPolicy {
		name, p, ok := strings.Cut(mp, "=")
		if !ok {
			return opt, fmt.Errorf("model-policy %q: want NAME=POLICY", mp)
		}
		if opt.Policies[name], err = serve.ParsePolicy(p); err != nil {
			return opt, err
		}
	}
	return opt, nil
}

// startServer starts serving repo and returns the function that drains it.
func (f *serveFlags) startServer(repo *serve.Repository, log *slog.Logger) (stop func(), err error) {
	f.cfg.Logger = log
	srv, err := serve.New(repo, f.cfg)
	if err != nil {
		return nil, err
	}
	if err := srv.Start(); err != nil {
		return nil, err
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), f.drainTimeout)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			log.Warn("serve: drain cut short", "err", err)
		}
	}, nil
}

func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", format)
}

func serveCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f serveFlags
	var root, logFormat string
	fs.StringVar(&root, "repository", "", "directory of model directories, one per model name (required)")
	addServeFlags(fs, "", &f, "127.0.0.1:8000", "127.0.0.1:8001")
	fs.StringVar(&logFormat, "log.format", "text", "log format on standard error: text or json")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		fs.PrintDefaults()
	}
	if wantsHelp(args) {
		fs.SetOutput(stdout)
		fs.Usage()
		return 0
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usageErr := func(err error) int {
		fmt.Fprintf(stderr, "svmgo serve: %v\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		return usageErr(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if root == "" {
		return usageErr(errors.New("--repository is required"))
	}
	log, err := newLogger(stderr, logFormat)
	if err != nil {
		return usageErr(err)
	}
	opt, err := f.repositoryOptions(log)
	if err != nil {
		return usageErr(err)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	repo, err := serve.OpenRepository(root, opt)
	if err != nil {
		return fail(stderr, err)
	}
	defer repo.Close()
	stop, err := f.startServer(repo, log)
	if err != nil {
		return fail(stderr, err)
	}
	log.Info("serve: serving", "models", len(repo.Names()), "ready", repo.Ready())
	<-ctx.Done()
	log.Info("serve: draining")
	stop()
	log.Info("serve: stopped")
	return 0
}
