package data

import (
	"fmt"
	"os"
	"runtime/debug"
	"syscall"
	"unsafe"
)

// mapFile maps the size bytes of f read-only and returns them with the
// function that unmaps them; ok is false when f cannot be mapped, and the
// caller reads it instead. ReadFile reads a large file twice (the size
// query, then the parse); through a read buffer each pass copies the file
// out of the page cache, about a fifth of the parse's CPU time on
// Fashion-MNIST's test file (58 MB), while a mapping is read in place.
func mapFile(f *os.File, size int64) (mem []byte, unmap func(), ok bool) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, false
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, nil, false
	}
	var merr error
	if err := sc.Control(func(fd uintptr) {
		mem, merr = syscall.Mmap(int(fd), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	}); err != nil || merr != nil {
		return nil, nil, false
	}
	return mem, func() { _ = syscall.Munmap(mem) }, true
}

// readMapped runs read, which reads a mapping of the file at path, and
// turns the fault of a page the file no longer has (it was truncated
// meanwhile: SIGBUS) into an error wrapping ErrFileChanged, as a read(2)
// of the shrunk file would have ended early instead of stopping the
// process. Any other panic goes on.
func readMapped(path string, read func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if f, ok := r.(interface{ Addr() uintptr }); ok {
				err = fmt.Errorf("%w: %s (fault at %#x)", ErrFileChanged, path, f.Addr())
				return
			}
			panic(r)
		}
	}()
	return read()
}

// dropPages gives back the whole pages of mem[from:to], part of a file's
// mapping, and returns the offset in mem up to which pages are given
// back. A page read again is faulted in again from the page cache, with
// the same bytes: the mapping is the file's, read-only.
func dropPages(mem []byte, from, to int64) int64 {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	ps := uintptr(os.Getpagesize())
	a := (base + uintptr(from) + ps - 1) &^ (ps - 1)
	b := (base + uintptr(to)) &^ (ps - 1)
	if b <= a {
		return from
	}
	_ = syscall.Madvise(mem[a-base:b-base], syscall.MADV_DONTNEED) // a hint: on error the pages stay
	return int64(b - base)
}
