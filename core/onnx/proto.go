package onnx

import (
	"errors"
	"fmt"
	"math"
)

// The subset of onnx-ml.proto (ONNX IR version 8, the messages ModelProto,
// OperatorSetIdProto, GraphProto, NodeProto, AttributeProto,
// ValueInfoProto, TypeProto.Tensor and TensorShapeProto) that an ONNX-ML
// graph of one SVM or linear operator needs, read and written by hand over
// wire.go. Field numbers are onnx.proto's; fields not listed here are
// skipped when read and never written.

// Field numbers of onnx.proto.
const (
	fModelIRVersion       = 1
	fModelProducerName    = 2
	fModelProducerVersion = 3
	fModelGraph           = 7
	fModelOpsetImport     = 8

	fOpsetDomain  = 1
	fOpsetVersion = 2

	fGraphNode   = 1
	fGraphName   = 2
	fGraphInput  = 11
	fGraphOutput = 12

	fNodeInput     = 1
	fNodeOutput    = 2
	fNodeName      = 3
	fNodeOpType    = 4
	fNodeAttribute = 5
	fNodeDomain    = 7

	fAttrName    = 1
	fAttrF       = 2
	fAttrI       = 3
	fAttrS       = 4
	fAttrFloats  = 7
	fAttrInts    = 8
	fAttrStrings = 9
	fAttrType    = 20

	fValueName = 1
	fValueType = 2

	fTypeTensor     = 1
	fTensorElemType = 1
	fTensorShape    = 2
	fShapeDim       = 1
	fDimValue       = 1
	fDimParam       = 2
)

// AttributeProto.AttributeType values.
const (
	attrFloat   = 1
	attrInt     = 2
	attrString  = 3
	attrFloats  = 6
	attrInts    = 7
	attrStrings = 8
)

// TensorProto.DataType values.
const (
	elemFloat = 1
	elemInt64 = 7
)

// Bounds of the reader: a graph of an optional Scaler, one operator and
// the output plumbing converters add has a handful of nodes, each with
// about ten attributes. Array attributes are not bounded here: they are
// counted without allocating, and allocated only once the converter has
// checked the count against the shapes the graph declares.
const (
	maxNodes      = 16
	maxAttributes = 32
	maxValues     = 16
	maxNodeIO     = 8
	maxDims       = 8
	maxOpsets     = 8
	maxNameBytes  = 4096
)

// ErrMalformed is wrapped by the errors for bytes that are not a
// well-formed ONNX model of the supported subset: bad protobuf encoding,
// wrong wire types, counts past the reader's bounds.
var ErrMalformed = errors.New("onnx: malformed model")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// model is an ONNX ModelProto reduced to what this package uses.
type model struct {
	irVersion       int64
	producerName    string
	producerVersion string
	opsets          []opset
	graph           graph
}

// opset is an OperatorSetIdProto.
type opset struct {
	domain  string
	version int64
}

// graph is a GraphProto: its nodes, inputs and outputs.
type graph struct {
	name            string
	nodes           []node
	inputs, outputs []valueInfo
}

// node is a NodeProto.
type node struct {
	inputs, outputs []string
	name, opType    string
	domain          string
	attrs           []attr
}

// attr is an AttributeProto. Scalars are decoded; the repeated fields
// (floats, ints, strings) are only counted, and decoded on demand from raw
// (the attribute's bytes, aliasing the input) once the caller knows how
// many it expects.
type attr struct {
	name    string
	typ     int64
	f       float32
	i       int64
	s       []byte
	nFloats int
	nInts   int
	nStr    int
	raw     []byte
}

// valueInfo is a ValueInfoProto of a tensor type: its name, element type
// and shape (a dimension is -1 when symbolic or absent).
type valueInfo struct {
	name     string
	elemType int64
	dims     []int64
}

// fieldReader walks the fields of one message.
type fieldReader struct {
	b   []byte
	num fieldNum
	typ wireType
	err error
}

// next reads the next field's tag, leaving b at its value; false at the
// end or on an error (r.err).
func (r *fieldReader) next() bool {
	if len(r.b) == 0 || r.err != nil {
		return false
	}
	num, typ, n := consumeTag(r.b)
	if n < 0 {
		r.err = malformed("bad field tag: %v", wireError(n))
		return false
	}
	r.num, r.typ, r.b = num, typ, r.b[n:]
	return true
}

// bytes reads a length-delimited value (a string, bytes or a message).
func (r *fieldReader) bytes() []byte {
	if r.typ != bytesType {
		r.err = malformed("field %d: wire type %d, want length-delimited", r.num, r.typ)
		return nil
	}
	v, n := consumeBytes(r.b)
	if n < 0 {
		r.err = malformed("field %d: %v", r.num, wireError(n))
		return nil
	}
	r.b = r.b[n:]
	return v
}

