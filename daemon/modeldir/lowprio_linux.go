package modeldir

import "syscall"

// lowerThreadPriority gives the calling thread the lowest CPU priority,
// nice 19 (Linux's setpriority takes a thread id for PRIO_PROCESS, and a
// thread may always lower its own priority).
func lowerThreadPriority() error {
	return syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 19)
}
