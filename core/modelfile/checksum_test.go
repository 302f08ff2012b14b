package modelfile

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestChecksum: both of checksum's paths give hash/crc32's CRC-32C, at every
// length around the threshold and on the standard check value.
func TestChecksum(t *testing.T) {
	if got := checksum([]byte("123456789")); got != 0xe3069283 { // CRC-32C's check value
		t.Fatalf("checksum(123456789) = %#x, want 0xe3069283", got)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	p := make([]byte, smallPayload+100)
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
	want := crc32.MakeTable(crc32.Castagnoli)
	for _, n := range []int{0, 1, 7, 8, 9, 63, 326, 4097, smallPayload - 1, smallPayload, smallPayload + 1, len(p)} {
		if got, w := checksum(p[:n]), crc32.Checksum(p[:n], want); got != w {
			t.Errorf("checksum of %d bytes = %#x, hash/crc32 says %#x", n, got, w)
		}
	}
}

// TestCRC32CTable: the table built from its one-bit entries is the one
// eight shifts an entry give (hash/crc32's simple table).
func TestCRC32CTable(t *testing.T) {
	if got, want := crc32cTable(), crc32.MakeTable(crc32.Castagnoli); *got != [256]uint32(*want) {
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("t[%d] = %#x, hash/crc32 %#x", i, got[i], want[i])
			}
		}
	}
}
