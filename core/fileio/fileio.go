package fileio

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// TempSuffix ends the name of every temporary file this package makes;
// with the leading dot (".BASE-*.tmp") it marks a file that is not
// complete yet, which watchers ignore and owners may remove after a crash.
const TempSuffix = ".tmp"

// TempPrefix returns how the temporary files made for a file called base
// begin: "." + base + "-", base cut to its first MaxTempBase bytes so that
// a temporary name fits the file-name limit (NAME_MAX, 255 bytes) even
// when base alone nearly fills it.
func TempPrefix(base string) string {
	if len(base) > MaxTempBase {
		base = base[:MaxTempBase]
	}
	return "." + base + "-"
}

// MaxNameBytes is the longest file name (one path component) the file
// systems the daemon runs on accept: Linux's NAME_MAX, which ext4, XFS,
// btrfs and tmpfs share.
const MaxNameBytes = 255

// MaxTempBase is how much of base a temporary name keeps: with the dot,
// the dash, ten random digits and ".tmp" it stays within MaxNameBytes.
const MaxTempBase = MaxNameBytes - 16

// IsTempName reports whether name (a base name) is one a writer uses while
// a file is not yet complete: a dot-file or a name ending in ".tmp"
// (DESIGN.md §8). Scans and watchers skip such names.
func IsTempName(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, TempSuffix)
}

// IsTempOf reports whether name (a base name) is a temporary file this
// package made for a file called base, one a crash may have left behind.
func IsTempOf(name, base string) bool {
	return len(name) >= len(TempPrefix(base))+len(TempSuffix) &&
		strings.HasPrefix(name, TempPrefix(base)) && strings.HasSuffix(name, TempSuffix)
}

// RemoveTemps removes the temporary files a crashed writer left in dir for
// a file called base (IsTempOf names that are regular files) and returns
// their names. Only those names are touched: other dot-files and "*.tmp"
// names, directories and symbolic links stay. Call it only while nothing
// writes such a file in dir (at the start of its only writer): a write in
// progress would lose its file. One that vanishes meanwhile is not an
// error.
func RemoveTemps(dir, base string) (removed []string, err error) {
	return RemoveTempsFS(OS, dir, base)
}

// RemoveTempsFS is RemoveTemps on fsys.
func RemoveTempsFS(fsys FS, dir, base string) (removed []string, err error) {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !IsTempOf(e.Name(), base) || !e.Type().IsRegular() {
			continue
		}
		if err := fsys.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed = append(removed, e.Name())
	}
	return removed, nil
}

// WriteFile writes data to path through a temporary file in the same
// directory: write, fsync, rename, fsync the directory. A reader of path
// sees the old file or the complete new one, never a partial one. The file
// has mode 0644. On an error before the rename the temporary file is
// removed and path is untouched; an error syncing the directory leaves the
// new file in place, not yet known durable.
func WriteFile(path string, data []byte) error { return WriteFileFS(OS, path, data) }

// WriteFileFS is WriteFile on fsys.
func WriteFileFS(fsys FS, path string, data []byte) error { return writeFile(fsys, path, data, true) }

// ReplaceFile writes data to path as WriteFile does, through a temporary
// file and a rename, but syncs neither the file nor the directory: while
// the system runs, a reader of path sees the old file or the complete new
// one; after a crash path may hold the old file, the new one, or one whose
// blocks never reached the disk. It is for outputs a command can make
// again (a trained model), which LIBSVM's and LIBLINEAR's train write
// without syncing too: on a file system without a journal the two syncs
// write their blocks in the caller (one virtio kick each, a trap to the
// hypervisor on a VM) and were a sixth of a small training's CPU and half
// its wall (heart_scale train-linear, perf).
func ReplaceFile(path string, data []byte) error { return writeFile(OS, path, data, false) }

// writeFile is WriteFileFS, syncing the file and the directory when sync.
func writeFile(fsys FS, path string, data []byte, sync bool) error {
	dir := filepath.Dir(path)
	tmp, err := writeTemp(fsys, dir, filepath.Base(path), data, sync)
	if err != nil {
		return err
	}
	if err := fsys.Rename(tmp, path); err != nil {
		fsys.Remove(tmp)
		return err
	}
	if !sync {
		return nil
	}
	return SyncDirFS(fsys, dir)
}

// WriteTemp writes data to a new temporary file for a file called base in
// dir (TempPrefix(base) + random + TempSuffix, mode 0644), syncs and closes
// it, and returns its path, for a writer that gives the file its final
// name itself (a publisher that must not replace an existing name links
// it). On error nothing is left behind.
func WriteTemp(dir, base string, data []byte) (string, error) {
	return WriteTempFS(OS, dir, base, data)
}

