package watchd

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/libsvmgo/libsvmgo/daemon/internal/durable"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
)

// isTempName reports whether name is one a producer uses while a file is not
// yet complete (DESIGN.md §8): such names are never ingested.
func isTempName(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".tmp")
}

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
// durable.WriteFile makes for a reason file (".NAME.reason-*.tmp"). Nothing
// else in rejected/ starts with a dot: batches with temporary names are
// never taken from incoming/.
func isReasonTemp(name string) bool {
	rest, ok := strings.CutPrefix(name, ".")
	return ok && strings.HasSuffix(rest, durable.TempSuffix) && strings.Contains(rest, ReasonSuffix+"-")
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
