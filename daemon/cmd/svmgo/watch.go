//go:build !svmgo_batch

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/daemon/serve"
	"github.com/libsvmgo/libsvmgo/daemon/store"
	"github.com/libsvmgo/libsvmgo/daemon/watchd"
)

const watchUsage = `usage: svmgo watch --root DIR [flags]

Ingests labelled batch files (LIBSVM text, or CSV for *.csv) renamed into
DIR/incoming/, keeps their rows in a durable store (DIR/state/), retrains warm
after each batch and publishes versioned models into DIR/models/: linear
models for LIBLINEAR's train options, kernel models (SMO) for svm-train's
(options led by -syntax kernel, or with any of -t -g -d -r -m -h; a
leading -syntax linear names LIBLINEAR's; -b alone names neither and is
refused). With --quantize int8 or int16
the published models are quantized (as svmgo quantize makes them; the gate
judges the quantized model). Ingested batches move to DIR/done/, refused
ones to DIR/rejected/ with a NAME.reason file. With --ingest.nats and
--ingest.stream, each message of a JetStream stream is a batch too, acknowledged
once its rows are durable (terminated, and kept in rejected/, when refused);
with --publish.nats-bucket each published model is also put into a JetStream
object store, which svmgo follow mirrors on other machines.
SIGINT/SIGTERM stop after the current batch; SIGHUP rereads --config
(training options, also from one model kind to the other, gate, retention,
cold-solve interval, debounce, batch limits and quantization; an invalid
file is logged and the running configuration kept).

A storage fault (a full disk, a read-only or unwritable root, a directory
of the root removed) does not stop the daemon: the batch stays in incoming/,
/healthz answers 503 "degraded: ..." and the daemon retries with backoff
(--storage.retry-min, --storage.retry-max) until the fault is repaired.
Anything in incoming/ that is not a regular file (a symbolic link, a
directory, a FIFO) is moved to rejected/ unread, with a reason file.

To forget ingested batches, rename a file into DIR/forget/ whose lines name
them by the SHA-256 of their files (sha256sum output works as is), or an
empty file named by that hash: their rows leave the store, the model is
retrained warm without them and published, and the request is removed (a
request naming a batch never ingested moves to rejected/). Rows also leave
by --store.window and --store.max-age.

With --serve.http or --serve.grpc the process also serves DIR/models/ over
the Open Inference Protocol as svmgo serve does, under the name --serve.name:
one sidecar trains and serves, each published version swapped in without a
failed request.

Exit status: 0 after a signal, 1 on a runtime failure (a corrupt store, a
failed training), 2 on a usage or configuration error.

flags:
`

// watchFlags declares the flags of svmgo watch on a new FlagSet; the values
// land in cfg and the other pointers.
type watchFlags struct {
	fs         *flag.FlagSet
	cfg        watchd.Config
	policy     string
	quantize   string
	httpAddr   string
	configFile string
	logFormat  string
	csvHeader  string
	csvSkip    string
	serve      serveFlags
	serveName  string
	fleet      fleetFlags
}

