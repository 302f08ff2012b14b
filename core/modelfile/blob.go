package modelfile

import (
	"encoding/binary"
	"math"
)

// Large numeric arrays are msgpack bin blobs of little-endian values
// (DESIGN §5), in every kind's body; these encode them, for this package's
// bodies and for package quantize, which fills the quantized ones.

// Float32Blob returns v as a blob of little-endian float32, 4 bytes a
// value; nil for an empty v (an empty blob).
func Float32Blob(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// Float64Blob returns v as a blob of little-endian float64, 8 bytes a
// value; nil for an empty v.
func Float64Blob(v []float64) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}
