//go:build unix && !linux

package fileio

import "syscall"

// openNonblock makes opening a FIFO return at once instead of waiting for
// a writer (Linux opens with O_NONBLOCK itself: open_linux.go).
const openNonblock = syscall.O_NONBLOCK
