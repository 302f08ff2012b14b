package watchd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/libsvmgo/libsvmgo/core/fileio"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// isTempName reports whether name is one a producer uses while a file is
// not yet complete (DESIGN.md §8): such names are never ingested. The rule
// is fileio's, shared with the model directory and the store.
func isTempName(name string) bool { return fileio.IsTempName(name) }

// archiveName returns the path in dir (done/ or rejected/) for a batch
// called name: dir/name, or when that is taken name.1, name.2, ..., because
// an archive keeps every file it was given. In rejected/ (reason set) a
// name ending in ReasonSuffix is taken only by reason files: a batch called
// "x.txt.reason" is archived as "x.txt.reason.batch", so neither it nor
// the reason file of a batch "x.txt" ever overwrites the other, and a
// reason file left without its batch (a crash between writing it and
// moving the batch) is the daemon's own, replaced by the next attempt.
// Every name returned fits the file-name limit with the reason suffix: one
// that would not is cut (fitName).
func (d *Daemon) archiveName(dir, name string, reason bool) (string, error) {
	extra := 0
	if reason {
		extra = len(ReasonSuffix)
		if strings.HasSuffix(name, ReasonSuffix) {
			name += BatchSuffix
		}
	}
	for i := 0; ; i++ {
		base := name
		if i > 0 {
			base += "." + strconv.Itoa(i)
		}
		dst := filepath.Join(dir, fitName(base, extra))
		free, err := d.free(dst)
		if err != nil {
			return "", err
		}
		if free {
			return dst, nil
		}
	}
}

// free reports whether nothing is at path.
func (d *Daemon) free(path string) (bool, error) {
	_, err := d.fs.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	return false, err
}

// fitName returns name when name plus extra more bytes fits
// fileio.MaxNameBytes; otherwise name cut (at a UTF-8 boundary) and ended
// with "~" and 16 hexadecimal digits of its SHA-256, so that two long names
// sharing their first 230-odd bytes stay apart.
func fitName(name string, extra int) string {
	if len(name)+extra <= fileio.MaxNameBytes {
		return name
	}
	h := sha256.Sum256([]byte(name))
	tag := "~" + hex.EncodeToString(h[:8])
	keep := fileio.MaxNameBytes - extra - len(tag)
	for keep > 0 && !utf8.RuneStart(name[keep]) {
		keep--
	}
	return name[:keep] + tag
}

// shown returns name as reasons and errors print it: as it is when it is
// valid UTF-8 without control characters, quoted (Go syntax) otherwise, so
// that a newline in a name cannot split a reason file's line.
func shown(name string) string {
	if !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) {
		return strconv.Quote(name)
	}
	return name
}

// isReasonTemp reports whether name is that of a temporary file
// fileio.WriteFile makes for a reason file (".NAME.reason-*.tmp", NAME cut
// when long). Nothing else in rejected/ starts with a dot: batches with
// temporary names are never taken from incoming/.
func isReasonTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, fileio.TempSuffix)
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
	removed, err := modeldir.RemoveStaleTempsFS(d.fs, d.models)
	if err != nil {
		d.log.Warn("stale temporary files not removed", "dir", d.models, "err", err)
	}
	for _, name := range removed {
		d.log.Info("stale temporary file removed", "path", filepath.Join(d.models, name))
	}
	entries, err := d.fs.ReadDir(d.rejected)
	if err != nil {
		d.log.Warn("stale temporary files not removed", "dir", d.rejected, "err", err)
		return
	}
	for _, e := range entries {
		if !isReasonTemp(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(d.rejected, e.Name())
		if err := d.fs.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
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
func (d *Daemon) special(path string, mode fs.FileMode) *specialFile {
	e := &specialFile{mode: mode}
	if mode&fs.ModeSymlink != 0 {
		e.target, _ = d.fs.Readlink(path) // the link's text; never followed
	}
	return e
}

// readBatch reads the batch file at path, which Lstat found regular: at
// most limit+1 bytes, so that a file grown past limit since is seen to be
// too large without being read whole. The file is opened with
// openBatchFlags (a name replaced by a symbolic link since is not followed,
// a FIFO does not block) and must still be regular once open: a
// *specialFile otherwise.
func (d *Daemon) readBatch(path string, limit int64) ([]byte, error) {
	f, err := d.fs.OpenFile(path, openBatchFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, d.special(path, fi.Mode())
	}
	// Room for the whole file and the read that sees its end, so the
	// buffer is not regrown: bytes.Buffer.ReadFrom grows when less than
	// MinRead is free.
	var b bytes.Buffer
	b.Grow(int(min(fi.Size(), limit)) + bytes.MinRead)
	_, err = b.ReadFrom(io.LimitReader(f, limit+1))
	return b.Bytes(), err
}
