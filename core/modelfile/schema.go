package modelfile

import (
	"reflect"
	"strings"
)

// The body keys exist in one place: the msg tags of each kind's body type
// (body.go, kbody.go, qbody.go, sbody.go), which the generated codec
// reads and writes, with a doc tag naming the top-level ones. Schema reads
// them back from the body a kind registered, so svmgo inspect's byte table
// and the Python reader's key table (examples/python/svmgo/_schema.py,
// checked against Schema by a test) cannot miss a key the codec writes.

// Key is one key of a body: a msgpack map key and what it holds.
type Key struct {
	// Name is the key as the file holds it, such as "w" or "nf".
	Name string
	// Doc names what the key holds, as svmgo inspect shows it (LIBSVM's
	// and LIBLINEAR's names where they have one); empty for the keys of
	// nested maps, which have none.
	Doc string
	// Keys are the keys of the value when it is a map (a nested struct,
	// or an array of them), nil otherwise.
	Keys []Key
}

// Schema returns the keys of the body of kind, in the order the codec
// writes them, from the msg and doc tags of the body type its codec
// registered; false for a kind without a codec in this program.
func Schema(kind string) ([]Key, bool) {
	c := codecOf(kind)
	if c == nil {
		return nil, false
	}
	return structKeys(reflect.TypeOf(c.Body)), true
}

// structKeys returns the keys of the msgpack map a struct type t (or a
// pointer to, or slice of, one) encodes to; nil for any other type.
func structKeys(t reflect.Type) []Key {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []Key
	for f := range t.Fields() {
		tag := f.Tag.Get("msg")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name // msgp's key for an untagged field
		}
		keys = append(keys, Key{Name: name, Doc: f.Tag.Get("doc"), Keys: structKeys(f.Type)})
	}
	return keys
}
