package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/libsvmgo/libsvmgo/daemon/watchd"
)

// Headers a batch message may carry.
const (
	// HeaderFormat names the batch's format: "libsvm" (LIBSVM text) or
	// "csv"; absent, IngestConfig.Format.
	HeaderFormat = "Svmgo-Format"
	// HeaderWeightColumn is the instance-weight column (2 or more) of a CSV
	// batch; absent, the daemon's --ingest.weight-column.
	HeaderWeightColumn = "Svmgo-Weight-Column"
)

// DefaultDurable is the durable consumer's name unless configured.
const DefaultDurable = "svmgo-trainer"

// DefaultAckWait is how long the server waits for a batch's settlement, or
// a sign of progress, before it delivers it again: the batch a trainer
// held when it crashed comes back to its restart after at most this long
// (the consumer has one message in flight, so the stream waits for it).
// While the daemon works on a batch, Ingest tells the server so every
// third of it.
const DefaultAckWait = 30 * time.Second

// fetchWait is how long one pull request waits for a message.
const fetchWait = 5 * time.Second

// IngestConfig says which stream a trainer reads batches from.
type IngestConfig struct {
	// Stream is the JetStream stream's name (letters, digits, '-' and '_').
	Stream string
	// Subjects, when not empty, are the stream's subjects: the stream is
	// created with them (file storage) or updated to them. Empty, the
	// stream must exist.
	Subjects []string
	// Durable is the durable consumer's name (DefaultDurable when empty);
	// FilterSubject, when set, the subject it reads of the stream's.
	Durable       string
	FilterSubject string
	// Format is the format of a message without HeaderFormat: "libsvm"
	// (the default) or "csv".
	Format string
	// AckWait is the consumer's acknowledgement wait (DefaultAckWait when
	// 0).
	AckWait time.Duration
}

