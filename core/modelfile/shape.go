package modelfile

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// maxDepth bounds the nesting of containers in a body. Format 1.0 nests four
// deep (body → params → class weights → class weight); the rest is room for
// later minor versions. It also bounds the recursion of msgp.Skip, which the
// generated decoder calls on unknown fields.
const maxDepth = 32

// scanShape walks the single msgpack object that must fill b exactly,
// without allocating and without recursion, and reports the first problem:
// a byte that starts no msgpack object, an object running past the end of b,
// a container claiming more elements than there are bytes left (every
// element takes at least one), nesting deeper than maxDepth, or bytes left
// over. After it succeeds, no array or map header in b can make a decoder
// allocate more elements than b has bytes.
func scanShape(b []byte) error {
	// pending[d] counts the objects still to read at depth d.
	var pending [maxDepth + 1]uint64
	depth := 0
	pending[0] = 1
	pos := 0
	for {
		for pending[depth] == 0 {
			if depth == 0 {
				if pos != len(b) {
					return fmt.Errorf("%d bytes after the msgpack object", len(b)-pos)
				}
				return nil
			}
			depth--
		}
		pending[depth]--
		skip, elems, err := objectSize(b[pos:])
		if err != nil {
			return fmt.Errorf("at offset %d: %w", pos, err)
		}
		pos += skip // objectSize checked that skip <= len(b[pos:])
		if elems == 0 {
			continue
		}
		if elems > uint64(len(b)-pos) {
			return fmt.Errorf("at offset %d: container of %d elements with %d bytes left", pos-skip, elems, len(b)-pos)
		}
		if depth == maxDepth {
			return fmt.Errorf("at offset %d: containers nested deeper than %d", pos-skip, maxDepth)
		}
		depth++
		pending[depth] = elems
	}
}

var errShort = errors.New("object runs past the end")

// objectSize returns how many bytes the msgpack object at the start of b
// takes, counting a container's header only, and how many elements follow
// it as separate objects (twice the entry count for a map). It checks that
// the bytes it skips are there.
func objectSize(b []byte) (skip int, elems uint64, err error) {
	hdr, data, elems, err := objectHead(b)
	switch {
	case err != nil:
		return 0, 0, err
	case hdr > len(b) || data > uint64(len(b)-hdr):
		return 0, 0, errShort
	}
	return hdr + int(data), elems, nil
}

// objectHead decodes the header of the msgpack object at the start of h:
// the header's length in bytes, the data bytes that follow it (a number's,
// a string's or a bin's bytes, an ext's type byte and data), and how many
// elements follow as separate objects (twice the entry count for a map).
// When h holds less than the header, hdr says how many bytes it needs and
// data and elems are 0: scanShape has the whole payload, the streaming
// Checker feeds the header in as it arrives.
func objectHead(h []byte) (hdr int, data, elems uint64, err error) {
	if len(h) == 0 {
		return 1, 0, 0, nil
	}
	lead := h[0]
	// length reads the big-endian length of n bytes after the lead byte,
	// or says the header needs 1+n bytes.
	length := func(n int) (uint64, bool) {
		if len(h) < 1+n {
			return 0, false
		}
		switch n {
		case 1:
			return uint64(h[1]), true
		case 2:
			return uint64(binary.BigEndian.Uint16(h[1:])), true
		default:
			return uint64(binary.BigEndian.Uint32(h[1:])), true
		}
	}
	switch {
	case lead <= 0x7f || lead >= 0xe0: // positive and negative fixint
		return 1, 0, 0, nil
	case lead <= 0x8f: // fixmap
		return 1, 0, 2 * uint64(lead&0x0f), nil
	case lead <= 0x9f: // fixarray
		return 1, 0, uint64(lead & 0x0f), nil
	case lead <= 0xbf: // fixstr
		return 1, uint64(lead & 0x1f), 0, nil
	}
	switch lead {
	case 0xc0, 0xc2, 0xc3: // nil, false, true
		return 1, 0, 0, nil
	case 0xc4, 0xc5, 0xc6, // bin8/16/32: length, data
		0xd9, 0xda, 0xdb, // str8/16/32: length, data
		0xc7, 0xc8, 0xc9: // ext8/16/32: length, type byte, data
		var n int
		switch {
		case lead <= 0xc6:
			n = 1 << (lead - 0xc4)
		case lead <= 0xc9:
			n = 1 << (lead - 0xc7)
		default:
			n = 1 << (lead - 0xd9)
		}
		l, ok := length(n)
		if !ok {
			return 1 + n, 0, 0, nil
		}
		if lead >= 0xc7 && lead <= 0xc9 {
			l++ // the ext's type byte
		}
		return 1 + n, l, 0, nil
	case 0xca, 0xcb: // float32, float64
		return 1, 4 << (lead - 0xca), 0, nil
	case 0xcc, 0xcd, 0xce, 0xcf: // uint8..uint64
		return 1, 1 << (lead - 0xcc), 0, nil
	case 0xd0, 0xd1, 0xd2, 0xd3: // int8..int64
		return 1, 1 << (lead - 0xd0), 0, nil
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8: // fixext1..fixext16: type byte, data
		return 1, 1 + 1<<(lead-0xd4), 0, nil
	case 0xdc, 0xdd, 0xde, 0xdf: // array16/32, map16/32
		n := 2 << ((lead - 0xdc) % 2)
		l, ok := length(n)
		if !ok {
			return 1 + n, 0, 0, nil
		}
		if lead >= 0xde {
			l *= 2
		}
		return 1 + n, 0, l, nil
	}
	return 1, 0, 0, fmt.Errorf("byte %#02x starts no msgpack object", lead) // 0xc1
}
