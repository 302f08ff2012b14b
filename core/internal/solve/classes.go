package solve

import (
	"fmt"

	"github.com/libsvmgo/libsvmgo/core/data"
)

// GroupClasses returns the class labels in LIBLINEAR's order: first
// appearance, except that a {−1, +1} problem puts +1 first so that the
// decision value is positive for the +1 class.
func GroupClasses(ds *data.Dataset) ([]int32, error) {
	return GroupLabels(ds.Labels())
}

// GroupLabels is GroupClasses for the labels y of a data set's rows.
func GroupLabels(y []float64) ([]int32, error) {
	if labels := twoClasses(y); labels != nil {
		return labels, nil
	}
	return groupLabels(y)
}

// twoClasses returns GroupLabels(y) when y holds exactly two classes, with
// one branch a row that is never taken (the product is 0 only at a or b:
// distinct integers, so one factor is at least ½ and the other a
// representable difference); else nil. groupLabels branches on whether a
// row's class is its predecessor's, a coin toss in a binary set, and every
// warm retrain groups every row again (5% of a debdesc_bin -s 2 retrain's
// CPU by pprof).
func twoClasses(y []float64) []int32 {
	if len(y) == 0 {
		return nil
	}
	a, b := y[0], y[0]
	for _, v := range y {
		if v != a {
			b = v
			break
		}
	}
	ia, ib := int32(a), int32(b)
	if a == b || float64(ia) != a || float64(ib) != b {
		return nil
	}
	for _, v := range y {
		if (v-a)*(v-b) != 0 { // NaN too
			return nil
		}
	}
	if ia == -1 && ib == 1 {
		return []int32{1, -1}
	}
	return []int32{ia, ib}
}

// groupLabels is GroupLabels over any number of classes.
func groupLabels(y []float64) ([]int32, error) {
	var labels []int32
	prev := int32(0) // the class of the row before (none before row 0)
	for i, v := range y {
		// float64(int32(v)) == v exactly when v is an integer within
		// int32 (data.IsClassLabel), without its call: every warm retrain
		// groups every row's label again.
		c := int32(v)
		if float64(c) != v {
			return nil, fmt.Errorf("%w: label %v of row %d is not an integer class", data.ErrLabels, v, i+1)
		}
		if c == prev && i > 0 {
			continue
		}
		prev = c
		seen := false
		for _, l := range labels {
			if l == c {
				seen = true
				break
			}
		}
		if !seen {
			labels = append(labels, c)
		}
	}
	if len(labels) < 2 {
		return nil, fmt.Errorf("%w: the training rows have a single class (%d)", data.ErrLabels, labels[0])
	}
	if len(labels) == 2 && labels[0] == -1 && labels[1] == 1 {
		labels[0], labels[1] = 1, -1
	}
	return labels, nil
}