func newWatchFlags(stderr io.Writer) *watchFlags {
	f := &watchFlags{cfg: watchd.DefaultConfig()}
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &f.cfg
	fs.StringVar(&c.Root, "root", "", "root directory holding incoming/ done/ rejected/ models/ state/ (required)")
	fs.StringVar(&c.TrainOptions, "train.options", watchd.DefaultTrainOptions, "training options: LIBLINEAR's (svmgo train-linear -h) for a linear model, or svm-train's (svmgo train -h) for a kernel model, chosen by a leading -syntax linear|kernel or else when any of -t -g -d -r -m -h -b is present (\"-t 2 -c 4\"); -v is refused")
	fs.IntVar(&c.Store.Capacity, "store.capacity", watchd.DefaultCapacity, "rows the sample store holds")
	fs.IntVar(&c.Store.CapacityNonzeros, "store.nonzeros", 0, fmt.Sprintf("nonzeros the store holds (0: capacity × min(max-features, %d))", watchd.DefaultNonzerosPerRow))
	fs.IntVar(&c.Store.MaxFeatures, "store.max-features", watchd.DefaultMaxFeatures, "largest feature index accepted (batches with a larger one are rejected)")
	fs.StringVar(&f.policy, "store.policy", "nonsv-oldest", "eviction when full: nonsv-oldest (α = 0 first, oldest first) or oldest")
	fs.IntVar(&c.Store.Window, "store.window", 0, "keep at most the newest N rows (a sliding window: the oldest leave first, before the eviction policy applies); 0: the capacity; not reloadable")
	fs.DurationVar(&c.Store.MaxAge, "store.max-age", 0, "rows of a batch ingested longer ago than this leave the store, and the model is retrained without them (e.g. 720h); 0: never; not reloadable")
	fs.IntVar(&c.Keep, "models.keep", watchd.DefaultKeep, "published models to retain (the newest is never removed)")
	fs.Float64Var(&c.GateMinAccuracy, "gate.min-accuracy", 0, "publish only a model with at least this accuracy (squared correlation for SVR, fraction predicted +1 for a one-class SVM) on the last 20% of the newest batch's rows (at least 1; none for a 1-row batch, which skips the gate), held back from that retrain: the published model is trained without them, they are stored and trained on from the next retrain; 0: off")
	fs.IntVar(&c.ColdEvery, "metrics.cold-every", 0, "also run a cold solve every N retrains to measure the warm start's savings (coordinate updates, or kernel evaluations for a kernel model); 0: never")
	fs.DurationVar(&c.Debounce, "watch.debounce", watchd.DefaultDebounce, "delay between a file event and the rescan of incoming/")
	fs.Int64Var(&c.MaxBatchBytes, "ingest.max-bytes", watchd.DefaultMaxBatchBytes, "reject batch files larger than this")
	fs.IntVar(&c.MaxLineBytes, "ingest.max-line-bytes", watchd.DefaultMaxLineBytes, "reject batches with a longer line")
	fs.IntVar(&c.WeightColumn, "ingest.weight-column", 0, "column n (2 or more; 1 is the label) of a CSV batch (*.csv) holds each row's instance weight, which multiplies its C and is stored with the row; LIBSVM text batches weigh 1; 0: none")
	fs.StringVar(&f.csvHeader, "csv.header", "auto", "whether a CSV batch starts with a header line: auto (when its label field is not a number; an empty first header field, pandas' index, then drops column 1), yes or no")
	fs.StringVar(&f.csvSkip, "csv.skip-columns", "", "CSV columns (1-based, comma-separated) to drop before the label column, such as 1 for an index; empty: none")
	fs.StringVar(&f.quantize, "quantize", "off", "publish models quantized: int8 (about a quarter of the float file), int16 (more accurate), or off; the gate judges the quantized model, training and the stored α are unchanged")
	fs.DurationVar(&c.RetryMin, "storage.retry-min", watchd.DefaultRetryMin, "after a storage fault (a full disk, a read-only or unwritable root, a directory of the root removed) the daemon stays up, reports itself degraded (/healthz, /metrics) and retries after this delay, doubling at each failure")
	fs.DurationVar(&c.RetryMax, "storage.retry-max", watchd.DefaultRetryMax, "the longest delay between retries after a storage fault")
	fs.StringVar(&f.httpAddr, "http", "", "loopback address (127.0.0.1:PORT) serving /healthz and /metrics; empty: none")
	fs.StringVar(&f.configFile, "config", "", `file of "name = value" lines using these flag names; command-line flags win`)
	fs.StringVar(&f.logFormat, "log.format", "text", "log format on standard error: text or json")
	addServeFlags(fs, "serve.", &f.serve, "", "")
	fs.StringVar(&f.serveName, "serve.name", "model", "name the models/ directory is served under with --serve.http or --serve.grpc")
	f.fleet.declare(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, watchUsage)
		fs.PrintDefaults()
	}
	f.fs = fs
	return f
}

// loadWatchConfig parses args, then the config file they name (for the flags
// args did not set), and validates the result.
func loadWatchConfig(args []string, stderr io.Writer) (*watchFlags, error) {
	f := newWatchFlags(stderr)
	if err := f.fs.Parse(args); err != nil {
		return nil, err
	}
	if f.fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", f.fs.Arg(0))
	}
	if f.configFile != "" {
		set := map[string]bool{}
		f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
		if err := applyConfigFile(f.fs, f.configFile, set); err != nil {
			return nil, err
		}
	}
	p, err := store.ParsePolicy(f.policy)
	if err != nil {
		return nil, err
	}
	f.cfg.Store.Policy = p
	if f.cfg.CSVHeader, err = data.ParseCSVHeader(f.csvHeader); err != nil {
		return nil, err
	}
	f.cfg.CSVSkipColumns = nil
	if f.csvSkip != "" {
		if f.cfg.CSVSkipColumns, err = parseColumnList(f.csvSkip); err != nil {
			return nil, fmt.Errorf("csv.skip-columns: %w", err)
		}
	}
	if f.cfg.QuantizeBits, err = parseQuantize(f.quantize); err != nil {
		return nil, err
	}
	if f.logFormat != "text" && f.logFormat != "json" {
		return nil, fmt.Errorf("log format %q: want text or json", f.logFormat)
	}
	if f.httpAddr != "" {
		if err := checkLoopback(f.httpAddr); err != nil {
			return nil, err
		}
	}
	if err := f.fleet.validate(); err != nil {
		return nil, err
	}
	if err := f.cfg.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// parseQuantize returns the code width --quantize names: 8 for int8, 16
// for int16, 0 for off.
func parseQuantize(s string) (int, error) {
	switch s {
	case "off":
		return 0, nil
	case "int8":
		return 8, nil
	case "int16":
		return 16, nil
	}
	return 0, fmt.Errorf("quantize %q: want int8, int16 or off", s)
}

