// Package durable writes and renames files so that a crash at any moment
// leaves either the old state or the complete new one (DESIGN.md §6 and §8):
// the daemon's store, its reason files and archives, the model directory and
// the command's outputs all go through it.
package durable

import (
	"os"
	"path/filepath"
	"runtime"
)

// TempSuffix ends the name of every temporary file WriteFile makes; with
// the leading dot (".BASE-*.tmp") it marks a file that is not complete yet,
// which watchers ignore and owners may remove after a crash.
const TempSuffix = ".tmp"

// TempPrefix returns how the temporary files WriteFile makes for a file
// called base begin.
func TempPrefix(base string) string { return "." + base + "-" }

// WriteFile writes data to path through a temporary file in the same
// directory: write, fsync, rename, fsync the directory. On an error before
// the rename the temporary file is removed and path is untouched; an error
// syncing the directory leaves the new file in place, not yet known durable.
func WriteFile(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, TempPrefix(filepath.Base(path))+"*"+TempSuffix)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close() // harmless when already closed
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// Rename renames src to dst and syncs both directories, so that after a
// crash the file is under exactly one of the two names.
func Rename(src, dst string) error {
	if err := os.Rename(src, dst); err != nil {
		return err
	}
	if err := SyncDir(filepath.Dir(dst)); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(src))
}

// SyncDir makes the names created or removed in dir durable. Windows cannot
// open a directory for syncing, and renames there are durable once they
// return.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
