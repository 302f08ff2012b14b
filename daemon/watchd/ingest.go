package watchd

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// drain ingests the batches in incoming/, in name order, until none is left
// or ctx is cancelled; batches that arrive meanwhile are taken too. An entry
// that cannot be taken (a directory the daemon may not rename, a file that
// reads with EIO: an entryError) is skipped for this pass and
// recorded in d.stuck, so one such entry never holds up the batches behind
// it; pass reports them (stuckFault) after the rest has flowed.
func (d *Daemon) drain(ctx context.Context) error {
	d.stuck = nil
	defer func() { d.metrics.stuck.Set(float64(len(d.stuck))) }()
	for {
		d.applyReload()
		names, err := d.listDir(d.incoming)
		if err != nil {
			return err
		}
		names = slices.DeleteFunc(names, func(n string) bool { _, ok := d.stuck[n]; return ok })
		if len(names) == 0 {
			return nil
		}
		for _, name := range names {
			if ctx.Err() != nil {
				return nil
			}
			d.applyReload()
			err := d.ingest(name)
			var ee *entryError
			if errors.As(err, &ee) {
				if d.stuck == nil {
					d.stuck = map[string]error{}
				}
				d.stuck[name] = err
				d.log.Warn("entry of incoming cannot be taken: skipped", "entry", name, "err", err)
				continue
			}
			if err != nil {
				return err
			}
		}
	}
}

// stuckFault returns, when the last drain skipped entries it could not
// move, a storage fault naming them: the daemon reports itself degraded and
// tries them again at its retries.
func (d *Daemon) stuckFault() error {
	if len(d.stuck) == 0 {
		return nil
	}
	names := slices.Sorted(maps.Keys(d.stuck))
	return fmt.Errorf("watchd: %d entries of %s cannot be taken, skipped (%s: %w)",
		len(names), IncomingDir, shown(names[0]), d.stuck[names[0]])
}

// entryError is a failure of one entry of incoming/: moving it out, or
// reading it with an error of the device (EIO, ESTALE), which may be its
// own or pass. drain skips the entry and tries it again later, rather than
// stop every batch behind it or reject a good one.
type entryError struct{ err error }

func (e *entryError) Error() string { return e.err.Error() }
func (e *entryError) Unwrap() error { return e.err }

// ingest takes one batch through the steps of the package documentation.
// Only runtime failures are returned; a bad batch is rejected and ingest
// returns nil. So is a batch training fails with (weights that overflow
// the solver, a ν the classes make infeasible): its rows leave the store
// again (Rollback) and the model published last keeps serving.
func (d *Daemon) ingest(name string) error {
	path := filepath.Join(d.incoming, name)
	label := shown(name) // the name as reasons print it
	fi, err := d.fs.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // taken back by its producer
	}
	if err != nil {
		return fmt.Errorf("watchd: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return d.rejectSpecial(name, d.special(path, fi.Mode()))
	}
	if fi.Size() > d.cfg.MaxBatchBytes {
		return d.reject(name, reject("%s: %d bytes, more than the limit of %d", label, fi.Size(), d.cfg.MaxBatchBytes))
	}
	raw, err := d.readBatch(path, d.cfg.MaxBatchBytes)
	var sp *specialFile
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case errors.As(err, &sp): // replaced since Lstat
		return d.rejectSpecial(name, sp)
	case err != nil && isResourceFault(err):
		return fmt.Errorf("watchd: read %s: %w", label, err) // the machine's condition, not the batch's
	case err != nil && isErrno(err, deviceErrnos):
		return &entryError{fmt.Errorf("watchd: read %s: %w", label, err)}
	case err != nil:
		// Replaced by a symbolic link since Lstat (ELOOP), or unreadable.
		if fi, lerr := d.fs.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return d.rejectSpecial(name, d.special(path, fi.Mode()))
		}
		return d.reject(name, reject("%s: %v", label, err))
	case int64(len(raw)) > d.cfg.MaxBatchBytes: // grew since Lstat
		return d.reject(name, reject("%s: more than the limit of %d bytes", label, d.cfg.MaxBatchBytes))
	}
	return d.take(fileBatch{d, name}, name, label, raw, d.cfg.WeightColumn)
}

