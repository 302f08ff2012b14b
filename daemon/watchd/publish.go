package watchd

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

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
	return d.retrainAndPublish(nil, "")
}

// pendingModel is a retrained model to publish: the model of the store's
// generation gen, retrained for batch (empty at recovery), and once its
// file is named, the version it was given.
type pendingModel struct {
	run       *run
	gen       uint64
	batch     string
	version   uint64
	announced bool // settle logged that it publishes it
}

// publish publishes p's model into models/ (once: a retry after a storage
// fault that struck later finds its version set), applies retention and
// records the publication in the store.
func (d *Daemon) publish(p *pendingModel) error {
	if p.version == 0 {
		v, err := modeldir.Publish(d.models, p.run.model())
		if v != 0 {
			// Named, so visible to watchers, even when syncing the
			// directory failed (err): it is not published again.
			p.version = v
			d.published(p)
		}
		if err != nil {
			return fmt.Errorf("watchd: %w", err)
		}
	} else if err := fileio.SyncDir(d.models); err != nil {
		// A retry: the name may not be durable yet.
		return fmt.Errorf("watchd: publish: %w", err)
	}
	if err := d.retain(); err != nil {
		return err
	}
	d.st.SetPublished(p.gen)
	if err := d.commit(); err != nil {
		return err
	}
	d.unpublished = nil
	return nil
}

// published logs and exports the publication of p.
func (d *Daemon) published(p *pendingModel) {
	// The size is the published file's: what a client loads. -1 if it
	// cannot be read back (a retention race with another process).
	size := int64(-1)
	if fi, err := os.Stat(filepath.Join(d.models, modeldir.FileName(p.version))); err == nil {
		size = fi.Size()
	}
	kind := "linear"
	if p.run.float.Info().Kernel {
		kind = "kernel"
	}
	d.metrics.modelVersion.Set(float64(p.version))
	d.metrics.modelBits.Set(float64(p.run.bits()))
	d.metrics.modelBytes.Set(float64(size))
	d.hasModel.Store(true)
	d.log.Info("model published", "version", p.version, "kind", kind, "quantized_bits", p.run.bits(), "bytes", size,
		"generation", p.gen, "batch", p.batch)
}

// retain removes all but the newest Keep published models; the newest is
// never removed (Keep >= 1). Files that are not published models are left
// alone.
func (d *Daemon) retain() error {
	entries, err := os.ReadDir(d.models)
	if err != nil {
		return fmt.Errorf("watchd: retention: %w", err)
	}
	var versions []uint64
	for _, e := range entries {
		if v, ok := modeldir.ParseFileName(e.Name()); ok {
			versions = append(versions, v)
		}
	}
	if len(versions) <= d.cfg.Keep {
		return nil
	}
	slices.SortFunc(versions, func(a, b uint64) int { return cmp.Compare(b, a) })
	for _, v := range versions[d.cfg.Keep:] {
		path := filepath.Join(d.models, modeldir.FileName(v))
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("watchd: retention: %w", err)
		}
		d.log.Info("old model removed", "version", v)
	}
	if err := fileio.SyncDir(d.models); err != nil {
		return fmt.Errorf("watchd: retention: %w", err)
	}
	return nil
}

// newestVersion returns the highest published version in dir.
func newestVersion(dir string) (uint64, bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, false, err
	}
	var best uint64
	found := false
	for _, e := range entries {
		if v, ok := modeldir.ParseFileName(e.Name()); ok && (!found || v > best) {
			best, found = v, true
		}
	}
	return best, found, nil
}