// str reads a string of at most maxNameBytes bytes.
func (r *fieldReader) str() string {
	v := r.bytes()
	if len(v) > maxNameBytes {
		r.err = malformed("field %d: a %d-byte name, at most %d", r.num, len(v), maxNameBytes)
		return ""
	}
	return string(v)
}

// varint reads a varint value.
func (r *fieldReader) varint() int64 {
	if r.typ != varintType {
		r.err = malformed("field %d: wire type %d, want varint", r.num, r.typ)
		return 0
	}
	v, n := consumeVarint(r.b)
	if n < 0 {
		r.err = malformed("field %d: %v", r.num, wireError(n))
		return 0
	}
	r.b = r.b[n:]
	return int64(v)
}

// fixed32 reads a fixed32 value (a float).
func (r *fieldReader) fixed32() uint32 {
	if r.typ != fixed32Type {
		r.err = malformed("field %d: wire type %d, want fixed32", r.num, r.typ)
		return 0
	}
	v, n := consumeFixed32(r.b)
	if n < 0 {
		r.err = malformed("field %d: %v", r.num, wireError(n))
		return 0
	}
	r.b = r.b[n:]
	return v
}

// skip skips the current field's value.
func (r *fieldReader) skip() {
	n := consumeField(r.num, r.typ, r.b)
	if n < 0 {
		r.err = malformed("field %d: %v", r.num, wireError(n))
		return
	}
	r.b = r.b[n:]
}

