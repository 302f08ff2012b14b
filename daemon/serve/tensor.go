package serve

import (
	"encoding/binary"
	"math"
	"strconv"
	"unsafe"

	"github.com/libsvmgo/libsvmgo/core/simd"
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

// jsonData reads a tensor's "data" member, b, into dst[:rows*cols] as
// float32 (jsonReader.tensor), refusing text after it.
func jsonData(dst []float32, b []byte, dt datatype, rows, cols int) error {
	p := jsonReader{b: b}
	if err := p.tensor(dst, dt, rows, cols); err != nil {
		return err
	}
	if p.next() != 0 {
		return badRequestf(`input "data": unexpected text after the array`)
	}
	return nil
}

// tensor reads the tensor data at p.i into dst[:rows*cols] as float32:
// either one flat array of rows×cols numbers or an array of rows arrays of
// cols numbers (the two forms OIP allows for shape [N, F]). Numbers of an
// integer datatype must be integers within its bounds; FP32 numbers round
// as strconv.ParseFloat(s, 32) rounds them (as svmgo predict reads a data
// file), the others through float64. A number that does not fit float32
// (or the datatype) is an error. The caller checks the nesting depth.
func (p *jsonReader) tensor(dst []float32, dt datatype, rows, cols int) error {
	if p.next() != '[' {
		return badRequestf(`input "data" must be an array`)
	}
	p.i++
	dst = dst[:rows*cols]
	if p.next() == '[' {
		for r := range rows {
			if r > 0 {
				if p.next() != ',' {
					return badRequestf(`input "data" has %d rows, shape says %d`, r, rows)
				}
				p.i++
			}
			if p.next() != '[' {
				return badRequestf(`input "data": row %d is not an array`, r)
			}
			p.i++
			if err := p.numbers(dst[r*cols:(r+1)*cols], dt, r); err != nil {
				return err
			}
			if p.next() != ']' {
				return badRequestf(`input "data": row %d has more than %d values`, r, cols)
			}
			p.i++
		}
	} else if err := p.numbers(dst, dt, -1); err != nil {
		return err
	}
	if p.next() != ']' {
		return badRequestf(`input "data" holds more values than shape [%d, %d] has`, rows, cols)
	}
	p.i++
	return nil
}

// numbers reads len(dst) comma-separated numbers into dst; row is the row
// they belong to for error messages, -1 for a flat array.
func (p *jsonReader) numbers(dst []float32, dt datatype, row int) error {
	where := func() string { // only for an error: it allocates
		if row >= 0 {
			return "row " + strconv.Itoa(row)
		}
		return "flat data"
	}
	b := p.b
	for k := range dst {
		if k > 0 {
			if p.i < len(b) && b[p.i] == ',' { // the compact form, without space
				p.i++
			} else if p.next() != ',' {
				return badRequestf(`input "data", %s: %d values, want %d`, where(), k, len(dst))
			} else {
				p.i++
			}
		}
		// A lone 0 (most of an image's pixels, and of many feature
		// vectors' values): 0 in every datatype, read without number's
		// scan.
		if i := p.i; i+1 < len(b) && b[i] == '0' && (b[i+1] == ',' || b[i+1] == ']') {
			dst[k] = 0
			p.i = i + 1
			continue
		}
		p.space()
		// shortNumber first, without number's call around it (number
		// reads what it does not).
		x, ok, err := p.shortNumber(dt)
		if !ok {
			x, err = p.number(dt)
		}
		if err != nil {
			return badRequestf(`input "data", %s, value %d: %v`, where(), k, err)
		}
		dst[k] = x
	}
	return nil
}

// Exact powers of ten: every one of float32's up to 1e10 and float64's up
// to 1e22 is exactly representable, so one multiplication or division by
// one of them rounds once (Clinger's fast path, as strconv's own).
var (
	pow10f32 = [...]float32{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}
	pow10f64 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}
)

