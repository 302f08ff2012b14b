package modelfile

import (
	"hash/crc32"
	"sync"
)

// smallPayload is the size below which checksum sums byte by byte: hash/crc32's
// first Castagnoli checksum builds its SSE4.2 tables (about 0.25 ms, 6% of a
// whole svmgo train-linear run on a small set), which a model of a few KiB
// does not repay; byte by byte costs about 1.5 ns a byte.
const smallPayload = 16 << 10

// crc32cTable is the byte-at-a-time CRC-32C table, built on first use.
// The CRC is linear over GF(2), t[i^j] = t[i]^t[j], so the table is its
// eight one-bit entries and their XORs: 263 steps where eight shifts an
// entry took 2,048 (whose branch on a coin-toss bit made it 0.9% of a
// heart_scale train-linear's CPU, perf). t[128] = Castagnoli (seven
// shifts, then one with the polynomial); each lower bit is one more shift.
var crc32cTable = sync.OnceValue(func() *[256]uint32 {
	var t [256]uint32
	h := uint32(crc32.Castagnoli)
	for i := 128; i > 0; i >>= 1 {
		for j := 0; j < 256; j += 2 * i {
			t[i+j] = t[j] ^ h
		}
		h = h>>1 ^ crc32.Castagnoli&-(h&1)
	}
	return &t
})

// castagnoli is hash/crc32's table for larger payloads, built on first use.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// checksum returns the CRC-32C (Castagnoli) of p, the frame's checksum.
func checksum(p []byte) uint32 {
	if len(p) >= smallPayload {
		return crc32.Checksum(p, castagnoli())
	}
	t := crc32cTable()
	c := ^uint32(0)
	for _, b := range p {
		c = t[byte(c)^b] ^ c>>8
	}
	return ^c
}
