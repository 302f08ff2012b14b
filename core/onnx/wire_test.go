package onnx

import (
	"bytes"
	"math"
	"testing"
)

// TestWireFormat checks the wire functions against encodings worked out
// by hand from the protobuf encoding guide: varints (300 is ac 02; 2^64−1
// ten bytes ending 01), tags, length-delimited and fixed32 values, a
// group skipped to its end marker, and each failure.
func TestWireFormat(t *testing.T) {
	for _, c := range []struct {
		v uint64
		b []byte
	}{{0, []byte{0}}, {1, []byte{1}}, {127, []byte{0x7f}}, {128, []byte{0x80, 1}}, {300, []byte{0xac, 2}},
		{math.MaxUint64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1}}} {
		if got := putVarint(nil, c.v); !bytes.Equal(got, c.b) {
			t.Errorf("putVarint(%d) = % x, want % x", c.v, got, c.b)
		}
		if v, n := consumeVarint(append(c.b, 0x55)); v != c.v || n != len(c.b) {
			t.Errorf("consumeVarint(% x) = %d, %d", c.b, v, n)
		}
	}
	for _, c := range []struct {
		b    []byte
		want int
	}{{nil, errTruncated}, {[]byte{0x80}, errTruncated}, {[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2}, errOverflow},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0}, errOverflow}} {
		if _, n := consumeVarint(c.b); n != c.want {
			t.Errorf("consumeVarint(% x): n = %d, want %d (%s)", c.b, n, c.want, wireError(c.want))
		}
	}
	// Field 1 varint 150 (08 96 01), field 2 string "testing", field 5
	// fixed32 1.0, field 4 a group holding field 1 varint 1.
	msg := appendTag(nil, 1, varintType)
	msg = putVarint(msg, 150)
	msg = appendBytes(appendTag(msg, 2, bytesType), []byte("testing"))
	msg = appendFixed32(appendTag(msg, 5, fixed32Type), math.Float32bits(1))
	msg = append(appendTag(msg, 4, startGroupType), 0x08, 0x01, 0x24) // 0x24: field 4, end group
	want := []byte{0x08, 0x96, 0x01, 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g', 0x2d, 0, 0, 0x80, 0x3f, 0x23, 0x08, 0x01, 0x24}
	if !bytes.Equal(msg, want) {
		t.Fatalf("encoded % x, want % x", msg, want)
	}
	var nums []fieldNum
	for b := msg; len(b) > 0; {
		num, typ, n := consumeTag(b)
		if n < 0 {
			t.Fatalf("tag at % x: %s", b, wireError(n))
		}
		switch num {
		case 2:
			if v, m := consumeBytes(b[n:]); string(v) != "testing" || m != 8 {
				t.Errorf("field 2: %q, %d bytes", v, m)
			}
		case 5:
			if v, m := consumeFixed32(b[n:]); math.Float32frombits(v) != 1 || m != 4 {
				t.Errorf("field 5: %x, %d bytes", v, m)
			}
		}
		m := consumeField(num, typ, b[n:])
		if m < 0 {
			t.Fatalf("field %d: %s", num, wireError(m))
		}
		nums, b = append(nums, num), b[n+m:]
	}
	if len(nums) != 4 || nums[0] != 1 || nums[1] != 2 || nums[2] != 5 || nums[3] != 4 {
		t.Errorf("fields %v, want [1 2 5 4]", nums)
	}
	for _, c := range []struct {
		name string
		num  fieldNum
		typ  wireType
		b    []byte
		want int
	}{
		{"string past the end", 2, bytesType, []byte{0x05, 'a'}, errTruncated},
		{"fixed64 short", 1, fixed64Type, []byte{1, 2, 3}, errTruncated},
		{"reserved wire type", 1, 6, []byte{0}, errWireType},
		{"end group alone", 1, endGroupType, nil, errWireType},
		{"group ended by another field", 4, startGroupType, []byte{0x2c}, errWireType},
		{"group never ended", 4, startGroupType, []byte{0x08, 0x01}, errTruncated},
		{"groups nested too deep", 4, startGroupType, bytes.Repeat([]byte{0x23}, maxGroupDepth+1), errGroupDepth},
	} {
		if n := consumeField(c.num, c.typ, c.b); n != c.want {
			t.Errorf("%s: n = %d, want %d", c.name, n, c.want)
		}
	}
	if _, _, n := consumeTag([]byte{0x02}); n != errFieldNum {
		t.Errorf("field number 0: n = %d, want %d", n, errFieldNum)
	}
}
