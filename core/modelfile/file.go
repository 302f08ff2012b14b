package modelfile

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/fileio"
)

// WriteBytes writes data, the bytes of a model file of any kind, to path
// atomically (fileio.WriteFile: a temporary ".<name>-*.tmp" file in path's
// directory, which watchers ignore, synced, renamed, the directory
// synced): a reader of path sees the old file or the complete new one. It
// does not check data; WriteFile encodes a model of any
// kind and writes it with this. Errors name the path.
func WriteBytes(path string, data []byte) error {
	if err := fileio.WriteFile(path, data); err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	return nil
}

// ReplaceFile writes m to path as WriteFile does, through a temporary file
// and a rename, but without syncing (fileio.ReplaceFile): a reader never
// sees a partial file while the system runs, and a file a crash left torn
// fails the frame's checksum when read. For a model a command can train
// again. Errors name the path.
func ReplaceFile(path string, m core.Model) error {
	data, err := Encode(m)
	if err != nil {
		return fmt.Errorf("%w (writing %s)", err, path)
	}
	if err := fileio.ReplaceFile(path, data); err != nil {
		return fmt.Errorf("modelfile: write %s: %w", path, err)
	}
	return nil
}

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
	if IsONNX(h[:n]) {
		return readONNXBytes(f, path, h[:n], size)
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

// readONNXBytes reads the rest of an ONNX file whose first bytes h have
// been read, the file's size (at most MaxONNXBytes) bounding what is read.
func readONNXBytes(f io.Reader, path string, h []byte, size int64) ([]byte, error) {
	if size > MaxONNXBytes || uint64(size) > math.MaxInt {
		return nil, fmt.Errorf("%w: %s: an ONNX file of %d bytes, at most %d", ErrCorrupt, path, size, uint64(MaxONNXBytes))
	}
	data := make([]byte, max(int(size), len(h)))
	copy(data, h)
	if _, err := io.ReadFull(f, data[len(h):]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %s: %w", ErrTruncated, path, err)
		}
		return nil, fmt.Errorf("modelfile: read %s: %w", path, err)
	}
	return data, nil
}
