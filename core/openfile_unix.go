//go:build unix

package core

import "syscall"

// openNonblock makes opening a FIFO return at once instead of waiting for
// a writer; openRegular then refuses it. On a regular file it changes
// nothing.
const openNonblock = syscall.O_NONBLOCK
