package serve

import (
	"encoding/json"
	"strconv"
)

// restRequest is what the REST decoder keeps of an inference request
// body: the members the protocol defines, as spans of the body or small
// values, never a copy of the tensor data. It lives in a pooled inference
// and is valid while that request's body is.
type restRequest struct {
	id string
	// inputs counts the input tensors; in is the first one, the only one a
	// valid request has.
	inputs int
	in     restInput
	// outputs are the output tensors named, in order.
	outputs []restOutput
	// decision and probability are the request parameters of those names,
	// binaryOutput is binary_data_output (the binary tensor data
	// extension): the last value given.
	decision, probability, binaryOutput param
}

// restInput is one input tensor of a REST request.
type restInput struct {
	shape    []int64
	datatype string // shares the body's bytes unless it was escaped
	// data is the span of the "data" member in the body, ok false when
	// absent.
	data span
	// binarySize is the binary_data_size parameter (binary tensor data
	// extension), -1 when absent.
	binarySize int64
	// parsed is the span, shape and datatype "data" was read with while
	// the body was scanned (parsed.data.ok false when it was not): the
	// second pass reads it again only when they changed.
	parsed struct {
		data       span
		rows, cols int
		dt         datatype
	}
}

// restOutput is one output tensor a REST request names.
type restOutput struct {
	name   string // shares the body's bytes unless it was escaped
	binary param  // its binary_data parameter
}

type span struct {
	start, end int
	ok         bool
}

// param is a boolean request parameter as given: absent (or null, which
// encoding/json reads as false), true, false, or another JSON value.
type param uint8

const (
	paramAbsent param = iota
	paramTrue
	paramFalse
	paramOther
)

// on reports whether p was given as true.
func (p param) on() bool { return p == paramTrue }

// reset empties q for the next request, keeping its buffers.
func (q *restRequest) reset() {
	shape, outs := q.in.shape[:0], q.outputs[:0]
	*q = restRequest{outputs: outs}
	q.in = restInput{shape: shape, binarySize: -1}
}

// jsonReader reads a JSON text strictly (RFC 8259: what encoding/json
// accepts), refusing nesting deeper than maxDepth (TF Serving's
// CVE-2025-0649 was unbounded recursion on nested JSON). Every method
// reports a malformed text as a 400 statusError.
type jsonReader struct {
	b        []byte
	i        int
	depth    int
	maxDepth int
}

func (p *jsonReader) syntax(what string) error {
	if p.i >= len(p.b) {
		return badRequestf("request JSON: unexpected end of the text, want %s", what)
	}
	return badRequestf("request JSON: offset %d: unexpected %q, want %s", p.i, p.b[p.i], what)
}

func (p *jsonReader) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// next skips space and returns the next byte (0 at the end) without
// consuming it.
func (p *jsonReader) next() byte {
	p.space()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// open consumes c ('[' or '{') and enters one level of nesting.
func (p *jsonReader) open(c byte) error {
	if p.next() != c {
		return p.syntax(string(c))
	}
	p.i++
	p.depth++
	if p.depth > p.maxDepth {
		return badRequestf("JSON nests deeper than %d levels", p.maxDepth)
	}
	return nil
}

// more is called after an element of the array or object closed by
// closer, or right after its opening (first true): it consumes a ',' and
// reports true when another element follows, or consumes closer, leaves
// the level and reports false.
func (p *jsonReader) more(closer byte, first bool) (bool, error) {
	c := p.next()
	if c == closer {
		p.i++
		p.depth--
		return false, nil
	}
	if first {
		return true, nil
	}
	if c != ',' {
		return false, p.syntax("',' or " + string(closer))
	}
	p.i++
	return true, nil
}

// key reads an object member's name and its ':'.
func (p *jsonReader) key() (string, error) {
	k, err := p.str()
	if err != nil {
		return "", err
	}
	if p.next() != ':' {
		return "", p.syntax("':'")
	}
	p.i++
	return k, nil
}

// null consumes a null when one comes next.
func (p *jsonReader) null() bool {
	if p.next() == 'n' && len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "null" {
		p.i += 4
		return true
	}
	return false
}

// str reads a string. Without escapes or non-ASCII bytes it shares the
// body's bytes (valid while the body is); otherwise encoding/json
// unescapes it, so that it reads exactly as encoding/json would.
func (p *jsonReader) str() (string, error) {
	if p.next() != '"' {
		return "", p.syntax("a string")
	}
	start := p.i
	p.i++
	plain := true
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			if plain {
				return unsafeString(p.b[start+1 : p.i-1]), nil
			}
			var s string
			if err := json.Unmarshal(p.b[start:p.i], &s); err != nil {
				return "", badRequestf("request JSON: offset %d: %v", start, err)
			}
			return s, nil
		case c < 0x20:
			return "", p.syntax("no control character in a string")
		case c == '\\':
			plain = false
			p.i++
			if p.i >= len(p.b) {
				return "", p.syntax("an escape")
			}
			switch p.b[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					p.i++
					if p.i >= len(p.b) || !isHex(p.b[p.i]) {
						return "", p.syntax("4 hex digits after \\u")
					}
				}
			default:
				return "", p.syntax("an escape")
			}
		case c >= 0x80:
			plain = false
		}
		p.i++
	}
	return "", p.syntax(`the closing '"'`)
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// numberEnd returns the end of the JSON number at p.i, or -1 when there
// is none: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *jsonReader) numberEnd() int {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		s := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
		if i == s {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		s := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
		if i == s {
			return -1
		}
	}
	return i
}