// number reads the JSON number at p.i as the float32 feature datatype dt
// makes of it (tensor's rules), scanning it once: a number of at most 19
// significant digits whose decimal mantissa and power of ten are exact in
// the target precision (or, for FP32, in float64, away from float32's
// halfway points) is computed with one rounding, exactly as
// strconv.ParseFloat would; any other goes to strconv.ParseFloat.
func (p *jsonReader) number(dt datatype) (float32, error) {
	if x, ok, err := p.shortNumber(dt); ok {
		return x, err
	}
	b, i, start := p.b, p.i, p.i
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	var mant uint64
	nd, exp, exact := 0, 0, true // significant digits, power of ten, all digits in mant
	digit := func(d byte, fraction bool) {
		switch {
		case nd < 19:
			mant = mant*10 + uint64(d-'0')
			if mant != 0 {
				nd++
			}
			if fraction {
				exp--
			}
		case d != '0' || !fraction:
			exact = false
		}
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			digit(b[i], false)
		}
	default:
		return 0, errNotNumber
	}
	if i < len(b) && b[i] == '.' {
		i++
		s := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			digit(b[i], true)
		}
		if i == s {
			return 0, errNotNumber
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := i < len(b) && b[i] == '-'
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		s, e := i, 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if e < 1e6 {
				e = e*10 + int(b[i]-'0')
			}
		}
		if i == s {
			return 0, errNotNumber
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	p.i = i
	if !exact {
		// More than 19 significant digits (the integer part's beyond them
		// would shift exp): strconv rounds those correctly.
		return parseFloatToken(b[start:i], dt)
	}
	switch {
	case mant == 0:
		if neg {
			return float32(math.Copysign(0, -1)), nil
		}
		return 0, nil
	case dt == dtFP32 && mant <= 1<<24 && -10 <= exp && exp <= 10:
		x := float32(mant)
		if exp < 0 {
			x /= pow10f32[-exp]
		} else {
			x *= pow10f32[exp]
		}
		if neg {
			x = -x
		}
		return x, nil
	case mant <= 1<<53 && -22 <= exp && exp <= 22:
		f := float64(mant)
		if exp < 0 {
			f /= pow10f64[-exp]
		} else {
			f *= pow10f64[exp]
		}
		if neg {
			f = -f
		}
		if dt != dtFP32 {
			return featureOf(f, b[start:i], dt)
		}
		// A float32 value with more than 24 bits of mantissa (a float32
		// written shortest has up to 9 digits: most of an image's pixels
		// k/255): f is the number rounded once to float64, and rounding f
		// to float32 gives the number rounded once to float32 unless f is
		// a float32 halfway point, where the second rounding may differ
		// from the first: those, and results outside float32's normal
		// range, go to strconv.
		if a := math.Abs(f); a >= 0x1p-126 && a <= math.MaxFloat32 && math.Float64bits(f)&(1<<29-1) != 1<<28 {
			return float32(f), nil
		}
	}
	return parseFloatToken(b[start:i], dt)
}

// shortNumber is number for the common form, in one tight pass: no
// exponent, at most 19 digits in all (so the mantissa cannot overflow),
// of a size that one rounding gives exactly (number's rules). It reports
// false, having read nothing, for any other text, which number reads.
func (p *jsonReader) shortNumber(dt datatype) (x float32, ok bool, err error) {
	b, i := p.b, p.i
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	s := i
	var mant uint64
	if i < len(b) && b[i] == '0' { // 0.xxx: most values of a scaled feature
		if i++; i < len(b) && b[i]-'0' <= 9 {
			return 0, false, nil // a leading zero: number says what is wrong
		}
	} else if mant, i = decimalDigits(b, i, 0); i == s {
		return 0, false, nil // no digit
	}
	nd, exp := i-s, 0
	if i < len(b) && b[i] == '.' {
		i++
		f := i
		mant, i = decimalDigits(b, i, mant)
		if i == f {
			return 0, false, nil
		}
		nd, exp = nd+i-f, f-i
	}
	if nd > 19 || i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		return 0, false, nil
	}
	switch {
	case mant == 0:
		if neg {
			x = float32(math.Copysign(0, -1))
		}
	case dt == dtFP32 && mant <= 1<<24 && exp >= -10:
		x = float32(mant) / pow10f32[-exp]
		if neg {
			x = -x
		}
	case mant <= 1<<53 && exp >= -22:
		f := float64(mant) / pow10f64[-exp]
		if neg {
			f = -f
		}
		if dt != dtFP32 {
			x, err = featureOf(f, b[p.i:i], dt)
			break
		}
		// As in number: away from float32's halfway points and inside its
		// normal range, rounding f again to float32 changes nothing.
		if a := math.Abs(f); a < 0x1p-126 || a > math.MaxFloat32 || math.Float64bits(f)&(1<<29-1) == 1<<28 {
			return 0, false, nil
		}
		x = float32(f)
	default:
		return 0, false, nil
	}
	p.i = i
	return x, true, err
}

