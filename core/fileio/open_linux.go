package fileio

import (
	"io/fs"
	"os"
	"syscall"
)

// On Linux, files here are opened with open(2) and wrapped by os.NewFile
// on a blocking descriptor, which the runtime does not register with its
// network poller. os.OpenFile offers every file to the poller: a regular
// file costs four more system calls (fcntl to non-blocking and back
// around an epoll_ctl that fails), and the first one also creates the
// poller (epoll_create1, an eventfd, an epoll_ctl). Regular files never
// block and gain nothing from it; only they are opened this way
// (heart_scale train-linear: 55 system calls besides the runtime's own
// signal, thread and memory ones → 48, strace -c).

// createFile creates the file name (flag holds O_CREATE|O_EXCL, so it is
// a new regular file) as os.OpenFile does, without the poller.
func createFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	fd, err := openFD(name, flag, uint32(perm.Perm()))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// openRegular is OpenRegular: open(2) without blocking, fstat, and for a
// regular file the descriptor made blocking again (reads of a regular
// file never wait) before os.NewFile, so the poller never sees it.
func openRegular(path string) (*os.File, int64, error) {
	fd, err := openFD(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	for {
		if err = syscall.Fstat(fd, &st); err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return nil, 0, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		// The refusal names what the file is, in os's terms.
		f := os.NewFile(uintptr(fd), path)
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, 0, err
		}
		return nil, 0, notRegular(path, fi.Mode())
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFL, 0); errno != 0 {
		syscall.Close(fd)
		return nil, 0, &fs.PathError{Op: "fcntl", Path: path, Err: errno}
	}
	return os.NewFile(uintptr(fd), path), st.Size, nil
}

// openFD is open(2) with O_CLOEXEC, retried on EINTR as os does.
func openFD(name string, flag int, perm uint32) (int, error) {
	for {
		fd, err := syscall.Open(name, flag|syscall.O_CLOEXEC, perm)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
