package scale

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Ranges is a fitted scaling: the target interval, each feature's input
// range, and optionally the target's (svm-scale's -y).
type Ranges struct {
	// Lower and Upper are the interval features are scaled to; Lower <
	// Upper.
	Lower, Upper float64
	// Min and Max hold feature j's input range at index j (feature j+1 of
	// a LIBSVM file); equal lengths, the number of features the range
	// knows. Min[j] == Max[j] drops feature j (it scales to 0).
	Min, Max []float64
	// Index, when not nil, makes the ranges sparse: Min[k] and Max[k] are
	// then the range of feature Index[k] (0-based, strictly increasing),
	// and the features Index does not list are dropped. The text path
	// (Scan, ReadRanges, Write) keeps its ranges sparse, so that a file
	// with the feature index 2³¹−1 costs what its features cost, not 32
	// GiB; models keep dense ranges (one per feature) and refuse sparse
	// ones.
	Index []int32
	// Y is the target's scaling (svm-scale's -y), nil for none. Models
	// never carry one.
	Y *YRange
}

// YRange is the scaling of the targets (labels): [Min, Max] onto [Lower,
// Upper], by the formula the features use.
type YRange struct {
	Lower, Upper, Min, Max float64
}

// ErrRanges reports Ranges that cannot scale: a target interval that is
// not Lower < Upper, non-finite bounds, a feature range with Min > Max, or
// Min and Max of different lengths, a sparse Index out of order, or a
// range that cannot scale finitely (Scalable).
var ErrRanges = errors.New("scale: invalid ranges")

// MaxLimit bounds |Lower| and |Upper|: scaled features are float32 in
// the models, so an interval past float32's range scales every row to
// infinity.
const MaxLimit = math.MaxFloat32

// Validate checks r as a scaler: finite values, Lower < Upper within
// ±MaxLimit, Min[j] ≤ Max[j], every range Scalable, len(Min) == len(Max)
// and, for sparse ranges, as many indices, increasing. Errors wrap
// ErrRanges.
func (r *Ranges) Validate() error {
	if err := checkInterval("", r.Lower, r.Upper); err != nil {
		return err
	}
	if len(r.Min) != len(r.Max) {
		return fmt.Errorf("%w: %d minima and %d maxima", ErrRanges, len(r.Min), len(r.Max))
	}
	if r.Index != nil {
		if len(r.Index) != len(r.Min) {
			return fmt.Errorf("%w: %d indices for %d ranges", ErrRanges, len(r.Index), len(r.Min))
		}
		for k, j := range r.Index {
			if j < 0 || (k > 0 && j <= r.Index[k-1]) {
				return fmt.Errorf("%w: feature index %d at position %d: indices must increase from 0", ErrRanges, j, k)
			}
		}
	}
	for k := range r.Min {
		if !Scalable(r.Lower, r.Upper, r.Min[k], r.Max[k]) {
			return fmt.Errorf("%w: feature %d: range [%v, %v] cannot scale onto [%v, %v] in float32",
				ErrRanges, r.feature(k)+1, r.Min[k], r.Max[k], r.Lower, r.Upper)
		}
	}
	if y := r.Y; y != nil {
		if err := checkInterval("y ", y.Lower, y.Upper); err != nil {
			return err
		}
		if !finite(y.Min) || !finite(y.Max) || y.Min > y.Max || !finite(y.Max-y.Min) {
			return fmt.Errorf("%w: y scaling [%v, %v] from [%v, %v]", ErrRanges, y.Lower, y.Upper, y.Min, y.Max)
		}
	}
	return nil
}

// checkInterval checks a target interval: finite lower < upper within
// ±MaxLimit.
func checkInterval(what string, lower, upper float64) error {
	if !(lower < upper) || !(math.Abs(lower) <= MaxLimit) || !(math.Abs(upper) <= MaxLimit) {
		return fmt.Errorf("%w: %sinterval [%v, %v], want lower < upper within ±%v", ErrRanges, what, lower, upper, float32(MaxLimit))
	}
	return nil
}

