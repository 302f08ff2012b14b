package serve

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRawDataFP32 checks rawData's FP32 path against the bytes decoded one
// value at a time as the protocol defines them (little-endian IEEE 754),
// bit for bit, and that the first non-finite value is named by its index
// and row wherever it lies, on the path by chunks and the value-at-a-time
// one, for a tensor within one chunk and one of three.
func TestRawDataFP32(t *testing.T) {
	for _, shape := range [][2]int{{7, 13}, {41, 1000}} {
		testRawDataFP32(t, shape[0], shape[1])
	}
}

func testRawDataFP32(t *testing.T, rows, cols int) {
	rng := rand.New(rand.NewPCG(3, 5))
	b := make([]byte, 4*rows*cols)
	want := make([]uint32, rows*cols)
	for i := range want {
		bits := rng.Uint32()
		for bits&0x7f800000 == 0x7f800000 { // finite values, every sign and class
			bits = rng.Uint32()
		}
		want[i] = bits
		binary.LittleEndian.PutUint32(b[4*i:], bits)
	}
	defer func(v bool) { nativeLittleEndian = v }(nativeLittleEndian)
	for _, native := range []bool{nativeLittleEndian, false} {
		nativeLittleEndian = native
		checkRawDataFP32(t, b, want, rows, cols)
	}
}

func checkRawDataFP32(t *testing.T, b []byte, want []uint32, rows, cols int) {
	t.Helper()
	dst := make([]float32, rows*cols)
	if err := rawData(dst, b, dtFP32, rows, cols); err != nil {
		t.Fatal(err)
	}
	for i, v := range dst {
		if math.Float32bits(v) != want[i] {
			t.Fatalf("value %d: bits %#08x, want %#08x", i, math.Float32bits(v), want[i])
		}
	}
	for _, k := range []int{0, cols + 4, rawChunk - 1, rawChunk, 2*rawChunk + 1, rows*cols - 1} {
		if k >= rows*cols {
			continue
		}
		for _, bad := range []uint32{0x7fc00000, 0x7f800000, 0xff800000, 0x7f800001} {
			c := append([]byte(nil), b...)
			binary.LittleEndian.PutUint32(c[4*k:], bad)
			err := rawData(dst, c, dtFP32, rows, cols)
			name := fmt.Sprintf("raw input value %d (row %d) is ", k, k/cols)
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("value %d = %#08x: error %v, want one naming %q", k, bad, err, name)
			}
		}
	}
	if err := rawData(dst, b[:len(b)-1], dtFP32, rows, cols); err == nil {
		t.Error("a byte short of the shape: no error")
	}
}

// BenchmarkRawDataFP32 times a 1000-row, 784-feature FP32 raw tensor into
// float32 rows: the one-copy path little-endian machines take, and the
// value-at-a-time path big-endian ones take.
func BenchmarkRawDataFP32(b *testing.B) {
	const rows, cols = 1000, 784
	src := make([]byte, 4*rows*cols)
	for i := range rows * cols {
		binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(float32(i%255)/255))
	}
	dst := make([]float32, rows*cols)
	for _, path := range []struct {
		name   string
		native bool
	}{{"copy", nativeLittleEndian}, {"per-value", false}} {
		b.Run(path.name, func(b *testing.B) {
			defer func(v bool) { nativeLittleEndian = v }(nativeLittleEndian)
			nativeLittleEndian = path.native
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if err := rawData(dst, src, dtFP32, rows, cols); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
