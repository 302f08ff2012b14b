package core

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
)

// stateCases are a state of each layout the encoding has.
func stateCases() map[string]*Dual {
	return map[string]*Dual{
		"linear":     {Linear: &linear.LinearDual{Labels: []int32{3, -1}, Alpha: [][]float64{{0, 1.5, 0.25}, {2, 0, 0}}}},
		"linear-svr": {Linear: &linear.LinearDual{Alpha: [][]float64{{-0.5, 0, 0.75}}}},
		"csvc": {Kernel: &KernelDual{SVMType: CSVC, Pairs: [][2]int32{{1, 2}, {1, 3}, {2, 3}},
			Alpha: [][]float64{{0.5, 0.5, 0}, {0.25, 0, 0.25}, {0, 1, 1}}}},
		"epssvr": {Kernel: &KernelDual{SVMType: EpsSVR, Alpha: [][]float64{{-1, 0, 2}}}},
	}
}

// buffers returns a buf function of fixed-capacity vectors, as a keeper of
// fixed memory gives DecodeDual and CopyInto.
func buffers(capacity int) func(k int) []float64 {
	var bufs [][]float64
	return func(k int) []float64 {
		for len(bufs) <= k {
			bufs = append(bufs, make([]float64, capacity))
		}
		return bufs[k]
	}
}

// TestStateEncoding: AppendBinary and DecodeDual round-trip every layout
// (and no state) with the bytes after it left alone; the encoding is the
// one spelt out in AppendBinary's comment, byte for byte, for the linear
// case.
func TestStateEncoding(t *testing.T) {
	for name, d := range stateCases() {
		b := append(d.AppendBinary(nil), 7, 8)
		got, rest, err := DecodeDual(b, 3, StateOptions{}, buffers(5))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(rest, []byte{7, 8}) || !slices.Equal(got.AppendBinary(nil), b[:len(b)-2]) {
			t.Errorf("%s: decoded %+v, rest %v", name, got, rest)
		}
		for i := range 3 {
			if got.IsSupport(i) != d.IsSupport(i) {
				t.Errorf("%s: row %d support %v", name, i, got.IsSupport(i))
			}
		}
		if _, _, err := DecodeDual(b[:len(b)-3], 3, StateOptions{}, buffers(5)); !errors.Is(err, ErrState) {
			t.Errorf("%s: truncated: %v", name, err)
		}
	}
	want := []byte{stateLinear, 1, 0, 0, 0, 0, 0, 0, 0}
	want = append(want, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f) // 1.0 little-endian
	if got := (&Dual{Linear: &linear.LinearDual{Alpha: [][]float64{{1}}}}).AppendBinary(nil); !slices.Equal(got, want) {
		t.Errorf("encoding % x, want % x", got, want)
	}
	var none *Dual
	got, rest, err := DecodeDual(none.AppendBinary(nil), 3, StateOptions{}, buffers(5))
	if got != nil || len(rest) != 0 || err != nil {
		t.Errorf("no state: %v, %v, %v", got, rest, err)
	}
	k := stateCases()["csvc"].AppendBinary(nil)
	if _, _, err := DecodeDual(k, 3, StateOptions{NoKernel: true}, buffers(5)); !errors.Is(err, ErrState) {
		t.Errorf("a kernel state where none may be: %v", err)
	}
	for _, b := range [][]byte{nil, {9}, {stateLinear, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}} {
		if _, _, err := DecodeDual(b, 3, StateOptions{}, buffers(5)); !errors.Is(err, ErrState) {
			t.Errorf("% x: %v, want ErrState", b, err)
		}
	}
}

