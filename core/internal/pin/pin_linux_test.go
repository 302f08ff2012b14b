package pin

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestThreadPinsAndRestores checks that Thread leaves the calling thread
// on exactly the CPU it runs on, and that unpin gives it back the mask it
// had, on a machine where the process may use two CPUs or more.
func TestThreadPinsAndRestores(t *testing.T) {
	runtime.LockOSThread() // read the masks of the thread Thread pins
	defer runtime.UnlockOSThread()
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Fatal(err)
	}
	if before.Count() < 2 {
		t.Skipf("the process may run on %d CPU: nothing to pin", before.Count())
	}
	unpin := Thread()
	var during unix.CPUSet
	if err := unix.SchedGetaffinity(0, &during); err != nil {
		t.Fatal(err)
	}
	cpu, ok := current()
	if !ok {
		t.Fatal("getcpu failed")
	}
	if during.Count() != 1 || !during.IsSet(cpu) {
		t.Errorf("pinned mask holds %d CPUs (CPU %d set: %v), want CPU %d alone", during.Count(), cpu, during.IsSet(cpu), cpu)
	}
	unpin()
	var after unix.CPUSet
	if err := unix.SchedGetaffinity(0, &after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("mask after unpin %v, want %v as before", after, before)
	}
}

// TestThreadOneCPU checks that a thread allowed a single CPU is left as
// it is, and still gets it back after unpin.
func TestThreadOneCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Fatal(err)
	}
	cpu, ok := current()
	if !ok {
		t.Fatal("getcpu failed")
	}
	var one unix.CPUSet
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = unix.SchedSetaffinity(0, &before) }()
	unpin := Thread()
	unpin()
	var after unix.CPUSet
	if err := unix.SchedGetaffinity(0, &after); err != nil {
		t.Fatal(err)
	}
	if after != one {
		t.Errorf("mask after unpin %v, want %v", after, one)
	}
}

// TestThreadOnePerCPU checks that a second Thread on a CPU another holds
// pins nothing, and that the CPU is free again once the first unpins.
func TestThreadOnePerCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Fatal(err)
	}
	if before.Count() < 2 {
		t.Skipf("the process may run on %d CPU: nothing to pin", before.Count())
	}
	unpin := Thread()
	cpu, _ := current()
	second := Thread() // the same thread, so the same CPU: already held
	var mask unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mask); err != nil {
		t.Fatal(err)
	}
	if mask.Count() != 1 || !mask.IsSet(cpu) {
		t.Fatalf("mask %v after the second Thread, want CPU %d alone", mask, cpu)
	}
	second()
	if err := unix.SchedGetaffinity(0, &mask); err != nil {
		t.Fatal(err)
	}
	if mask.Count() != 1 {
		t.Errorf("the second unpin changed the first's mask to %v", mask)
	}
	if taken.Load()&(1<<cpu) == 0 {
		t.Errorf("the second unpin freed CPU %d, which the first holds", cpu)
	}
	unpin()
	if taken.Load() != 0 {
		t.Errorf("taken = %#x after every unpin, want 0", taken.Load())
	}
	if err := unix.SchedGetaffinity(0, &mask); err != nil {
		t.Fatal(err)
	}
	if mask != before {
		t.Errorf("mask after unpin %v, want %v", mask, before)
	}
}
