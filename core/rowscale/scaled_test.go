package rowscale

import (
	"math"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/model"
	"github.com/libsvmgo/libsvmgo/core/scale"
)

// affineModel is a hand-made two-class model, dec = w·x + b, label 1 when
// dec > 0 and 2 otherwise, P(1) = 1/(1+e^−dec): enough to check that
// Scaled hands its inner model exactly the rows svm-scale's formula gives.
type affineModel struct {
	w []float64
	b float64
}

func (m *affineModel) Info() model.ModelInfo {
	return model.ModelInfo{Kind: "affine", Task: model.TaskClassification, NumFeatures: len(m.w),
		Labels: []int32{1, 2}, NumDecisionValues: 1, Probability: true}
}
func (m *affineModel) DecisionDense(dst []float64, x []float32) []float64 {
	if len(x) != len(m.w) {
		panic("affineModel: width")
	}
	d := m.b
	for j, v := range x {
		d += m.w[j] * float64(v)
	}
	dst = dst[:1]
	dst[0] = d
	return dst
}
func (m *affineModel) DecisionSparse(dst []float64, index []int32, value []float32) []float64 {
	d := m.b
	for k, j := range index {
		d += m.w[j] * float64(value[k])
	}
	dst = dst[:1]
	dst[0] = d
	return dst
}
func (m *affineModel) LabelOf(dec []float64) float64 {
	if dec[0] > 0 {
		return 1
	}
	return 2
}
func (m *affineModel) PredictDense(x []float32) float64 {
	var d [1]float64
	return m.LabelOf(m.DecisionDense(d[:], x))
}
func (m *affineModel) PredictSparse(index []int32, value []float32) float64 {
	var d [1]float64
	return m.LabelOf(m.DecisionSparse(d[:], index, value))
}
func (m *affineModel) PredictDenseBatch(dst []float64, x []float32) []float64 {
	n := len(m.w)
	dst = model.BatchRows(dst, x, n, "affineModel")
	for r := range dst {
		dst[r] = m.PredictDense(x[r*n : r*n+n])
	}
	return dst
}
func (m *affineModel) PredictBatch(dst []float64, ds *data.Dataset) []float64 {
	panic("affineModel: Scaled must hand its inner model dense scaled matrices")
}
func (m *affineModel) ProbabilityDense(dst []float64, x []float32) []float64 {
	var d [1]float64
	p := 1 / (1 + math.Exp(-m.DecisionDense(d[:], x)[0]))
	dst = dst[:2]
	dst[0], dst[1] = p, 1-p
	return dst
}
func (m *affineModel) ProbabilitySparse(dst []float64, index []int32, value []float32) []float64 {
	var d [1]float64
	p := 1 / (1 + math.Exp(-m.DecisionSparse(d[:], index, value)[0]))
	dst = dst[:2]
	dst[0], dst[1] = p, 1-p
	return dst
}

// scaledByHand is row x scaled by r with svm-scale's formula, rounded to
// float32, the row the inner model must see.
func scaledByHand(r *scale.Ranges, x []float32) []float32 {
	out := make([]float32, len(x))
	for j, v := range x {
		out[j] = float32(r.Value(j, float64(v)))
	}
	return out
}

