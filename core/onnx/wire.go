package onnx

import "math"

// The protobuf wire format (protobuf.dev/programming-guides/encoding):
// the varints, tags, length-delimited and fixed-width values an ONNX
// model is made of, and skipping any field. Written here rather than
// taken from google.golang.org/protobuf's protowire, whose package inits
// (internal/detrand hashes the running binary's file) every svmgo
// command paid, ONNX or not. The consume functions return the value and
// the bytes read, or a negative n that wireError names.

// wireType is a field's wire type, the low three bits of its tag.
type wireType int8

const (
	varintType     wireType = 0
	fixed64Type    wireType = 1
	bytesType      wireType = 2
	startGroupType wireType = 3
	endGroupType   wireType = 4
	fixed32Type    wireType = 5
)

// fieldNum is a field's number, the tag less its wire type.
type fieldNum int32

// The failures of the consume functions, as negative byte counts.
const (
	errTruncated  = -1 - iota // the data ends inside a value
	errOverflow               // a varint past 64 bits
	errFieldNum               // field number 0 or past int32
	errWireType               // wire type 6 or 7, or an end-group marker out of place
	errGroupDepth             // groups nested past maxGroupDepth
)

// maxGroupDepth bounds the nesting of (deprecated) groups consumeField
// skips: no ONNX field is a group.
const maxGroupDepth = 100

// wireError names a failure of the consume functions.
func wireError(n int) string {
	switch n {
	case errTruncated:
		return "unexpected end of data"
	case errOverflow:
		return "variable length integer overflow"
	case errFieldNum:
		return "invalid field number"
	case errWireType:
		return "invalid wire type"
	case errGroupDepth:
		return "groups nested too deep"
	}
	return "parse error"
}

// consumeVarint reads a varint: at most ten bytes of seven bits each, low
// bits first, the tenth holding the 64th bit only.
func consumeVarint(b []byte) (uint64, int) {
	var v uint64
	for k := 0; k < 10; k++ {
		if k == len(b) {
			return 0, errTruncated
		}
		c := b[k]
		if k == 9 && c > 1 {
			return 0, errOverflow
		}
		v |= uint64(c&0x7f) << (7 * k)
		if c < 0x80 {
			return v, k + 1
		}
	}
	return 0, errOverflow
}

// consumeTag reads a field's tag: its number and wire type.
func consumeTag(b []byte) (fieldNum, wireType, int) {
	v, n := consumeVarint(b)
	if n < 0 {
		return 0, 0, n
	}
	num := v >> 3
	if num == 0 || num > math.MaxInt32 {
		return 0, 0, errFieldNum
	}
	return fieldNum(num), wireType(v & 7), n
}

// consumeBytes reads a length-delimited value, which aliases b.
func consumeBytes(b []byte) ([]byte, int) {
	l, n := consumeVarint(b)
	if n < 0 {
		return nil, n
	}
	if l > uint64(len(b)-n) {
		return nil, errTruncated
	}
	return b[n : n+int(l)], n + int(l)
}

// consumeFixed32 reads four bytes, little-endian.
func consumeFixed32(b []byte) (uint32, int) {
	if len(b) < 4 {
		return 0, errTruncated
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24, 4
}

// consumeField returns the bytes of a value of wire type typ (field num,
// its tag already read) at the start of b: the value skipped, whatever it
// holds; a group up to its end marker.
func consumeField(num fieldNum, typ wireType, b []byte) int {
	return consumeFieldDepth(num, typ, b, 0)
}

func consumeFieldDepth(num fieldNum, typ wireType, b []byte, depth int) int {
	switch typ {
	case varintType:
		_, n := consumeVarint(b)
		return n
	case fixed32Type:
		_, n := consumeFixed32(b)
		return n
	case fixed64Type:
		if len(b) < 8 {
			return errTruncated
		}
		return 8
	case bytesType:
		_, n := consumeBytes(b)
		return n
	case startGroupType:
		if depth == maxGroupDepth {
			return errGroupDepth
		}
		for k := 0; ; {
			num2, typ2, n := consumeTag(b[k:])
			if n < 0 {
				return n
			}
			k += n
			if typ2 == endGroupType {
				if num2 != num {
					return errWireType
				}
				return k
			}
			m := consumeFieldDepth(num2, typ2, b[k:], depth+1)
			if m < 0 {
				return m
			}
			k += m
		}
	}
	return errWireType
}

// putVarint appends v as a varint.
func putVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendTag appends the tag of field num of wire type typ.
func appendTag(b []byte, num fieldNum, typ wireType) []byte {
	return putVarint(b, uint64(num)<<3|uint64(typ))
}

// appendBytes appends v length-delimited.
func appendBytes(b, v []byte) []byte {
	return append(putVarint(b, uint64(len(v))), v...)
}

// appendFixed32 appends v's four bytes, little-endian.
func appendFixed32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}
