package onnx

import (
	"errors"
	"math"
	"runtime"
	"testing"
)

// hostile returns an ONNX model of one op node with attrs, reading an
// input X declared [N, nf].
func hostile(op string, nf int64, attrs ...attr) []byte {
	m := &model{irVersion: irVersion, opsets: []opset{{domain: mlDomain, version: 1}}, graph: graph{
		name:   "hostile",
		nodes:  []node{{inputs: []string{InputName}, outputs: []string{ValueName}, name: op, opType: op, domain: mlDomain, attrs: attrs}},
		inputs: []valueInfo{{name: InputName, elemType: elemFloat, dims: []int64{dimSymbolic, nf}}},
	}}
	return m.append(nil)
}

// TestDecodeBoundedByInput: counts and shapes a graph declares (support
// vectors, features, classes) are checked against the values its
// attributes hold before anything is sized by them, so a file of a few
// hundred bytes claiming 2³¹ support vectors or features is refused with
// an error naming the attribute, allocating in proportion to the file.
func TestDecodeBoundedByInput(t *testing.T) {
	sv := floatsAttr("support_vectors", []float32{1, 2, 3, 4})
	cases := []struct {
		name, want string
		b          []byte
	}{
		{"n_supports past the vectors", "support_vectors", hostile("SVMRegressor", 2,
			intAttr("n_supports", math.MaxInt32), sv, floatsAttr("coefficients", []float32{1}), floatsAttr("rho", []float32{0}))},
		{"features past the vectors", "declares 2147483647 features", hostile("SVMRegressor", math.MaxInt32,
			intAttr("n_supports", 1), sv, floatsAttr("coefficients", []float32{1}), floatsAttr("rho", []float32{0}))},
		{"coefficients short", "coefficients", hostile("SVMRegressor", 2,
			intAttr("n_supports", 2), sv, floatsAttr("coefficients", []float32{1}), floatsAttr("rho", []float32{0}))},
		{"vectors_per_class past the vectors", "support_vectors", hostile("SVMClassifier", -1,
			intsAttr("classlabels_ints", []int64{1, 2}), intsAttr("vectors_per_class", []int64{1 << 29, 1 << 29}), sv,
			floatsAttr("coefficients", []float32{1}), floatsAttr("rho", []float32{0}))},
		{"input wider than the operator", "declares 2147483647 features", hostile("LinearRegressor", math.MaxInt32,
			floatsAttr("coefficients", []float32{1, 2}), floatsAttr("intercepts", []float32{0}))},
		{"string labels", "classlabels_strings", hostile("LinearClassifier", 2,
			floatsAttr("coefficients", []float32{1, 2, 3, 4}), floatsAttr("intercepts", []float32{0, 0}), stringsAttr("classlabels_strings", "a", "b"))},
	}
	for _, c := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := Decode(c.b)
		runtime.ReadMemStats(&after)
		if m != nil || !errors.Is(err, ErrUnsupported) || !containsStr(err.Error(), c.want) {
			t.Errorf("%s: Decode = %v, %v; want ErrUnsupported naming %q", c.name, m, err, c.want)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
			t.Errorf("%s: %d bytes allocated for a %d-byte file", c.name, got, len(c.b))
		}
	}
}

func containsStr(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// stringsAttr is an attribute of strings (only the tests write one).
func stringsAttr(name string, v ...string) attr {
	b := attrHead(name)
	for _, s := range v {
		b = appendString(b, fAttrStrings, s)
	}
	b = appendVarint(b, fAttrType, attrStrings)
	return attr{name: name, typ: attrStrings, nStr: len(v), raw: b}
}
