package data

import (
	"slices"

	"github.com/libsvmgo/libsvmgo/core/simd"
)

// featuresAVX512 parses LIBSVM features from line[i:] (line holds n bytes)
// while they take a form narrower than parseFeatures': index of 1 to 7
// digits above prev and at most limit, ':', [-]digits[.digits] with 1 to 16
// digits, a blank, in at most 24 bytes, with 32 bytes of the line left and
// at least 16 before the token (it loads the 16 bytes that end at the
// index's and at the value's last digit). It writes each value to
// row[index-1] when row is not nil, and otherwise index-1 and the value to
// index[count] and value[count] while count < outCap. It returns where it
// stopped, the last index taken and how many it took. pow is
// &inversePow10[0]. Values are float32Prefix's, bit for bit
// (features_amd64.s).
//
//go:noescape
func featuresAVX512(line *byte, n, i int, prev, limit int64, row *float32, index *int32, value *float32, outCap int, pow *float64) (next int, last int64, count int)

// vectorFeatures reports whether this machine runs featuresAVX512.
func vectorFeatures() bool { return simd.HasAVX512BMI() }

// parseFeaturesVector is parseFeatures' loop for as long as featuresAVX512
// takes the features; parseFeatures goes on from where it stopped.
func (p *lineParser) parseFeaturesVector(line []byte, i int, prev, limit int64) (int, int64) {
	if i < 16 || (p.row != nil && len(p.row) == 0) {
		return i, prev // the line's first features, or a row of none: parseFeatures takes them
	}
	if p.row != nil {
		next, last, n := featuresAVX512(&line[0], len(line), i, prev, min(limit, int64(len(p.row))),
			&p.row[0], nil, nil, 0, &inversePow10[0])
		p.direct += n
		return next, last
	}
	// A feature takes 4 bytes at least ("1:1 "): room for every one left.
	k := len(p.index)
	p.index = slices.Grow(p.index, (len(line)-i)/4+1)
	p.value = slices.Grow(p.value, (len(line)-i)/4+1)
	room := min(cap(p.index), cap(p.value)) - k
	next, last, n := featuresAVX512(&line[0], len(line), i, prev, limit,
		nil, &p.index[:k+1][k], &p.value[:k+1][k], room, &inversePow10[0])
	p.index, p.value = p.index[:k+n], p.value[:k+n]
	return next, last
}
