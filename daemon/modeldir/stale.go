package modeldir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Publishers' temporary files are named tempPrefix + random + tempSuffix
// (".model-*.tmp", the pattern writeTemp gives os.CreateTemp).
const (
	tempPrefix = "." + filePrefix
	tempSuffix = ".tmp"
)

// IsPublishTemp reports whether name (a base name) is one Publish,
// PublishKernel and PublishQuantized give their temporary files:
// ".model-*.tmp".
func IsPublishTemp(name string) bool {
	return len(name) >= len(tempPrefix)+len(tempSuffix) &&
		strings.HasPrefix(name, tempPrefix) && strings.HasSuffix(name, tempSuffix)
}

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
func RemoveStaleTemps(dir string) (removed []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("modeldir: remove stale temporary files: %w", err)
	}
	for _, e := range entries {
		if !IsPublishTemp(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		err := os.Remove(filepath.Join(dir, e.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return removed, fmt.Errorf("modeldir: remove stale temporary file: %w", err)
		}
		removed = append(removed, e.Name())
	}
	return removed, nil
}
