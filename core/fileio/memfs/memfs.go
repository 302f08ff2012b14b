// Package memfs is an in-memory fileio.FS that knows what a crash would
// keep: Pebble's strict memory file system (vfs.NewStrictMem) for the
// daemon's crash tests.
//
// Two things are durable only when synced, as on a POSIX file system that
// promises no more than fsync(2) says:
//
//   - a file's bytes: written bytes are durable once the file is synced
//     (File.Sync); until then a crash keeps the bytes of the last sync, all
//     of the new ones, or a prefix of them (a torn write);
//   - the names in a directory: creating, renaming, linking and removing
//     are recorded in a log of operations, in order; syncing a directory
//     makes durable the operations that touched it and the earlier ones
//     they build on, not those of other directories. A crash keeps the
//     durable names plus a
//     random subset of the later operations, applied in order (one whose
//     source a dropped operation removed is skipped).
//
// CrashClone returns such a post-crash copy; the original goes on as if
// nothing happened. Names longer than fileio.MaxNameBytes fail with
// ENAMETOOLONG, as on Linux. There are no permissions (Chmod only records
// the mode) and no symbolic links beyond what Symlink makes for tests.
package memfs

import (
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/libsvmgo/libsvmgo/core/fileio"
)

// node is a file, a directory or a symbolic link. A hard link is a second
// name for the same *node.
type node struct {
	mode   fs.FileMode
	data   []byte // a file's bytes now
	synced []byte // a file's bytes as of its last Sync: what a crash keeps for sure
	// kept is how many leading bytes of data are synced's and untouched
	// since the last Sync (no write or truncation reached them): a crash
	// that tears the later writes keeps these, as an append-only log on a
	// real file system keeps what it synced before.
	kept   int
	target string // a symbolic link's
}

// namespace maps cleaned absolute paths to nodes; "/" is always there.
type namespace map[string]*node

// op is a change of names, logged until a directory sync makes it durable.
type op struct {
	dirs  []string                // the directories whose entries it changes
	apply func(ns namespace) bool // false when it cannot apply (after a crash dropped an earlier op)
}

// FS is the in-memory file system; see the package documentation. It is
// safe for concurrent use.
type FS struct {
	mu      sync.Mutex
	live    namespace
	durable namespace // the names a crash keeps for sure
	pending []op      // operations on live not yet in durable, in order
}

// New returns an empty file system holding only the root directory "/".
func New() *FS {
	root := func() namespace { return namespace{"/": {mode: fs.ModeDir | 0o755}} }
	ns := root()
	return &FS{live: ns, durable: namespace{"/": ns["/"]}}
}

var _ fileio.FS = (*FS)(nil)

func clean(name string) string { return filepath.Clean("/" + name) }

func pathErr(opName, name string, err error) error {
	return &fs.PathError{Op: opName, Path: name, Err: err}
}

// checkName fails a path whose last component is longer than NAME_MAX.
func checkName(opName, name string) error {
	if len(filepath.Base(name)) > fileio.MaxNameBytes {
		return pathErr(opName, name, syscall.ENAMETOOLONG)
	}
	return nil
}

// parentDir returns the error for p's parent not being a directory.
func (ns namespace) parentDir(opName, p string) error {
	d, ok := ns[filepath.Dir(p)]
	switch {
	case !ok:
		return pathErr(opName, p, syscall.ENOENT)
	case !d.mode.IsDir():
		return pathErr(opName, p, syscall.ENOTDIR)
	}
	return nil
}

