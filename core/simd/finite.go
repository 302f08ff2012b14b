package simd

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// FirstNonFinite returns the index of the first NaN or infinity in x, -1
// when every value is finite: the check a server runs over each batch of
// rows it is sent, which read alone took about as long as a linear model's
// prediction of them (examples/bench/serve.sh).
func FirstNonFinite(x []float32) int {
	from := 0
	if n32 := len(x) &^ 31; level >= AVX2 && level <= AVX512 && n32 > 0 {
		from = finiteLenAVX2(&x[0], n32)
	}
	return firstNonFiniteFrom(x, from)
}

// firstNonFiniteFrom is FirstNonFinite over x[from:] (its index counted
// from x[0]), in Go: a value is not finite when its exponent bits are all
// ones; four values' exponents plus one carry into their sign bits at
// once, so the words of 32 bytes are tested together, the values one at a
// time only in the tail or past a word that holds one.
func firstNonFiniteFrom(x []float32, from int) int {
	const exp, one, sign = 0x7f8000007f800000, 0x0080000000800000, 0x8000000080000000
	i := 4 * from
	if len(x) > 0 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), 4*len(x))
		for ; len(b)-i >= 32; i += 32 {
			w := b[i : i+32 : i+32] // one bounds check for the four words
			s := (binary.NativeEndian.Uint64(w[0:])&exp + one) | (binary.NativeEndian.Uint64(w[8:])&exp + one) |
				(binary.NativeEndian.Uint64(w[16:])&exp + one) | (binary.NativeEndian.Uint64(w[24:])&exp + one)
			if s&sign != 0 {
				break
			}
		}
	}
	for k := i / 4; k < len(x); k++ {
		if math.Float32bits(x[k])&0x7f800000 == 0x7f800000 {
			return k
		}
	}
	return -1
}