// integer reads a JSON number that must be an int64 (as encoding/json
// reads one into an int64: no fraction, no exponent).
func (p *jsonReader) integer() (int64, error) {
	p.space()
	end := p.numberEnd()
	if end < 0 {
		return 0, p.syntax("an integer")
	}
	tok := p.b[p.i:end]
	n, err := strconv.ParseInt(unsafeString(tok), 10, 64)
	if err != nil {
		return 0, badRequestf("request JSON: offset %d: %s is not an int64", p.i, tok)
	}
	p.i = end
	return n, nil
}

// boolean reads a parameter's value: true, false, null or any other value
// (skipped).
func (p *jsonReader) boolean() (param, error) {
	for _, lit := range [...]struct {
		s string
		v param
	}{{"true", paramTrue}, {"false", paramFalse}, {"null", paramAbsent}} {
		if p.next() == lit.s[0] && len(p.b)-p.i >= len(lit.s) && string(p.b[p.i:p.i+len(lit.s)]) == lit.s {
			p.i += len(lit.s)
			return lit.v, nil
		}
	}
	return paramOther, p.skip()
}

// skip reads one value of any kind, checking its syntax and depth.
func (p *jsonReader) skip() error {
	switch c := p.next(); c {
	case '{', '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		if err := p.open(c); err != nil {
			return err
		}
		for first := true; ; first = false {
			ok, err := p.more(closer, first)
			if err != nil || !ok {
				return err
			}
			if c == '{' {
				if _, err := p.key(); err != nil {
					return err
				}
			} else if p.space(); p.i < len(p.b) && (p.b[p.i] == '-' || '0' <= p.b[p.i] && p.b[p.i] <= '9') {
				// An array's number, the common case (a tensor's "data"
				// before its shape): no call for the kind of value.
				end := p.numberEnd()
				if end < 0 {
					return p.syntax("a number")
				}
				p.i = end
				continue
			}
			if err := p.skip(); err != nil {
				return err
			}
		}
	case '"':
		_, err := p.str()
		return err
	case 't', 'f', 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			if lit[0] == c && len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
				p.i += len(lit)
				return nil
			}
		}
		return p.syntax("a value")
	default:
		end := p.numberEnd()
		if end < 0 {
			return p.syntax("a value")
		}
		p.i = end
		return nil
	}
}

// object reads an object (or null, which holds no members), calling member
// with each member's name, the reader at its value; member reads the
// value (or skips it).
func (p *jsonReader) object(member func(key string) error) error {
	if p.null() {
		return nil
	}
	if err := p.open('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		ok, err := p.more('}', first)
		if err != nil || !ok {
			return err
		}
		k, err := p.key()
		if err != nil {
			return err
		}
		if err := member(k); err != nil {
			return err
		}
	}
}

// array reads an array (or null, which holds no elements), calling elem
// with each element's index.
func (p *jsonReader) array(elem func(i int) error) error {
	if p.null() {
		return nil
	}
	if err := p.open('['); err != nil {
		return err
	}
	for i := 0; ; i++ {
		ok, err := p.more(']', i == 0)
		if err != nil || !ok {
			return err
		}
		if err := elem(i); err != nil {
			return err
		}
	}
}

