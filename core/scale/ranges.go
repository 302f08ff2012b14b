package scale

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
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
// Min and Max of different lengths.
var ErrRanges = errors.New("scale: invalid ranges")

// Validate checks r as a scaler: finite values, Lower < Upper, Min[j] ≤
// Max[j] and len(Min) == len(Max). Errors wrap ErrRanges.
func (r *Ranges) Validate() error {
	if !finite(r.Lower) || !finite(r.Upper) || !(r.Lower < r.Upper) {
		return fmt.Errorf("%w: interval [%v, %v], want finite lower < upper", ErrRanges, r.Lower, r.Upper)
	}
	if len(r.Min) != len(r.Max) {
		return fmt.Errorf("%w: %d minima and %d maxima", ErrRanges, len(r.Min), len(r.Max))
	}
	for j := range r.Min {
		if !finite(r.Min[j]) || !finite(r.Max[j]) || r.Min[j] > r.Max[j] {
			return fmt.Errorf("%w: feature %d: range [%v, %v]", ErrRanges, j+1, r.Min[j], r.Max[j])
		}
	}
	if y := r.Y; y != nil {
		if !finite(y.Lower) || !finite(y.Upper) || !(y.Lower < y.Upper) || !finite(y.Min) || !finite(y.Max) || y.Min > y.Max {
			return fmt.Errorf("%w: y scaling [%v, %v] from [%v, %v]", ErrRanges, y.Lower, y.Upper, y.Min, y.Max)
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// NumFeatures returns the number of features the range knows, len(Min).
func (r *Ranges) NumFeatures() int { return len(r.Min) }

// Dropped reports whether feature j (0-based) scales to 0: constant on the
// rows the range was fitted on, or past NumFeatures.
func (r *Ranges) Dropped(j int) bool { return j >= len(r.Min) || r.Min[j] == r.Max[j] }

// Value returns feature j's (0-based) scaled value of v by svm-scale's
// formula, 0 for a dropped feature.
func (r *Ranges) Value(j int, v float64) float64 {
	if r.Dropped(j) {
		return 0
	}
	return affineValue(r.Lower, r.Upper, r.Min[j], r.Max[j], v)
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
	if r.Dropped(j) {
		return 0, 0
	}
	factor = (r.Upper - r.Lower) / (r.Max[j] - r.Min[j])
	return factor, r.Lower - factor*r.Min[j]
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
	for j := range r.Min {
		if r.Min[j] == r.Max[j] {
			continue
		}
		b = strconv.AppendInt(b, int64(j+1), 10)
		b = append(b, ' ')
		b = appendG17(b, r.Min[j])
		b = append(b, ' ')
		b = appendG17(b, r.Max[j])
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

// maxRangeIndex bounds the feature indices of a range file (64M features,
// 1 GiB of ranges), so a damaged index cannot make a reader allocate
// without bound.
const maxRangeIndex = 1 << 26

// ReadRanges reads a range file as svm-scale's -s writes it (and -r reads
// it). Features the file does not list are dropped. name is used in
// errors, which give the line and what was wrong. A file is refused when
// it has no "x" section, a malformed or non-increasing feature line, or
// values that Validate refuses.
func ReadRanges(rd io.Reader, name string) (*Ranges, error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
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
	r := &Ranges{}
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
		if err != nil || idx < 1 || idx > maxRangeIndex {
			return nil, bad("feature index %q is not in 1..%d", f[0], maxRangeIndex)
		}
		if int(idx) <= len(r.Min) {
			return nil, bad("feature index %d after %d: indices must increase", idx, len(r.Min))
		}
		lo, hi, err := two(f[1] + " " + f[2])
		if err != nil {
			return nil, err
		}
		// The features the file skips are dropped (0, 0): one grow of
		// the slices, not one append each (a line "22222220 0 0" took
		// seconds that way; found by FuzzReadRanges).
		gap := int(idx) - 1 - len(r.Min)
		r.Min = append(append(r.Min, make([]float64, gap)...), lo)
		r.Max = append(append(r.Max, make([]float64, gap)...), hi)
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
func (r *Ranges) Widen(n int) *Ranges {
	if n <= len(r.Min) {
		return r
	}
	w := *r
	w.Min = append(append(make([]float64, 0, n), r.Min...), make([]float64, n-len(r.Min))...)
	w.Max = append(append(make([]float64, 0, n), r.Max...), make([]float64, n-len(r.Max))...)
	return &w
}
