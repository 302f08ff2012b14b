package linear

import "github.com/libsvmgo/libsvmgo/core/data"

// columns is a column (CSC) view of a data set, for the solvers that
// update one feature at a time (-s 5 and -s 6, coordinate descent over w):
// column j lists the rows where feature j is nonzero, in increasing row
// order, with their values. With a bias (bias >= 0) column n is the bias
// pseudo-feature, every row holding the bias value, as LIBLINEAR appends
// it to each row before transposing.
//
// It is built once per training call from the rows, and its buffers are
// kept for the next call when they are large enough, so a trainer that
// retrains as rows arrive grows them rarely; the coordinate iterations
// then read it without allocating.
type columns struct {
	cols  int     // feature columns, plus one with a bias
	start []int   // column j is [start[j], start[j+1]); len ≥ cols+1
	index []int32 // row of each entry
	value []float32
}

// ColumnViewBytes returns the memory, in bytes, of the column view that
// the L1-regularized solvers (-s 5, -s 6) build of a data set with rows
// rows, numFeatures features and nonzeros stored nonzero entries (zeros of
// a dense data set are not stored), with a bias pseudo-feature when
// bias >= 0: 8 bytes an entry (int32 row, float32 value) and 8 a column.
// It is what LinearTrainer allocates at the start of a training call on
// top of LinearTrainerBytes, and keeps for the next call.
func ColumnViewBytes(rows, numFeatures, nonzeros int, bias float64) int {
	cols := numFeatures
	if bias >= 0 {
		cols++
		nonzeros += rows
	}
	return 8*nonzeros + 8*(cols+1)
}

// Bytes returns the memory the view holds.
func (c *columns) Bytes() int { return 8*len(c.start) + 4*len(c.index) + 4*len(c.value) }

// col returns column j's rows and values, as views of equal length.
func (c *columns) col(j int) ([]int32, []float32) {
	s, e := c.start[j], c.start[j+1]
	return c.index[s:e:e], c.value[s:e:e]
}

// build fills the view with ds's columns (and the bias column when
// bias >= 0), growing its buffers only when they are too small.
func (c *columns) build(ds *data.Dataset, bias float64) {
	l, n := ds.Len(), ds.NumFeatures()
	cols := n
	if bias >= 0 {
		cols++
	}
	c.cols = cols
	if len(c.start) < cols+1 {
		c.start = make([]int, cols+1)
	}
	start := c.start[:cols+1]
	clear(start)
	// Count each column's entries into start[j+1], then prefix-sum.
	for i := range l {
		if ds.IsDense() {
			for j, v := range ds.DenseRow(i) {
				if v != 0 {
					start[j+1]++
				}
			}
		} else {
			idx, _ := ds.SparseRow(i)
			for _, j := range idx {
				start[j+1]++
			}
		}
	}
	if bias >= 0 {
		start[n+1] = l
	}
	for j := 1; j <= cols; j++ {
		start[j] += start[j-1]
	}
	nnz := start[cols]
	if len(c.index) < nnz {
		c.index = make([]int32, nnz)
		c.value = make([]float32, nnz)
	}
	// Fill row by row, so each column's rows come out increasing; start[j]
	// serves as column j's cursor and is shifted back afterwards.
	for i := range l {
		if ds.IsDense() {
			for j, v := range ds.DenseRow(i) {
				if v != 0 {
					p := start[j]
					c.index[p], c.value[p] = int32(i), v
					start[j]++
				}
			}
		} else {
			idx, val := ds.SparseRow(i)
			for k, j := range idx {
				p := start[j]
				c.index[p], c.value[p] = int32(i), val[k]
				start[j]++
			}
		}
		if bias >= 0 {
			p := start[n]
			c.index[p], c.value[p] = int32(i), float32(bias)
			start[n]++
		}
	}
	copy(start[1:], start[:cols])
	start[0] = 0
}
