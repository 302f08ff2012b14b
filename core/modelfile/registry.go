package modelfile

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/tinylib/msgp/msgp"
)

// The one codec (DESIGN.md §4½): every model kind registers a Codec here,
// and Decode, Encode, ReadFile and WriteFile open and write a model file
// of any registered kind by its body's "k" key (reading) or its model's
// ModelInfo.Kind (writing). The float kinds register themselves in this
// package (modelfile.go, kernel.go); the quantized kinds in package
// quantize, which every program that serves them imports; a new kind
// registers from its own package (or test) and needs no edit here. A kind
// is never switched on outside the file that defines its codec.

// Codec is what a model kind registers: how its models are written and
// read, and its body's schema.
type Codec struct {
	// Kind is the kind its models report in core.ModelInfo.Kind and its
	// bodies name under the "k" key (a scaled model's body adds
	// ScaledKindSuffix).
	Kind string
	// Minor is the format minor version that added the kind, which its
	// files are written with (minorScaled with a scaling): a reader of an
	// older minor version refuses them with ErrVersion.
	Minor uint16
	// Body is a pointer to a zero value of the kind's body type, a struct
	// whose msg tags name its keys: Keys reads the schema from it, so
	// svmgo inspect and the tests of other readers (examples/python) know
	// every key a body can hold.
	Body any
	// Encode returns the model file bytes of m, a model of this kind
	// (m.Info().Kind == Kind), framed by Seal. The same model gives the
	// same bytes.
	Encode func(m core.Model) ([]byte, error)
	// Decode returns the model a payload of this kind holds (the body,
	// after Open has checked the frame, the checksum and the msgpack
	// structure), checked as the kind checks its models. Its errors are
	// reported wrapped in ErrCorrupt unless they wrap one of this
	// package's sentinels already.
	Decode func(payload []byte) (core.Model, error)
}

// registry holds the registered codecs, by kind, in registration order
// for messages.
var registry struct {
	sync.RWMutex
	byKind map[string]*Codec
	order  []string
}

// formatKinds are the kinds format 1.x defines, with the minor version
// that added each: the frame and Kind know them whether or not their
// codec is linked in (the quantized kinds' lives in package quantize).
var formatKinds = map[string]uint16{
	KindLinear:  minorLinear,
	KindKernel:  minorKernel,
	KindQLinear: minorQuantized,
	KindQKernel: minorQuantized,
}

