package modelfile

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// TestFrameSizePast2GiB: a frame claiming a 2 GiB payload in a file that
// large is refused where an int cannot count it (32-bit platforms: make
// cross-armv7 runs it under qemu-arm) rather than wrapped into a short
// read, and accepted as a length elsewhere; one past MaxPayload is refused
// everywhere.
func TestFrameSizePast2GiB(t *testing.T) {
	h := make([]byte, HeaderSize)
	copy(h, Magic)
	binary.LittleEndian.PutUint16(h[8:], Major)
	binary.LittleEndian.PutUint16(h[10:], Minor)
	binary.LittleEndian.PutUint64(h[12:], 1<<31)
	n, err := frameSize(h, HeaderSize+1<<31)
	if math.MaxInt == math.MaxInt32 {
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("32-bit: a 2³¹-byte payload: %d, %v, want ErrCorrupt", n, err)
		}
	} else if err != nil || int64(n) != 1<<31 {
		t.Errorf("a 2³¹-byte payload: %d, %v, want 2³¹", n, err)
	}
	binary.LittleEndian.PutUint64(h[12:], MaxPayload+1)
	if _, err := frameSize(h, HeaderSize+MaxPayload+1); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a payload past MaxPayload: %v, want ErrCorrupt", err)
	}
}
