package modelfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Check reads a model file of size bytes from r and checks what Open and
// Kind check, in one pass through a bounded buffer: the frame, the
// payload's CRC-32C, the msgpack structure of the body (scanShape's rules)
// and that its kind is one the format defines or a codec is registered
// for. It returns the kind. Its memory does not grow with the file: a
// device can check a model of any size without holding it. It does not
// decode the model, so Decode may still refuse a file Check passes (a
// body whose fields do not make a model core accepts); an ONNX file,
// which Decode reads, is not a model file here (ErrNotModel). Errors are
// Kind's, plus ErrTruncated when r ends before size bytes and ErrCorrupt
// when it holds more, and r's own errors.
func Check(r io.Reader, size int64) (kind string, err error) {
	c := NewChecker(size)
	var buf [32 << 10]byte
	// One byte past size tells a longer input from an exact one.
	if _, err := io.CopyBuffer(c, io.LimitReader(r, size+1), buf[:]); err != nil && c.err == nil {
		return "", err
	}
	return c.Close()
}

// A Checker is Check as an io.Writer, for a file that arrives in pieces
// (a transfer that also hashes and stores them): write the file to it,
// then Close says what Check would. A write fails, with the reason Close
// then returns (ErrNotModel, ErrVersion, ErrTruncated or ErrCorrupt), as
// soon as the frame is refused or more than size bytes arrive, so a
// transfer of something that is no model file stops at its first bytes;
// everything else is reported by Close, in Open's order (frame,
// truncation, checksum, body), once the whole file is there. Writes
// allocate nothing but the error of a refusal.
type Checker struct {
	size, n uint64 // the file's announced size; bytes written so far
	head    [HeaderSize]byte
	major   uint16
	minor   uint16
	crc     uint32
	err     error // a refusal of the frame or of the length, final
	shape   shapeWalker
}

// NewChecker returns a Checker of a model file of size bytes.
func NewChecker(size int64) *Checker {
	return &Checker{size: uint64(max(size, 0))}
}

// Write checks the next bytes of the file. It returns the reason once the
// file is refused.
func (c *Checker) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	written := len(p)
	if uint64(len(p)) > c.size-c.n {
		c.err = fmt.Errorf("%w: more than the %d bytes announced", ErrCorrupt, c.size)
		return 0, c.err
	}
	if c.n < HeaderSize {
		k := copy(c.head[c.n:], p)
		c.n += uint64(k)
		p = p[k:]
		if c.n < HeaderSize {
			// A bad magic is known from its first byte.
			if _, _, _, err := checkFrame(c.head[:c.n], c.size); errors.Is(err, ErrNotModel) {
				c.err = err
				return 0, err
			}
			return written, nil
		}
		major, minor, payload, err := checkFrame(c.head[:], c.size)
		if err != nil {
			c.err = err
			return 0, err
		}
		c.major, c.minor = major, minor
		c.shape.start(payload)
	}
	c.n += uint64(len(p))
	c.crc = crc32.Update(c.crc, castagnoli(), p)
	c.shape.write(p)
	return written, nil
}

// CRC returns the CRC-32C of the payload written so far: once Close has
// passed the file, the CRC its frame and a publisher's metadata give.
func (c *Checker) CRC() uint32 { return c.crc }

// Close ends the file and returns its kind, or why it is refused.
func (c *Checker) Close() (kind string, err error) {
	switch {
	case c.err != nil:
		return "", c.err
	case c.n < HeaderSize:
		_, _, _, err := checkFrame(c.head[:c.n], c.n) // ErrNotModel or ErrTruncated
		return "", err
	case c.n < c.size:
		return "", fmt.Errorf("%w: payload of %d bytes, header says %d", ErrTruncated, c.n-HeaderSize, c.size-HeaderSize)
	}
	if want := binary.LittleEndian.Uint32(c.head[20:24]); c.crc != want {
		return "", fmt.Errorf("%w: payload CRC-32C %08x, header says %08x", ErrChecksum, c.crc, want)
	}
	kindBytes, clipped, err := c.shape.end()
	if err != nil {
		return "", fmt.Errorf("%w: body: %w", ErrCorrupt, err)
	}
	base, _ := bytes.CutSuffix(kindBytes, []byte(ScaledKindSuffix))
	if k, ok := kindName(base); ok && !clipped {
		return k, nil
	}
	return "", kindError(string(kindBytes), "", c.major, c.minor)
}

// maxKindLen bounds the kind string a shapeWalker keeps: longer ones are
// no kind this package knows, and are clipped in messages anyway.
const maxKindLen = 64

// shapeWalker is scanShape over a payload that arrives in pieces, and
// bodyKind beside it: it keeps the counts of objects still to read per
// depth, the header of the object being read (at most 5 bytes), and the
// value of the body's first "k" key.
type shapeWalker struct {
	size, pos uint64 // the payload's length; bytes walked
	pending   [maxDepth + 1]uint64
	depth     int
	head      [5]byte
	headLen   int
	objStart  uint64 // offset of the object whose header or data is being read
	skip      uint64 // data bytes of that object still to pass
	err       error  // the first problem, reported by end

	// The body's kind, as bodyKind reads it: entries counts the objects
	// read at depth 1 (keys and values alternate); capturingKey is set
	// while a one-byte key is read into keyByte, keyK when that key is
	// "k", inKind while the string after it is read into kind.
	notMap       bool
	entries      uint64
	capturingKey bool
	keyByte      byte
	keyK, inKind bool
	foundKind    bool
	kind         [maxKindLen]byte
	kindLen      int
	kindTooLong  bool
	kindErr      error
}

