package main

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/linear"
)

// TestHandleLifecycle: handles are found until freed, never afterwards,
// never as the other kind, and a handle freed by many goroutines at once
// is freed by exactly one.
func TestHandleLifecycle(t *testing.T) {
	m := core.Model(&linear.LinearModel{})
	id := newHandle(&modelHandle{fixed: m})
	if h, err := lookupModel(id); err != nil || h.fixed != m {
		t.Fatalf("lookupModel(%d) = %v, %v", id, h, err)
	}
	if _, err := lookupTrainer(id); statusOf(err) != statusBadHandle {
		t.Errorf("a model handle as a trainer: %v", err)
	}
	// Many rounds of goroutines released at once, so that some frees
	// overlap between the lookup and the removal (without CompareAndDelete
	// two of them succeed in some round of most runs).
	for round := range 2000 {
		rid := id
		if round > 0 {
			rid = newHandle(&modelHandle{fixed: m})
		}
		var wg sync.WaitGroup
		var freed, refused atomic.Int32
		start := make(chan struct{})
		for range 4 {
			wg.Go(func() {
				<-start
				switch err := freeModel(rid); statusOf(err) {
				case statusOK:
					freed.Add(1)
				case statusBadHandle:
					refused.Add(1)
				default:
					t.Errorf("freeModel: %v", err)
				}
			})
		}
		close(start)
		wg.Wait()
		if freed.Load() != 1 || refused.Load() != 3 {
			t.Fatalf("round %d: %d frees succeeded and %d were refused, want 1 and 3", round, freed.Load(), refused.Load())
		}
	}
	if _, err := lookupModel(id); statusOf(err) != statusBadHandle {
		t.Errorf("a freed handle: %v", err)
	}
	next := newHandle(&trainerHandle{})
	if next == id {
		t.Errorf("handle number %d reused", id)
	}
	if err := freeTrainer(next); err != nil {
		t.Error(err)
	}
	if err := freeModel(0); err != nil {
		t.Errorf("freeing NULL: %v", err)
	}
	if _, err := lookupModel(0); statusOf(err) != statusInvalidArgument {
		t.Errorf("looking up NULL: %v", err)
	}
}
