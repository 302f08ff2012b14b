package data

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Instance weights. A row's weight w_i multiplies its cost in every
// trainer: C_i = C · (class weight) · w_i, as in LIBSVM's instance-weight
// branch ("libsvm-weights", the LIBSVM tools page) and scikit-learn's
// sample_weight. A weight of 2 trains as the row given twice: the dual's
// box [0, C_i] of the merged row is the sum of the two boxes, and every
// loss term of the primal is the sum of the two. One-class SVM has no C;
// there, as in libsvm-weights, the weight is the row's upper bound
// (0 ≤ α_i ≤ w_i, Σ α_i = ν Σ w_i).
//
// Weights are positive and finite. A row of weight 0 would contribute
// nothing, but would pin its dual variable to a box of zero width, which
// the solvers' stopping tests do not expect: drop such a row instead.
//
// A data set stores no weights (Weights returns nil) until one row is
// given a weight other than 1; then it allocates one float64 per row of
// capacity, once. Rows appended later weigh 1.

// ErrBadWeight is wrapped by the errors for a weight that is not positive
// and finite, and by ReadWeights' errors for a bad weight file.
var ErrBadWeight = errors.New("core: bad instance weight")

// Weight returns row i's instance weight (1 unless SetWeight changed it).
func (d *Dataset) Weight(i int) float64 {
	_ = d.y[:d.rows][i]
	if d.weight == nil {
		return 1
	}
	return d.weight[i]
}

// Weights returns the instance weights of the stored rows, or nil when
// every row weighs 1 and none was ever set otherwise. The slice aliases
// the data set's storage and is valid until the next Append, SetWeight,
// Truncate, Reset or DeleteRows.
func (d *Dataset) Weights() []float64 {
	if d.weight == nil {
		return nil
	}
	return d.weight[:d.rows]
}

// SetWeight sets row i's instance weight. It returns an error wrapping
// ErrBadWeight, and changes nothing, when w is not positive and finite.
// The first weight other than 1 allocates the weights of the whole row
// capacity. It panics if i is not a stored row.
func (d *Dataset) SetWeight(i int, w float64) error {
	_ = d.y[:d.rows][i]
	if err := checkWeight(w); err != nil {
		return err
	}
	if d.weight == nil {
		if w == 1 {
			return nil
		}
		d.weight = make([]float64, len(d.y))
		for k := range d.rows {
			d.weight[k] = 1
		}
	}
	d.weight[i] = w
	d.rehash(i)
	return nil
}

// SetWeights sets the weights of rows 0..len(w)−1 from w, as SetWeight
// does one row; on an error (naming the 1-based row) the rows before it
// are set. It panics if len(w) > Len.
func (d *Dataset) SetWeights(w []float64) error {
	if len(w) > d.rows {
		panic("core: SetWeights: more weights than rows")
	}
	for i, v := range w {
		if err := d.SetWeight(i, v); err != nil {
			return fmt.Errorf("row %d: %w", i+1, err)
		}
	}
	return nil
}

// checkWeight returns an error wrapping ErrBadWeight unless w is positive
// and finite.
func checkWeight(w float64) error {
	if !(w > 0) || math.IsInf(w, 1) {
		return fmt.Errorf("%w: %v (weights must be positive and finite)", ErrBadWeight, w)
	}
	return nil
}

// appended counts the row just written at d.rows, with weight 1 and,
// when d keeps them, its hash (KeepRowHashes).
func (d *Dataset) appended() {
	if d.weight != nil {
		d.weight[d.rows] = 1
	}
	d.rows++
	d.rehash(d.rows - 1)
}

// ReadWeightFile reads the instance weights of LIBSVM's instance-weight
// branch (libsvm-weights, svm-train -W file): one weight per line, the
// weight of the data file's row on the same line number, as a decimal
// number. Blank lines are skipped; a line with anything else than one
// positive finite number is a *ParseError naming the file and line,
// wrapping ErrBadWeight.
func ReadWeightFile(path string) ([]float64, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadWeights(f, path)
}

// ReadWeights is ReadWeightFile on r; name is used in errors.
func ReadWeights(r io.Reader, name string) ([]float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), DefaultMaxLineBytes)
	var w []float64
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("weight %q is not a number", s), Err: ErrBadWeight}
		}
		if err := checkWeight(v); err != nil {
			return nil, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("weight %s is not positive and finite", s), Err: ErrBadWeight}
		}
		w = append(w, v)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &ParseError{File: name, Line: line + 1, Msg: "line too long", Err: ErrLineTooLong}
		}
		return nil, fmt.Errorf("core: reading %s: %w", name, err)
	}
	return w, nil
}

// ApplyWeightFile reads the weight file at path (ReadWeightFile) and sets
// ds's weights from it. The file must have exactly one weight per row of
// ds: a count mismatch is an error naming both counts and wrapping
// ErrBadWeight.
func ApplyWeightFile(ds *Dataset, path string) error {
	w, err := ReadWeightFile(path)
	if err != nil {
		return err
	}
	if len(w) != ds.Len() {
		return fmt.Errorf("%w: %s has %d weights for %d rows", ErrBadWeight, path, len(w), ds.Len())
	}
	return ds.SetWeights(w)
}
