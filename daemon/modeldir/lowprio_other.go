//go:build !linux

package modeldir

// lowerThreadPriority does nothing where threads have no CPU priority of
// their own that a process can set.
func lowerThreadPriority() error { return nil }