// Scalable reports whether a feature range [min, max] (finite, min ≤ max)
// maps onto [lower, upper] with finite numbers: a dropped range (min ==
// max) always does; otherwise the width max − min must be finite and the
// factor (upper − lower)/(max − min) and the scaled value of either end
// of the range at most MaxLimit, so that a row inside the range scales
// into float32. A range one denormal or 10⁻³⁰⁰ wide (a factor past 10³⁰⁰)
// or −10³⁰⁸..10³⁰⁸ (an infinite width) is not: a model carrying it turned
// every row into infinities.
func Scalable(lower, upper, min, max float64) bool {
	if !finite(min) || !finite(max) || min > max {
		return false
	}
	if min == max {
		return true
	}
	factor := (upper - lower) / (max - min)
	return finite(max-min) && factor <= MaxLimit && math.Abs(factor*min) <= MaxLimit && math.Abs(factor*max) <= MaxLimit
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// NumFeatures returns the number of features the range knows: len(Min),
// or for sparse ranges 1 + the largest index.
func (r *Ranges) NumFeatures() int {
	if r.Index == nil {
		return len(r.Min)
	}
	if len(r.Index) == 0 {
		return 0
	}
	return int(r.Index[len(r.Index)-1]) + 1
}

// feature returns the feature (0-based) of position k of Min and Max.
func (r *Ranges) feature(k int) int {
	if r.Index == nil {
		return k
	}
	return int(r.Index[k])
}

// position returns the position of feature j in Min and Max, or false
// when the ranges do not list it.
func (r *Ranges) position(j int) (int, bool) {
	if r.Index == nil {
		return j, j >= 0 && j < len(r.Min)
	}
	k, ok := slices.BinarySearch(r.Index, int32(min(j, math.MaxInt32)))
	return k, ok && j <= math.MaxInt32
}

// Dropped reports whether feature j (0-based) scales to 0: constant on the
// rows the range was fitted on, or not known to the range.
func (r *Ranges) Dropped(j int) bool {
	k, ok := r.position(j)
	return !ok || r.Min[k] == r.Max[k]
}

// Value returns feature j's (0-based) scaled value of v by svm-scale's
// formula, 0 for a dropped feature.
func (r *Ranges) Value(j int, v float64) float64 {
	k, ok := r.position(j)
	if !ok || r.Min[k] == r.Max[k] {
		return 0
	}
	return affineValue(r.Lower, r.Upper, r.Min[k], r.Max[k], v)
}

// Target returns the scaled target of y, y itself without y scaling.
func (r *Ranges) Target(y float64) float64 {
	if r.Y == nil {
		return y
	}
	return affineValue(r.Y.Lower, r.Y.Upper, r.Y.Min, r.Y.Max, y)
}

// affineValue is svm-scale's output(): the endpoints exactly, otherwise
// lower + (upper−lower)·(v−min)/(max−min) in that order of operations, so
// that the doubles match svm-scale's bit for bit.
func affineValue(lower, upper, min, max, v float64) float64 {
	switch v {
	case min:
		return lower
	case max:
		return upper
	}
	return lower + (upper-lower)*(v-min)/(max-min)
}

// Affine returns feature j's map as x' = Offset + Factor·x: Factor =
// (Upper−Lower)/(Max−Min), Offset = Lower − Factor·Min; both 0 for a
// dropped feature. It differs from Value by rounding only (a few ulps of
// float64); the models use it because it fuses into a dot product.
func (r *Ranges) Affine(j int) (factor, offset float64) {
	k, ok := r.position(j)
	if !ok || r.Min[k] == r.Max[k] {
		return 0, 0
	}
	factor = (r.Upper - r.Lower) / (r.Max[k] - r.Min[k])
	return factor, r.Lower - factor*r.Min[k]
}

// WriteTo writes r as svm-scale's range file (its -s output): an optional
// "y" section (y_lower y_upper, then y_min y_max), then "x", the interval,
// and one "index min max" line per feature that is not dropped, numbers
// as C's %.17g.
func (r *Ranges) WriteTo(w io.Writer) (int64, error) {
	var b []byte
	if y := r.Y; y != nil {
		b = append(b, "y\n"...)
		b = appendG17(b, y.Lower)
		b = append(b, ' ')
		b = appendG17(b, y.Upper)
		b = append(b, '\n')
		b = appendG17(b, y.Min)
		b = append(b, ' ')
		b = appendG17(b, y.Max)
		b = append(b, '\n')
	}
	b = append(b, "x\n"...)
	b = appendG17(b, r.Lower)
	b = append(b, ' ')
	b = appendG17(b, r.Upper)
	b = append(b, '\n')
	for k := range r.Min {
		if r.Min[k] == r.Max[k] {
			continue
		}
		b = strconv.AppendInt(b, int64(r.feature(k)+1), 10)
		b = append(b, ' ')
		b = appendG17(b, r.Min[k])
		b = append(b, ' ')
		b = appendG17(b, r.Max[k])
		b = append(b, '\n')
	}
	n, err := w.Write(b)
	return int64(n), err
}

// appendG17 appends v as C's printf("%.17g"): strconv's 'g' with a
// precision is C's %g (same exponent switch, trailing zeros removed,
// two-digit exponents), and both round the exact binary value correctly.
func appendG17(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'g', 17, 64) }