// applyConfigFile sets, from path's "name = value" lines, each flag not in
// skip. Blank lines and lines starting with '#' are ignored; an unknown name
// or a bad value is an error naming the line.
func applyConfigFile(fs *flag.FlagSet, path string, skip map[string]bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			return fmt.Errorf("%s:%d: want name = value", path, ln)
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		name = strings.TrimLeft(name, "-")
		if name == "config" {
			return fmt.Errorf("%s:%d: config cannot name another file", path, ln)
		}
		if fs.Lookup(name) == nil {
			return fmt.Errorf("%s:%d: unknown setting %q", path, ln, name)
		}
		if skip[name] {
			continue
		}
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("%s:%d: %s: %w", path, ln, name, err)
		}
	}
	return sc.Err()
}

// checkLoopback refuses an HTTP address that is not on a loopback
// interface: the endpoints have no authentication.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("http address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("http address %q: not a loopback address", addr)
	}
	return nil
}

// watchGCPercent is the garbage collector's target in `svmgo watch` (GOGC,
// when the environment does not set it). What the daemon keeps is mostly
// buffers of fixed size (the kernel cache, 100 MB by default; the store's
// rows and α), so at the default 100 it let that much garbage pile up
// between collections, and each retrain's outputs (α, gradients, model)
// landed on pages it had never touched, or had returned to the system:
// 31,000 page faults over shuttle×4's 10,000-row stream of 10 batches
// (with their cold solves), 14,000 at 25, and a warm batch's CPU 0.31 of
// a cold solve's where it was 0.35 (examples/bench/daemon.sh, one core;
// 79,000 and 48,000 page faults at 40,000 rows). A collection is short:
// the buffers hold no pointers.
const watchGCPercent = 25

func watch(args []string, stdout, stderr io.Writer) int {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(watchGCPercent)
	}
	if wantsHelp(args) {
		f := newWatchFlags(stdout)
		f.fs.SetOutput(stdout)
		f.fs.Usage()
		return 0
	}
	f, err := loadWatchConfig(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "svmgo watch: %v\n", err)
		}
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	var h slog.Handler = slog.NewTextHandler(stderr, nil)
	if f.logFormat == "json" {
		h = slog.NewJSONHandler(stderr, nil)
	}
	log := slog.New(h)

	d, err := watchd.New(f.cfg, log)
	if err != nil {
		fmt.Fprintf(stderr, "svmgo watch: %v\n", err)
		if errors.Is(err, watchd.ErrConfig) {
			return 2
		}
		return 1
	}
	if err := f.fleet.start(ctx, d, filepath.Join(f.cfg.Root, watchd.ModelsDir), log); err != nil {
		fmt.Fprintf(stderr, "svmgo watch: %v\n", err)
		return 1
	}

	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				nf, err := loadWatchConfig(args, io.Discard)
				if err == nil {
					err = d.Reload(nf.cfg)
				}
				if err != nil {
					log.Error("reload failed: keeping the running configuration", "err", err)
				} else {
					log.Info("reload accepted", "config", f.configFile)
				}
			}
		}
	}()

	if f.serve.cfg.HTTPAddr != "" || f.serve.cfg.GRPCAddr != "" {
		stopServe, err := serveModels(f, log)
		if err != nil {
			fmt.Fprintf(stderr, "svmgo watch: %v\n", err)
			return 1
		}
		defer stopServe()
	}

	if f.httpAddr != "" {
		ln, err := net.Listen("tcp", f.httpAddr)
		if err != nil {
			fmt.Fprintf(stderr, "svmgo watch: %v\n", err)
			return 1
		}
		log.Info("http serving", "addr", ln.Addr().String())
		defer serveHTTP(ln, d.Handler(), log)()
	}

	if err := d.Run(ctx); err != nil {
		log.Error("daemon failed", "err", err)
		return 1
	}
	log.Info("daemon stopped")
	return 0
}

// serveModels serves the daemon's models/ over the Open Inference
// Protocol from this process (--serve.http, --serve.grpc) as svmgo serve
// would, under the name --serve.name; the returned function drains it.
func serveModels(f *watchFlags, log *slog.Logger) (stop func(), err error) {
	opt, err := f.serve.repositoryOptions(log)
	if err != nil {
		return nil, err
	}
	repo := serve.NewRepository(opt)
	if err := repo.Add(f.serveName, filepath.Join(f.cfg.Root, watchd.ModelsDir)); err != nil {
		return nil, err
	}
	stopServer, err := f.serve.startServer(repo, log)
	if err != nil {
		repo.Close()
		return nil, err
	}
	return func() {
		stopServer()
		repo.Close()
	}, nil
}

// httpShutdownTimeout bounds how long stopping the HTTP server waits for
// requests in flight (a /metrics scrape takes milliseconds).
const httpShutdownTimeout = 5 * time.Second

// serveHTTP serves handler (health and metrics) on ln until the returned
// function is called, which shuts the server down gracefully: it stops
// accepting, waits up to httpShutdownTimeout for requests in flight, and
// returns once Serve has returned. A Serve that fails on its own (the
// listener broken) is logged as an error; the daemon keeps training and
// publishing without its HTTP endpoints, which are for observing it.
func serveHTTP(ln net.Listener, handler http.Handler, log *slog.Logger) (stop func()) {
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("http server stopped: health and metrics are unavailable", "addr", ln.Addr().String(), "err", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), httpShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			log.Warn("http server shutdown", "err", err)
			srv.Close()
		}
		<-done
	}
}
