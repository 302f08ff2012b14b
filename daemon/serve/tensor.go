package serve

import (
	"encoding/binary"
	"math"
	"strconv"
	"unsafe"
)

// datatype is a tensor element type of the protocol that an input may
// have: the numeric ones. BOOL and BYTES are refused.
type datatype uint8

const (
	dtInvalid datatype = iota
	dtFP32
	dtFP64
	dtINT8
	dtINT16
	dtINT32
	dtINT64
	dtUINT8
	dtUINT16
	dtUINT32
	dtUINT64
)

var datatypeNames = [...]string{"", "FP32", "FP64", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"}

// datatypeSizes are the bytes an element takes in raw_input_contents.
var datatypeSizes = [...]int{0, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8}

// parseDatatype returns the datatype the protocol names s, dtInvalid for
// one an input cannot have.
func parseDatatype(s string) datatype {
	for i, n := range datatypeNames {
		if i > 0 && n == s {
			return datatype(i)
		}
	}
	return dtInvalid
}

func (d datatype) String() string { return datatypeNames[d] }

// integer reports whether d is one of the integer types.
func (d datatype) integer() bool { return d >= dtINT8 }

// bounds are the smallest and largest value of an integer type.
func (d datatype) bounds() (lo, hi float64) {
	switch d {
	case dtINT8:
		return math.MinInt8, math.MaxInt8
	case dtINT16:
		return math.MinInt16, math.MaxInt16
	case dtINT32:
		return math.MinInt32, math.MaxInt32
	case dtINT64:
		return math.MinInt64, math.MaxInt64
	case dtUINT8:
		return 0, math.MaxUint8
	case dtUINT16:
		return 0, math.MaxUint16
	case dtUINT32:
		return 0, math.MaxUint32
	case dtUINT64:
		return 0, math.MaxUint64
	}
	return math.Inf(-1), math.Inf(1)
}

// checkJSONDepth returns an error when the JSON text b nests arrays and
// objects deeper than maxDepth: the decoders below recurse no deeper than
// the protocol needs (TF Serving's CVE-2025-0649 was unbounded recursion
// on nested JSON). It only counts brackets outside strings; the decoder
// still checks the syntax.
func checkJSONDepth(b []byte, maxDepth int) error {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > maxDepth {
				return badRequestf("JSON nests deeper than %d levels", maxDepth)
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}

// jsonData reads a tensor's "data" member, b, into dst[:rows*cols] as
// float32: either one flat array of rows×cols numbers or an array of rows
// arrays of cols numbers (the two forms OIP allows for shape [N, F]).
// Numbers of an integer datatype must be integers within its bounds; FP32
// numbers round as strconv.ParseFloat(s, 32) rounds them (as svmgo
// predict reads a data file), the others through float64. A number that
// does not fit float32 (or the datatype) is an error.
func jsonData(dst []float32, b []byte, dt datatype, rows, cols int) error {
	p := jsonScanner{b: b}
	if !p.consume('[') {
		return badRequestf(`input "data" must be an array`)
	}
	n := rows * cols
	dst = dst[:n]
	p.skipSpace()
	if p.peek() == '[' {
		for r := range rows {
			if r > 0 && !p.consume(',') {
				return badRequestf(`input "data" has %d rows, shape says %d`, r, rows)
			}
			if !p.consume('[') {
				return badRequestf(`input "data": row %d is not an array`, r)
			}
			if err := p.numbers(dst[r*cols:(r+1)*cols], dt, r); err != nil {
				return err
			}
			if !p.consume(']') {
				return badRequestf(`input "data": row %d has more than %d values`, r, cols)
			}
		}
	} else if err := p.numbers(dst, dt, -1); err != nil {
		return err
	}
	if !p.consume(']') {
		return badRequestf(`input "data" holds more values than shape [%d, %d] has`, rows, cols)
	}
	p.skipSpace()
	if p.i != len(p.b) {
		return badRequestf(`input "data": unexpected text after the array`)
	}
	return nil
}

// jsonScanner reads the numeric arrays of a tensor's data.
type jsonScanner struct {
	b []byte
	i int
}

func (p *jsonScanner) skipSpace() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonScanner) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// consume skips space and then c, reporting whether c was there.
func (p *jsonScanner) consume(c byte) bool {
	p.skipSpace()
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

// numbers reads len(dst) comma-separated numbers into dst; row is the row
// they belong to for error messages, -1 for a flat array.
func (p *jsonScanner) numbers(dst []float32, dt datatype, row int) error {
	where := func() string { // only for an error: it allocates
		if row >= 0 {
			return "row " + strconv.Itoa(row)
		}
		return "flat data"
	}
	for k := range dst {
		if k > 0 && !p.consume(',') {
			return badRequestf(`input "data", %s: %d values, want %d`, where(), k, len(dst))
		}
		p.skipSpace()
		start := p.i
		for p.i < len(p.b) && isNumberByte(p.b[p.i]) {
			p.i++
		}
		tok := p.b[start:p.i]
		if len(tok) == 0 {
			return badRequestf(`input "data", %s, value %d: not a number`, where(), k)
		}
		v, err := parseNumber(tok, dt)
		if err != nil {
			return badRequestf(`input "data", %s, value %d: %v`, where(), k, err)
		}
		dst[k] = v
	}
	return nil
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// parseNumber parses one JSON number of datatype dt as the float32 the
// model reads.
func parseNumber(tok []byte, dt datatype) (float32, error) {
	if !validJSONNumber(tok) {
		return 0, badRequestf("%q is not a JSON number", tok)
	}
	// The string shares tok's bytes: ParseFloat does not keep it.
	s := unsafe.String(unsafe.SliceData(tok), len(tok))
	bits := 64
	if dt == dtFP32 {
		bits = 32
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		return 0, badRequestf("%s does not fit %s", s, dt)
	}
	if dt.integer() {
		lo, hi := dt.bounds()
		if f != math.Trunc(f) || f < lo || f > hi {
			return 0, badRequestf("%s is not a %s", s, dt)
		}
	}
	x := float32(f)
	if math.IsInf(float64(x), 0) {
		return 0, badRequestf("%s does not fit a float32 feature", s)
	}
	return x, nil
}

// validJSONNumber reports whether tok is a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? (ParseFloat takes more:
// "inf", hex, underscores, a leading '+').
func validJSONNumber(tok []byte) bool {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	digits := func() int {
		s := i
		for i < len(tok) && '0' <= tok[i] && tok[i] <= '9' {
			i++
		}
		return i - s
	}
	if i < len(tok) && tok[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(tok)
}

// rawData reads raw_input_contents b, rows×cols little-endian elements of
// dt, into dst as float32, refusing a size that does not match, integer
// values a float32 cannot hold exactly enough to matter are converted as
// Go converts them, and non-finite floats.
func rawData(dst []float32, b []byte, dt datatype, rows, cols int) error {
	n := rows * cols
	size := datatypeSizes[dt]
	if len(b) != n*size {
		return badRequestf("raw input has %d bytes; shape [%d, %d] of %s needs %d", len(b), rows, cols, dt, n*size)
	}
	dst = dst[:n]
	for i := range dst {
		e := b[i*size : i*size+size]
		var x float32
		switch dt {
		case dtFP32:
			x = math.Float32frombits(binary.LittleEndian.Uint32(e))
		case dtFP64:
			f := math.Float64frombits(binary.LittleEndian.Uint64(e))
			x = float32(f)
		case dtINT8:
			x = float32(int8(e[0]))
		case dtINT16:
			x = float32(int16(binary.LittleEndian.Uint16(e)))
		case dtINT32:
			x = float32(int32(binary.LittleEndian.Uint32(e)))
		case dtINT64:
			x = float32(int64(binary.LittleEndian.Uint64(e)))
		case dtUINT8:
			x = float32(e[0])
		case dtUINT16:
			x = float32(binary.LittleEndian.Uint16(e))
		case dtUINT32:
			x = float32(binary.LittleEndian.Uint32(e))
		case dtUINT64:
			x = float32(binary.LittleEndian.Uint64(e))
		}
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return badRequestf("raw input value %d (row %d) is %v: features must be finite float32 values", i, i/cols, f)
		}
		dst[i] = x
	}
	return nil
}
