package watchd

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// isTempName reports whether name is one a producer uses while a file is
// not yet complete (DESIGN.md §8): such names are never ingested. The rule
// is fileio's, shared with the model directory and the store.
func isTempName(name string) bool { return fileio.IsTempName(name) }

// freeName returns the path in dir for a file called base: dir/base, or
// dir/base.1, dir/base.2, ... when that name is taken, because an archive
// (done/, rejected/) keeps every file it was given.
func freeName(dir, base string) (string, error) {
	dst := filepath.Join(dir, base)
	for i := 1; ; i++ {
		if _, err := os.Lstat(dst); errors.Is(err, os.ErrNotExist) {
			return dst, nil
		} else if err != nil {
			return "", err
		}
		dst = filepath.Join(dir, base+"."+strconv.Itoa(i))
	}
}

// isReasonTemp reports whether name is that of a temporary file
// fileio.WriteFile makes for a reason file (".NAME.reason-*.tmp"). Nothing
// else in rejected/ starts with a dot: batches with temporary names are
// never taken from incoming/.
func isReasonTemp(name string) bool {
	rest, ok := strings.CutPrefix(name, ".")
	return ok && strings.HasSuffix(rest, fileio.TempSuffix) && strings.Contains(rest, ReasonSuffix+"-")
}

// removeStaleTemps removes the temporary files a crash (kill -9, power
// loss) left behind in models/ (a publication's, modeldir.RemoveStaleTemps)
// and rejected/ (a reason file's); the store removes its own when it
// opens. They are never read, but nothing else would remove them. The
// daemon is the only writer of both directories, so at its start no write
// is in progress there. A failure is logged, not fatal: the files are
// harmless, and the daemon must start on a root it cannot write to (it
// reports that as a storage fault when it first writes).
func (d *Daemon) removeStaleTemps() {
	removed, err := modeldir.RemoveStaleTemps(d.models)
	if err != nil {
		d.log.Warn("stale temporary files not removed", "dir", d.models, "err", err)
	}
	for _, name := range removed {
		d.log.Info("stale temporary file removed", "path", filepath.Join(d.models, name))
	}
	entries, err := os.ReadDir(d.rejected)
	if err != nil {
		d.log.Warn("stale temporary files not removed", "dir", d.rejected, "err", err)
		return
	}
	for _, e := range entries {
		if !isReasonTemp(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(d.rejected, e.Name())
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			d.log.Warn("stale temporary file not removed", "path", path, "err", err)
			continue
		}
		d.log.Info("stale temporary file removed", "path", path)
	}
}

// specialFile is a name in incoming/ that is not a regular file: a symbolic
// link, a directory, a FIFO, a socket or a device. The daemon never reads
// one: it moves it to rejected/.
type specialFile struct {
	mode   fs.FileMode
	target string // a symbolic link's, when it could be read
}

func (e *specialFile) Error() string {
	kind := fileio.KindOf(e.mode)
	if e.target != "" {
		kind += " to " + e.target
	}
	return kind + ", not a regular file"
}

// special returns the *specialFile for path, whose Lstat mode is mode.
func special(path string, mode fs.FileMode) *specialFile {
	e := &specialFile{mode: mode}
	if mode&fs.ModeSymlink != 0 {
		e.target, _ = os.Readlink(path) // the link's text; never followed
	}
	return e
}

// readBatch reads the batch file at path, which Lstat found regular: at
// most limit+1 bytes, so that a file grown past limit since is seen to be
// too large without being read whole. The file is opened with
// openBatchFlags (a name replaced by a symbolic link since is not followed,
// a FIFO does not block) and must still be regular once open: a
// *specialFile otherwise.
func readBatch(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, openBatchFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, special(path, fi.Mode())
	}
	// Room for the whole file and the read that sees its end, so the
	// buffer is not regrown: bytes.Buffer.ReadFrom grows when less than
	// MinRead is free.
	var b bytes.Buffer
	b.Grow(int(min(fi.Size(), limit)) + bytes.MinRead)
	_, err = b.ReadFrom(io.LimitReader(f, limit+1))
	return b.Bytes(), err
}