// streamName is compiled on first use, not at start-up: every svmgo
// command links this package.
var streamName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`) })

// Validate checks c, and sets the defaults of the fields left empty.
func (c *IngestConfig) Validate() error {
	if !streamName().MatchString(c.Stream) {
		return fmt.Errorf("fleet: stream name %q: want 1 to 128 letters, digits, '-' or '_'", c.Stream)
	}
	if c.Durable == "" {
		c.Durable = DefaultDurable
	}
	if !streamName().MatchString(c.Durable) {
		return fmt.Errorf("fleet: durable consumer name %q: want letters, digits, '-' or '_'", c.Durable)
	}
	if c.Format == "" {
		c.Format = "libsvm"
	}
	if _, ok := formatExt(c.Format); !ok {
		return fmt.Errorf("fleet: batch format %q: want libsvm or csv", c.Format)
	}
	if c.AckWait <= 0 {
		c.AckWait = DefaultAckWait
	}
	return nil
}

// formatExt returns the batch-name extension of a format name.
func formatExt(format string) (string, bool) {
	switch strings.ToLower(format) {
	case "libsvm", "text":
		return ".txt", true
	case "csv":
		return ".csv", true
	}
	return "", false
}

// Ingest reads batches from the stream of cfg and delivers them on out,
// one at a time, each settled (acknowledged, terminated or negatively
// acknowledged) by the daemon before the next is fetched. It runs until
// ctx is cancelled, and closes out when it returns. A failure to reach
// the server or the stream is logged and retried with backoff; it
// returns an error only for a configuration the server refuses.
func Ingest(ctx context.Context, js jetstream.JetStream, cfg IngestConfig, out chan<- *watchd.Message, log *slog.Logger) error {
	defer close(out)
	if err := cfg.Validate(); err != nil {
		return err
	}
	backoff := newBackoff()
	for ctx.Err() == nil {
		cons, err := consumer(ctx, js, cfg)
		if err == nil {
			backoff.reset()
			err = consume(ctx, cons, cfg, out, log)
		}
		if ctx.Err() != nil {
			return nil
		}
		log.Warn("nats ingest interrupted: retrying", "stream", cfg.Stream, "err", err)
		backoff.wait(ctx)
	}
	return nil
}

// consumer makes (or updates) the stream when cfg names its subjects, and
// the durable consumer: explicit acknowledgement, one message in flight.
func consumer(ctx context.Context, js jetstream.JetStream, cfg IngestConfig) (jetstream.Consumer, error) {
	if len(cfg.Subjects) > 0 {
		_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name: cfg.Stream, Subjects: cfg.Subjects, Storage: jetstream.FileStorage,
		})
		if err != nil {
			return nil, fmt.Errorf("fleet: stream %s: %w", cfg.Stream, err)
		}
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, cfg.Stream, jetstream.ConsumerConfig{
		Durable:       cfg.Durable,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cfg.AckWait,
		MaxAckPending: 1,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		FilterSubject: cfg.FilterSubject,
	})
	if err != nil {
		return nil, fmt.Errorf("fleet: consumer %s on %s: %w", cfg.Durable, cfg.Stream, err)
	}
	return cons, nil
}

// consume delivers the consumer's messages until ctx is cancelled or a
// fetch fails. Each is fetched alone, by a pull request that waits up to
// fetchWait: nothing is held in the client that the daemon has not taken.
func consume(ctx context.Context, cons jetstream.Consumer, cfg IngestConfig, out chan<- *watchd.Message, log *slog.Logger) error {
	for {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(fetchWait))
		if err != nil {
			return err
		}
		var msg jetstream.Msg
		for m := range batch.Messages() {
			msg = m
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err() // an unsettled message comes back after AckWait
		}
		if msg == nil {
			continue
		}
		m, settled := message(msg, cfg, log)
		select {
		case out <- m:
		case <-ctx.Done():
			return ctx.Err()
		}
		// While the daemon works on it (a long retrain), the message is
		// kept ours; after a crash it comes back within AckWait.
		tick := time.NewTicker(cfg.AckWait / 3)
	wait:
		for {
			select {
			case <-settled:
				break wait
			case <-tick.C:
				if err := msg.InProgress(); err != nil {
					log.Warn("nats progress not sent: the batch may be delivered again", "batch", m.Name, "err", err)
				}
			case <-ctx.Done():
				tick.Stop()
				return ctx.Err()
			}
		}
		tick.Stop()
	}
}

// message turns a stream message into the daemon's batch, whose settlement
// closes settled.
func message(msg jetstream.Msg, cfg IngestConfig, log *slog.Logger) (*watchd.Message, <-chan struct{}) {
	var seq uint64
	if md, err := msg.Metadata(); err == nil {
		seq = md.Sequence.Stream
	}
	m := &watchd.Message{Data: msg.Data()}
	format := msg.Headers().Get(HeaderFormat)
	if format == "" {
		format = cfg.Format
	}
	ext, ok := formatExt(format)
	if !ok {
		ext = ".txt"
		m.Invalid = fmt.Sprintf("header %s: %q is no format (want libsvm or csv)", HeaderFormat, format)
	}
	if wc := msg.Headers().Get(HeaderWeightColumn); wc != "" && m.Invalid == "" {
		n, err := strconv.Atoi(wc)
		if err != nil || n < 2 {
			m.Invalid = fmt.Sprintf("header %s: %q is no column (want 2 or more)", HeaderWeightColumn, wc)
		}
		m.WeightColumn = n
	}
	m.Name = cfg.Stream + "-" + strconv.FormatUint(seq, 10) + ext
	settled := make(chan struct{})
	ackCtx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 5*time.Second)
	}
	m.Done = func() {
		defer close(settled)
		ctx, cancel := ackCtx()
		defer cancel()
		// A lost acknowledgement only costs a redelivery, which the store
		// finds by the batch's hash.
		if err := msg.DoubleAck(ctx); err != nil {
			log.Warn("nats acknowledgement not confirmed: the batch may be delivered again", "batch", m.Name, "err", err)
		}
	}
	m.Rejected = func(string) {
		defer close(settled)
		// Term, not TermWithReason, which servers before 2.10 ignore (the
		// message would stay pending): the reason is in the daemon's log
		// and in rejected/.
		if err := msg.Term(); err != nil {
			log.Warn("nats termination failed: the batch may be delivered again", "batch", m.Name, "err", err)
		}
	}
	m.Retry = func() {
		defer close(settled)
		if err := msg.NakWithDelay(time.Second); err != nil && !errors.Is(err, jetstream.ErrMsgAlreadyAckd) {
			log.Warn("nats negative acknowledgement failed", "batch", m.Name, "err", err)
		}
	}
	return m, settled
}

// backoff doubles a delay from 100 ms to 5 s.
type backoff struct{ d time.Duration }

func newBackoff() *backoff { return &backoff{d: 100 * time.Millisecond} }

func (b *backoff) reset() { b.d = 100 * time.Millisecond }

// wait sleeps the current delay (or until ctx is done) and doubles it.
func (b *backoff) wait(ctx context.Context) {
	t := time.NewTimer(b.d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	b.d = min(2*b.d, 5*time.Second)
}