// decimalDigits reads the decimal digits of b from i on into mant (each
// digit d making it mant·10 + d) and returns it and the index past them.
// Eight digits are read at a time while eight bytes are left (SWAR, as
// simdjson's parse_eight_digits_unrolled: the float32 values of a tensor
// written shortest have up to nine digits, most of them in the fraction),
// then one at a time. mant wraps past 19 digits: callers count them.
func decimalDigits(b []byte, i int, mant uint64) (uint64, int) {
	for i+8 <= len(b) {
		v := binary.LittleEndian.Uint64(b[i:])
		// Every byte is '0'..'9' (0x30..0x39) when its high nibble is 3
		// and adding 6 keeps it there.
		if v&0xf0f0f0f0f0f0f0f0|(v+0x0606060606060606)&0xf0f0f0f0f0f0f0f0>>4 != 0x3333333333333333 {
			break
		}
		v -= 0x3030303030303030
		v = v*10 + v>>8 // pairs of digits, in every other byte
		v = ((v&0x000000ff000000ff)*(100+1000000<<32) + (v>>16&0x000000ff000000ff)*(1+10000<<32)) >> 32
		mant = mant*100000000 + v
		i += 8
	}
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		mant = mant*10 + uint64(b[i]-'0')
	}
	return mant, i
}

// unsafeString returns b as a string sharing its bytes, for a use that
// does not outlive them.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// errNotNumber is a value that is not a JSON number.
var errNotNumber = badRequestf("not a JSON number")

// parseFloatToken parses a JSON number with strconv: in float32 for FP32,
// in float64 for the other datatypes.
func parseFloatToken(tok []byte, dt datatype) (float32, error) {
	s := unsafeString(tok) // ParseFloat does not keep it
	bits := 64
	if dt == dtFP32 {
		bits = 32
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		return 0, badRequestf("%s does not fit %s", s, dt)
	}
	return featureOf(f, tok, dt)
}

// featureOf checks the value f of the number tok against datatype dt and
// returns it as a float32 feature.
func featureOf(f float64, tok []byte, dt datatype) (float32, error) {
	if dt.integer() {
		lo, hi := dt.bounds()
		if f != math.Trunc(f) || f < lo || f > hi {
			return 0, badRequestf("%s is not a %s", tok, dt)
		}
	}
	x := float32(f)
	if math.IsInf(float64(x), 0) {
		return 0, badRequestf("%s does not fit a float32 feature", tok)
	}
	return x, nil
}

// nativeLittleEndian reports whether this machine stores a float32 as its
// little-endian bytes, the byte order of the protocol's raw tensor data.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// rawChunk is how many values a raw FP32 tensor is moved and checked by
// at a time (64 KB, within a core's L2 cache), so that the check reads
// values the copy has just brought into cache.
const rawChunk = 16 << 10

// fillFP32 fills dst, rows of cols values read as raw FP32 input, a chunk
// at a time: fill writes the chunk's bytes (which start at value at), and
// the chunk is checked for non-finite values, refused with its index and
// row, before the next is filled (so a streamed batch's helper, told by
// fill of the chunks before, predicts only checked rows: batchstream.go).
func fillFP32(dst []float32, cols int, fill func(b []byte, at int) error) error {
	for at := 0; at < len(dst); at += rawChunk {
		c := dst[at:min(len(dst), at+rawChunk)]
		if err := fill(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(c))), 4*len(c)), at); err != nil {
			return err
		}
		if i := simd.FirstNonFinite(c); i >= 0 {
			return rawNonFinite(at+i, cols, c[i])
		}
	}
	return nil
}

// rawNonFinite refuses raw input whose value i (of rows of cols values)
// is x, not finite.
func rawNonFinite(i, cols int, x float32) error {
	return badRequestf("raw input value %d (row %d) is %v: features must be finite float32 values", i, i/cols, x)
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
	if dt == dtFP32 {
		// The common case, without the per-element switch (a batch is a
		// million values): on a little-endian machine the bytes are the
		// float32 values, so a copy moves each chunk and simd.FirstNonFinite
		// checks it while it is in cache (BenchmarkRawDataFP32, 1000 rows
		// of 784 features: 0.47x the time of one copy and a value-at-a-
		// time scan of the whole, 3 alternated runs on one core, load 20).
		b = b[:4*n]
		if nativeLittleEndian {
			return fillFP32(dst, cols, func(c []byte, at int) error {
				copy(c, b[4*at:])
				return nil
			})
		}
		for i := range dst {
			bits := binary.LittleEndian.Uint32(b[4*i:])
			if bits&0x7f800000 == 0x7f800000 {
				return badRequestf("raw input value %d (row %d) is %v: features must be finite float32 values", i, i/cols, math.Float32frombits(bits))
			}
			dst[i] = math.Float32frombits(bits)
		}
		return nil
	}
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
