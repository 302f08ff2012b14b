package modelfile

import (
	"fmt"

	"github.com/tinylib/msgp/msgp"
)

// Breakdown says where the bytes of a model file go: the frame, the header
// of the body's msgpack map, and each top-level field of the body in file
// order. The parts tile the file exactly:
//
//	Size = Frame + Header + Σ Fields[i].Size
//
// It describes the encoding only, whatever the model kind, so a kind added
// by a later minor version (a quantized model, say) is laid out like any
// other, its new keys included.
type Breakdown struct {
	// Major and Minor are the format version written in the frame.
	Major, Minor uint16
	// Size is the length of the file in bytes.
	Size int
	// Frame is the size of the frame before the payload, HeaderSize.
	Frame int
	// Header is the size of the body's map header: 1, 3 or 5 bytes.
	Header int
	// Fields are the body's top-level fields, in file order.
	Fields []Field
}

// Field is one entry of a body map: a key and its value.
type Field struct {
	// Key is the entry's key, such as "w" or "p".
	Key string
	// Offset is where the key starts, in bytes from the start of the file.
	Offset int
	// Size is the number of bytes of the key and the value together.
	Size int
	// KeySize is the number of bytes of the encoded key; the value takes
	// Size − KeySize.
	KeySize int
	// Fields breaks down a map value one level (only for top-level
	// fields): its entries in file order. They take the value's bytes less
	// its map header, so Size − KeySize − Σ Fields[i].Size is the size of
	// that header. Nil when the value is not a map, or is a map with a key
	// that is not a string.
	Fields []Field
}

// Layout checks b as Unmarshal does up to the body — the frame, the
// checksum and the msgpack structure of the payload — and returns where its
// bytes go. It does not decode the model: a file Layout accepts may still be
// refused by Unmarshal or UnmarshalKernel (an inconsistent body), and a file
// of a kind this package does not know is laid out all the same. Errors
// wrap Unmarshal's sentinels: ErrNotModel, ErrVersion (an unknown major
// version), ErrTruncated, ErrChecksum, or ErrCorrupt (bad frame length,
// trailing bytes, a payload that is not one msgpack map with string keys).
//
// It never panics, whatever b holds, and allocates in proportion to the
// number of keys, not to the size of the values. It is safe for concurrent
// use.
func Layout(b []byte) (Breakdown, error) {
	payload, major, minor, err := openPayload(b)
	if err != nil {
		return Breakdown{}, err
	}
	fields, header, err := mapFields(payload, HeaderSize, true)
	if err != nil {
		return Breakdown{}, fmt.Errorf("%w: body: %w", ErrCorrupt, err)
	}
	return Breakdown{
		Major:  major,
		Minor:  minor,
		Size:   len(b),
		Frame:  HeaderSize,
		Header: header,
		Fields: fields,
	}, nil
}

// mapFields walks the msgpack map that fills m, which starts at offset base
// of the file, and returns its entries and the size of its header. With
// nested set it also breaks down the entries whose values are maps with
// string keys. m must have passed scanShape (as part of a payload), which
// bounds the entry count by the bytes left and the nesting that msgp.Skip
// recurses through.
func mapFields(m []byte, base int, nested bool) (fields []Field, header int, err error) {
	n, rest, err := msgp.ReadMapHeaderBytes(m)
	if err != nil {
		return nil, 0, err
	}
	header = len(m) - len(rest)
	fields = make([]Field, 0, n)
	for i := range n {
		key, val, err := msgp.ReadMapKeyZC(rest)
		if err != nil {
			return nil, 0, fmt.Errorf("key %d of %d: %w", i+1, n, err)
		}
		after, err := msgp.Skip(val)
		if err != nil {
			return nil, 0, fmt.Errorf("value of key %q: %w", clip(string(key)), err)
		}
		f := Field{
			Key:     string(key),
			Offset:  base + len(m) - len(rest),
			Size:    len(rest) - len(after),
			KeySize: len(rest) - len(val),
		}
		if nested && msgp.NextType(val) == msgp.MapType {
			// A nested map with a non-string key is not this format's, but a
			// later minor version's field may hold one; it is shown whole.
			if sub, _, err := mapFields(val[:len(val)-len(after)], f.Offset+f.KeySize, false); err == nil {
				f.Fields = sub
			}
		}
		fields = append(fields, f)
		rest = after
	}
	if len(rest) != 0 { // scanShape has checked this for the payload
		return nil, 0, fmt.Errorf("%d bytes after the map", len(rest))
	}
	return fields, header, nil
}
