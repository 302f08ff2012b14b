package watchd

import (
	"errors"
	"fmt"
	"slices"
	"syscall"
	"time"
)

// Storage faults
//
// Every step of a batch writes under the root (the store's snapshot, a
// model file, a reason file, the moves to done/ and rejected/), and the
// file system there can fail in ways that an operator, or time, repairs
// while the daemon runs. Exiting would repair none of them: a supervisor
// would restart the daemon into the same condition, and the health
// endpoint would vanish. Such a failure is a storage fault: the pass that
// met it stops where it was (the batch stays in incoming/, the store in
// memory keeps what it was not able to commit), the daemon reports itself
// degraded (/healthz, the storage_degraded metric, a log line at a bounded
// rate) and runs the pass again after a delay that doubles from
// Config.RetryMin to Config.RetryMax; pass repairs what the failure may
// have left (see Daemon.pass). Nothing is lost or doubled, for the same
// reason a crash loses and doubles nothing: a batch leaves incoming/ only
// once the store holding its rows is durable.

// storageErrnos are the errors of a storage fault: conditions of the file
// system or the machine, not of the data, which the daemon waits out.
var storageErrnos = []syscall.Errno{
	syscall.ENOSPC,  // the file system is full
	syscall.EDQUOT,  // the user's quota is used up
	syscall.EROFS,   // the file system became read-only (after errors, or remounted)
	syscall.EACCES,  // the root's permissions changed
	syscall.EPERM,   // ... or an immutable flag was set (chattr +i)
	syscall.ENOENT,  // a directory of the layout was removed
	syscall.ENOTDIR, // ... and replaced by a file
	syscall.EIO,     // a failing device
	syscall.ESTALE,  // a network file system lost the file handle
	syscall.EMFILE,  // out of file descriptors (also inotify watches: ENOSPC)
	syscall.ENFILE,
	syscall.ENOMEM,
}

// resourceErrnos are the storage faults that say nothing about the file
// being accessed: a batch that cannot be read for one of them is not
// rejected but taken again later.
var resourceErrnos = []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM}

// deviceErrnos are the storage faults of a device that reading one file may
// meet: the file is not to blame for them (a batch is not rejected), nor
// are the other files (they are read on).
var deviceErrnos = []syscall.Errno{syscall.EIO, syscall.ESTALE}

// isStorageFault reports whether err is a storage fault: the condition of
// the file system or the machine, not of an input. (Run waits out every
// failed pass; the log says whether it was a known storage fault.)
func isStorageFault(err error) bool { return isErrno(err, storageErrnos) }

// isResourceFault reports whether err is a storage fault of the machine,
// not of the file accessed.
func isResourceFault(err error) bool { return isErrno(err, resourceErrnos) }

// isErrno reports whether err wraps one of errnos (an *os.PathError, an
// *os.LinkError and an *os.SyscallError all unwrap to their errno).
func isErrno(err error, errnos []syscall.Errno) bool {
	var e syscall.Errno
	return errors.As(err, &e) && slices.Contains(errnos, e)
}

// faultLogInterval bounds the rate of the logs of a storage fault: the
// first failure is logged, then at most one line per interval while the
// fault lasts (each retry is counted in storage_failures_total), then the
// recovery.
const faultLogInterval = time.Minute

// faultState is the storage fault the daemon is degraded by.
type faultState struct {
	err      error     // the last failure
	since    time.Time // the first failure
	failures int       // failed passes since
	delay    time.Duration
	logged   time.Time // the last log line
}

// storageFault records that a pass failed with err, a storage fault: the
// daemon is degraded until a pass succeeds. It returns the delay before
// the next pass.
func (d *Daemon) storageFault(err error) time.Duration {
	now := time.Now()
	// incoming/ may be gone with its watch: the next pass remakes both.
	d.watching = false
	d.metrics.storageFailures.Inc()
	f := d.fault
	if f == nil {
		f = &faultState{since: now, delay: d.cfg.RetryMin}
		d.fault = f
		d.metrics.storageDegraded.Set(1)
	} else {
		f.delay = min(2*f.delay, d.cfg.RetryMax)
	}
	f.err = err
	f.failures++
	switch {
	case f.failures == 1:
		f.logged = now
		// storage is false for an error the list of storage faults does
		// not know (EXDEV, say: done/ made a mount point): waited out
		// alike, as no input is to blame.
		d.log.Error("storage fault: degraded, retrying", "err", err, "storage", isStorageFault(err),
			"retry_in", f.delay.String())
	case now.Sub(f.logged) >= faultLogInterval:
		f.logged = now
		d.log.Warn("storage fault persists: retrying", "err", err, "failures", f.failures,
			"degraded_seconds", now.Sub(f.since).Seconds(), "retry_in", f.delay.String())
	}
	msg := fmt.Sprintf("degraded: storage fault for %.0fs (%d failures): %v; retrying in %v\n",
		now.Sub(f.since).Seconds(), f.failures, err, f.delay)
	d.degraded.Store(&msg)
	return f.delay
}

// storageHealed ends a storage fault after a pass succeeded, if there was
// one.
func (d *Daemon) storageHealed() {
	f := d.fault
	if f == nil {
		return
	}
	d.fault = nil
	d.degraded.Store(nil)
	// Logged before the gauge drops: a reader that sees storage_degraded 0
	// finds the record already written.
	d.log.Info("storage recovered", "failures", f.failures, "degraded_seconds", time.Since(f.since).Seconds(),
		"last_err", f.err)
	d.metrics.storageDegraded.Set(0)
}