// settlement finishes a batch once what happened to it is durable: a file
// of incoming/ moves to done/ or rejected/ (fileBatch), a stream message
// is acknowledged or terminated (messageBatch, source.go).
type settlement interface {
	// done settles a batch whose rows the store holds durably.
	done() error
	// reject settles a refused batch (a *rejection; any other error is
	// returned as is).
	reject(why error) error
}

// fileBatch settles the batch file name of incoming/.
type fileBatch struct {
	d    *Daemon
	name string
}

func (f fileBatch) done() error            { return f.d.moveDone(f.name) }
func (f fileBatch) reject(why error) error { return f.d.reject(f.name, why) }

// take ingests the bytes raw of the batch called name (label as reasons
// print it), from steps 1 to 5 of the package documentation, and settles
// it through s. weightColumn is the instance-weight column of a CSV batch
// (0: none).
func (d *Daemon) take(s settlement, name, label string, raw []byte, weightColumn int) error {
	start := time.Now()
	cpu0, cpuOK := processCPU()
	written := d.st.BytesWritten()
	h := store.Hash(sha256.Sum256(raw))
	if d.st.Has(h) {
		if d.added != nil && *d.added == h {
			// Taken again after a storage fault stopped it: its rows are
			// durable and its model published (pass saw to both).
			if err := d.ingested(s); err != nil {
				return err
			}
			d.log.Info("batch moved to done after a storage fault", "batch", name)
			return nil
		}
		d.log.Info("batch already ingested: moving to done", "batch", name, "sha256", fmt.Sprintf("%x", h[:8]))
		d.metrics.duplicates.Inc()
		return s.done()
	}
	batch, err := parseBatch(name, label, raw, batchLimits{
		capacity:     d.st.Config().Capacity,
		maxFeatures:  d.st.Config().MaxFeatures,
		maxLineBytes: d.cfg.MaxLineBytes,
		realLabels:   d.spec.realLabels(),
		weightColumn: weightColumn,
		csvHeader:    d.cfg.CSVHeader,
		csvSkip:      d.cfg.CSVSkipColumns,
	})
	if err != nil {
		return s.reject(err)
	}
	last := d.last // restored if training refuses the batch
	evicted, err := d.st.Add(h, batch)
	if errors.Is(err, store.ErrBatchTooLarge) || errors.Is(err, data.ErrBadRow) {
		return s.reject(reject("%s: %v", label, err))
	}
	if err != nil {
		return fmt.Errorf("watchd: add %s to the store: %w", label, err)
	}
	d.added = &h
	if evicted > 0 {
		d.followRemovals()
	}
	d.log.Info("batch added", "batch", name, "rows", batch.Len(), "evicted", evicted,
		"samples", d.st.Len(), "generation", d.st.Generation())
	d.metrics.samples.Set(float64(d.st.Len()))
	d.metrics.storeGeneration.Set(float64(d.st.Generation()))
	err = d.retrainAndPublish(batch, name)
	var refused *rejection
	if errors.As(err, &refused) {
		// Nothing of the batch was committed: retrainAndPublish refuses
		// before it commits.
		if err := d.st.Rollback(); err != nil {
			return fmt.Errorf("watchd: %w", err)
		}
		d.last, d.added = last, nil
		if evicted > 0 {
			// followRemovals cut last's α in place, so last cannot
			// follow later removals: its gradient goes (the next run
			// rebuilds it; a refused batch is rare).
			d.last = last.WithoutGradient()
		}
		d.metrics.samples.Set(float64(d.st.Len()))
		d.metrics.storeGeneration.Set(float64(d.st.Generation()))
		d.metrics.trainFailed.Inc()
		return s.reject(reject("%s: %v", label, refused))
	}
	if err != nil {
		return err
	}
	if err := d.ingested(s); err != nil {
		return err
	}
	// What the batch cost the daemon in all, from parsing to done/ (its
	// retrain, the store's commits, the model's publication and, with
	// --metrics.cold-every, the comparison's cold solve), and the bytes
	// the store's commits wrote.
	attrs := []any{"batch", name, "seconds", time.Since(start).Seconds(), "store_bytes", d.st.BytesWritten() - written}
	if cpu1, _ := processCPU(); cpuOK {
		attrs = append(attrs, "cpu_seconds", cpu1-cpu0)
	}
	d.log.Info("batch done", attrs...)
	return nil
}

