package quantize

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
)

// A quantized kernel model can be faithful to every bound this package
// states and still be useless: the per-feature affine scheme gives a
// feature 2^b − 1 steps over its whole range, and when a few outlying
// support vectors stretch that range, the values that carry the decision
// share one or two codes. shuttle (-c 100 -g 1) is the case in point:
// three features span [−1, 1] because of outliers while 90% of their
// support vector values lie within 0.025 of each other, under four of
// their 255 int8 steps; the int8 model labels 74% of the test rows right
// against the float model's 99.8% (the float model of the decoded support
// vectors gives the same 74%: the codes, not the arithmetic). Per-feature
// scales are what the scheme already has; a clipped range would decode the
// outliers wrongly, and a non-uniform code would lose the integer product.
// So the quantizer checks what it made on the data it has, the support
// vectors, which lie where the labels change, and refuses a model that
// changes their labels (CheckFaithful).

// MaxSupportVectorChange is the share of a kernel classifier's support
// vectors whose predicted label its quantized model may change before
// CheckFaithful refuses it, if that is more than minRefusedChanges
// support vectors. On the shared data sets and Fashion-MNIST 10k the int8
// and int16 models change none; shuttle's int8 model changes 211 of 614
// (34%).
const MaxSupportVectorChange = 0.01

// minRefusedChanges is the fewest changed labels CheckFaithful refuses:
// a support vector sits on the margin, and a few of a small model's can
// cross it by rounding alone (breast_cancer's polynomial int8 model: 1 of
// 69, test accuracy unchanged).
const minRefusedChanges = 4

// faithSampleRows bounds the support vectors CheckFaithful predicts (every
// k-th one of a larger model): 2048 rows of Fashion-MNIST 10k take about
// 0.3 s of both models' batch predictions on one core.
const faithSampleRows = 2048

// UnfaithfulError is CheckFaithful's refusal: the quantized model changes
// the labels of more than MaxSupportVectorChange of the support vectors
// checked.
type UnfaithfulError struct {
	Bits             int
	Changed, Checked int
	// Coarse lists the features (0-based) whose support vector values
	// mostly share a few codes because outliers stretch their range: 90%
	// of the values within Steps[k] code steps, of 2^Bits − 1.
	Coarse []int
	Steps  []int
}

func (e *UnfaithfulError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "quantize: int%d codes change the labels of %d of %d support vectors (%.1f%%, more than %g%%)",
		e.Bits, e.Changed, e.Checked, 100*float64(e.Changed)/float64(e.Checked), 100*MaxSupportVectorChange)
	if len(e.Coarse) > 0 {
		feats, steps := make([]string, len(e.Coarse)), make([]string, len(e.Coarse))
		for k, j := range e.Coarse {
			feats[k], steps[k] = strconv.Itoa(j+1), strconv.Itoa(e.Steps[k])
		}
		fmt.Fprintf(&b, ": features %s (LIBSVM indices) keep 90%% of their support vector values within %s of their %d code steps, their ranges stretched by a few outlying values",
			strings.Join(feats, ", "), strings.Join(steps, ", "), 1<<e.Bits-1)
	}
	if e.Bits == 8 {
		b.WriteString("; 16-bit codes have 257 times the steps")
	}
	return b.String()
}

// CheckFaithful predicts the support vectors of src, a float kernel
// classifier or one-class model, with src and with q, its quantization,
// and returns how many of those checked changed label; the error is an
// *UnfaithfulError when more than MaxSupportVectorChange of them did (and
// at least 4).
// Other models (linear ones, ε-SVR, a q not made from src's kind) are not
// checked: 0, 0, nil.
func CheckFaithful(src core.Model, q Model) (changed, checked int, err error) {
	m, ok := src.(*core.KernelModel)
	k, okq := q.(*Kernel)
	if !ok || !okq || m.SV.Len() == 0 || m.SVMType.IsRegression() {
		return 0, 0, nil
	}
	rows := sampleRows(m.SV, faithSampleRows)
	pf := m.PredictBatch(make([]float64, rows.Len()), rows)
	pq := k.PredictBatch(make([]float64, rows.Len()), rows)
	for i := range pf {
		if pf[i] != pq[i] {
			changed++
		}
	}
	checked = rows.Len()
	if changed < minRefusedChanges || float64(changed) <= MaxSupportVectorChange*float64(checked) {
		return changed, checked, nil
	}
	e := &UnfaithfulError{Bits: k.bits, Changed: changed, Checked: checked}
	e.Coarse, e.Steps = coarseFeatures(m.SV, k)
	return changed, checked, e
}

// sampleRows returns ds when it has at most n rows, else every k-th row
// of it (k = ⌈len/n⌉) as a data set of its layout.
func sampleRows(ds *data.Dataset, n int) *data.Dataset {
	if ds.Len() <= n {
		return ds
	}
	step := (ds.Len() + n - 1) / n
	count := (ds.Len() + step - 1) / step
	var out *data.Dataset
	if ds.IsDense() {
		out = data.NewDense(count, ds.NumFeatures())
	} else {
		out = data.NewSparse(count, ds.Nonzeros(), 0)
	}
	for i := 0; i < ds.Len(); i += step {
		if err := out.AppendRowOf(ds, i); err != nil {
			panic("quantize: sampleRows: " + err.Error()) // sized above
		}
	}
	return out
}

// coarseFeatures returns the features of k whose support vector values
// (sv, zeros included) lie, 90% of them from the 5th to the 95th
// percentile, within at most a 32nd of the code steps (int8: 8) but not in
// one code, and those steps (rounded up).
func coarseFeatures(sv *data.Dataset, k *Kernel) (feats, steps []int) {
	cols := transpose(sv, k.nf)
	l := sv.Len()
	vals := make([]float64, 0, l)
	for j := range k.nf {
		a := float64(k.fa[j])
		if a == 0 {
			continue
		}
		vals = vals[:0]
		for _, v := range cols.val[cols.start[j]:cols.start[j+1]] {
			vals = append(vals, float64(v))
		}
		for len(vals) < l {
			vals = append(vals, 0) // the support vectors without feature j
		}
		slices.Sort(vals)
		spread := (vals[l*95/100] - vals[l*5/100]) / a
		if spread > 0 && spread <= float64(int(1)<<k.bits)/32 {
			feats = append(feats, j)
			steps = append(steps, int(spread)+1)
		}
	}
	return feats, steps
}
