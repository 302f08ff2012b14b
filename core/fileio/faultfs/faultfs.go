// Package faultfs wraps a fileio.FS to fail one chosen call: SQLite's
// fault injection at every call (its "test_vfs" / malloc-failure loops).
// A test runs a scenario once to count the calls of each kind, then once
// for every count N, failing the Nth call of that kind, and checks that the
// code under test recovered; it also observes every call (Hook), which
// crash tests use to take a clone of the state at each sync and rename.
package faultfs

import (
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"github.com/libsvmgo/libsvmgo/core/fileio"
)

// Op is a kind of call that can be failed.
type Op int

// The kinds of calls: the open, write, fsync, rename, readdir and
// remove, with link counted as rename (both give a file a new name) and
// mkdir as its own.
const (
	Open Op = iota
	Write
	Sync
	Rename
	ReadDir
	Remove
	Mkdir
	NumOps
)

var opNames = [NumOps]string{"open", "write", "fsync", "rename", "readdir", "remove", "mkdir"}

func (o Op) String() string {
	if o < 0 || o >= NumOps {
		return fmt.Sprintf("Op(%d)", int(o))
	}
	return opNames[o]
}

// FS is the wrapper. Its zero value is not usable: call New.
type FS struct {
	inner fileio.FS

	mu     sync.Mutex
	counts [NumOps]int
	failOp Op
	failN  int // fail the failN-th call of failOp (1-based); 0: fail nothing
	err    syscall.Errno
	failed bool
	// Hook, when set, is called before every call of a kind with its path
	// (a rename's or link's old path; a file's name for write and sync),
	// under no lock: it may read the inner file system.
	Hook func(op Op, path string)
}

// New wraps inner; nothing fails until FailAt.
func New(inner fileio.FS) *FS { return &FS{inner: inner} }

var _ fileio.FS = (*FS)(nil)

// FailAt makes the nth call of op from now on (counting from 1) fail with
// errno, once; n = 0 fails nothing. It resets the counts.
func (f *FS) FailAt(op Op, n int, errno syscall.Errno) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counts = [NumOps]int{}
	f.failOp, f.failN, f.err, f.failed = op, n, errno, false
}

// Clear stops failing calls (the fault clears); the counts go on.
func (f *FS) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failN = 0
}

// Counts returns how many calls of each kind were made since New or the
// last FailAt.
func (f *FS) Counts() [NumOps]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts
}

// Failed reports whether the failure FailAt asked for happened.
func (f *FS) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// call counts a call of op and returns the errno to fail it with, or 0.
func (f *FS) call(op Op, path string) syscall.Errno {
	if h := f.Hook; h != nil {
		h(op, path)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counts[op]++
	if op == f.failOp && f.counts[op] == f.failN {
		f.failed = true
		return f.err
	}
	return 0
}

// OpenFile implements fileio.FS.
func (f *FS) OpenFile(name string, flag int, perm fs.FileMode) (fileio.File, error) {
	if e := f.call(Open, name); e != 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: e}
	}
	file, err := f.inner.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f}, nil
}

// Rename implements fileio.FS.
func (f *FS) Rename(oldpath, newpath string) error {
	if e := f.call(Rename, oldpath); e != 0 {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: e}
	}
	return f.inner.Rename(oldpath, newpath)
}

// Link implements fileio.FS; it counts as a rename.
func (f *FS) Link(oldname, newname string) error {
	if e := f.call(Rename, oldname); e != 0 {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: e}
	}
	return f.inner.Link(oldname, newname)
}

// Remove implements fileio.FS.
func (f *FS) Remove(name string) error {
	if e := f.call(Remove, name); e != 0 {
		return &fs.PathError{Op: "remove", Path: name, Err: e}
	}
	return f.inner.Remove(name)
}

// ReadDir implements fileio.FS.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if e := f.call(ReadDir, name); e != 0 {
		return nil, &fs.PathError{Op: "readdirent", Path: name, Err: e}
	}
	return f.inner.ReadDir(name)
}

// MkdirAll implements fileio.FS.
func (f *FS) MkdirAll(path string, perm fs.FileMode) error {
	if e := f.call(Mkdir, path); e != 0 {
		return &fs.PathError{Op: "mkdir", Path: path, Err: e}
	}
	return f.inner.MkdirAll(path, perm)
}

// Lstat implements fileio.FS; it never fails by injection.
func (f *FS) Lstat(name string) (fs.FileInfo, error) { return f.inner.Lstat(name) }

// Readlink implements fileio.FS; it never fails by injection.
func (f *FS) Readlink(name string) (string, error) { return f.inner.Readlink(name) }

// faultFile counts and fails its writes and syncs.
type faultFile struct {
	fileio.File
	fs *FS
}

func (f *faultFile) Write(p []byte) (int, error) {
	if e := f.fs.call(Write, f.Name()); e != 0 {
		return 0, &fs.PathError{Op: "write", Path: f.Name(), Err: e}
	}
	return f.File.Write(p)
}

func (f *faultFile) Sync() error {
	if e := f.fs.call(Sync, f.Name()); e != 0 {
		return &fs.PathError{Op: "sync", Path: f.Name(), Err: e}
	}
	return f.File.Sync()
}
