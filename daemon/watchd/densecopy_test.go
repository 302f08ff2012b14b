package watchd

import (
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/store"
)

// A kernel daemon on rows of 65 to 250 features with --store.nonzeros
// unset (the store reserves every cell: up to 100 a row) logs, beside the
// trainer's bytes, the most the kernels' dense copy of mostly-nonzero rows
// may take: the copy is made by the first retrain that needs it, outside
// core.KernelTrainerBytes, which the log line's bytes gave alone.
func TestKernelTrainerLogsDenseCopy(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.TrainOptions = "-t 2 -c 1"
	cfg.Store = store.Config{Capacity: 200, MaxFeatures: 100, Policy: store.EvictNonSVOldest}
	r, logs := startLogged(t, cfg)
	r.alive(t)
	recs := logs.records(t, "kernel trainer allocated")
	if len(recs) != 1 {
		t.Fatalf("%d \"kernel trainer allocated\" records, want 1", len(recs))
	}
	want := float64(200 * (4*100 + 8)) // a float32 a cell and a row's 8 bytes
	if got, ok := recs[0]["dense_copy_max_bytes"].(float64); !ok || got != want {
		t.Errorf("dense_copy_max_bytes %v, want %v", recs[0]["dense_copy_max_bytes"], want)
	}
	p := r.d.spec.opts.Kernel.Params
	if got := recs[0]["bytes"]; got != float64(core.KernelTrainerBytes(p, 200, 100)) {
		t.Errorf("bytes %v, want core.KernelTrainerBytes's %d", got, core.KernelTrainerBytes(p, 200, 100))
	}
}