// nullableString reads a string member; null leaves *s as it was (as
// encoding/json does).
func (p *jsonReader) nullableString(s *string) error {
	if p.null() {
		return nil
	}
	v, err := p.str()
	*s = v
	return err
}

// decodeRESTBody reads the JSON text of an inference request into q,
// checking its syntax and depth whole, as encoding/json would (member names
// are matched exactly as the protocol spells them). The first input's
// "data", when it comes after its "shape" and "datatype", is read into inf
// for version v on the way (v nil: never), so a well-ordered request's
// numbers are scanned once.
func decodeRESTBody(q *restRequest, inf *inference, body []byte, v *version, lim *Limits) error {
	q.reset()
	p := &jsonReader{b: body, maxDepth: lim.MaxJSONDepth}
	input := func(i int) error {
		q.inputs++
		if i > 0 {
			return p.skip()
		}
		in := &q.in
		return p.object(func(k string) error {
			switch k {
			case "name":
				var name string
				return p.nullableString(&name)
			case "datatype":
				return p.nullableString(&in.datatype)
			case "shape":
				in.shape = in.shape[:0]
				return p.array(func(int) error {
					n, err := p.integer()
					in.shape = append(in.shape, n)
					return err
				})
			case "parameters":
				return p.object(func(k string) error {
					if k != "binary_data_size" {
						return p.skip()
					}
					if p.null() {
						return nil
					}
					n, err := p.integer()
					in.binarySize = n
					return err
				})
			case "data":
				p.space()
				in.data = span{start: p.i, ok: true}
				in.parsed.data.ok = false
				if v != nil && p.depth+2 <= p.maxDepth {
					tryParse(p, inf, in, v, lim)
				}
				if !in.parsed.data.ok {
					p.i = in.data.start
					if err := p.skip(); err != nil {
						return err
					}
				}
				in.data.end = p.i
				if in.parsed.data.ok {
					in.parsed.data.end = p.i
				}
				return nil
			}
			return p.skip()
		})
	}
	err := p.object(func(k string) error {
		switch k {
		case "id":
			return p.nullableString(&q.id)
		case "inputs":
			q.inputs = 0
			q.in = restInput{shape: q.in.shape[:0], binarySize: -1}
			return p.array(input)
		case "outputs":
			q.outputs = q.outputs[:0]
			return p.array(func(int) error {
				q.outputs = append(q.outputs, restOutput{})
				o := &q.outputs[len(q.outputs)-1]
				return p.object(func(k string) error {
					switch k {
					case "name":
						return p.nullableString(&o.name)
					case "parameters":
						return p.object(func(k string) error {
							if k != "binary_data" {
								return p.skip()
							}
							var err error
							o.binary, err = p.boolean()
							return err
						})
					}
					return p.skip()
				})
			})
		case "parameters":
			return p.object(func(k string) error {
				var dst *param
				switch k {
				case OutputDecision:
					dst = &q.decision
				case OutputProbability:
					dst = &q.probability
				case "binary_data_output":
					dst = &q.binaryOutput
				default:
					return p.skip()
				}
				var err error
				*dst, err = p.boolean()
				return err
			})
		}
		return p.skip()
	})
	if err != nil {
		return err
	}
	if p.next() != 0 {
		return p.syntax("the end of the text")
	}
	return nil
}

// tryParse reads the first input's "data" at p.i into inf when its shape
// and datatype were given before it and fit v and the limits, recording
// what it read in in.parsed (parsed.data.ok stays false otherwise, and then
// p.i is left anywhere: the caller rewinds and skips).
func tryParse(p *jsonReader, inf *inference, in *restInput, v *version, lim *Limits) {
	dt := parseDatatype(in.datatype)
	if dt == dtInvalid || in.binarySize >= 0 || inf.input(in.shape, v, lim) != nil {
		return
	}
	if p.tensor(inf.x, dt, inf.rows, inf.cols) != nil {
		return
	}
	in.parsed.data.start, in.parsed.data.ok = in.data.start, true
	in.parsed.rows, in.parsed.cols, in.parsed.dt = inf.rows, inf.cols, dt
}