// children returns the paths directly under dir, sorted.
func (ns namespace) children(dir string) []string {
	prefix := dir + "/"
	if dir == "/" {
		prefix = "/"
	}
	var out []string
	for p := range ns {
		if p != "/" && strings.HasPrefix(p, prefix) && !strings.Contains(p[len(prefix):], "/") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// move renames old (and everything under it) to new in ns.
func (ns namespace) move(old, new string) {
	for p, n := range ns {
		if p == old || strings.HasPrefix(p, old+"/") {
			delete(ns, p)
			ns[new+p[len(old):]] = n
		}
	}
}

// change applies a change of names to live and logs it until a sync of
// one of dirs makes it durable; the caller holds mu.
func (m *FS) change(apply func(ns namespace) bool, dirs ...string) {
	apply(m.live)
	m.pending = append(m.pending, op{dirs: dirs, apply: apply})
}

// OpenFile implements fileio.FS: O_CREATE, O_EXCL, O_TRUNC and O_APPEND
// are honoured; a directory opens for reading (and syncing) only.
func (m *FS) OpenFile(name string, flag int, perm fs.FileMode) (fileio.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := clean(name)
	if err := checkName("open", name); err != nil {
		return nil, err
	}
	n, ok := m.live[p]
	switch {
	case ok && flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0:
		return nil, pathErr("open", name, syscall.EEXIST)
	case ok && n.mode&fs.ModeSymlink != 0:
		t, ok2 := m.live[clean(n.target)]
		if !ok2 || flag&syscall.O_NOFOLLOW != 0 {
			return nil, pathErr("open", name, syscall.ELOOP)
		}
		n = t
	case ok && n.mode.IsDir() && flag&(os.O_WRONLY|os.O_RDWR) != 0:
		return nil, pathErr("open", name, syscall.EISDIR)
	case !ok && flag&os.O_CREATE == 0:
		return nil, pathErr("open", name, syscall.ENOENT)
	case !ok:
		if err := m.live.parentDir("open", p); err != nil {
			return nil, err
		}
		n = &node{mode: perm & fs.ModePerm}
		m.change(func(ns namespace) bool {
			if ns.parentDir("", p) != nil {
				return false
			}
			ns[p] = n
			return true
		}, filepath.Dir(p))
	}
	if flag&os.O_TRUNC != 0 && n.mode.IsRegular() {
		n.data = n.data[:0]
		n.kept = 0
	}
	return &file{fs: m, n: n, name: name, path: p, append: flag&os.O_APPEND != 0,
		writable: flag&(os.O_WRONLY|os.O_RDWR) != 0}, nil
}

// Rename implements fileio.FS with rename(2)'s rules for what may replace
// what.
func (m *FS) Rename(oldpath, newpath string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, n := clean(oldpath), clean(newpath)
	lerr := func(err error) error { return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err} }
	if len(filepath.Base(n)) > fileio.MaxNameBytes {
		return lerr(syscall.ENAMETOOLONG)
	}
	src, ok := m.live[o]
	if !ok {
		return lerr(syscall.ENOENT)
	}
	if err := m.live.parentDir("rename", n); err != nil {
		return lerr(err.(*fs.PathError).Err)
	}
	if o == n {
		return nil
	}
	if strings.HasPrefix(n, o+"/") {
		return lerr(syscall.EINVAL)
	}
	if dst, ok := m.live[n]; ok {
		switch {
		case dst.mode.IsDir() && !src.mode.IsDir():
			return lerr(syscall.EISDIR)
		case !dst.mode.IsDir() && src.mode.IsDir():
			return lerr(syscall.ENOTDIR)
		case dst.mode.IsDir() && len(m.live.children(n)) > 0:
			return lerr(syscall.ENOTEMPTY)
		}
	}
	apply := func(ns namespace) bool {
		if _, ok := ns[o]; !ok || ns.parentDir("", n) != nil {
			return false
		}
		delete(ns, n)
		ns.move(o, n)
		return true
	}
	m.change(apply, filepath.Dir(o), filepath.Dir(n))
	return nil
}

// Link implements fileio.FS.
func (m *FS) Link(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, n := clean(oldname), clean(newname)
	lerr := func(err error) error { return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: err} }
	if len(filepath.Base(n)) > fileio.MaxNameBytes {
		return lerr(syscall.ENAMETOOLONG)
	}
	src, ok := m.live[o]
	switch {
	case !ok:
		return lerr(syscall.ENOENT)
	case src.mode.IsDir():
		return lerr(syscall.EPERM)
	}
	if _, ok := m.live[n]; ok {
		return lerr(syscall.EEXIST)
	}
	if err := m.live.parentDir("link", n); err != nil {
		return lerr(err.(*fs.PathError).Err)
	}
	apply := func(ns namespace) bool {
		s, ok := ns[o]
		if _, taken := ns[n]; !ok || taken || ns.parentDir("", n) != nil {
			return false
		}
		ns[n] = s
		return true
	}
	m.change(apply, filepath.Dir(n))
	return nil
}

// Remove implements fileio.FS.
func (m *FS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := clean(name)
	n, ok := m.live[p]
	switch {
	case !ok:
		return pathErr("remove", name, syscall.ENOENT)
	case p == "/":
		return pathErr("remove", name, syscall.EBUSY)
	case n.mode.IsDir() && len(m.live.children(p)) > 0:
		return pathErr("remove", name, syscall.ENOTEMPTY)
	}
	apply := func(ns namespace) bool {
		if _, ok := ns[p]; !ok || len(ns.children(p)) > 0 {
			return false
		}
		delete(ns, p)
		return true
	}
	m.change(apply, filepath.Dir(p))
	return nil
}

