package serve

import (
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// keepSchedSlice gives every thread of this process the scheduler slice
// slice (sched_setattr's sched_runtime, which Linux 6.12 and later take as
// an EEVDF task's custom slice; earlier kernels ignore it for SCHED_OTHER),
// then, once a second until stop is closed, each thread the Go runtime has
// started since (a new thread has the default slice). A task woken while
// another holds its CPU runs once it is the earliest virtual deadline,
// about a slice away: with the default slice (1.4 ms here) a server
// thread woken by a request on a busy machine can wait that long, about
// the 8-client p99 on a loaded machine (examples/serve/README.md).
func keepSchedSlice(slice time.Duration, stop <-chan struct{}) error {
	done := map[int]bool{}
	scan := func() error {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || done[tid] {
				continue
			}
			attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL, Runtime: uint64(slice.Nanoseconds())}
			if err := unix.SchedSetAttr(tid, &attr, 0); err != nil && err != unix.ESRCH {
				return err
			}
			done[tid] = true
		}
		return nil
	}
	if err := scan(); err != nil {
		return err
	}
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				scan()
			}
		}
	}()
	return nil
}
