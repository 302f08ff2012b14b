package watchd

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
