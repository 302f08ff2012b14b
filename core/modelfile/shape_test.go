package modelfile

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// everyKind returns one msgpack object holding every kind of value, each in
// every width msgp writes.
func everyKind(t *testing.T) []byte {
	t.Helper()
	var b []byte
	b = msgp.AppendArrayHeader(b, 42) // the elements below
	for _, v := range []int64{0, 127, -1, -32, -33, 200, -200, 40000, -40000, 1 << 20, -1 << 20, 1 << 40, -1 << 40} {
		b = msgp.AppendInt64(b, v)
	}
	for _, v := range []uint64{255, 65535, 1 << 31, math.MaxUint64} {
		b = msgp.AppendUint64(b, v)
	}
	b = msgp.AppendFloat32(b, 1.5)
	b = msgp.AppendFloat64(b, -2.5)
	b = msgp.AppendNil(b)
	b = msgp.AppendBool(b, true)
	b = msgp.AppendBool(b, false)
	for _, n := range []int{0, 31, 32, 255, 256, 65536} {
		b = msgp.AppendString(b, strings.Repeat("s", n))
	}
	for _, n := range []int{0, 255, 256, 65536} {
		b = msgp.AppendBytes(b, make([]byte, n))
	}
	for _, n := range []int{1, 2, 4, 8, 16, 3, 300, 70000} { // fixext and ext8/16/32
		var err error
		b, err = msgp.AppendExtension(b, &msgp.RawExtension{Type: 5, Data: make([]byte, n)})
		if err != nil {
			t.Fatal(err)
		}
	}
	b = msgp.AppendArrayHeader(b, 16) // array16
	for range 16 {
		b = msgp.AppendMapHeader(b, 0)
	}
	b = msgp.AppendMapHeader(b, 16) // map16
	for i := range 16 {
		b = msgp.AppendInt(b, i)
		b = msgp.AppendArrayHeader(b, 0)
	}
	return b
}

func TestScanShapeAcceptsEveryKind(t *testing.T) {
	b := everyKind(t)
	if rest, err := msgp.Skip(b); err != nil || len(rest) != 0 {
		t.Fatalf("test object is not one msgpack object: %v, %d bytes left", err, len(rest))
	}
	if err := scanShape(b); err != nil {
		t.Fatalf("scanShape: %v", err)
	}
	for n := range len(b) {
		if err := scanShape(b[:n]); err == nil {
			t.Fatalf("scanShape accepted the first %d of %d bytes", n, len(b))
		}
	}
	if err := scanShape(append(bytes.Clone(b), 0)); err == nil {
		t.Fatal("scanShape accepted a trailing byte")
	}
}

func TestScanShapeDepth(t *testing.T) {
	nest := func(depth int) []byte {
		b := bytes.Repeat([]byte{0x91}, depth) // fixarrays of one
		return append(b, 0xc0)
	}
	if err := scanShape(nest(maxDepth)); err != nil {
		t.Errorf("depth %d refused: %v", maxDepth, err)
	}
	if err := scanShape(nest(maxDepth + 1)); err == nil {
		t.Errorf("depth %d accepted", maxDepth+1)
	}
}

// TestScanShapeAgreesWithSkip compares scanShape with msgp.Skip on random
// byte strings biased towards container and length bytes: scanShape accepts
// exactly the strings that Skip consumes whole (a valid object cannot hold
// a container claiming more elements than bytes), up to the depth limit.
func TestScanShapeAgreesWithSkip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	interesting := []byte{0x00, 0x7f, 0x80, 0x81, 0x82, 0x90, 0x91, 0x93, 0xa0, 0xa3, 0xc0, 0xc1,
		0xc2, 0xc4, 0xc5, 0xc6, 0xc7, 0xca, 0xcb, 0xcc, 0xcf, 0xd0, 0xd4, 0xd8, 0xd9, 0xdc,
		0xdd, 0xde, 0xdf, 0xe0, 0xff}
	accepted := 0
	for range 200000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			if rng.IntN(2) == 0 {
				b[i] = interesting[rng.IntN(len(interesting))]
			} else {
				b[i] = byte(rng.IntN(4)) // small lengths
			}
		}
		err := scanShape(b)
		rest, serr := msgp.Skip(b)
		skipOK := serr == nil && len(rest) == 0
		if (err == nil) != skipOK {
			t.Fatalf("% x: scanShape err = %v, msgp.Skip err = %v with %d bytes left", b, err, serr, len(rest))
		}
		if err == nil {
			accepted++
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d random strings were valid msgpack: the test explores too little", accepted)
	}
}