// WriteTempFS is WriteTemp on fsys.
func WriteTempFS(fsys FS, dir, base string, data []byte) (string, error) {
	return writeTemp(fsys, dir, base, data, true)
}

// writeTemp is WriteTempFS, syncing the file only when sync.
func writeTemp(fsys FS, dir, base string, data []byte, sync bool) (string, error) {
	f, err := CreateTempFS(fsys, dir, base)
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	fail := func(err error) (string, error) {
		f.Close() // harmless when already closed
		fsys.Remove(tmp)
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	return tmp, nil
}

// CreateTempFS creates a new temporary file for a file called base in dir
// on fsys, named and moded as WriteTemp's, and returns it open for
// writing, for a writer that streams its data (svmgo follow); the caller
// syncs, closes and names it, or removes it. On error nothing is left
// behind.
func CreateTempFS(fsys FS, dir, base string) (File, error) {
	f, err := createTemp(fsys, dir, TempPrefix(base))
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		fsys.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// createTemp creates a new file in dir named prefix + random digits +
// TempSuffix, as os.CreateTemp does (mode 0600 until WriteTemp sets it),
// through fsys.
func createTemp(fsys FS, dir, prefix string) (File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+TempSuffix)
		f, err := fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return f, err
	}
}

// Rename renames src to dst and syncs both directories, so that after a
// crash the file is under exactly one of the two names.
func Rename(src, dst string) error { return RenameFS(OS, src, dst) }

// RenameFS is Rename on fsys.
func RenameFS(fsys FS, src, dst string) error {
	if err := fsys.Rename(src, dst); err != nil {
		return err
	}
	if err := SyncDirFS(fsys, filepath.Dir(dst)); err != nil {
		return err
	}
	return SyncDirFS(fsys, filepath.Dir(src))
}

// SyncDir makes the names created or removed in dir durable. Windows cannot
// open a directory for syncing, and renames there are durable once they
// return.
func SyncDir(dir string) error { return SyncDirFS(OS, dir) }

// SyncDirFS is SyncDir on fsys.
func SyncDirFS(fsys FS, dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := fsys.OpenFile(dir, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// MkdirAllSynced is MkdirAll on fsys that also makes the directories it
// creates durable: it syncs the parent of each one. Without that, a crash
// may take a new directory away with everything later put there and
// synced (a batch a producer renamed into a new incoming/, say).
func MkdirAllSynced(fsys FS, dir string, perm fs.FileMode) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := fsys.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d) {
			break
		}
		missing = append(missing, d)
	}
	if err := fsys.MkdirAll(dir, perm); err != nil {
		return err
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := SyncDirFS(fsys, filepath.Dir(missing[i])); err != nil {
			return err
		}
	}
	return nil
}

// ReadFileFS reads the whole file at path on fsys, as os.ReadFile does.
func ReadFileFS(fsys FS, path string) ([]byte, error) {
	f, err := fsys.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	b := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}

// ErrNotRegular is wrapped by OpenRegular's error for a directory, FIFO,
// socket or device (through an *fs.PathError holding a *NotRegularError).
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError is the error OpenRegular's *fs.PathError holds for a
// file that is not regular; it wraps ErrNotRegular and tells what the file
// is.
type NotRegularError struct {
	// Mode is the file's mode, as fstat gave it.
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string { return KindOf(e.Mode) + ", not a regular file" }

// Unwrap returns ErrNotRegular.
func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// OpenRegular opens path for reading and returns it with its size, after
// fstat says it is a regular file. It opens without blocking where the
// system has FIFOs (O_NONBLOCK), so a FIFO without a writer cannot block
// the caller (a FIFO named like a model file in a watched directory would
// otherwise freeze the watcher), and refuses anything that is not a
// regular file with an *fs.PathError holding a *NotRegularError (which
// wraps ErrNotRegular); a symbolic link is followed to what it names.
// Checking the open descriptor, not the name, leaves no window for the
// name to be replaced in between. Model files, data files and the
// command's inputs are opened with it. The caller closes the file.
func OpenRegular(path string) (*os.File, int64, error) { return openRegular(path) }

// notRegular is OpenRegular's refusal of the file at path, of mode m,
// which is not a regular file.
func notRegular(path string, m fs.FileMode) error {
	return &fs.PathError{Op: "open", Path: path, Err: &NotRegularError{Mode: m}}
}

// KindOf names the type of a file mode for a message: "a directory", "a
// FIFO (named pipe)", "a symbolic link" (of an Lstat mode), ...
func KindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsRegular():
		return "a regular file"
	}
	return fmt.Sprintf("a file of mode %v", m)
}