// start begins a payload of size bytes.
func (w *shapeWalker) start(size uint64) {
	*w = shapeWalker{size: size}
	w.pending[0] = 1
}

// write walks the next bytes of the payload.
func (w *shapeWalker) write(p []byte) {
	for len(p) > 0 && w.err == nil {
		if w.skip > 0 {
			k := min(w.skip, uint64(len(p)))
			w.capture(p[:k])
			w.skip -= k
			w.pos += k
			p = p[k:]
			if w.skip == 0 {
				w.objectDone()
			}
			continue
		}
		if w.headLen == 0 && !w.begin() {
			return
		}
		w.head[w.headLen] = p[0]
		w.headLen++
		w.pos++
		p = p[1:]
		hdr, data, elems, err := objectHead(w.head[:w.headLen])
		if err != nil {
			w.err = fmt.Errorf("at offset %d: %w", w.objStart, err)
			return
		}
		if hdr > w.headLen {
			continue
		}
		w.headLen = 0
		left := w.size - w.pos
		switch {
		case data > left:
			w.err = fmt.Errorf("at offset %d: %w", w.objStart, errShort)
			return
		case elems > left:
			w.err = fmt.Errorf("at offset %d: container of %d elements with %d bytes left", w.objStart, elems, left)
			return
		case elems > 0 && w.depth == maxDepth:
			w.err = fmt.Errorf("at offset %d: containers nested deeper than %d", w.objStart, maxDepth)
			return
		}
		w.header(data, elems)
		if elems > 0 {
			w.depth++
			w.pending[w.depth] = elems
		}
		w.skip = data
		if data == 0 {
			w.objectDone()
		}
	}
}

// begin starts the next object: it leaves the containers already read
// and takes one object off the innermost one's count. It reports false
// when the body has ended, with bytes left.
func (w *shapeWalker) begin() bool {
	for w.pending[w.depth] == 0 {
		if w.depth == 0 {
			w.err = fmt.Errorf("%d bytes after the msgpack object", w.size-w.pos)
			return false
		}
		w.depth--
	}
	w.pending[w.depth]--
	w.objStart = w.pos
	return true
}

// header notes, for the kind, the object whose header was just read at
// depth w.depth (before entering it): the body itself at depth 0, a key
// or a value of the body at depth 1.
func (w *shapeWalker) header(data, elems uint64) {
	lead := w.head[0]
	isStr := (lead >= 0xa0 && lead <= 0xbf) || (lead >= 0xd9 && lead <= 0xdb)
	isBin := lead >= 0xc4 && lead <= 0xc6
	switch w.depth {
	case 0:
		w.notMap = !(lead >= 0x80 && lead <= 0x8f) && lead != 0xde && lead != 0xdf
	case 1:
		if w.foundKind || w.kindErr != nil {
			return
		}
		key := w.entries%2 == 0
		w.entries++
		switch {
		case key && !isStr && !isBin:
			w.kindErr = errors.New("a map key that is not a string")
		case key:
			w.keyK = false
			w.capturingKey = data == 1
		case w.keyK && !isStr:
			w.kindErr = fmt.Errorf("kind: not a string (byte %#02x)", lead)
		case w.keyK:
			w.foundKind, w.inKind = true, data > 0
			w.kindTooLong = data > maxKindLen
		}
	}
}

// capture keeps the bytes of the key or the kind being read.
func (w *shapeWalker) capture(p []byte) {
	switch {
	case w.capturingKey:
		w.keyByte = p[0]
	case w.inKind:
		w.kindLen += copy(w.kind[w.kindLen:], p)
	}
}

// objectDone ends the data of the object just read.
func (w *shapeWalker) objectDone() {
	if w.capturingKey {
		w.capturingKey = false
		w.keyK = w.keyByte == 'k'
	}
	w.inKind = false
}

// end reports the payload's first problem, or returns its kind: the value
// of the body's first "k" key, empty when it has none, its first
// maxKindLen bytes when clipped.
func (w *shapeWalker) end() (kind []byte, clipped bool, err error) {
	if w.err != nil {
		return nil, false, w.err
	}
	if w.headLen > 0 || w.skip > 0 {
		return nil, false, fmt.Errorf("at offset %d: %w", w.objStart, errShort)
	}
	for d := 0; d <= w.depth; d++ {
		if w.pending[d] > 0 {
			return nil, false, fmt.Errorf("at offset %d: %w", w.pos, errShort)
		}
	}
	switch {
	case w.notMap:
		return nil, false, errors.New("the body is not a map")
	case w.kindErr != nil:
		return nil, false, w.kindErr
	}
	return w.kind[:w.kindLen], w.kindTooLong, nil
}
