package modelfile

import (
	"errors"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// TestUnscalableRangesRefused (issue 22, fault 8): a model file whose
// scaling maps a range a denormal or 10⁻³⁰⁰ wide, or −10³⁰⁸..10³⁰⁸, or an
// interval 10³⁰⁰ wide, used to load, and then every finite row predicted
// as SVMGO_E_NOT_FINITE; the decoder refuses it (ErrCorrupt wrapping
// scale.ErrRanges), and a model holding such ranges cannot be set or
// written.
func TestUnscalableRangesRefused(t *testing.T) {
	r, ds, _ := scaledTrain(t)
	lin, _, err := linear.TrainLinear(ds, linear.DefaultLinearParams())
	if err != nil {
		t.Fatal(err)
	}
	// svmgo scale's sparse ranges are valid, but no model takes them,
	// even listing every feature.
	sparse := &scale.Ranges{Lower: -1, Upper: 1, Min: slices.Clone(r.Min), Max: slices.Clone(r.Max)}
	for j := range r.Min {
		sparse.Index = append(sparse.Index, int32(j))
	}
	if err := sparse.Validate(); err != nil {
		t.Fatal(err)
	}
	if m := *lin; m.SetScale(sparse) == nil {
		t.Error("a model took sparse ranges")
	}
	for _, c := range []struct {
		name                   string
		lower, upper, min, max float64
	}{
		{"one denormal", -1, 1, 0, 5e-324},
		{"1e-300 wide", -1, 1, 0, 1e-300},
		{"-1e308..1e308", -1, 1, -1e308, 1e308},
		{"limits 1e300", -1e300, 1e300, 0, 1},
	} {
		bad := &scale.Ranges{Lower: c.lower, Upper: c.upper, Min: slices.Clone(r.Min), Max: slices.Clone(r.Max)}
		bad.Min[0], bad.Max[0] = c.min, c.max
		if err := bad.Validate(); !errors.Is(err, scale.ErrRanges) {
			t.Errorf("%s: Validate: %v, want ErrRanges", c.name, err)
		}
		m := *lin
		if err := m.SetScale(bad); err == nil {
			t.Errorf("%s: SetScale accepted the ranges", c.name)
		}
		m.Scale = bad
		if _, err := Marshal(&m); err == nil {
			t.Errorf("%s: Marshal accepted the ranges", c.name)
		}
		bd := toBody(&m) // the body a writer without the check would write
		b, err := marshalBody(bd, bd.Kind)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Unmarshal(b); !errors.Is(err, ErrCorrupt) || !errors.Is(err, scale.ErrRanges) {
			t.Errorf("%s: Unmarshal: %v, want ErrCorrupt wrapping scale.ErrRanges", c.name, err)
		}
	}
}