func TestScaledMatchesRowsScaledByHand(t *testing.T) {
	inner := &affineModel{w: []float64{0.5, -2, 1.25}, b: -0.75}
	r := &scale.Ranges{Lower: -1, Upper: 1, Min: []float64{0, -3, 2}, Max: []float64{4, 5, 2}}
	s, err := NewScaled(inner, r)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Info(); got.Scale != r || got.NumFeatures != 3 || got.Kind != "affine" {
		t.Fatalf("Info = %+v", got)
	}
	rows := [][]float32{{1, 2, 2}, {0, 0, 0}, {4, -3, 7}, {2.5, 0, 1}}
	ds := data.NewDense(len(rows), 3)
	sp := data.NewSparse(len(rows), 8, 3)
	var flat []float32
	for _, x := range rows {
		if err := ds.AppendDense(1, x); err != nil {
			t.Fatal(err)
		}
		var idx []int32
		var val []float32
		for j, v := range x {
			if v != 0 {
				idx, val = append(idx, int32(j)), append(val, v)
			}
		}
		if err := sp.AppendSparse(1, idx, val); err != nil {
			t.Fatal(err)
		}
		flat = append(flat, x...)
	}
	batch := s.PredictDenseBatch(make([]float64, len(rows)), flat)
	indptr := []int64{0}
	var indices []int32
	var values []float32
	for i := range rows {
		idx, val := sp.SparseRow(i)
		indices, values = append(indices, idx...), append(values, val...)
		indptr = append(indptr, int64(len(indices)))
	}
	csr := s.PredictCSRBatch(make([]float64, len(rows)), indptr, indices, values)
	fromDense := s.PredictBatch(make([]float64, len(rows)), ds)
	fromSparse := s.PredictBatch(make([]float64, len(rows)), sp)
	for i, x := range rows {
		xs := scaledByHand(r, x)
		want := inner.DecisionDense(make([]float64, 1), xs)[0]
		idx, val := sp.SparseRow(i)
		if got := s.DecisionDense(make([]float64, 1), x)[0]; got != want {
			t.Errorf("row %d: DecisionDense %v, want %v", i, got, want)
		}
		if got := s.DecisionSparse(make([]float64, 1), idx, val)[0]; got != want {
			t.Errorf("row %d: DecisionSparse %v, want %v", i, got, want)
		}
		if got := s.ApplySparse(make([]float64, 1), idx, val, inner.DecisionDense)[0]; got != want {
			t.Errorf("row %d: ApplySparse %v, want %v", i, got, want)
		}
		if got := s.ApplyDense(make([]float64, 1), x, inner.DecisionDense)[0]; got != want {
			t.Errorf("row %d: ApplyDense %v, want %v", i, got, want)
		}
		wantLabel := inner.PredictDense(xs)
		for name, got := range map[string]float64{"PredictDense": s.PredictDense(x), "PredictSparse": s.PredictSparse(idx, val),
			"PredictDenseBatch": batch[i], "PredictBatch dense": fromDense[i], "PredictBatch sparse": fromSparse[i], "PredictCSRBatch": csr[i]} {
			if got != wantLabel {
				t.Errorf("row %d: %s %v, want %v", i, name, got, wantLabel)
			}
		}
		wantP := inner.ProbabilityDense(make([]float64, 2), xs)[0]
		if got := s.ProbabilityDense(make([]float64, 2), x)[0]; got != wantP {
			t.Errorf("row %d: ProbabilityDense %v, want %v", i, got, wantP)
		}
		if got := s.ProbabilitySparse(make([]float64, 2), idx, val)[0]; got != wantP {
			t.Errorf("row %d: ProbabilitySparse %v, want %v", i, got, wantP)
		}
	}
	// Feature 2's range is constant: svm-scale maps it to 0 whatever the row holds.
	if xs := scaledByHand(r, []float32{0, 0, 9}); xs[2] != 0 {
		t.Fatalf("constant feature scaled to %v, want 0", xs[2])
	}
}

func TestScaledRefusesRangesOfAnotherWidth(t *testing.T) {
	r := &scale.Ranges{Lower: 0, Upper: 1, Min: []float64{0, 0}, Max: []float64{1, 1}}
	if _, err := NewScaled(&affineModel{w: []float64{1, 2, 3}}, r); err == nil {
		t.Fatal("NewScaled took 2 ranges for a 3-feature model")
	}
}

func TestScaledPredictAllocatesNothing(t *testing.T) {
	s, err := NewScaled(&affineModel{w: []float64{1, -1}, b: 0.1},
		&scale.Ranges{Lower: 0, Upper: 1, Min: []float64{-1, 0}, Max: []float64{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	x := []float32{0.5, 1.5}
	idx, val := []int32{1}, []float32{1.5}
	mat := make([]float32, 2*100)
	dst, out := make([]float64, 2), make([]float64, 100)
	for name, f := range map[string]func(){
		"DecisionDense":     func() { s.DecisionDense(dst, x) },
		"DecisionSparse":    func() { s.DecisionSparse(dst, idx, val) },
		"PredictDense":      func() { s.PredictDense(x) },
		"PredictSparse":     func() { s.PredictSparse(idx, val) },
		"PredictDenseBatch": func() { s.PredictDenseBatch(out, mat) },
		"ProbabilityDense":  func() { s.ProbabilityDense(dst, x) },
		"ProbabilitySparse": func() { s.ProbabilitySparse(dst, idx, val) },
	} {
		f()
		if a := testing.AllocsPerRun(100, f); a != 0 {
			t.Errorf("%s: %v allocations a call", name, a)
		}
	}
}
