// Package pin holds a goroutine's OS thread on the CPU it is running on
// while one solver works alone, so that the scheduler does not move it
// between CPUs (each move costs the solver its warm L1/L2 caches and
// branch predictors). It imports only the runtime and, on Linux,
// golang.org/x/sys/unix.
package pin