// appendG appends v as C's printf("%g") (6 significant digits).
func appendG(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'g', 6, 64) }

// ReadRanges reads a range file as svm-scale's -s writes it (and -r reads
// it) into sparse ranges (Index set): features the file does not list are
// dropped, and memory follows the lines listed, whatever their indices.
// name is used in errors, which give the line and what was wrong. A file
// is refused when it has no "x" section, a line longer than MaxLineBytes,
// a malformed or non-increasing feature line, or values that Validate
// refuses.
func ReadRanges(rd io.Reader, name string) (*Ranges, error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	lineNo := 0
	next := func() (string, bool) {
		for sc.Scan() {
			lineNo++
			if s := strings.TrimSpace(sc.Text()); s != "" {
				return s, true
			}
		}
		return "", false
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, lineNo, fmt.Sprintf(format, a...))
	}
	two := func(s string) (a, b float64, err error) {
		f := strings.Fields(s)
		if len(f) != 2 {
			return 0, 0, bad("want two numbers, got %q", s)
		}
		if a, err = strconv.ParseFloat(f[0], 64); err != nil {
			return 0, 0, bad("%q is not a number", f[0])
		}
		if b, err = strconv.ParseFloat(f[1], 64); err != nil {
			return 0, 0, bad("%q is not a number", f[1])
		}
		return a, b, nil
	}
	r := &Ranges{Index: []int32{}}
	s, ok := next()
	if ok && s == "y" {
		y := &YRange{}
		var err error
		if s, ok = next(); !ok {
			return nil, bad("y section without its limits")
		}
		if y.Lower, y.Upper, err = two(s); err != nil {
			return nil, err
		}
		if s, ok = next(); !ok {
			return nil, bad("y section without its range")
		}
		if y.Min, y.Max, err = two(s); err != nil {
			return nil, err
		}
		r.Y = y
		s, ok = next()
	}
	if !ok || s != "x" {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, bad("want the line \"x\" that starts the feature ranges")
	}
	if s, ok = next(); !ok {
		return nil, bad("x section without its limits")
	}
	var err error
	if r.Lower, r.Upper, err = two(s); err != nil {
		return nil, err
	}
	for {
		if s, ok = next(); !ok {
			break
		}
		f := strings.Fields(s)
		if len(f) != 3 {
			return nil, bad("want \"index min max\", got %q", s)
		}
		idx, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || idx < 1 || idx > math.MaxInt32 {
			return nil, bad("feature index %q is not in 1..%d", f[0], math.MaxInt32)
		}
		if n := len(r.Index); n > 0 && int32(idx-1) <= r.Index[n-1] {
			return nil, bad("feature index %d after %d: indices must increase", idx, r.Index[n-1]+1)
		}
		lo, hi, err := two(f[1] + " " + f[2])
		if err != nil {
			return nil, err
		}
		r.Index, r.Min, r.Max = append(r.Index, int32(idx-1)), append(r.Min, lo), append(r.Max, hi)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// Widen returns r for n ≥ NumFeatures() features: a copy whose features
// past r's are dropped (they scale to 0, as svm-scale scales a feature its
// range file does not list). It returns r itself when n ≤ NumFeatures().
// It panics for sparse ranges (Index set), which models do not carry.
func (r *Ranges) Widen(n int) *Ranges {
	if r.Index != nil {
		panic("scale: Widen of sparse ranges")
	}
	if n <= len(r.Min) {
		return r
	}
	w := *r
	w.Min = append(append(make([]float64, 0, n), r.Min...), make([]float64, n-len(r.Min))...)
	w.Max = append(append(make([]float64, 0, n), r.Max...), make([]float64, n-len(r.Max))...)
	return &w
}
