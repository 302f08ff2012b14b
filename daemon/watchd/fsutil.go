package watchd

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"

	"github.com/libsvmgo/libsvmgo/core/fileio"
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
