package serve

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestFloorPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		base, want  int
	}{
		{live: 400 << 10, floor: 8 * mb, base: 100, want: 200},      // small live heap: the runtime's minimum doubled
		{live: 0, floor: 16 * mb, base: 100, want: 400},             // before the first collection
		{live: 3 * mb, floor: 8 * mb, base: 100, want: 167},         // live × 2 + 2/3 reaches the floor first
		{live: 4 * mb, floor: 8 * mb, base: 100, want: 100},         // live × 2 is the floor: GOGC's own
		{live: 64 * mb, floor: 8 * mb, base: 100, want: 100},        // past it
		{live: 400 << 10, floor: 8 * mb, base: 300, want: 300},      // never below the process's own
		{live: 1, floor: 1 << 40, base: 100, want: maxFloorPercent}, // capped
	} {
		got := floorPercent(c.live, c.floor, c.base)
		if got != c.want {
			t.Errorf("floorPercent(%d, %d, %d) = %d, want %d", c.live, c.floor, c.base, got, c.want)
		}
		// The goal the runtime derives from the percentage reaches the
		// floor (unless capped).
		p := uint64(got)
		goal := max(runtimeHeapMinimum*p/100, c.live*(100+p)/100)
		if got != maxFloorPercent && goal < c.floor {
			t.Errorf("live %d floor %d: percent %d gives a goal of %d", c.live, c.floor, got, goal)
		}
	}
}

// TestHeapFloor: a floor raises GOGC's percentage after a collection,
// and stopping it gives the process's own back; with the collector off
// nothing is done.
func TestHeapFloor(t *testing.T) {
	base := debug.SetGCPercent(100)
	defer debug.SetGCPercent(base)
	h := startHeapFloor(64 << 20)
	if h == nil {
		t.Fatal("no floor started")
	}
	runtime.GC()
	runtime.GC() // the first collection's finalizer has run by the second's end
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	if p <= 100 {
		t.Errorf("percent %d with a 64 MiB floor, want above 100", p)
	}
	h.stop()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("percent %d after stop, want the process's 100", p)
	}
	runtime.GC()
	runtime.GC()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("percent %d after a collection past stop, want 100", p)
	}
	debug.SetGCPercent(-1)
	if h := startHeapFloor(64 << 20); h != nil {
		h.stop()
		t.Error("a floor started with the collector off")
	}
	if h := startHeapFloor(0); h != nil {
		h.stop()
		t.Error("a floor of 0 started")
	}
}