// TestStateCheck: Check refuses what a run on n rows cannot leave.
func TestStateCheck(t *testing.T) {
	for name, d := range stateCases() {
		if err := d.Check(3); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := map[string]*Dual{
		"nil":       nil,
		"both":      {Linear: &linear.LinearDual{}, Kernel: &KernelDual{SVMType: OneClass, Alpha: [][]float64{{1, 2, 3}}}},
		"short":     {Linear: &linear.LinearDual{Alpha: [][]float64{{1, 2}}}},
		"too-many":  {Linear: &linear.LinearDual{Alpha: slices.Repeat([][]float64{{1, 2, 3}}, 4)}},
		"nan":       {Linear: &linear.LinearDual{Alpha: [][]float64{{1, math.NaN(), 3}}}},
		"negative":  {Kernel: &KernelDual{SVMType: OneClass, Alpha: [][]float64{{1, -2, 3}}}},
		"self-pair": {Kernel: &KernelDual{SVMType: CSVC, Pairs: [][2]int32{{1, 1}}, Alpha: [][]float64{{1, 2, 3}}}},
		"twice":     {Kernel: &KernelDual{SVMType: CSVC, Pairs: [][2]int32{{1, 2}, {2, 1}}, Alpha: [][]float64{{1, 2, 3}, {1, 2, 3}}}},
		"svr-pairs": {Kernel: &KernelDual{SVMType: EpsSVR, Pairs: [][2]int32{{1, 2}}, Alpha: [][]float64{{1, 2, 3}}}},
		"svm-type":  {Kernel: &KernelDual{SVMType: SVMType(9), Alpha: [][]float64{{1, 2, 3}}}},
	}
	for name, d := range bad {
		if err := d.Check(3); !errors.Is(err, ErrState) {
			t.Errorf("%s: Check = %v, want ErrState", name, err)
		}
	}
}

// TestStateKeeping: what a keeper of fixed memory does with a state —
// copy it into its buffers (its own back onto itself), grow it in place
// for appended rows, drop rows, drop gradients — leaves the original
// alone and gives the vectors the keeper expects.
func TestStateKeeping(t *testing.T) {
	orig := stateCases()["csvc"]
	orig.Kernel.Gradient = &KernelGradient{}
	buf := buffers(6)
	kept := orig.CopyInto(buf)
	if kept.HasGradient() || kept.Kernel.Gradient != nil || !slices.Equal(kept.AppendBinary(nil), orig.AppendBinary(nil)) {
		t.Fatalf("copy %+v", kept.Kernel)
	}
	if again := kept.CopyInto(buf); !slices.Equal(again.AppendBinary(nil), orig.AppendBinary(nil)) {
		t.Error("a state copied onto its own buffers changed")
	}
	kept.GrowInPlace(5)
	if kept.Rows() != 5 || !slices.Equal(kept.Kernel.Alpha[2], []float64{0, 1, 1, 0, 0}) || &kept.Kernel.Alpha[2][0] != &buf(2)[0] {
		t.Errorf("grown: %v", kept.Kernel.Alpha)
	}
	if err := kept.DeleteRows([]int{0, 3}); err != nil || !slices.Equal(kept.Kernel.Alpha[0], []float64{0.5, 0, 0}) {
		t.Errorf("rows deleted: %v, %v", kept.Kernel.Alpha, err)
	}
	if !orig.HasGradient() || orig.WithoutGradient().HasGradient() || !orig.HasGradient() {
		t.Error("WithoutGradient changed the state or kept its gradient")
	}
	if kept.Fits(1) || !kept.Fits(3) || kept.MetadataBytes() != 3*8 {
		t.Errorf("Fits(1) %v, Fits(3) %v, metadata %d B", kept.Fits(1), kept.Fits(3), kept.MetadataBytes())
	}
}

// TestWarmStart: a trainer's warm start takes α from the stored state, cut
// to the rows, and the primal start, gradient and scaling from the last
// run's; a stored state of the other kind or formulation starts cold with
// a *StateMismatch saying which.
func TestWarmStart(t *testing.T) {
	stored := stateCases()["csvc"]
	g := &KernelGradient{}
	last := &Dual{Kernel: &KernelDual{SVMType: CSVC, Gradient: g}}
	w, err := warmStart(true, CSVC, stored, last, 2)
	if err != nil || w.Rows() != 2 || w.Kernel.Gradient != g || stored.Kernel.Gradient != nil {
		t.Errorf("warm %+v, %v", w, err)
	}
	var mis *StateMismatch
	if w, err := warmStart(false, 0, stored, last, 2); w != nil || !errors.As(err, &mis) || !mis.OtherKind ||
		mis.Stored != KindKernel || mis.Training != KindLinear || !errors.Is(err, ErrState) {
		t.Errorf("kernel state, linear trainer: %v, %v", w, err)
	}
	if w, err := warmStart(true, EpsSVR, stored, last, 2); w != nil || !errors.As(err, &mis) || mis.OtherKind ||
		mis.Stored != CSVC.String() || mis.Training != EpsSVR.String() {
		t.Errorf("C-SVC state, ε-SVR trainer: %v, %v", w, err)
	}
	primal := &linear.LinearPrimal{W: [][]float64{{1}}}
	if w, err := warmStart(false, 0, nil, &Dual{Primal: primal}, 3); err != nil || !w.HasPrimalStart() || w.Rows() != 0 {
		t.Errorf("no stored α, a primal start: %+v, %v", w, err)
	}
	if w, err := warmStart(true, CSVC, nil, last, 3); w != nil || err != nil {
		t.Errorf("nothing stored: %+v, %v", w, err)
	}
}

// TestVectorsOf: each vector's match is the vector of the same pair (in
// either order) or class; states over other pairs, classes, kinds or
// formulations have none; and the encoding of a state is its shape (its
// first zero rows' encoding) followed by its vectors, which the store's
// journal builds a state from.
func TestVectorsOf(t *testing.T) {
	csvc := func(pairs ...[2]int32) *Dual {
		k := &KernelDual{SVMType: CSVC, Pairs: pairs}
		for range pairs {
			k.Alpha = append(k.Alpha, []float64{0, 1})
		}
		return &Dual{Kernel: k}
	}
	lin := func(labels []int32, nvec int) *Dual {
		return &Dual{Linear: &linear.LinearDual{Labels: labels, Alpha: slices.Repeat([][]float64{{1, 0}}, nvec)}}
	}
	one := func(svm SVMType) *Dual { return &Dual{Kernel: &KernelDual{SVMType: svm, Alpha: [][]float64{{0, 1}}}} }
	for _, c := range []struct {
		name string
		d, o *Dual
		want []int
	}{
		{"pairs permuted", csvc([2]int32{3, 1}, [2]int32{1, 2}, [2]int32{2, 3}), csvc([2]int32{1, 2}, [2]int32{1, 3}, [2]int32{2, 3}), []int{1, 0, 2}},
		{"same pairs", csvc([2]int32{1, 2}), csvc([2]int32{1, 2}), []int{0}},
		{"other pair", csvc([2]int32{1, 2}), csvc([2]int32{1, 3}), nil},
		{"more pairs", csvc([2]int32{1, 2}, [2]int32{1, 3}, [2]int32{2, 3}), csvc([2]int32{1, 2}), nil},
		{"one-class", one(OneClass), one(OneClass), []int{0}},
		{"other formulation", one(OneClass), one(EpsSVR), nil},
		{"kernel against linear", one(EpsSVR), lin(nil, 1), nil},
		{"classes permuted", lin([]int32{2, 3, 1}, 3), lin([]int32{1, 2, 3}, 3), []int{1, 2, 0}},
		{"other class", lin([]int32{2, 3, 4}, 3), lin([]int32{1, 2, 3}, 3), nil},
		{"two classes turned round", lin([]int32{-1, 1}, 1), lin([]int32{1, -1}, 1), []int{0}},
		{"two other classes", lin([]int32{-1, 2}, 1), lin([]int32{1, -1}, 1), nil},
		{"regression", lin(nil, 1), lin(nil, 1), []int{0}},
		{"nil", nil, lin(nil, 1), nil},
	} {
		if got := c.d.VectorsOf(c.o); !slices.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("%s: VectorsOf = %v, want %v", c.name, got, c.want)
		}
	}
	for name, d := range stateCases() {
		shape := d.Prefix(0).AppendBinary(nil)
		want := shape
		for _, a := range d.Vectors() {
			for _, v := range a {
				want = binary.LittleEndian.AppendUint64(want, math.Float64bits(v))
			}
		}
		if got := d.AppendBinary(nil); !slices.Equal(got, want) {
			t.Errorf("%s: the encoding is not the shape followed by the vectors", name)
		}
	}
}

// TestBadAlpha checks badAlpha against the value-by-value rule (not
// finite; negative, not −0, when nonNeg) at every position of vectors of
// lengths around its four-value blocks, each bad value alone, after a −0,
// and with a later one.
func TestBadAlpha(t *testing.T) {
	want := func(a []float64, nonNeg bool) int {
		for i, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) || nonNeg && v < 0 {
				return i
			}
		}
		return -1
	}
	bads := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1e-300, -2, math.Copysign(0, -1), 0, 5e-324, math.MaxFloat64}
	for n := range 11 {
		for at := range n {
			for _, bad := range bads {
				for _, negZeroFirst := range []bool{false, true} {
					a := make([]float64, n)
					for i := range a {
						a[i] = float64(i) / 3
					}
					if negZeroFirst && at > 0 {
						a[0] = math.Copysign(0, -1)
					}
					a[at] = bad
					if at+2 < n {
						a[at+2] = math.NaN()
					}
					for _, nonNeg := range []bool{false, true} {
						if got, w := badAlpha(a, nonNeg), want(a, nonNeg); got != w {
							t.Fatalf("%v (nonNeg %v): badAlpha %d, want %d", a, nonNeg, got, w)
						}
					}
				}
			}
		}
	}
}