// decodeModel parses b as a ModelProto. Every slice it allocates is
// bounded by the constants above; array attributes are counted, not
// decoded.
func decodeModel(b []byte) (*model, error) {
	m := &model{}
	r := fieldReader{b: b}
	seenGraph := false
	for r.next() {
		switch r.num {
		case fModelIRVersion:
			m.irVersion = r.varint()
		case fModelProducerName:
			m.producerName = r.str()
		case fModelProducerVersion:
			m.producerVersion = r.str()
		case fModelOpsetImport:
			if len(m.opsets) == maxOpsets {
				return nil, malformed("more than %d opset imports", maxOpsets)
			}
			o, err := decodeOpset(r.bytes())
			if err != nil {
				return nil, err
			}
			m.opsets = append(m.opsets, o)
		case fModelGraph:
			if seenGraph {
				return nil, malformed("two graphs")
			}
			seenGraph = true
			g, err := decodeGraph(r.bytes())
			if err != nil {
				return nil, err
			}
			m.graph = *g
		default:
			r.skip()
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if !seenGraph {
		return nil, malformed("no graph")
	}
	return m, nil
}

func decodeOpset(b []byte) (opset, error) {
	var o opset
	r := fieldReader{b: b}
	for r.next() {
		switch r.num {
		case fOpsetDomain:
			o.domain = r.str()
		case fOpsetVersion:
			o.version = r.varint()
		default:
			r.skip()
		}
	}
	return o, r.err
}

func decodeGraph(b []byte) (*graph, error) {
	g := &graph{}
	r := fieldReader{b: b}
	for r.next() {
		switch r.num {
		case fGraphNode:
			if len(g.nodes) == maxNodes {
				return nil, malformed("more than %d nodes", maxNodes)
			}
			n, err := decodeNode(r.bytes())
			if err != nil {
				return nil, err
			}
			g.nodes = append(g.nodes, *n)
		case fGraphName:
			g.name = r.str()
		case fGraphInput, fGraphOutput:
			list := &g.inputs
			if r.num == fGraphOutput {
				list = &g.outputs
			}
			if len(*list) == maxValues {
				return nil, malformed("more than %d graph inputs or outputs", maxValues)
			}
			v, err := decodeValueInfo(r.bytes())
			if err != nil {
				return nil, err
			}
			*list = append(*list, v)
		default:
			r.skip()
		}
		if r.err != nil {
			return nil, r.err
		}
	}
	return g, r.err
}

func decodeNode(b []byte) (*node, error) {
	n := &node{}
	r := fieldReader{b: b}
	for r.next() {
		switch r.num {
		case fNodeInput, fNodeOutput:
			list := &n.inputs
			if r.num == fNodeOutput {
				list = &n.outputs
			}
			if len(*list) == maxNodeIO {
				return nil, malformed("a node with more than %d inputs or outputs", maxNodeIO)
			}
			*list = append(*list, r.str())
		case fNodeName:
			n.name = r.str()
		case fNodeOpType:
			n.opType = r.str()
		case fNodeDomain:
			n.domain = r.str()
		case fNodeAttribute:
			if len(n.attrs) == maxAttributes {
				return nil, malformed("a node with more than %d attributes", maxAttributes)
			}
			a, err := decodeAttr(r.bytes())
			if err != nil {
				return nil, err
			}
			n.attrs = append(n.attrs, a)
		default:
			r.skip()
		}
		if r.err != nil {
			return nil, r.err
		}
	}
	return n, r.err
}

// decodeAttr decodes an attribute's scalars and counts its repeated
// values (packed or not) without allocating them.
func decodeAttr(b []byte) (attr, error) {
	a := attr{raw: b}
	r := fieldReader{b: b}
	for r.next() {
		switch {
		case r.num == fAttrName:
			a.name = r.str()
		case r.num == fAttrType:
			a.typ = r.varint()
		case r.num == fAttrF:
			a.f = math.Float32frombits(r.fixed32())
		case r.num == fAttrI:
			a.i = r.varint()
		case r.num == fAttrS:
			a.s = r.bytes()
		case r.num == fAttrFloats && r.typ == bytesType:
			v := r.bytes()
			if len(v)%4 != 0 {
				return a, malformed("attribute %q: packed floats of %d bytes", a.name, len(v))
			}
			a.nFloats += len(v) / 4
		case r.num == fAttrFloats:
			r.fixed32()
			a.nFloats++
		case r.num == fAttrInts && r.typ == bytesType:
			v := r.bytes()
			for len(v) > 0 {
				_, n := consumeVarint(v)
				if n < 0 {
					return a, malformed("attribute %q: packed ints: %v", a.name, wireError(n))
				}
				v = v[n:]
				a.nInts++
			}
		case r.num == fAttrInts:
			r.varint()
			a.nInts++
		case r.num == fAttrStrings:
			r.bytes()
			a.nStr++
		default:
			r.skip()
		}
		if r.err != nil {
			return a, fmt.Errorf("attribute %q: %w", a.name, r.err)
		}
	}
	return a, r.err
}

// floats decodes the attribute's floats; the caller has checked nFloats.
func (a *attr) floats() []float32 {
	out := make([]float32, 0, a.nFloats)
	r := fieldReader{b: a.raw}
	for r.next() {
		switch {
		case r.num == fAttrFloats && r.typ == bytesType:
			v := r.bytes()
			for i := 0; i+4 <= len(v); i += 4 {
				out = append(out, math.Float32frombits(uint32(v[i])|uint32(v[i+1])<<8|uint32(v[i+2])<<16|uint32(v[i+3])<<24))
			}
		case r.num == fAttrFloats:
			out = append(out, math.Float32frombits(r.fixed32()))
		default:
			r.skip()
		}
	}
	return out
}

// ints decodes the attribute's ints; the caller has checked nInts.
func (a *attr) ints() []int64 {
	out := make([]int64, 0, a.nInts)
	r := fieldReader{b: a.raw}
	for r.next() {
		switch {
		case r.num == fAttrInts && r.typ == bytesType:
			v := r.bytes()
			for len(v) > 0 {
				x, n := consumeVarint(v)
				out = append(out, int64(x))
				v = v[n:]
			}
		case r.num == fAttrInts:
			out = append(out, r.varint())
		default:
			r.skip()
		}
	}
	return out
}

// strings decodes the attribute's strings; the caller has checked nStr.
func (a *attr) strings() []string {
	out := make([]string, 0, a.nStr)
	r := fieldReader{b: a.raw}
	for r.next() {
		if r.num == fAttrStrings {
			out = append(out, string(r.bytes()))
		} else {
			r.skip()
		}
	}
	return out
}

func decodeValueInfo(b []byte) (valueInfo, error) {
	v := valueInfo{elemType: 0}
	r := fieldReader{b: b}
	for r.next() {
		switch r.num {
		case fValueName:
			v.name = r.str()
		case fValueType:
			t := fieldReader{b: r.bytes()}
			for t.next() {
				if t.num != fTypeTensor {
					t.skip()
					continue
				}
				if err := decodeTensorType(t.bytes(), &v); err != nil {
					return v, err
				}
			}
			if t.err != nil {
				return v, t.err
			}
		default:
			r.skip()
		}
	}
	return v, r.err
}

func decodeTensorType(b []byte, v *valueInfo) error {
	r := fieldReader{b: b}
	for r.next() {
		switch r.num {
		case fTensorElemType:
			v.elemType = r.varint()
		case fTensorShape:
			s := fieldReader{b: r.bytes()}
			v.dims = v.dims[:0]
			for s.next() {
				if s.num != fShapeDim {
					s.skip()
					continue
				}
				if len(v.dims) == maxDims {
					return malformed("value %q: more than %d dimensions", v.name, maxDims)
				}
				d := fieldReader{b: s.bytes()}
				dim := int64(-1)
				for d.next() {
					if d.num == fDimValue {
						dim = d.varint()
					} else {
						d.skip()
					}
				}
				if d.err != nil {
					return d.err
				}
				v.dims = append(v.dims, dim)
			}
			if s.err != nil {
				return s.err
			}
		default:
			r.skip()
		}
	}
	return r.err
}

// Writing. Each message is appended in field-number order (as protobuf's
// own serializers write them), repeated numbers packed, so that the same
// model gives the same bytes.

func appendString(b []byte, num fieldNum, s string) []byte {
	b = appendTag(b, num, bytesType)
	return append(putVarint(b, uint64(len(s))), s...)
}

func appendVarint(b []byte, num fieldNum, v int64) []byte {
	b = appendTag(b, num, varintType)
	return putVarint(b, uint64(v))
}

// appendLen appends field num holding the message fill appends to an
// empty slice.
func appendLen(b []byte, num fieldNum, fill func([]byte) []byte) []byte {
	body := fill(nil)
	b = appendTag(b, num, bytesType)
	return appendBytes(b, body)
}

func (m *model) append(b []byte) []byte {
	b = appendVarint(b, fModelIRVersion, m.irVersion)
	b = appendString(b, fModelProducerName, m.producerName)
	b = appendString(b, fModelProducerVersion, m.producerVersion)
	b = appendLen(b, fModelGraph, m.graph.append)
	for _, o := range m.opsets {
		b = appendLen(b, fModelOpsetImport, func(b []byte) []byte {
			b = appendString(b, fOpsetDomain, o.domain)
			return appendVarint(b, fOpsetVersion, o.version)
		})
	}
	return b
}

func (g *graph) append(b []byte) []byte {
	for i := range g.nodes {
		b = appendLen(b, fGraphNode, g.nodes[i].append)
	}
	b = appendString(b, fGraphName, g.name)
	for i := range g.inputs {
		b = appendLen(b, fGraphInput, g.inputs[i].append)
	}
	for i := range g.outputs {
		b = appendLen(b, fGraphOutput, g.outputs[i].append)
	}
	return b
}

func (n *node) append(b []byte) []byte {
	for _, s := range n.inputs {
		b = appendString(b, fNodeInput, s)
	}
	for _, s := range n.outputs {
		b = appendString(b, fNodeOutput, s)
	}
	b = appendString(b, fNodeName, n.name)
	b = appendString(b, fNodeOpType, n.opType)
	for i := range n.attrs {
		b = appendTag(b, fNodeAttribute, bytesType)
		b = appendBytes(b, n.attrs[i].raw)
	}
	return appendString(b, fNodeDomain, n.domain)
}

func (v *valueInfo) append(b []byte) []byte {
	b = appendString(b, fValueName, v.name)
	return appendLen(b, fValueType, func(b []byte) []byte {
		return appendLen(b, fTypeTensor, func(b []byte) []byte {
			b = appendVarint(b, fTensorElemType, v.elemType)
			return appendLen(b, fTensorShape, func(b []byte) []byte {
				for _, d := range v.dims {
					b = appendLen(b, fShapeDim, func(b []byte) []byte {
						if d < 0 {
							return appendString(b, fDimParam, "N")
						}
						return appendVarint(b, fDimValue, d)
					})
				}
				return b
			})
		})
	})
}

// The attribute constructors encode the AttributeProto at once (raw), as
// the reader keeps it: name, the value, then the type.

func attrHead(name string) []byte { return appendString(nil, fAttrName, name) }

func floatsAttr(name string, v []float32) attr {
	b := attrHead(name)
	b = appendTag(b, fAttrFloats, bytesType)
	b = putVarint(b, uint64(4*len(v)))
	for _, x := range v {
		b = appendFixed32(b, math.Float32bits(x))
	}
	b = appendVarint(b, fAttrType, attrFloats)
	return attr{name: name, typ: attrFloats, nFloats: len(v), raw: b}
}

func intsAttr(name string, v []int64) attr {
	b := attrHead(name)
	b = appendLen(b, fAttrInts, func(b []byte) []byte {
		for _, x := range v {
			b = putVarint(b, uint64(x))
		}
		return b
	})
	b = appendVarint(b, fAttrType, attrInts)
	return attr{name: name, typ: attrInts, nInts: len(v), raw: b}
}

func intAttr(name string, v int64) attr {
	b := appendVarint(attrHead(name), fAttrI, v)
	b = appendVarint(b, fAttrType, attrInt)
	return attr{name: name, typ: attrInt, i: v, raw: b}
}

func stringAttr(name, v string) attr {
	b := appendString(attrHead(name), fAttrS, v)
	b = appendVarint(b, fAttrType, attrString)
	return attr{name: name, typ: attrString, s: []byte(v), raw: b}
}
