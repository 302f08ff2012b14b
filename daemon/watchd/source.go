package watchd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/libsvmgo/libsvmgo/core/fileio"
)

// Message is one batch that reaches the daemon other than as a file of
// incoming/: a message of a stream (package daemon/fleet reads them from
// NATS JetStream). Run takes it like a file, between passes over
// incoming/ — hash, validate, store, retrain, publish — and settles it
// through exactly one of its functions once the outcome is durable, so a
// source acknowledges nothing the store does not hold.
type Message struct {
	// Name names the batch in logs, in its reason and in rejected/; its
	// extension chooses the format as a file's does (".csv" for CSV, any
	// other for LIBSVM text). It must be a plain file name: no separator,
	// not a temporary or dot-file name (Run panics otherwise, a caller
	// bug).
	Name string
	// Data is the batch, as a file would hold it.
	Data []byte
	// WeightColumn, when above 0, is the instance-weight column of a CSV
	// batch, in place of Config.WeightColumn (a header of the message).
	WeightColumn int
	// Invalid, when not empty, is why the source knows the batch to be
	// bad before reading it (a header naming no known format): the daemon
	// rejects it with this reason, its rows unread.
	Invalid string

	// Done is called once the batch's rows are durable in the store, or
	// were before (a redelivery: the content hash finds them).
	Done func()
	// Rejected is called once the refused batch and its reason file are
	// durable in rejected/, with the reason.
	Rejected func(reason string)
	// Retry is called when the daemon could not take the batch (a storage
	// fault, or the daemon degraded by one): the source delivers it again
	// later. Rows it added stay in memory, and a redelivery finds them.
	Retry func()
}

// SetSource makes Run take the messages of ch besides the files of
// incoming/, one at a time in its own goroutine. Call it before Run; a
// closed ch is a source that has stopped, and Run goes on with incoming/.
func (d *Daemon) SetSource(ch <-chan *Message) { d.source = ch }

// OnPublish makes the daemon call fn with each model it publishes, its
// version and its file's bytes (which fn must not modify), once the file
// has its name in models/. fn runs in Run's goroutine and must not block:
// package daemon/fleet queues the file and puts it into an object store.
// Call it before Run.
func (d *Daemon) OnPublish(fn func(version uint64, file []byte)) { d.onPublish = fn }

// messageBatch settles a Message.
type messageBatch struct {
	d *Daemon
	m *Message
}

func (b messageBatch) done() error {
	b.m.Done()
	return nil
}

// reject archives the message's bytes in rejected/ beside their reason,
// the reason durable first as for a file, then terminates the message.
func (b messageBatch) reject(why error) error {
	d := b.d
	var r *rejection
	if !errors.As(why, &r) {
		return why
	}
	reason := strings.ReplaceAll(r.reason, "\n", `\n`)
	dst, err := d.archiveName(d.rejected, b.m.Name, true)
	if err != nil {
		return fmt.Errorf("watchd: reject %s: %w", b.m.Name, err)
	}
	if err := fileio.WriteFileFS(d.fs, dst+ReasonSuffix, []byte(reason+"\n")); err != nil {
		return fmt.Errorf("watchd: reject %s: %w", b.m.Name, err)
	}
	if err := fileio.WriteFileFS(d.fs, dst, b.m.Data); err != nil {
		d.fs.Remove(dst + ReasonSuffix)
		return fmt.Errorf("watchd: reject %s: %w", b.m.Name, err)
	}
	d.metrics.rejected.Inc()
	d.log.Warn("batch rejected", "batch", b.m.Name, "reason", reason, "moved_to", dst)
	b.m.Rejected(reason)
	return nil
}

// ingestMessage takes one message; an error (a storage fault) has called
// its Retry, and Run waits it out as a failed pass.
func (d *Daemon) ingestMessage(m *Message) error {
	if m.Name == "" || m.Name != filepath.Base(m.Name) || strings.HasPrefix(m.Name, ".") || isTempName(m.Name) {
		panic(fmt.Sprintf("watchd: message name %q is not a plain file name", m.Name))
	}
	d.applyReload()
	b := messageBatch{d, m}
	var err error
	switch {
	case m.Invalid != "":
		err = b.reject(reject("%s: %s", m.Name, m.Invalid))
	case int64(len(m.Data)) > d.cfg.MaxBatchBytes:
		err = b.reject(reject("%s: %d bytes, more than the limit of %d", m.Name, len(m.Data), d.cfg.MaxBatchBytes))
	default:
		wc := d.cfg.WeightColumn
		if m.WeightColumn > 0 {
			wc = m.WeightColumn
		}
		err = d.take(b, m.Name, shown(m.Name), m.Data, wc)
	}
	if err != nil {
		m.Retry()
	}
	return err
}
