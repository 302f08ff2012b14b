package main

import (
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// The handle table maps the numbers C holds as svmgo_model * and
// svmgo_trainer * to the Go values they stand for. Numbers come from a
// counter and are never reused, so a freed, stale or made-up handle is
// simply not found: SVMGO_E_BAD_HANDLE, never a crash or another object.
// sync.Map serves the predict path's lookups without locks or
// allocation; only creating and freeing handles write to it.
var (
	handles    sync.Map // uint64 → *modelHandle or *trainerHandle
	lastHandle atomic.Uint64
)

// modelHandle is what an svmgo_model * stands for: a fixed model of any
// kind, or a watcher following a directory.
type modelHandle struct {
	fixed   core.Model
	watcher *modeldir.Watcher
}

// current returns the model to use for one call and its version (0 for a
// fixed model). A watched handle reads the watcher's pointer once, so the
// call uses one version from start to end however many are published
// meanwhile.
func (h *modelHandle) current() (core.Model, uint64, error) {
	if h.watcher == nil {
		return h.fixed, 0, nil
	}
	l := h.watcher.Current()
	if l == nil {
		return nil, 0, errNoModel
	}
	return l.Model, l.Version, nil
}

// errNoModel is preallocated: a client polling a directory that has no
// model yet gets it on every call.
var errNoModel = &apiError{code: statusNoModel, msg: "the watched directory has no valid model yet"}

// newHandle stores v under a fresh number and returns it. Numbers start at
// 1: 0 is NULL.
func newHandle(v any) uint64 {
	id := lastHandle.Add(1)
	handles.Store(id, v)
	return id
}

// lookupModel returns the model handle numbered id.
func lookupModel(id uint64) (*modelHandle, error) {
	if id == 0 {
		return nil, errorf(statusInvalidArgument, "model is NULL")
	}
	v, ok := handles.Load(id)
	if !ok {
		return nil, badHandle("model", id)
	}
	h, ok := v.(*modelHandle)
	if !ok {
		return nil, errorf(statusBadHandle, "handle %#x is a trainer, not a model", id)
	}
	return h, nil
}

// lookupTrainer returns the trainer handle numbered id.
func lookupTrainer(id uint64) (*trainerHandle, error) {
	if id == 0 {
		return nil, errorf(statusInvalidArgument, "trainer is NULL")
	}
	v, ok := handles.Load(id)
	if !ok {
		return nil, badHandle("trainer", id)
	}
	t, ok := v.(*trainerHandle)
	if !ok {
		return nil, errorf(statusBadHandle, "handle %#x is a model, not a trainer", id)
	}
	return t, nil
}

func badHandle(kind string, id uint64) error {
	if id <= lastHandle.Load() {
		return errorf(statusBadHandle, "%s handle %#x was already freed", kind, id)
	}
	return errorf(statusBadHandle, "%#x is not a %s handle of this library", id, kind)
}

// freeModel removes the model handle numbered id and stops its watcher.
// Freeing 0 (NULL) does nothing.
func freeModel(id uint64) error {
	if id == 0 {
		return nil
	}
	h, err := lookupModel(id)
	if err != nil {
		return err
	}
	// Of two threads freeing the same handle at once, one wins here and
	// the other reports a freed handle.
	if !handles.CompareAndDelete(id, h) {
		return badHandle("model", id)
	}
	if h.watcher != nil {
		if err := h.watcher.Close(); err != nil {
			return errorf(statusIO, "stopping the watcher: %w", err)
		}
	}
	return nil
}

// freeTrainer removes the trainer handle numbered id. Freeing 0 (NULL)
// does nothing.
func freeTrainer(id uint64) error {
	if id == 0 {
		return nil
	}
	t, err := lookupTrainer(id)
	if err != nil {
		return err
	}
	if !handles.CompareAndDelete(id, t) {
		return badHandle("trainer", id)
	}
	var dense int64 // the dense copy a fit made, if one needed it
	t.mu.Lock()
	if t.trainer != nil {
		dense, _ = t.trainer.DenseCopyBytes()
	}
	t.mu.Unlock()
	if t.bytes+dense >= releaseBytes {
		// The garbage collector would free the trainer at its next cycle
		// and the runtime return its pages to the system only minutes
		// later: a program that fits again and again (scikit-learn's
		// fit, a grid search) would hold every trainer's cache until
		// then (issue 24: ten SVC(cache_size=200).fit on 2,000 digits
		// rows grew the process from 111 to 375 MiB).
		debug.FreeOSMemory()
	}
	return nil
}

// releaseBytes is the size from which freeing a trainer returns its memory
// at once: a forced collection costs about a millisecond per 100 MiB of
// live heap, small beside the training such a trainer does.
const releaseBytes = 16 << 20
