package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/tinylib/msgp/msgp"
)

// A model kind defined here alone, as a new kind's package would define
// it: a decision stump, which predicts label +1 when feature j is above a
// threshold and −1 otherwise. It registers its codec with modelfile and
// is served by the C ABI with no other file edited for it
// (TestNewKindThroughCABI).

const kindStump = "test-stump"

// stump is the model: decision value x_j − threshold.
type stump struct {
	numFeatures, feature int
	threshold            float32
}

func (m *stump) Info() core.ModelInfo {
	return core.ModelInfo{Kind: kindStump, Task: core.TaskClassification, NumFeatures: m.numFeatures,
		Labels: []int32{1, -1}, NumDecisionValues: 1}
}

func (m *stump) DecisionDense(dst []float64, x []float32) []float64 {
	dst[0] = float64(x[m.feature] - m.threshold)
	return dst[:1]
}

func (m *stump) DecisionSparse(dst []float64, index []int32, value []float32) []float64 {
	v := float32(0)
	if k, ok := slices.BinarySearch(index, int32(m.feature)); ok {
		v = value[k]
	}
	dst[0] = float64(v - m.threshold)
	return dst[:1]
}

func (m *stump) LabelOf(dec []float64) float64 {
	if dec[0] > 0 {
		return 1
	}
	return -1
}

func (m *stump) PredictDense(x []float32) float64 {
	var dec [1]float64
	return m.LabelOf(m.DecisionDense(dec[:], x))
}

func (m *stump) PredictSparse(index []int32, value []float32) float64 {
	var dec [1]float64
	return m.LabelOf(m.DecisionSparse(dec[:], index, value))
}

func (m *stump) PredictDenseBatch(dst []float64, x []float32) []float64 {
	dst = core.BatchRows(dst, x, m.numFeatures, "stump.PredictDenseBatch")
	for r := range dst {
		dst[r] = m.PredictDense(x[r*m.numFeatures : (r+1)*m.numFeatures])
	}
	return dst
}

func (m *stump) PredictBatch(dst []float64, ds *data.Dataset) []float64 {
	dst = dst[:ds.Len()]
	for r := range dst {
		if ds.IsDense() {
			dst[r] = m.PredictDense(ds.DenseRow(r))
		} else {
			dst[r] = m.PredictSparse(ds.SparseRow(r))
		}
	}
	return dst
}

// stumpBody is the kind's file body; its tags are its schema.
type stumpBody struct {
	Kind        string  `msg:"k" doc:"kind"`
	NumFeatures int64   `msg:"nf" doc:"nr_feature"`
	Feature     int64   `msg:"j" doc:"split feature"`
	Threshold   float32 `msg:"th" doc:"threshold"`
}

func (b *stumpBody) MarshalMsg(o []byte) ([]byte, error) {
	o = msgp.AppendMapHeader(o, 4)
	o = msgp.AppendInt64(msgp.AppendString(msgp.AppendString(msgp.AppendString(o, "k"), b.Kind), "nf"), b.NumFeatures)
	o = msgp.AppendInt64(msgp.AppendString(o, "j"), b.Feature)
	return msgp.AppendFloat32(msgp.AppendString(o, "th"), b.Threshold), nil
}

func (b *stumpBody) UnmarshalMsg(p []byte) ([]byte, error) {
	n, p, err := msgp.ReadMapHeaderBytes(p)
	for ; err == nil && n > 0; n-- {
		var key string
		if key, p, err = msgp.ReadStringBytes(p); err != nil {
			break
		}
		switch key {
		case "k":
			b.Kind, p, err = msgp.ReadStringBytes(p)
		case "nf":
			b.NumFeatures, p, err = msgp.ReadInt64Bytes(p)
		case "j":
			b.Feature, p, err = msgp.ReadInt64Bytes(p)
		case "th":
			b.Threshold, p, err = msgp.ReadFloat32Bytes(p)
		default:
			p, err = msgp.Skip(p)
		}
	}
	return p, err
}

func init() {
	modelfile.Register(modelfile.Codec{
		Kind: kindStump, Minor: modelfile.Minor, Body: &stumpBody{},
		Encode: func(m core.Model) ([]byte, error) {
			return modelfile.EncodeAs(m, func(m *stump) ([]byte, error) {
				bd := &stumpBody{Kind: kindStump, NumFeatures: int64(m.numFeatures), Feature: int64(m.feature), Threshold: m.threshold}
				out, err := bd.MarshalMsg(make([]byte, modelfile.HeaderSize))
				if err != nil {
					return nil, err
				}
				return out, modelfile.Seal(out, kindStump)
			})
		},
		Decode: func(payload []byte) (core.Model, error) {
			return modelfile.DecodeAs(payload, func(bd *stumpBody) (*stump, error) {
				if bd.NumFeatures < 1 || bd.Feature < 0 || bd.Feature >= bd.NumFeatures {
					return nil, fmt.Errorf("feature %d of %d", bd.Feature, bd.NumFeatures)
				}
				return &stump{numFeatures: int(bd.NumFeatures), feature: int(bd.Feature), threshold: bd.Threshold}, nil
			})
		},
	})
}

// TestNewKindThroughCABI: a kind defined in this file alone goes through
// the one writer and reader (modelfile.WriteFile, ReadFile, Encode,
// Decode) and through the C ABI's load, load_buffer, save_buffer and
// predict, which know nothing of it.
func TestNewKindThroughCABI(t *testing.T) {
	m := &stump{numFeatures: 3, feature: 1, threshold: 0.5}
	path := filepath.Join(t.TempDir(), "stump.svmgo")
	if err := modelfile.WriteFile(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := modelfile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := got.(*stump); !ok || *s != *m {
		t.Fatalf("read back %#v, want %#v", got, m)
	}
	if kind, err := modelfile.Kind(mustEncode(t, m)); err != nil || kind != kindStump {
		t.Errorf("Kind = %q, %v", kind, err)
	}
	if keys, ok := modelfile.Schema(kindStump); !ok || len(keys) != 4 || keys[3].Name != "th" || keys[3].Doc != "threshold" {
		t.Errorf("schema %v, %v", keys, ok)
	}

	x := []float32{9, 0.25, 9, 0, 0.75, 0, 0, 0.5, 0} // three rows: −1, +1, −1 (0.5 is not above)
	want := []float64{-1, 1, -1}
	for name, load := range map[string]func() (core.Model, error){
		"load":        func() (core.Model, error) { return loadFile(path) },
		"load_buffer": func() (core.Model, error) { return loadBuffer(mustEncode(t, m)) },
	} {
		p, err := load()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dst := make([]float64, 3)
		if err := predictDenseF32(p, outputLabel, dst, x, 3, 3); err != nil || !slices.Equal(dst, want) {
			t.Errorf("%s: predict labels %v, %v; want %v", name, dst, err, want)
		}
		if err := predictDenseF32(p, outputDecisionValues, dst, x, 3, 3); err != nil || !slices.Equal(dst, []float64{-0.25, 0.25, 0}) {
			t.Errorf("%s: decision values %v, %v", name, dst, err)
		}
		buf := make([]byte, 256)
		n, err := saveBuffer(p, buf)
		if err != nil || !bytes.Equal(buf[:n], mustEncode(t, m)) {
			t.Errorf("%s: save_buffer gave %d bytes, %v; not the file's", name, n, err)
		}
	}
}

func mustEncode(t *testing.T, m core.Model) []byte {
	t.Helper()
	b, err := modelfile.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
