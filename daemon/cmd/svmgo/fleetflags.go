//go:build !svmgo_batch

package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/libsvmgo/libsvmgo/daemon/fleet"
	"github.com/libsvmgo/libsvmgo/daemon/watchd"
)

// addNATSFlags declares the connection flags shared by svmgo watch and
// svmgo follow, named as the nats command line names them.
func addNATSFlags(fs *flag.FlagSet, o *fleet.ConnOptions) {
	fs.StringVar(&o.Creds, "nats.creds", "", "NATS credentials file (user JWT and NKey seed)")
	fs.StringVar(&o.NKey, "nats.nkey", "", "NATS NKey seed file")
	fs.StringVar(&o.User, "nats.user", "", "NATS user name")
	fs.StringVar(&o.Password, "nats.password", "", "NATS password")
	fs.StringVar(&o.Token, "nats.token", "", "NATS authentication token")
	fs.StringVar(&o.TLSCA, "nats.tls-ca", "", "PEM file of the CAs that sign the NATS server's certificate")
	fs.StringVar(&o.TLSCert, "nats.tls-cert", "", "PEM client certificate for NATS")
	fs.StringVar(&o.TLSKey, "nats.tls-key", "", "PEM private key of --nats.tls-cert")
	fs.StringVar(&o.Domain, "nats.js-domain", "", "JetStream domain (a client of a leaf node without JetStream names its hub's)")
	fs.DurationVar(&o.ReconnectWait, "nats.reconnect-wait", 0, "delay between NATS reconnection attempts (0: 250ms); attempts never stop")
}

// fleetFlags are svmgo watch's NATS flags: ingestion from a stream and
// publication into an object store.
type fleetFlags struct {
	conn          fleet.ConnOptions
	ingestURL     string
	ingest        fleet.IngestConfig
	subjects      string
	publishURL    string
	publishBucket string
	publishKeep   int
}

func (f *fleetFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&f.ingestURL, "ingest.nats", "", "NATS server URL to read batches from (with --ingest.stream); empty: incoming/ only")
	fs.StringVar(&f.ingest.Stream, "ingest.stream", "", "JetStream stream whose messages are batches, one a message")
	fs.StringVar(&f.subjects, "ingest.subjects", "", "comma-separated subjects: create (or update) the stream with them; empty: the stream must exist")
	fs.StringVar(&f.ingest.Durable, "ingest.durable", fleet.DefaultDurable, "durable consumer name")
	fs.StringVar(&f.ingest.FilterSubject, "ingest.filter-subject", "", "read only this subject of the stream")
	fs.StringVar(&f.ingest.Format, "ingest.format", "libsvm", "format of a message without a Svmgo-Format header: libsvm or csv")
	fs.DurationVar(&f.ingest.AckWait, "ingest.ack-wait", fleet.DefaultAckWait, "the consumer's acknowledgement wait: the batch a crashed trainer held is delivered again after this long (a running trainer reports progress every third of it)")
	fs.StringVar(&f.publishBucket, "publish.nats-bucket", "", "JetStream object-store bucket to put each published model into; empty: none")
	fs.StringVar(&f.publishURL, "publish.nats", "", "NATS server URL for --publish.nats-bucket (empty: --ingest.nats)")
	fs.IntVar(&f.publishKeep, "publish.nats-keep", fleet.DefaultKeep, "versions the bucket keeps")
	addNATSFlags(fs, &f.conn)
}

// validate checks the flags' combination.
func (f *fleetFlags) validate() error {
	if (f.ingestURL == "") != (f.ingest.Stream == "") {
		return fmt.Errorf("--ingest.nats and --ingest.stream go together")
	}
	if f.ingestURL != "" {
		f.ingest.Subjects = nil
		for s := range strings.SplitSeq(f.subjects, ",") {
			if s = strings.TrimSpace(s); s != "" {
				f.ingest.Subjects = append(f.ingest.Subjects, s)
			}
		}
		if err := f.ingest.Validate(); err != nil {
			return err
		}
	}
	if f.publishBucket != "" && f.publishURL == "" && f.ingestURL == "" {
		return fmt.Errorf("--publish.nats-bucket needs --publish.nats or --ingest.nats")
	}
	if f.publishKeep < 1 {
		return fmt.Errorf("--publish.nats-keep %d: want 1 or more", f.publishKeep)
	}
	return nil
}

// start connects the daemon to NATS as the flags ask: a source of batches
// and a publisher of models. Call before d.Run; the goroutines stop with
// ctx. models is the daemon's model directory.
func (f *fleetFlags) start(ctx context.Context, d *watchd.Daemon, models string, log *slog.Logger) error {
	if f.ingestURL != "" {
		o := f.conn
		o.URL, o.Name = f.ingestURL, "svmgo watch ingest"
		nc, err := fleet.Connect(o, log, nil)
		if err != nil {
			return err
		}
		context.AfterFunc(ctx, nc.Close)
		js, err := o.JetStream(nc)
		if err != nil {
			return err
		}
		ch := make(chan *watchd.Message)
		d.SetSource(ch)
		go func() {
			if err := fleet.Ingest(ctx, js, f.ingest, ch, log); err != nil {
				log.Error("nats ingest stopped", "err", err)
			}
		}()
		log.Info("nats ingest", "url", nc.ConnectedUrlRedacted(), "stream", f.ingest.Stream, "durable", f.ingest.Durable)
	}
	if f.publishBucket != "" {
		o := f.conn
		o.URL, o.Name = f.publishURL, "svmgo watch publish"
		if o.URL == "" {
			o.URL = f.ingestURL
		}
		nc, err := fleet.Connect(o, log, nil)
		if err != nil {
			return err
		}
		context.AfterFunc(ctx, nc.Close)
		js, err := o.JetStream(nc)
		if err != nil {
			return err
		}
		p := fleet.NewPublisher(js, f.publishBucket, f.publishKeep, log)
		d.OnPublish(p.Offer)
		go func() {
			if err := p.OfferDir(ctx, models); err != nil && ctx.Err() == nil {
				log.Warn("models not offered to the object store", "dir", models, "err", err)
			}
			p.Run(ctx)
		}()
		log.Info("nats publish", "bucket", f.publishBucket, "keep", f.publishKeep)
	}
	return nil
}
