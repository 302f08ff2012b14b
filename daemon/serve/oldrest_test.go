package serve

// The REST request decoder of the first release (encoding/json into
// structs, a bracket-counting depth check, and a tokenizer plus
// strconv.ParseFloat for the tensor data), kept verbatim as the
// differential oracle of decodeRESTBody in FuzzRESTDecoderMatchesOld: the
// new decoder must accept exactly what this one accepted, with the same
// rows, outputs and id, except where doc.go says it differs (member names
// matched exactly, the binary tensor data extension).

import (
	"encoding/json"
	"math"
	"strconv"
	"unsafe"
)

// oldRESTRequest is the JSON of a REST inference request (OIP v2). Data is
// kept raw and read by jsonData straight into the input rows.
type oldRESTRequest struct {
	ID         string                     `json:"id"`
	Parameters map[string]json.RawMessage `json:"parameters"`
	Inputs     []oldRESTInput             `json:"inputs"`
	Outputs    []struct {
		Name       string                     `json:"name"`
		Parameters map[string]json.RawMessage `json:"parameters"`
	} `json:"outputs"`
}

type oldRESTInput struct {
	Name       string                     `json:"name"`
	Shape      []int64                    `json:"shape"`
	Datatype   string                     `json:"datatype"`
	Parameters map[string]json.RawMessage `json:"parameters"`
	Data       json.RawMessage            `json:"data"`
}

// oldDecodeREST checks a decoded REST request against version v and the
// limits and reads its input into inf.
func oldDecodeREST(inf *inference, req *oldRESTRequest, v *version, lim *Limits) error {
	if len(req.Inputs) != 1 {
		return badRequestf("want exactly one input tensor, got %d", len(req.Inputs))
	}
	in := &req.Inputs[0]
	dt := parseDatatype(in.Datatype)
	if dt == dtInvalid {
		return badRequestf("input datatype %q: want FP32, FP64 or an INT/UINT type", in.Datatype)
	}
	if err := inf.input(in.Shape, v, lim); err != nil {
		return err
	}
	if len(in.Data) == 0 {
		return badRequestf(`input has no "data"`)
	}
	if err := oldJSONData(inf.x, in.Data, dt, inf.rows, inf.cols); err != nil {
		return err
	}
	for _, o := range req.Outputs {
		if err := inf.want.add(o.Name); err != nil {
			return err
		}
	}
	return oldWantParameters(&inf.want, req.Parameters)
}

// oldWantParameters reads the request parameters "decision" and
// "probability" (booleans) that ask for those outputs besides the label.
func oldWantParameters(o *outputs, params map[string]json.RawMessage) error {
	for k, raw := range params {
		var on bool
		switch k {
		case OutputDecision, OutputProbability:
			if err := json.Unmarshal(raw, &on); err != nil {
				return badRequestf("parameter %q: want true or false", k)
			}
		default:
			continue // other parameters (binary_data_output, ...) are not ours to refuse
		}
		if on {
			o.label = true
			if err := o.add(k); err != nil {
				return err
			}
		}
	}
	return nil
}

// oldCheckJSONDepth returns an error when the JSON text b nests arrays and
// objects deeper than maxDepth: the decoders below recurse no deeper than
// the protocol needs (TF Serving's CVE-2025-0649 was unbounded recursion
// on nested JSON). It only counts brackets outside strings; the decoder
// still checks the syntax.
func oldCheckJSONDepth(b []byte, maxDepth int) error {
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

// oldJSONData reads a tensor's "data" member, b, into dst[:rows*cols] as
// float32: either one flat array of rows×cols numbers or an array of rows
// arrays of cols numbers (the two forms OIP allows for shape [N, F]).
// Numbers of an integer datatype must be integers within its bounds; FP32
// numbers round as strconv.ParseFloat(s, 32) rounds them (as svmgo
// predict reads a data file), the others through float64. A number that
// does not fit float32 (or the datatype) is an error.
func oldJSONData(dst []float32, b []byte, dt datatype, rows, cols int) error {
	p := oldJSONScanner{b: b}
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

// oldJSONScanner reads the numeric arrays of a tensor's data.
type oldJSONScanner struct {
	b []byte
	i int
}

func (p *oldJSONScanner) skipSpace() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *oldJSONScanner) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// consume skips space and then c, reporting whether c was there.
func (p *oldJSONScanner) consume(c byte) bool {
	p.skipSpace()
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

// numbers reads len(dst) comma-separated numbers into dst; row is the row
// they belong to for error messages, -1 for a flat array.
func (p *oldJSONScanner) numbers(dst []float32, dt datatype, row int) error {
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
		for p.i < len(p.b) && oldIsNumberByte(p.b[p.i]) {
			p.i++
		}
		tok := p.b[start:p.i]
		if len(tok) == 0 {
			return badRequestf(`input "data", %s, value %d: not a number`, where(), k)
		}
		v, err := oldParseNumber(tok, dt)
		if err != nil {
			return badRequestf(`input "data", %s, value %d: %v`, where(), k, err)
		}
		dst[k] = v
	}
	return nil
}

func oldIsNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// oldParseNumber parses one JSON number of datatype dt as the float32 the
// model reads.
func oldParseNumber(tok []byte, dt datatype) (float32, error) {
	if !oldValidJSONNumber(tok) {
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

// oldValidJSONNumber reports whether tok is a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? (ParseFloat takes more:
// "inf", hex, underscores, a leading '+').
func oldValidJSONNumber(tok []byte) bool {
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
