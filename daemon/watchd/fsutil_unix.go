//go:build unix

package watchd

import (
	"os"
	"syscall"
)

// openBatchFlags open a batch file without following a symbolic link (a name
// that became one since it was checked fails with ELOOP) and without
// blocking on a FIFO (open(2) on a FIFO waits for a writer otherwise).
const openBatchFlags = os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
