package pin

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// taken has bit c set while Thread holds a thread of this process on CPU
// c. Affinity is the process's to share among its threads, so this one
// word is the package's: two solvers that start on one CPU (a grid
// search's workers, C callers training on several threads) must not both
// be held there, where neither could move to a free CPU.
var taken atomic.Uint64

// Thread locks the calling goroutine to its OS thread and that thread to
// the CPU it is on, and returns the function that gives the thread its
// affinity mask back and unlocks it; the caller must call it on the same
// goroutine. It pins nothing (and the returned function only unlocks)
// where the process may run on one CPU only, where another Thread already
// holds that CPU, on a CPU numbered 64 or more, or where the mask cannot
// be read or set.
//
// The lock nests with the caller's own LockOSThread (a thread that calls
// in through cgo is locked already), and the mask restored is the one the
// thread had, so a C caller's thread leaves with its own affinity. Threads
// the runtime starts meanwhile do not inherit the pin: the runtime starts
// them from its template thread while a locked thread asks for one.
func Thread() (unpin func()) {
	runtime.LockOSThread()
	var old unix.CPUSet
	if unix.SchedGetaffinity(0, &old) != nil || old.Count() < 2 {
		return runtime.UnlockOSThread
	}
	cpu, ok := current()
	if !ok || cpu >= 64 || !old.IsSet(cpu) {
		return runtime.UnlockOSThread
	}
	bit := uint64(1) << cpu
	if taken.Or(bit)&bit != 0 {
		return runtime.UnlockOSThread
	}
	var one unix.CPUSet
	one.Set(cpu)
	if unix.SchedSetaffinity(0, &one) != nil {
		taken.And(^bit)
		return runtime.UnlockOSThread
	}
	return func() {
		// The mask the thread had a moment ago: an error here would be
		// the kernel's, and would leave the thread only less free.
		_ = unix.SchedSetaffinity(0, &old)
		taken.And(^bit)
		runtime.UnlockOSThread()
	}
}

// current returns the CPU the calling thread runs on (getcpu(2)).
func current() (int, bool) {
	var cpu uint32
	_, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0)
	return int(cpu), errno == 0
}