// RemoveAll removes path and everything under it, as os.RemoveAll does: a
// test's operator deleting a directory (not part of fileio.FS).
func (m *FS) RemoveAll(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := clean(name)
	if p == "/" {
		return pathErr("removeall", name, syscall.EBUSY)
	}
	apply := func(ns namespace) bool {
		for q := range ns {
			if q == p || strings.HasPrefix(q, p+"/") {
				delete(ns, q)
			}
		}
		return true
	}
	m.change(apply, filepath.Dir(p))
	return nil
}

// ReadDir implements fileio.FS.
func (m *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := clean(name)
	n, ok := m.live[p]
	switch {
	case !ok:
		return nil, pathErr("open", name, syscall.ENOENT)
	case !n.mode.IsDir():
		return nil, pathErr("readdirent", name, syscall.ENOTDIR)
	}
	var out []fs.DirEntry
	for _, c := range m.live.children(p) {
		out = append(out, fs.FileInfoToDirEntry(info(filepath.Base(c), m.live[c])))
	}
	return out, nil
}

// Lstat implements fileio.FS.
func (m *FS) Lstat(name string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.live[clean(name)]
	if !ok {
		if err := m.live.parentDir("lstat", clean(name)); err != nil {
			return nil, err
		}
		return nil, pathErr("lstat", name, syscall.ENOENT)
	}
	return info(filepath.Base(clean(name)), n), nil
}

// Readlink implements fileio.FS.
func (m *FS) Readlink(name string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.live[clean(name)]
	switch {
	case !ok:
		return "", pathErr("readlink", name, syscall.ENOENT)
	case n.mode&fs.ModeSymlink == 0:
		return "", pathErr("readlink", name, syscall.EINVAL)
	}
	return n.target, nil
}

// MkdirAll implements fileio.FS.
func (m *FS) MkdirAll(path string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := clean(path)
	var missing []string
	for q := p; ; q = filepath.Dir(q) {
		n, ok := m.live[q]
		if ok {
			if !n.mode.IsDir() {
				return pathErr("mkdir", q, syscall.ENOTDIR)
			}
			break
		}
		missing = append(missing, q)
	}
	for _, q := range slices.Backward(missing) {
		if err := checkName("mkdir", q); err != nil {
			return err
		}
		d := &node{mode: fs.ModeDir | perm&fs.ModePerm}
		apply := func(ns namespace) bool {
			if _, ok := ns[q]; ok || ns.parentDir("", q) != nil {
				return false
			}
			ns[q] = d
			return true
		}
		m.change(apply, filepath.Dir(q))
	}
	return nil
}

// Symlink makes a symbolic link (not part of fileio.FS: tests use it).
func (m *FS) Symlink(target, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := clean(name)
	if _, ok := m.live[p]; ok {
		return pathErr("symlink", name, syscall.EEXIST)
	}
	if err := m.live.parentDir("symlink", p); err != nil {
		return err
	}
	n := &node{mode: fs.ModeSymlink | 0o777, target: target}
	m.change(func(ns namespace) bool { ns[p] = n; return true }, filepath.Dir(p))
	return nil
}

// syncDir makes durable the logged operations that touched dir, with the
// earlier ones they build on (those that touched a directory they touch,
// and so on back): a sync of one directory does not make another's names
// durable (POSIX promises no more; a journal that commits everything
// would hide a missing sync). The caller holds mu.
func (m *FS) syncDir(dir string) {
	dirs := map[string]bool{dir: true}
	take := make([]bool, len(m.pending))
	for i := len(m.pending) - 1; i >= 0; i-- {
		o := m.pending[i]
		if !slices.ContainsFunc(o.dirs, func(d string) bool { return dirs[d] }) {
			continue
		}
		take[i] = true
		for _, d := range o.dirs {
			dirs[d] = true
		}
	}
	kept := m.pending[:0]
	for i, o := range m.pending {
		if take[i] {
			o.apply(m.durable)
		} else {
			kept = append(kept, o)
		}
	}
	clear(m.pending[len(kept):])
	m.pending = kept
}

