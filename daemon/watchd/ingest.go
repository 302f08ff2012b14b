package watchd

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// drain ingests the batches in incoming/, in name order, until none is left
// or ctx is cancelled; batches that arrive meanwhile are taken too.
func (d *Daemon) drain(ctx context.Context) error {
	for {
		d.applyReload()
		names, err := listDir(d.incoming)
		if err != nil {
			return err
		}
		if len(names) == 0 {
			return nil
		}
		for _, name := range names {
			if ctx.Err() != nil {
				return nil
			}
			d.applyReload()
			if err := d.ingest(name); err != nil {
				return err
			}
		}
	}
}

// ingest takes one batch through the steps of the package documentation.
// Only runtime failures are returned; a bad batch is rejected and ingest
// returns nil.
func (d *Daemon) ingest(name string) error {
	path := filepath.Join(d.incoming, name)
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // taken back by its producer
	}
	if err != nil {
		return fmt.Errorf("watchd: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return d.rejectSpecial(name, special(path, fi.Mode()))
	}
	if fi.Size() > d.cfg.MaxBatchBytes {
		return d.reject(name, reject("%s: %d bytes, more than the limit of %d", name, fi.Size(), d.cfg.MaxBatchBytes))
	}
	raw, err := readBatch(path, d.cfg.MaxBatchBytes)
	var sp *specialFile
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case errors.As(err, &sp): // replaced since Lstat
		return d.rejectSpecial(name, sp)
	case err != nil && isResourceFault(err):
		return fmt.Errorf("watchd: read %s: %w", name, err) // the machine's condition, not the batch's
	case err != nil:
		// Replaced by a symbolic link since Lstat (ELOOP), or unreadable.
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return d.rejectSpecial(name, special(path, fi.Mode()))
		}
		return d.reject(name, reject("%s: %v", name, err))
	case int64(len(raw)) > d.cfg.MaxBatchBytes: // grew since Lstat
		return d.reject(name, reject("%s: more than the limit of %d bytes", name, d.cfg.MaxBatchBytes))
	}
	h := store.Hash(sha256.Sum256(raw))
	if d.st.Has(h) {
		if d.added != nil && *d.added == h {
			// Taken again after a storage fault stopped it: its rows are
			// durable and its model published (pass saw to both).
			if err := d.ingested(name); err != nil {
				return err
			}
			d.log.Info("batch moved to done after a storage fault", "batch", name)
			return nil
		}
		d.log.Info("batch already ingested: moving to done", "batch", name, "sha256", fmt.Sprintf("%x", h[:8]))
		d.metrics.duplicates.Inc()
		return d.moveDone(name)
	}
	batch, err := parseBatch(name, raw, batchLimits{
		capacity:     d.st.Config().Capacity,
		maxFeatures:  d.st.Config().MaxFeatures,
		maxLineBytes: d.cfg.MaxLineBytes,
		realLabels:   d.spec.realLabels(),
		weightColumn: d.cfg.WeightColumn,
		csvHeader:    d.cfg.CSVHeader,
		csvSkip:      d.cfg.CSVSkipColumns,
	})
	if err != nil {
		return d.reject(name, err)
	}
	evicted, err := d.st.Add(h, batch)
	if errors.Is(err, store.ErrBatchTooLarge) || errors.Is(err, data.ErrBadRow) {
		return d.reject(name, reject("%s: %v", name, err))
	}
	if err != nil {
		return fmt.Errorf("watchd: add %s to the store: %w", name, err)
	}
	d.added = &h
	if evicted > 0 {
		d.forgetGradient()
	}
	d.log.Info("batch added", "batch", name, "rows", batch.Len(), "evicted", evicted,
		"samples", d.st.Len(), "generation", d.st.Generation())
	d.metrics.samples.Set(float64(d.st.Len()))
	d.metrics.storeGeneration.Set(float64(d.st.Generation()))
	if err := d.retrainAndPublish(batch, name); err != nil {
		return err
	}
	return d.ingested(name)
}

// ingested moves batch name to done/ and counts it, the last step of
// ingest: the store holds its rows durably and its retrain is settled
// (published, refused by the gate, or skipped for want of a model).
func (d *Daemon) ingested(name string) error {
	if err := d.moveDone(name); err != nil {
		return err
	}
	d.added = nil
	d.metrics.ingested.Inc()
	return nil
}

// reject moves batch name to rejected/ with its reason file: the reason is
// made durable first, so a rejected batch is never without one. A non-
// rejection error is returned as is.
func (d *Daemon) reject(name string, why error) error {
	return d.rejectFrom(d.incoming, name, why)
}

// rejectFrom is reject for the file name in dir (incoming/ or forget/).
func (d *Daemon) rejectFrom(dir, name string, why error) error {
	var r *rejection
	if !errors.As(why, &r) {
		return why
	}
	dst, err := freeName(d.rejected, name)
	if err != nil {
		return fmt.Errorf("watchd: reject %s: %w", name, err)
	}
	if err := fileio.WriteFile(dst+ReasonSuffix, []byte(r.reason+"\n")); err != nil {
		return fmt.Errorf("watchd: reject %s: %w", name, err)
	}
	if err := fileio.Rename(filepath.Join(dir, name), dst); err != nil {
		return fmt.Errorf("watchd: reject %s: %w", name, err)
	}
	d.metrics.rejected.Inc()
	d.log.Warn("batch rejected", "batch", name, "reason", r.reason, "moved_to", dst)
	return nil
}

// rejectSpecial moves name, which is not a regular file, to rejected/
// unread, with a reason, and counts it: a symbolic link is moved as a link
// (rename does not follow it), so nothing outside the root is touched.
func (d *Daemon) rejectSpecial(name string, sp *specialFile) error {
	err := d.reject(name, reject("%s: %v: not read (a batch is a regular file renamed into %s/)", name, sp, IncomingDir))
	if err == nil {
		d.metrics.special.Inc()
	}
	return err
}

// moveDone moves batch name from incoming/ to done/.
func (d *Daemon) moveDone(name string) error {
	dst, err := freeName(d.done, name)
	if err == nil {
		err = fileio.Rename(filepath.Join(d.incoming, name), dst)
	}
	if err != nil {
		return fmt.Errorf("watchd: move %s to done: %w", name, err)
	}
	return nil
}
