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
	if len(b) == 0 {
		return 0, 0, errShort
	}
	lead := b[0]
	// length reads the big-endian length of n bytes after the lead byte.
	length := func(n int) (uint64, bool) {
		if len(b) < 1+n {
			return 0, false
		}
		switch n {
		case 1:
			return uint64(b[1]), true
		case 2:
			return uint64(binary.BigEndian.Uint16(b[1:])), true
		default:
			return uint64(binary.BigEndian.Uint32(b[1:])), true
		}
	}
	// sized returns a header of hdr bytes followed by n data bytes.
	sized := func(hdr int, n uint64) (int, uint64, error) {
		if len(b) < hdr || n > uint64(len(b)-hdr) {
			return 0, 0, errShort
		}
		return hdr + int(n), 0, nil
	}
	fixed := func(n int) (int, uint64, error) {
		if len(b) < n {
			return 0, 0, errShort
		}
		return n, 0, nil
	}
	switch {
	case lead <= 0x7f || lead >= 0xe0: // positive and negative fixint
		return 1, 0, nil
	case lead <= 0x8f: // fixmap
		return 1, 2 * uint64(lead&0x0f), nil
	case lead <= 0x9f: // fixarray
		return 1, uint64(lead & 0x0f), nil
	case lead <= 0xbf: // fixstr
		return sized(1, uint64(lead&0x1f))
	}
	switch lead {
	case 0xc0, 0xc2, 0xc3: // nil, false, true
		return 1, 0, nil
	case 0xc4, 0xc5, 0xc6: // bin8/16/32: length, data
		n := 1 << (lead - 0xc4)
		l, ok := length(n)
		if !ok {
			return 0, 0, errShort
		}
		return sized(1+n, l)
	case 0xd9, 0xda, 0xdb: // str8/16/32: length, data
		n := 1 << (lead - 0xd9)
		l, ok := length(n)
		if !ok {
			return 0, 0, errShort
		}
		return sized(1+n, l)
	case 0xc7, 0xc8, 0xc9: // ext8/16/32: length, type byte, data
		n := 1 << (lead - 0xc7)
		l, ok := length(n)
		if !ok {
			return 0, 0, errShort
		}
		return sized(2+n, l)
	case 0xca, 0xcb: // float32, float64
		return fixed(1 + 4<<(lead-0xca))
	case 0xcc, 0xcd, 0xce, 0xcf: // uint8..uint64
		return fixed(1 + 1<<(lead-0xcc))
	case 0xd0, 0xd1, 0xd2, 0xd3: // int8..int64
		return fixed(1 + 1<<(lead-0xd0))
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8: // fixext1..fixext16: type byte, data
		return fixed(2 + 1<<(lead-0xd4))
	case 0xdc, 0xdd, 0xde, 0xdf: // array16/32, map16/32
		n := 2 << ((lead - 0xdc) % 2)
		l, ok := length(n)
		if !ok {
			return 0, 0, errShort
		}
		if lead >= 0xde {
			l *= 2
		}
		return 1 + n, l, nil
	}
	return 0, 0, fmt.Errorf("byte %#02x starts no msgpack object", lead) // 0xc1
}