// Register adds the codec of a model kind. It panics, as for a
// programmer's bug, when the kind is empty, contains ScaledKindSuffix, is
// registered already, disagrees with the minor version the format gives
// it, or lacks Body, Encode or Decode. Kinds register once, from an init
// function or a test.
func Register(c Codec) {
	switch {
	case c.Kind == "" || strings.Contains(c.Kind, ScaledKindSuffix):
		panic(fmt.Sprintf("modelfile: Register: bad kind %q", c.Kind))
	case c.Body == nil || c.Encode == nil || c.Decode == nil:
		panic(fmt.Sprintf("modelfile: Register: kind %q lacks Body, Encode or Decode", c.Kind))
	}
	if minor, ok := formatKinds[c.Kind]; ok && minor != c.Minor {
		panic(fmt.Sprintf("modelfile: Register: kind %q is format 1.%d, not 1.%d", c.Kind, minor, c.Minor))
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.byKind == nil {
		registry.byKind = make(map[string]*Codec)
	}
	if _, ok := registry.byKind[c.Kind]; ok {
		panic(fmt.Sprintf("modelfile: Register: kind %q registered twice", c.Kind))
	}
	registry.byKind[c.Kind] = &c
	registry.order = append(registry.order, c.Kind)
}

// codecOf returns the codec registered for kind, nil when there is none.
// It allocates nothing for a kind given as string([]byte).
func codecOf(kind string) *Codec {
	registry.RLock()
	defer registry.RUnlock()
	return registry.byKind[kind]
}

// Kinds returns the registered kinds in registration order.
func Kinds() []string {
	registry.RLock()
	defer registry.RUnlock()
	return slices.Clone(registry.order)
}

// minorOf returns the minor version files of kind are written with, and
// false for a kind neither the format nor a codec knows.
func minorOf(kind string) (uint16, bool) {
	if minor, ok := formatKinds[kind]; ok {
		return minor, true
	}
	if c := codecOf(kind); c != nil {
		return c.Minor, true
	}
	return 0, false
}

// kindName returns the name of a kind the format defines or a codec is
// registered for, as the string this package holds (no allocation).
func kindName(kind []byte) (string, bool) {
	for k := range formatKinds {
		if string(kind) == k {
			return k, true
		}
	}
	if c := codecOf(string(kind)); c != nil {
		return c.Kind, true
	}
	return "", false
}

// knownKinds returns every kind this program reads or the format defines,
// sorted, for messages.
func knownKinds() []string {
	kinds := Kinds()
	for k := range formatKinds {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	return kinds
}

// Decode decodes the bytes of a model file of any registered kind and
// returns its model, checked by its kind's decoder (core's Validate for
// the float kinds, refusing non-finite numbers; quantize's checks for the
// quantized ones), so every path that loads a model (the C ABI's load and
// load_buffer, watchers, the command) refuses the same files. An ONNX-ML
// file (IsONNX) is decoded by package onnx (onnxfile.go). Errors wrap
// one of this package's sentinels: Open's, ErrKind for a kind the format
// defines whose codec is not linked in, ErrCorrupt for a body its decoder
// refuses. The model shares no memory with b.
func Decode(b []byte) (core.Model, error) {
	if IsONNX(b) {
		return decodeONNX(b)
	}
	payload, kind, err := Open(b)
	if err != nil {
		return nil, err
	}
	c := codecOf(kind)
	if c == nil {
		return nil, fmt.Errorf("%w: no codec for %q models in this program", ErrKind, kind)
	}
	m, err := c.Decode(payload)
	if err != nil {
		return nil, corrupt(kind, err)
	}
	return m, nil
}

// corrupt wraps a decoder's error in ErrCorrupt unless it wraps a
// sentinel of this package already.
func corrupt(kind string, err error) error {
	for _, s := range []error{ErrNotModel, ErrVersion, ErrTruncated, ErrChecksum, ErrKind, ErrCorrupt} {
		if errors.Is(err, s) {
			return err
		}
	}
	return fmt.Errorf("%w: %s: %w", ErrCorrupt, kind, err)
}

// Encode returns the model file bytes of m, of any registered kind; the
// same model always gives the same bytes. It returns an error for a nil
// model, a kind without a codec, or a model its kind's encoder refuses.
func Encode(m core.Model) ([]byte, error) {
	if m == nil || isNil(m) {
		return nil, errors.New("modelfile: encode: nil model")
	}
	kind := m.Info().Kind
	c := codecOf(kind)
	if c == nil {
		return nil, fmt.Errorf("modelfile: encode: no codec for %q models (%T)", kind, m)
	}
	return c.Encode(m)
}

// isNil reports a typed nil pointer in m, whose methods would panic.
func isNil(m core.Model) bool {
	v := reflect.ValueOf(m)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// EncodeAs is a Codec.Encode for a kind whose models are Ms: it gives m
// to marshal, and refuses a model of another type that claims the kind.
func EncodeAs[M core.Model](m core.Model, marshal func(M) ([]byte, error)) ([]byte, error) {
	as, ok := m.(M)
	if !ok {
		return nil, fmt.Errorf("modelfile: encode: a %T claims the kind %q of %T", m, m.Info().Kind, as)
	}
	return marshal(as)
}

// DecodeAs is a Codec.Decode for a kind whose body is a B: it decodes the
// payload into a B (DecodeBody) and converts it with from, whose refusal
// Decode reports as ErrCorrupt.
func DecodeAs[B any, PB interface {
	*B
	msgp.Unmarshaler
}, M core.Model](payload []byte, from func(PB) (M, error)) (core.Model, error) {
	var bd B
	if err := DecodeBody(payload, PB(&bd)); err != nil {
		return nil, err
	}
	m, err := from(PB(&bd))
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return m, nil
}

// ReadFile reads the model file at path, of any registered kind, and
// returns the model it holds, decoded and checked as Decode does. The file
// is read once, frame first (ReadBytes: a FIFO, a directory or a huge file
// that is not a model is refused without blocking or reading it whole),
// and its kind is taken from the same bytes the model is decoded from.
// Errors name the path and wrap this package's sentinels, the os error, or
// fileio.ErrNotRegular.
func ReadFile(path string) (core.Model, error) {
	data, err := ReadBytes(path)
	if err != nil {
		return nil, err
	}
	m, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, path)
	}
	return m, nil
}

// WriteFile writes m, of any registered kind, to path atomically
// (WriteBytes: a temporary file in path's directory, synced, renamed, the
// directory synced). Errors name the path.
func WriteFile(path string, m core.Model) error {
	data, err := Encode(m)
	if err != nil {
		return fmt.Errorf("%w (writing %s)", err, path)
	}
	return WriteBytes(path, data)
}

// ReadFileAs reads the model file at path as ReadFile does and returns its
// model as an M (a *linear.LinearModel, a *core.KernelModel, a
// quantize.Model, ...), for a caller that can use one kind only; a model
// of another kind is refused with an error wrapping ErrKind.
func ReadFileAs[M core.Model](path string) (M, error) {
	var zero M
	m, err := ReadFile(path)
	if err != nil {
		return zero, err
	}
	as, ok := m.(M)
	if !ok {
		return zero, fmt.Errorf("%w: %s holds a %s model, want %T (reading %s)", ErrKind, path, m.Info().Kind, zero, path)
	}
	return as, nil
}
