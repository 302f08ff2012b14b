package modelfile

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
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

// ReadBytes reads the model file at path without decoding its body. It
// opens the file without blocking and refuses anything but a regular file
// (an *fs.PathError wrapping fileio.ErrNotRegular: a FIFO, a directory, a
// device), then reads and checks the 24-byte frame (ErrNotModel,
// ErrVersion, ErrTruncated or ErrCorrupt, as Unmarshal reports them)
// before it reads the payload, so its memory is bounded by the frame's
// length and the file's size, whichever file it is given; a file that
// shrinks while read gives ErrTruncated. The checksum and the body are
// left to the decoder. Errors name the path.
func ReadBytes(path string) ([]byte, error) { return readModelBytes(path) }

// writeAtomic writes data to path as WriteFile documents.
func writeAtomic(path string, data []byte) error {
	if err := fileio.WriteFile(path, data); err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	return nil
}

// ReadFile reads the model file at path as ReadBytes does and decodes it as
// Unmarshal does. Errors name the path and wrap Unmarshal's sentinels (or
// the os error).
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

// readModelBytes reads the model file at path: it opens it without
// blocking and refuses anything but a regular file (fileio.OpenRegular),
// reads and checks the frame, and only then reads the payload, whose
// length the frame gives and the file's size must match. A file of
// gigabytes that is not a model costs HeaderSize bytes to refuse.
func readModelBytes(path string) ([]byte, error) {
	f, size, err := fileio.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("modelfile: %w", err)
	}
	defer f.Close()
	var h [HeaderSize]byte
	n, err := io.ReadFull(f, h[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("modelfile: read %s: %w", path, err)
	}
	payload, err := frameSize(h[:n], size)
	if err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, path)
	}
	data := make([]byte, HeaderSize+payload)
	copy(data, h[:])
	if _, err := io.ReadFull(f, data[HeaderSize:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			// The file shrank after its size was read: a writer that does
			// not publish atomically.
			return nil, fmt.Errorf("%w: %s: %w", ErrTruncated, path, err)
		}
		return nil, fmt.Errorf("modelfile: read %s: %w", path, err)
	}
	// A file that grew after its size was read is read up to that size:
	// the checksum then tells whether the bytes read are a model.
	return data, nil
}

// frameSize checks the frame h of a file of size bytes and returns the
// payload length, which fits an int.
func frameSize(h []byte, size int64) (int, error) {
	_, _, n, err := checkFrame(h, uint64(size))
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt-HeaderSize {
		return 0, fmt.Errorf("%w: a %d-byte payload does not fit this platform's memory", ErrCorrupt, n)
	}
	return int(n), nil
}
