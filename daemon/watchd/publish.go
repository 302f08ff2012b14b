package watchd

import (
	"errors"
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// settle publishes a model for the store's generation when none is
// published yet: the one the last retrain made, when a storage fault kept
// it from being published (or its publication from being recorded);
// otherwise, after a crash, a model retrained on the stored rows (without
// the gate, as the rows of the batch are not known apart any more).
func (d *Daemon) settle() error {
	gen := d.st.Generation()
	if d.st.Published() >= gen {
		d.unpublished = nil
		return nil
	}
	if p := d.unpublished; p != nil && p.gen == gen {
		if !p.announced { // once, not at every retry
			p.announced = true
			d.log.Info("publishing the model retrained before a storage fault", "generation", gen, "batch", p.batch)
		}
		return d.publish(p)
	}
	d.log.Warn("store newer than the published model: retraining", "generation", gen,
		"published", d.st.Published())
	return d.retrainStored()
}

// retrainStored retrains on the stored rows and publishes, with no batch
// to blame should training fail (a restart under options the stored rows
// do not suit): then the failure is logged, the generation marked
// published, and the model published last keeps serving.
func (d *Daemon) retrainStored() error {
	err := d.retrainAndPublish(nil, "")
	var r *rejection
	if !errors.As(err, &r) {
		return err
	}
	d.log.Error("retrain of the stored rows failed: the last model keeps serving", "err", r.reason,
		"generation", d.st.Generation(), "samples", d.st.Len())
	d.st.SetPublished(d.st.Generation())
	return d.commit()
}

// republish publishes the current model again when models/ lost it (the
// directory or the whole root removed while the daemon ran, or while it
// was stopped): a client starting then finds a model, and a watcher sees
// the version go on from the one recorded in the store, never back. The
// model is the one this run published last, or when the daemon restarted
// since, one retrained on the stored rows.
//
// A version in models/ above the store's record (published, then a crash
// before the store recorded it) becomes the record, so that the sequence
// goes on from it even should models/ lose it later.
func (d *Daemon) republish() error {
	highest, _, err := modeldir.HighestVersion(d.fs, d.models)
	if err != nil {
		return fmt.Errorf("watchd: republish: %w", err)
	}
	v := d.st.Version()
	if highest > v {
		d.st.SetVersion(highest)
		return d.commit()
	}
	if highest == v {
		return nil // v = 0: nothing published yet (or a store older than versions)
	}
	d.log.Warn("the current model is gone from models: publishing it again", "version", v, "highest_left", highest)
	cur := d.current
	if cur == nil {
		return d.retrainStored()
	}
	return d.publish(&pendingModel{run: cur.run, file: cur.file, gen: d.st.Published(), batch: cur.batch})
}

// pendingModel is a retrained model to publish: the model of the store's
// generation gen, retrained for batch (empty at recovery), its file, and
// once its file is named, the version it was given.
type pendingModel struct {
	run       *run
	file      []byte // modeldir.Encode's
	gen       uint64
	batch     string
	version   uint64
	announced bool // settle logged that it publishes it
}

// publish publishes p's model into models/ (once: a retry after a storage
// fault that struck later finds its version set) as the version after the
// one the store recorded last, applies retention and records the
// publication, and its version, in the store.
func (d *Daemon) publish(p *pendingModel) error {
	if p.version == 0 {
		// Retention rides on the publication's directory sync
		// (PublishEncodedKeep): one sync of models/ a batch, not two.
		v, removed, err := modeldir.PublishEncodedKeep(d.fs, d.models, p.file, d.st.Version(), d.cfg.Keep)
		if v != 0 {
			// Named, so visible to watchers, even when syncing the
			// directory failed (err): it is not published again.
			p.version = v
			d.published(p)
		}
		d.retained(removed)
		if err != nil {
			return fmt.Errorf("watchd: %w", err)
		}
	} else if err := fileio.SyncDirFS(d.fs, d.models); err != nil {
		// A retry: the name may not be durable yet.
		return fmt.Errorf("watchd: publish: %w", err)
	} else if err := d.retain(); err != nil {
		return err
	}
	d.st.SetPublished(p.gen)
	d.st.SetVersion(p.version)
	// The record is not synced on its own (store.CommitUnsynced): the
	// next batch's commit syncs it, or the daemon's stop. Until then a
	// kill -9 keeps it; a machine's crash may lose it, and the start
	// repairs that as it does a crash before the record (republish,
	// settle).
	if err := d.st.CommitUnsynced(); err != nil {
		return fmt.Errorf("watchd: commit the store: %w", err)
	}
	d.unpublished = nil
	return nil
}

// published logs and exports the publication of p, which becomes the
// current model.
func (d *Daemon) published(p *pendingModel) {
	d.current = p
	kind := "linear"
	if p.run.float.Info().Kernel {
		kind = "kernel"
	}
	d.metrics.modelVersion.Set(float64(p.version))
	d.metrics.modelBits.Set(float64(p.run.bits()))
	d.metrics.modelBytes.Set(float64(len(p.file)))
	d.hasModel.Store(true)
	if d.onPublish != nil {
		d.onPublish(p.version, p.file)
	}
	d.log.Info("model published", "version", p.version, "kind", kind, "quantized_bits", p.run.bits(), "bytes", len(p.file),
		"generation", p.gen, "batch", p.batch)
}

// retain removes all but the newest Keep published models; the newest is
// never removed (Keep >= 1). Files that are not published models are left
// alone.
func (d *Daemon) retain() error {
	removed, err := modeldir.Retain(d.fs, d.models, d.cfg.Keep)
	d.retained(removed)
	if err != nil {
		return fmt.Errorf("watchd: retention: %w", err)
	}
	return nil
}

// retained logs the removal of the old models removed.
func (d *Daemon) retained(removed []uint64) {
	for _, v := range removed {
		d.log.Info("old model removed", "version", v)
	}
}