// CrashClone returns the file system a crash at this moment could leave,
// drawing what it keeps of what is not durable from rng (see the package
// documentation): each logged operation is kept with probability 1/2, and
// each file's unsynced bytes are dropped, kept, or kept up to a random
// length. The clone is durable throughout (a restarted machine's disk);
// m is unchanged.
func (m *FS) CrashClone(rng *rand.Rand) *FS {
	m.mu.Lock()
	defer m.mu.Unlock()
	ns := make(namespace, len(m.durable))
	for p, n := range m.durable {
		ns[p] = n
	}
	for _, o := range m.pending {
		if rng.IntN(2) == 0 {
			o.apply(ns)
		}
	}
	// New nodes, one per old node: hard links stay shared.
	copies := map[*node]*node{}
	for p, n := range ns {
		c, ok := copies[n]
		if !ok {
			c = &node{mode: n.mode, target: n.target}
			if n.mode.IsRegular() {
				c.data = crashBytes(rng, n.synced, n.data, n.kept)
				c.synced = slices.Clone(c.data)
				c.kept = len(c.data)
			}
			copies[n] = c
		}
		ns[p] = c
	}
	durable := make(namespace, len(ns))
	for p, n := range ns {
		durable[p] = n
	}
	return &FS{live: ns, durable: durable}
}

// crashBytes returns what a crash keeps of a file whose last synced bytes
// are synced and whose bytes now are data, the first kept of them
// untouched since that sync.
func crashBytes(rng *rand.Rand, synced, data []byte, kept int) []byte {
	if string(synced) == string(data) {
		return slices.Clone(data)
	}
	switch rng.IntN(3) {
	case 0:
		return slices.Clone(synced)
	case 1:
		return slices.Clone(data)
	}
	// Torn: the new bytes up to a random length, never shorter than what
	// no write touched since the sync (past that the old bytes are gone:
	// the write replaced them).
	return slices.Clone(data[:kept+rng.IntN(len(data)-kept+1)])
}

// info is an fs.FileInfo of a node.
type nodeInfo struct {
	name string
	mode fs.FileMode
	size int64
}

func info(name string, n *node) fs.FileInfo {
	return nodeInfo{name: name, mode: n.mode, size: int64(len(n.data))}
}

func (i nodeInfo) Name() string       { return i.name }
func (i nodeInfo) Size() int64        { return i.size }
func (i nodeInfo) Mode() fs.FileMode  { return i.mode }
func (i nodeInfo) ModTime() time.Time { return time.Time{} }
func (i nodeInfo) IsDir() bool        { return i.mode.IsDir() }
func (i nodeInfo) Sys() any           { return nil }

// file is an open file (or directory) of an FS.
type file struct {
	fs       *FS
	n        *node
	name     string
	path     string
	off      int
	append   bool
	writable bool
	closed   bool
}

func (f *file) Name() string { return f.name }

func (f *file) Read(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, pathErr("read", f.name, os.ErrClosed)
	}
	if f.n.mode.IsDir() {
		return 0, pathErr("read", f.name, syscall.EISDIR)
	}
	if f.off >= len(f.n.data) {
		return 0, io.EOF
	}
	k := copy(p, f.n.data[f.off:])
	f.off += k
	return k, nil
}

func (f *file) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, pathErr("write", f.name, os.ErrClosed)
	}
	if !f.writable {
		return 0, pathErr("write", f.name, syscall.EBADF)
	}
	if f.append {
		f.off = len(f.n.data)
	}
	// In place: synced has its own copy (Sync).
	end := f.off + len(p)
	if end > len(f.n.data) {
		f.n.data = append(f.n.data, make([]byte, end-len(f.n.data))...)
	}
	copy(f.n.data[f.off:], p)
	f.n.kept = min(f.n.kept, f.off)
	f.off = end
	return len(p), nil
}

func (f *file) Stat() (fs.FileInfo, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	return info(filepath.Base(f.path), f.n), nil
}

// Sync makes a file's bytes durable, or a directory's names.
func (f *file) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return pathErr("sync", f.name, os.ErrClosed)
	}
	if f.n.mode.IsDir() {
		f.fs.syncDir(f.path)
		return nil
	}
	f.n.synced = slices.Clone(f.n.data)
	f.n.kept = len(f.n.data)
	return nil
}

func (f *file) Chmod(mode fs.FileMode) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	f.n.mode = f.n.mode&^fs.ModePerm | mode&fs.ModePerm
	return nil
}

func (f *file) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return pathErr("close", f.name, os.ErrClosed)
	}
	f.closed = true
	return nil
}
