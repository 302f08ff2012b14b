package modelfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// scaledTrain returns heart_scale scaled to [0, 1] (train --scale -l 0)
// with its ranges, and the raw rows.
func scaledTrain(t *testing.T) (*scale.Ranges, *data.Dataset, *data.Dataset) {
	t.Helper()
	raw, err := data.ReadFile("../testdata/heart_scale", data.ReadOptions{ClassLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	r, ds, err := core.ScaleTrainingRows(raw, core.ScaleParams{Enabled: true, Lower: 0, Upper: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r, ds, raw
}

// TestScaledModelsRoundTrip checks that the scaling of a linear and a
// kernel model survives the file exactly (format 1.3, kind "+scaled" in
// the body, the kind without it from Kind), and that the decoded model
// predicts the raw rows as the trained one.
func TestScaledModelsRoundTrip(t *testing.T) {
	r, ds, raw := scaledTrain(t)
	lin, _, err := linear.TrainLinear(ds, linear.DefaultLinearParams())
	if err != nil {
		t.Fatal(err)
	}
	if err := lin.SetScale(r); err != nil {
		t.Fatal(err)
	}
	ker, err := core.TrainKernelModel(ds, core.DefaultKernelParams())
	if err != nil {
		t.Fatal(err)
	}
	if err := ker.SetScale(r); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind   string
		m      core.Model
		encode func() ([]byte, error)
		decode func([]byte) (core.Model, error)
	}{
		{KindLinear, lin, func() ([]byte, error) { return Marshal(lin) },
			func(b []byte) (core.Model, error) { return Unmarshal(b) }},
		{KindKernel, ker, func() ([]byte, error) { return MarshalKernel(ker) },
			func(b []byte) (core.Model, error) { return UnmarshalKernel(b) }},
	} {
		b, err := c.encode()
		if err != nil {
			t.Fatal(err)
		}
		if minor := binary.LittleEndian.Uint16(b[10:12]); minor != 3 {
			t.Errorf("%s: written as 1.%d, want 1.3", c.kind, minor)
		}
		if !bytes.Contains(b, []byte(c.kind+ScaledKindSuffix)) {
			t.Errorf("%s: body kind without %q", c.kind, ScaledKindSuffix)
		}
		if k, err := Kind(b); err != nil || k != c.kind {
			t.Errorf("Kind = %q, %v; want %q", k, err, c.kind)
		}
		got, err := c.decode(b)
		if err != nil {
			t.Fatal(err)
		}
		var gr *scale.Ranges
		switch g := got.(type) {
		case *linear.LinearModel:
			gr = g.Scale
		case *core.KernelModel:
			gr = g.Scale
		}
		if gr == nil || gr.Lower != 0 || gr.Upper != 1 || !slices.Equal(gr.Min, r.Min) || !slices.Equal(gr.Max, r.Max) {
			t.Fatalf("%s: decoded ranges %+v, want %+v", c.kind, gr, r)
		}
		pg := got.PredictBatch(make([]float64, raw.Len()), raw)
		pm := c.m.PredictBatch(make([]float64, raw.Len()), raw)
		if !slices.Equal(pg, pm) {
			t.Fatalf("%s: the decoded model's predictions differ from the trained one's", c.kind)
		}
		// The same model without scaling still writes the old format.
		switch m := c.m.(type) {
		case *linear.LinearModel:
			plain := *m
			plain.Scale = nil
			b, _ = Marshal(&plain)
		case *core.KernelModel:
			plain := *m
			if err := plain.SetScale(nil); err != nil {
				t.Fatal(err)
			}
			b, _ = MarshalKernel(&plain)
		}
		if minor := binary.LittleEndian.Uint16(b[10:12]); minor > 1 || bytes.Contains(b, []byte(ScaledKindSuffix)) {
			t.Errorf("%s without scaling: format 1.%d or a scaled kind", c.kind, minor)
		}
	}
}

// TestScaleKindMismatch checks that a body whose kind and scaling field
// disagree is refused as corrupt, and bad ranges too.
func TestScaleKindMismatch(t *testing.T) {
	r, ds, _ := scaledTrain(t)
	lin, _, err := linear.TrainLinear(ds, linear.DefaultLinearParams())
	if err != nil {
		t.Fatal(err)
	}
	bd := toBody(lin)
	bd.Scale = NewScaleBody(r) // scaling without the "+scaled" kind
	if _, err := decodeLinear(t, bd); !errors.Is(err, ErrCorrupt) {
		t.Errorf("scaling under kind %q: %v, want ErrCorrupt", bd.Kind, err)
	}
	bd.Kind, bd.Scale = KindLinear+ScaledKindSuffix, nil
	if _, err := decodeLinear(t, bd); !errors.Is(err, ErrCorrupt) {
		t.Errorf("kind %q without scaling: %v, want ErrCorrupt", bd.Kind, err)
	}
	bad := *r
	bad.Min = slices.Clone(r.Min)
	bad.Min[0] = bad.Max[0] + 1
	bd.Scale = NewScaleBody(&bad)
	if _, err := decodeLinear(t, bd); !errors.Is(err, ErrCorrupt) {
		t.Errorf("inverted range: %v, want ErrCorrupt", err)
	}
	bd.Scale = NewScaleBody(&scale.Ranges{Lower: -1, Upper: 1, Min: r.Min[:3], Max: r.Max[:3]})
	if _, err := decodeLinear(t, bd); !errors.Is(err, ErrCorrupt) {
		t.Errorf("3 ranges for %d features: %v, want ErrCorrupt", lin.NumFeatures, err)
	}
}

func decodeLinear(t *testing.T, bd *body) (*linear.LinearModel, error) {
	t.Helper()
	b, err := marshalBody(bd, KindLinear)
	if err != nil {
		t.Fatal(err)
	}
	return Unmarshal(b)
}
