package main

import (
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// applySlice sets the scheduler's time slice (sched_setattr's
// sched_runtime, which Linux 6.12 and later take as an EEVDF task's
// custom slice) of every thread of process pid to slice, and of each
// thread it starts later (a thread starts with the default slice), until
// the process ends. -server-slice: does a short slice bound the wait of a
// server thread woken while another thread holds its CPU?
func applySlice(pid int, slice time.Duration) {
	done := map[int]bool{}
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	for {
		tasks, err := os.ReadDir(dir)
		if err != nil {
			return // the process ended
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || done[tid] {
				continue
			}
			attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL, Runtime: uint64(slice.Nanoseconds())}
			if err := unix.SchedSetAttr(tid, &attr, 0); err != nil && !os.IsNotExist(err) && err != unix.ESRCH {
				die(err)
			}
			done[tid] = true
		}
		time.Sleep(20 * time.Millisecond)
	}
}
