package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/tinylib/msgp/msgp"
)

// A model kind defined here alone, as a new kind's package would define
// it: a constant regression model, which predicts the same value for every
// row. It registers its codec with modelfile, and svmgo inspect and svmgo
// predict serve it with no other file edited for it (TestNewKindInspect).

const kindConstant = "test-constant"

// constant predicts value for rows of numFeatures features.
type constant struct {
	numFeatures int
	value       float64
	created     int64
}

func (m *constant) Info() core.ModelInfo {
	return core.ModelInfo{Kind: kindConstant, Task: core.TaskRegression, NumFeatures: m.numFeatures,
		NumDecisionValues: 1, Created: m.created}
}

func (m *constant) DecisionDense(dst []float64, _ []float32) []float64 {
	dst[0] = m.value
	return dst[:1]
}

func (m *constant) DecisionSparse(dst []float64, _ []int32, _ []float32) []float64 {
	dst[0] = m.value
	return dst[:1]
}

func (m *constant) LabelOf(dec []float64) float64                { return dec[0] }
func (m *constant) PredictDense(_ []float32) float64             { return m.value }
func (m *constant) PredictSparse(_ []int32, _ []float32) float64 { return m.value }
func (m *constant) PredictBatch(dst []float64, ds *data.Dataset) []float64 {
	return m.fill(dst[:ds.Len()])
}
func (m *constant) PredictDenseBatch(dst []float64, x []float32) []float64 {
	return m.fill(core.BatchRows(dst, x, m.numFeatures, "constant.PredictDenseBatch"))
}

func (m *constant) fill(dst []float64) []float64 {
	for r := range dst {
		dst[r] = m.value
	}
	return dst
}

// constantBody is the kind's file body; its tags are its schema.
type constantBody struct {
	Kind        string  `msg:"k" doc:"kind"`
	NumFeatures int64   `msg:"nf" doc:"nr_feature"`
	Value       float64 `msg:"v" doc:"the constant"`
	Created     int64   `msg:"t" doc:"creation time"`
}

func (b *constantBody) MarshalMsg(o []byte) ([]byte, error) {
	o = msgp.AppendString(msgp.AppendString(msgp.AppendMapHeader(o, 4), "k"), b.Kind)
	o = msgp.AppendInt64(msgp.AppendString(o, "nf"), b.NumFeatures)
	o = msgp.AppendFloat64(msgp.AppendString(o, "v"), b.Value)
	return msgp.AppendInt64(msgp.AppendString(o, "t"), b.Created), nil
}

func (b *constantBody) UnmarshalMsg(p []byte) ([]byte, error) {
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
		case "v":
			b.Value, p, err = msgp.ReadFloat64Bytes(p)
		case "t":
			b.Created, p, err = msgp.ReadInt64Bytes(p)
		default:
			p, err = msgp.Skip(p)
		}
	}
	return p, err
}

func init() {
	modelfile.Register(modelfile.Codec{
		Kind: kindConstant, Minor: modelfile.Minor, Body: &constantBody{},
		Encode: func(m core.Model) ([]byte, error) {
			return modelfile.EncodeAs(m, func(m *constant) ([]byte, error) {
				bd := &constantBody{Kind: kindConstant, NumFeatures: int64(m.numFeatures), Value: m.value, Created: m.created}
				out, err := bd.MarshalMsg(make([]byte, modelfile.HeaderSize))
				if err != nil {
					return nil, err
				}
				return out, modelfile.Seal(out, kindConstant)
			})
		},
		Decode: func(payload []byte) (core.Model, error) {
			return modelfile.DecodeAs(payload, func(bd *constantBody) (*constant, error) {
				return &constant{numFeatures: int(bd.NumFeatures), value: bd.Value, created: bd.Created}, nil
			})
		},
	})
}

// TestNewKindInspect: a kind defined in this file alone is written and
// read back by the one writer and reader, described by svmgo inspect from
// what every kind reports (its body's keys named by its schema), and used
// by svmgo predict.
func TestNewKindInspect(t *testing.T) {
	dir := t.TempDir()
	m := &constant{numFeatures: 13, value: 2.5, created: 1700000000}
	path := filepath.Join(dir, "constant.svmgo")
	if err := modelfile.WriteFile(path, m); err != nil {
		t.Fatal(err)
	}
	if got, err := modelfile.ReadFile(path); err != nil || *got.(*constant) != *m {
		t.Fatalf("read back %#v, %v; want %#v", got, err, m)
	}
	code, out, errs := svmgo(t, "inspect", path)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, errs)
	}
	r := parseReport(t, out)
	if kind := r.value(t, "", "kind"); kind != kindConstant {
		t.Errorf("kind %q", kind)
	}
	if r.value(t, "model", "task") != "regression" || r.value(t, "model", "nr_feature") != "13" ||
		r.value(t, "model", "created") != "2023-11-14T22:13:20Z" {
		t.Errorf("model rows:\n%s", out)
	}
	if strings.Contains(out, "unknown to this reader") || !strings.Contains(out, "the constant") {
		t.Errorf("the byte table does not name the kind's keys:\n%s", out)
	}
	checkBytes(t, r, path)

	pred := filepath.Join(dir, "pred")
	if code, _, errs := svmgo(t, "predict", dataDir+"heart_scale", path, pred); code != 0 {
		t.Fatalf("predict: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(pred)
	if lines := strings.Fields(string(b)); err != nil || len(lines) != 270 || lines[0] != "2.5" || lines[269] != "2.5" {
		t.Errorf("predictions: %d lines, first %q, %v; want 270 of 2.5", len(lines), lines[:min(1, len(lines))], err)
	}
}
