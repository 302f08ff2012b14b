package modeldir

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/fileio"
)

// IsPublishTemp reports whether name (a base name) is one Publish gives
// its temporary files: ".model-*.tmp" (fileio.IsTempOf(name, "model")).
func IsPublishTemp(name string) bool { return fileio.IsTempOf(name, publishBase) }

// publishBase is the base name of Publish's temporary files.
const publishBase = "model"

// RemoveStaleTemps removes from dir the regular files named as a
// publisher's temporary files (IsPublishTemp) and returns their names. A
// publisher killed after writing its temporary file and before naming it
// leaves that file behind: watchers ignore it (a dot-file), but nothing
// else would ever remove it. Nothing else in dir is touched: published
// versions, other dot-files and "*.tmp" names, directories and symbolic
// links stay. Call it only while no process publishes into dir (at the
// start of the directory's only publisher): a publication in progress
// would lose its file and fail. A file that vanishes meanwhile is not an
// error.
func RemoveStaleTemps(dir string) ([]string, error) { return RemoveStaleTempsFS(fileio.OS, dir) }

// RemoveStaleTempsFS is RemoveStaleTemps on the file system fsys.
func RemoveStaleTempsFS(fsys fileio.FS, dir string) ([]string, error) {
	removed, err := fileio.RemoveTempsFS(fsys, dir, publishBase)
	if err != nil {
		return removed, fmt.Errorf("modeldir: remove stale temporary files: %w", err)
	}
	return removed, nil
}
