package serve

import (
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"sync/atomic"
)

// A floor under the collector's heap goal (Config.HeapFloor, svmgo serve
// --heap-floor-mib). A request's connection loop allocated about 1.2 KB
// (net/http's request parser for REST, until http1fast.go; HPACK's fields
// for gRPC) while the live heap stays under 1 MB, so with GOGC's percentage alone the heap
// goal sits at the runtime's 4 MB minimum and a collection runs every 3 MB
// allocated: every 52-73 ms at 8 requests in flight (gctrace, 2026-11-28),
// each with two stop-the-world pauses of 0.06-0.3 ms and mark assists on
// the requests' goroutines. That is a visible part of the 8-in-flight
// tail: with the collector off, p99 / p50 fell from 2.26 to 2.09 (REST,
// h2load), 2.73 to 2.13 (REST, wrk) and 2.84 to 2.71 (gRPC); with a 16 MiB
// floor from 2.28 to 2.08, 2.67 to 2.22 and 2.96 to 2.71 (chrt -f 20, 5
// alternated rounds each, load 19-29: examples/serve/README.md). The
// floor raises GOGC's percentage while the live heap is small, so that
// the goal is at least the floor, and gives it back as the live heap
// grows (never below the process's own GOGC; GOGC=off is left alone).
// The cost is memory: up to the floor of garbage between collections.

// maxFloorPercent caps the percentage the floor sets (a goal 101 times a
// live heap of a few KB is already past any floor worth asking for).
const maxFloorPercent = 10000

// heapFloor keeps GOGC's percentage at floorPercent after each collection.
// It is process-wide, as GOGC is: a second server's floor replaces the
// first's.
type heapFloor struct {
	floor   uint64
	base    int // the process's percentage when the floor started
	stopped atomic.Bool
	sample  [1]rtmetrics.Sample
}

// gcTick is garbage whose finalizer runs once after each collection.
type gcTick struct{ h *heapFloor }

// startHeapFloor starts keeping the heap goal at least floor bytes; nil
// when floor is 0 or the collector is off.
func startHeapFloor(floor uint64) *heapFloor {
	base := debug.SetGCPercent(100)
	debug.SetGCPercent(base)
	if floor == 0 || base < 0 {
		return nil
	}
	h := &heapFloor{floor: floor, base: base}
	h.sample[0].Name = "/gc/heap/live:bytes"
	h.adjust()
	h.arm()
	return h
}

// arm makes a gcTick whose finalizer, run after the next collection,
// adjusts the percentage and arms the next.
func (h *heapFloor) arm() {
	runtime.SetFinalizer(&gcTick{h: h}, func(t *gcTick) {
		if !t.h.stopped.Load() {
			t.h.adjust()
			t.h.arm()
		}
	})
}

// adjust sets the percentage for the live heap the last collection found.
func (h *heapFloor) adjust() {
	rtmetrics.Read(h.sample[:])
	live := uint64(0)
	if h.sample[0].Value.Kind() == rtmetrics.KindUint64 {
		live = h.sample[0].Value.Uint64()
	}
	debug.SetGCPercent(floorPercent(live, h.floor, h.base))
}

// stop gives the process its own percentage back; h may be nil.
func (h *heapFloor) stop() {
	if h != nil && !h.stopped.Swap(true) {
		debug.SetGCPercent(h.base)
	}
}

// runtimeHeapMinimum is the Go runtime's least heap goal at GOGC=100
// (defaultHeapMinimum); the runtime scales it with GOGC's percentage.
const runtimeHeapMinimum = 4 << 20

// floorPercent returns the GOGC percentage whose heap goal is at least
// floor, and at least base's. The runtime's goal is the larger of
// runtimeHeapMinimum × percent/100 and live × (1 + percent/100) (plus
// stacks and globals): the first term gives the floor while the live heap
// is small, the second once live × (1 + that/100) would pass it.
func floorPercent(live, floor uint64, base int) int {
	if live*uint64(100+base) >= floor*100 {
		return base
	}
	p := (floor*100 + runtimeHeapMinimum - 1) / runtimeHeapMinimum
	if live > 0 {
		p = min(p, ((floor-live)*100+live-1)/live)
	}
	return max(base, int(min(p, maxFloorPercent)))
}
