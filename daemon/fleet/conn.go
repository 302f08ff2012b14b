package fleet

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ConnOptions are how a trainer or a follower reaches its NATS server, as
// the nats command line names them.
type ConnOptions struct {
	// URL is the server's URL, or several separated by commas
	// (nats://127.0.0.1:4222).
	URL string
	// Name is the connection's name, as the server's monitoring shows it.
	Name string
	// Creds is a credentials file (a user JWT and its NKey seed).
	Creds string
	// NKey is an NKey seed file.
	NKey string
	// User and Password authenticate by name; Token by token.
	User, Password, Token string
	// TLSCA is a PEM file of the certificate authorities that sign the
	// server's certificate; TLSCert and TLSKey a client certificate.
	TLSCA, TLSCert, TLSKey string
	// Domain is the JetStream domain to reach (empty: the server's own).
	// A client of a leaf node without JetStream names the hub's domain,
	// whose API the leaf forwards (the hub's jetstream { domain: ... }).
	Domain string
	// ReconnectWait is the delay between reconnection attempts (default
	// 250 ms); attempts never stop.
	ReconnectWait time.Duration
}

// Connect connects to the server of o, reconnecting for ever after a
// disconnection, and logs each disconnection and reconnection. reconnected,
// if not nil, is called after each reconnection.
func Connect(o ConnOptions, log *slog.Logger, reconnected func()) (*nats.Conn, error) {
	if o.URL == "" {
		return nil, fmt.Errorf("fleet: no NATS server URL")
	}
	wait := o.ReconnectWait
	if wait <= 0 {
		wait = 250 * time.Millisecond
	}
	opts := []nats.Option{
		nats.Name(o.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(wait),
		nats.RetryOnFailedConnect(true),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			log.Warn("nats disconnected", "err", err)
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("nats reconnected", "server", nc.ConnectedUrlRedacted())
			if reconnected != nil {
				reconnected()
			}
		}),
	}
	if o.Creds != "" {
		opts = append(opts, nats.UserCredentials(o.Creds))
	}
	if o.NKey != "" {
		opt, err := nats.NkeyOptionFromSeed(o.NKey)
		if err != nil {
			return nil, fmt.Errorf("fleet: nkey %s: %w", o.NKey, err)
		}
		opts = append(opts, opt)
	}
	if o.User != "" {
		opts = append(opts, nats.UserInfo(o.User, o.Password))
	}
	if o.Token != "" {
		opts = append(opts, nats.Token(o.Token))
	}
	if o.TLSCA != "" {
		opts = append(opts, nats.RootCAs(o.TLSCA))
	}
	if o.TLSCert != "" || o.TLSKey != "" {
		opts = append(opts, nats.ClientCert(o.TLSCert, o.TLSKey))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("fleet: connect to %s: %w", o.URL, err)
	}
	return nc, nil
}

// JetStream returns the JetStream context of nc in o's domain.
func (o ConnOptions) JetStream(nc *nats.Conn) (jetstream.JetStream, error) {
	if o.Domain == "" {
		return jetstream.New(nc)
	}
	return jetstream.NewWithDomain(nc, o.Domain)
}
