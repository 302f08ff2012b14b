//go:build !linux

package fileio

import (
	"io/fs"
	"os"
)

// createFile creates the file name (flag holds O_CREATE|O_EXCL).
func createFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// openRegular is OpenRegular: open without blocking where the system has
// FIFOs, then fstat.
func openRegular(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, notRegular(path, fi.Mode())
	}
	return f, fi.Size(), nil
}
