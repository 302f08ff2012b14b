//go:build !svmgo_batch

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/libsvmgo/libsvmgo/daemon/fleet"
)

const followUsage = `usage: svmgo follow --nats URL --bucket B --models DIR [flags]

Mirrors a JetStream object-store bucket that svmgo watch --publish.nats-bucket
fills into the model directory DIR, for the C ABI's svmgo_model_watch, svmgo
serve or any watcher of DIR. Each new version is fetched, checked as its
chunks arrive (the object store's digest, the SHA-256 and frame CRC in its
metadata, and the model file's frame, CRC and structure; its memory does not
grow with the model, which the watchers of DIR decode) and published into DIR
atomically as model-<version>.svmgo: a reader of DIR never sees a partial
file. After a disconnection, or a restart, it
catches up straight to the newest version above the newest in DIR. Objects
with a bad name, digest or file are refused, logged and counted.

SIGINT/SIGTERM stop it. Exit status: 0 after a signal, 1 on a runtime
failure, 2 on a usage error.

flags:
`

func follow(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("follow", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		conn      fleet.ConnOptions
		cfg       fleet.FollowConfig
		httpAddr  string
		logFormat string
	)
	fs.StringVar(&conn.URL, "nats", "", "NATS server URL (required), e.g. nats://127.0.0.1:4222 (a leaf node's on a device)")
	fs.StringVar(&cfg.Bucket, "bucket", "", "object-store bucket to mirror (required)")
	fs.StringVar(&cfg.Dir, "models", "", "model directory to publish into (required; created when missing)")
	fs.IntVar(&cfg.Keep, "models.keep", fleet.DefaultDirKeep, "versions kept in the directory (the newest is never removed)")
	fs.Int64Var(&cfg.MaxBytes, "max-bytes", fleet.DefaultMaxBytes, "refuse objects larger than this")
	fs.DurationVar(&cfg.Resync, "resync", fleet.DefaultResync, "remake the bucket's watch after this long without an update")
	fs.StringVar(&httpAddr, "http", "", "loopback address (127.0.0.1:PORT) serving /healthz and /metrics; empty: none")
	fs.StringVar(&logFormat, "log.format", "text", "log format on standard error: text or json")
	addNATSFlags(fs, &conn)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), followUsage)
		fs.PrintDefaults()
	}
	if wantsHelp(args) {
		fs.SetOutput(stdout)
		fs.Usage()
		return 0
	}
	usageErr := func(err error) int {
		fmt.Fprintf(stderr, "svmgo follow: %v\n", err)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return usageErr(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	case conn.URL == "" || cfg.Bucket == "" || cfg.Dir == "":
		return usageErr(fmt.Errorf("--nats, --bucket and --models are required"))
	case logFormat != "text" && logFormat != "json":
		return usageErr(fmt.Errorf("log format %q: want text or json", logFormat))
	case cfg.Keep < 1:
		return usageErr(fmt.Errorf("--models.keep %d: want 1 or more", cfg.Keep))
	}
	if httpAddr != "" {
		if err := checkLoopback(httpAddr); err != nil {
			return usageErr(err)
		}
	}
	var h slog.Handler = slog.NewTextHandler(stderr, nil)
	if logFormat == "json" {
		h = slog.NewJSONHandler(stderr, nil)
	}
	log := slog.New(h)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var started atomic.Pointer[fleet.Follower] // set once the follower exists
	conn.Name = "svmgo follow"
	nc, err := fleet.Connect(conn, log, func() {
		if f := started.Load(); f != nil {
			f.Reconnected()
		}
	})
	if err != nil {
		fmt.Fprintf(stderr, "svmgo follow: %v\n", err)
		return 1
	}
	defer nc.Close()
	js, err := conn.JetStream(nc)
	if err != nil {
		fmt.Fprintf(stderr, "svmgo follow: %v\n", err)
		return 1
	}
	f, err := fleet.NewFollower(js, cfg, log)
	if err != nil {
		fmt.Fprintf(stderr, "svmgo follow: %v\n", err)
		return 1
	}
	started.Store(f)
	if httpAddr != "" {
		ln, err := net.Listen("tcp", httpAddr)
		if err != nil {
			fmt.Fprintf(stderr, "svmgo follow: %v\n", err)
			return 1
		}
		log.Info("http serving", "addr", ln.Addr().String())
		defer serveHTTP(ln, f.Handler(), log)()
	}
	f.Run(ctx)
	return 0
}
