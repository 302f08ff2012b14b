package modelfile

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"

	"github.com/libsvmgo/libsvmgo/core"
)

// WriteFile writes m to path atomically (DESIGN §6): it writes a temporary
// file ".<name>-*.tmp" in path's directory, syncs it to disk, closes it,
// renames it to path and syncs the directory. A reader of path sees the old
// file or the complete new one, never a partial one; on any error before the
// rename the temporary file is removed. The file is created with mode 0644.
// An error after the rename (syncing the directory) leaves the complete new
// file at path, not yet known to be durable. Errors name the path.
//
// Watchers ignore dot-files and "*.tmp" names (DESIGN §8), so the temporary
// file is never mistaken for a model.
func WriteFile(path string, m *core.LinearModel) error {
	data, err := Marshal(m)
	if err != nil {
		return fmt.Errorf("%w (writing %s)", err, path)
	}
	return writeAtomic(path, data)
}

// WriteKernelFile writes the kernel model m to path atomically, as
// WriteFile does for a linear model.
func WriteKernelFile(path string, m *core.KernelModel) error {
	data, err := MarshalKernel(m)
	if err != nil {
		return fmt.Errorf("%w (writing %s)", err, path)
	}
	return writeAtomic(path, data)
}

// WriteBytes writes data, the bytes of a model file of any kind (package
// quantize makes the quantized ones), to path atomically, as WriteFile
// does. It does not check data.
func WriteBytes(path string, data []byte) error { return writeAtomic(path, data) }

// ReadBytes reads the whole file at path without decoding it, refusing,
// as ReadFile does, a file that is not a regular file (ErrNotModel) or
// larger than HeaderSize + MaxPayload (ErrCorrupt) before reading it; a file
// that shrinks while read gives ErrTruncated. Errors name the path.
func ReadBytes(path string) ([]byte, error) { return readModelBytes(path) }

// writeAtomic writes data to path as WriteFile documents.
func writeAtomic(path string, data []byte) (err error) {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+name+"-*.tmp")
	if err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close() // harmless when already closed
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	if err := syncDir(dir); err != nil {
		// The file is complete at path; only its durability is unknown.
		return fmt.Errorf("modelfile: write %s: sync directory: %w", path, err)
	}
	return nil
}

// syncDir makes a rename in dir durable. Windows cannot open a directory
// for syncing, and renames there are durable once they return.
func syncDir(dir string) error {
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

// ReadFile reads and decodes the model file at path, as Unmarshal does. It
// refuses a file larger than HeaderSize + MaxPayload before reading it.
// Errors name the path and wrap Unmarshal's sentinels (or the os error).
func ReadFile(path string) (*core.LinearModel, error) {
	data, err := readModelBytes(path)
	if err != nil {
		return nil, err
	}
	m, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, path)
	}
	return m, nil
}

// ReadKernelFile reads and decodes the kernel model file at path, as
// UnmarshalKernel does, with ReadFile's limits and errors.
func ReadKernelFile(path string) (*core.KernelModel, error) {
	data, err := readModelBytes(path)
	if err != nil {
		return nil, err
	}
	m, err := UnmarshalKernel(data)
	if err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, path)
	}
	return m, nil
}

// ReadKind returns the model kind of the file at path, as Kind does, with
// ReadFile's limits and errors. It reads the whole file, since the kind is
// trusted only once the checksum is.
func ReadKind(path string) (string, error) {
	data, err := readModelBytes(path)
	if err != nil {
		return "", err
	}
	k, err := Kind(data)
	if err != nil {
		return "", fmt.Errorf("%w (reading %s)", err, path)
	}
	return k, nil
}

// readModelBytes reads the file at path, refusing one larger than a model
// file can be before reading it.
func readModelBytes(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("modelfile: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("modelfile: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrNotModel, path)
	}
	if uint64(fi.Size()) > HeaderSize+MaxPayload || uint64(fi.Size()) > math.MaxInt {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than a model file can be", ErrCorrupt, path, fi.Size())
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			// The file shrank between Stat and Read: a writer that does
			// not publish atomically.
			return nil, fmt.Errorf("%w: %s: %w", ErrTruncated, path, err)
		}
		return nil, fmt.Errorf("modelfile: read %s: %w", path, err)
	}
	// A file that grew after Stat is read up to its size at Stat: the
	// frame's length field then reports it as truncated or not.
	return data, nil
}