// ingested settles a batch as done and counts it, the last step of
// take: the store holds its rows durably and its retrain is settled
// (published, refused by the gate, or skipped for want of a model).
func (d *Daemon) ingested(s settlement) error {
	if err := s.done(); err != nil {
		return err
	}
	d.added = nil
	d.metrics.ingested.Inc()
	return nil
}

// reject moves batch name to rejected/ with its reason file: the reason is
// made durable first, so a rejected batch is never without one. A non-
// rejection error is returned as is. The reason is one line: a name with a
// newline is quoted (shown), and so is anything else that would break it.
func (d *Daemon) reject(name string, why error) error {
	return d.rejectFrom(d.incoming, name, why)
}

// rejectFrom is reject for the file name in dir (incoming/ or forget/).
func (d *Daemon) rejectFrom(dir, name string, why error) error {
	var r *rejection
	if !errors.As(why, &r) {
		return why
	}
	reason := strings.ReplaceAll(r.reason, "\n", `\n`)
	dst, err := d.archiveName(d.rejected, name, true)
	if err != nil {
		return fmt.Errorf("watchd: reject %s: %w", shown(name), err)
	}
	if err := fileio.WriteFileFS(d.fs, dst+ReasonSuffix, []byte(reason+"\n")); err != nil {
		return fmt.Errorf("watchd: reject %s: %w", shown(name), err)
	}
	if err := fileio.RenameFS(d.fs, filepath.Join(dir, name), dst); err != nil {
		if _, lerr := d.fs.Lstat(dst); errors.Is(lerr, os.ErrNotExist) {
			// Not moved: the reason goes, or every retry would leave one.
			d.fs.Remove(dst + ReasonSuffix)
		}
		return &entryError{fmt.Errorf("watchd: reject %s: %w", shown(name), err)}
	}
	d.metrics.rejected.Inc()
	d.log.Warn("batch rejected", "batch", name, "reason", reason, "moved_to", dst)
	return nil
}

// rejectSpecial moves name, which is not a regular file, to rejected/
// unread, with a reason, and counts it: a symbolic link is moved as a link
// (rename does not follow it), so nothing outside the root is touched.
func (d *Daemon) rejectSpecial(name string, sp *specialFile) error {
	err := d.reject(name, reject("%s: %v: not read (a batch is a regular file renamed into %s/)", shown(name), sp, IncomingDir))
	if err == nil {
		d.metrics.special.Inc()
	}
	return err
}

// moveDone moves batch name from incoming/ to done/. The move is not
// synced (it was two directory fsyncs of a batch's seven): the store holds
// the batch's hash durably before it, so a crash that undoes the move
// leaves a batch the next pass finds ingested and only moves again (step
// 1 of the package documentation).
func (d *Daemon) moveDone(name string) error {
	dst, err := d.archiveName(d.done, name, false)
	if err != nil {
		return fmt.Errorf("watchd: move %s to done: %w", shown(name), err)
	}
	if err := d.fs.Rename(filepath.Join(d.incoming, name), dst); err != nil {
		return &entryError{fmt.Errorf("watchd: move %s to done: %w", shown(name), err)}
	}
	return nil
}
