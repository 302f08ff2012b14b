package fileio

import (
	"io"
	"io/fs"
	"os"
)

// FS is the file-system seam of the daemon, its store and the model
// directory: every file operation they make goes through one, so a test can
// fail any single call (SQLite's fault injection at every call) or cut the
// writes not yet synced (crash clones); see fileio/memfs and
// fileio/faultfs. OS, the operating system's, is what they use unless told
// otherwise. Paths are the operating system's (filepath), not io/fs's
// slash-separated names. Each method behaves as the os function of its
// name, errors included (an *fs.PathError or *os.LinkError wrapping the
// errno), so callers classify failures as they would the os package's.
type FS interface {
	// OpenFile is os.OpenFile.
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	// Rename is os.Rename: it replaces newpath.
	Rename(oldpath, newpath string) error
	// Link is os.Link: it fails when newname exists.
	Link(oldname, newname string) error
	// Remove is os.Remove.
	Remove(name string) error
	// ReadDir is os.ReadDir: entries sorted by name.
	ReadDir(name string) ([]fs.DirEntry, error)
	// Lstat is os.Lstat.
	Lstat(name string) (fs.FileInfo, error)
	// Readlink is os.Readlink.
	Readlink(name string) (string, error)
	// MkdirAll is os.MkdirAll.
	MkdirAll(path string, perm fs.FileMode) error
}

// File is an open file of an FS: what the daemon, the store and the model
// directory do with one.
type File interface {
	io.Reader
	io.Writer
	io.Closer
	Name() string
	Stat() (fs.FileInfo, error)
	Sync() error
	Chmod(mode fs.FileMode) error
}

// OS is the operating system's file system.
var OS FS = osFS{}

type osFS struct{}

func (osFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	open := os.OpenFile
	if flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL {
		open = createFile // a new regular file: no poller (open_linux.go)
	}
	f, err := open(name, flag, perm)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return f, nil
}
func (osFS) Rename(oldpath, newpath string) error         { return os.Rename(oldpath, newpath) }
func (osFS) Link(oldname, newname string) error           { return os.Link(oldname, newname) }
func (osFS) Remove(name string) error                     { return os.Remove(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error)   { return os.ReadDir(name) }
func (osFS) Lstat(name string) (fs.FileInfo, error)       { return os.Lstat(name) }
func (osFS) Readlink(name string) (string, error)         { return os.Readlink(name) }
func (osFS) MkdirAll(path string, perm fs.FileMode) error { return os.MkdirAll(path, perm) }

// OrOS returns fsys, or OS when fsys is nil: the default of a Config's FS
// field.
func OrOS(fsys FS) FS {
	if fsys == nil {
		return OS
	}
	return fsys
}
