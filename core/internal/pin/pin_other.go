//go:build !linux

package pin

// Thread pins nothing outside Linux (pin_linux.go) and returns a function
// that does nothing: a locked thread alone would only cost the runtime
// thread hand-offs.
func Thread() (unpin func()) { return func() {} }
