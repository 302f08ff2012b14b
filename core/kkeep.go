package core

// Kernel columns kept from one warm Train to the next.
//
// A warm retrain after a small batch changes the α of a pair's support
// vectors a little and takes a few dozen iterations; each changed α and
// each working-set variable needs its column of Q over the pair's rows,
// and the solver's cache starts empty every Train. Those columns are
// almost all the warm run's kernel work (on digits, 0.15 of a cold run's
// after 1% of the rows were replaced), and the next retrain needs the
// same ones again. So a KernelTrainer with KernelParams.KeepMB > 0 keeps,
// after each warm Train, the kernel column K(x_j, ·) over all rows of
// every support vector j it can fit in that budget, and the next Train's
// matrices read their columns' entries for the rows both runs share from
// there, computing only the entries of rows added since (svcQ.getQ). The
// values are the kernels' own, bit for bit, so a run reads the same Q
// with or without them.
//
// Rows are matched between runs by their hashes (hashRow): the rows a
// run keeps from the last are those of the last run less the removed
// ones, in the same order, then the appended ones; a row whose hash is
// not found in order starts a new column part. ε-SVR's matrix does not
// read them.

import (
	"github.com/libsvmgo/libsvmgo/core/data"
)

// keptColumns holds the kernel columns of the last warm Train's support
// vectors and, during a Train, where the current rows are in them.
type keptColumns struct {
	// budget is KeepMB in bytes.
	budget int64
	// hash holds hashRow of the rows of the run the columns were made
	// in: their layout.
	hash []uint64
	// of maps a row of that layout to its column, nil for none.
	of [][]float32
	// oldOf maps each row of the current Train's data set to its row in
	// the layout, −1 for a row the layout lacks; cur maps it to its
	// column, nil for none. Both are read only while the pairs are
	// solved.
	oldOf []int32
	cur   [][]float32
	// bytes is what the columns take.
	bytes int64
	// rows and buf hold the rows and values of the entries end computes;
	// all lists every row, for a column made whole.
	rows, all []int32
	buf       []float32
}

// keptColumnsBytes returns the bytes keptColumns may take for a trainer
// of capRows rows with a budget of budget bytes: the columns, at most
// budget, and the per-row maps.
func keptColumnsBytes(capRows int, budget int64) int64 {
	if budget <= 0 {
		return 0
	}
	return budget + int64(capRows)*(4+8+24+24+4+4+4) // columns; oldOf, hash, cur, of, rows, all, buf
}

// begin maps the rows of ds (hashes rowHash, the first l) to the kept
// layout, for rows below covered only (the rows a warm gradient covers;
// rows past it were appended since), and reports whether any kept column
// can serve this Train.
func (c *keptColumns) begin(rowHash []uint64, l, covered int) bool {
	c.oldOf, c.cur = c.oldOf[:0], c.cur[:0]
	if c.of == nil {
		return false
	}
	p, n0 := 0, len(c.hash)
	useful := false
	for i := range l {
		o := int32(-1)
		if i < covered {
			for p < n0 && c.hash[p] != rowHash[i] {
				p++
			}
			if p < n0 {
				o = int32(p)
				p++
			}
		}
		c.oldOf = append(c.oldOf, o)
		var col []float32
		if o >= 0 {
			col = c.of[o]
			useful = useful || col != nil
		}
		c.cur = append(c.cur, col)
	}
	return useful
}

// end replaces the kept columns by those of the support vectors of the
// Train that just ran on ds (sv reports whether a row is one), as many as
// fit in the budget, in data order, in the layout of ds (hashes rowHash);
// a column kept before gives its entries for the rows both layouts share,
// kr computes the others. It returns the kernel evaluations made.
//
// A column kept again is compacted in place: the rows a run keeps are in
// the last run's order, so each entry moves towards the front, in runs
// (removing the oldest rows shifts one run), by memmove. The slices of
// columns not kept again are reused for new ones.
func (c *keptColumns) end(kr *kernelRows, ds *data.Dataset, rowHash []uint64, sv func(i int) bool) int64 {
	l := ds.Len()
	if cap(c.rows) < l {
		c.rows, c.all, c.buf = make([]int32, 0, l), make([]int32, 0, l), make([]float32, l)
	}
	maxCols := c.budget / (4 * int64(max(l, 1)))
	// Runs of rows kept from the last layout: rows [t, t+n) were at
	// [o, o+n) there.
	type run struct{ t, o, n int }
	var runs []run
	for t := 0; t < len(c.oldOf); t++ {
		if o := int(c.oldOf[t]); o >= 0 {
			if k := len(runs) - 1; k >= 0 && runs[k].t+runs[k].n == t && runs[k].o+runs[k].n == o {
				runs[k].n++
			} else {
				runs = append(runs, run{t, o, 1})
			}
		}
	}
	keep := make([]bool, len(c.of)) // old columns taken again
	var taken int64
	for j := 0; j < min(l, len(c.cur)) && taken < maxCols; j++ {
		if sv(j) && c.cur[j] != nil {
			keep[c.oldOf[j]] = true
			taken++
		}
	}
	var free [][]float32
	for o, col := range c.of {
		if col != nil && !keep[o] {
			free = append(free, col)
		}
	}
	// The rows a kept column lacks are the same for every column: those
	// the last layout did not have. Listing them once, not per column,
	// took a pass over every row per support vector out of each retrain
	// (a third of a warm retrain's time on digits with -M).
	fresh := c.rows[:0]
	for t := range l {
		if t >= len(c.oldOf) || c.oldOf[t] < 0 {
			fresh = append(fresh, int32(t))
		}
	}
	c.rows = fresh
	all := c.all[:0]
	for t := range l {
		all = append(all, int32(t))
	}
	c.all = all
	of := make([][]float32, l)
	var evals int64
	var n int64
	for j := 0; j < l && n < maxCols; j++ {
		if !sv(j) {
			continue
		}
		var col []float32
		missing := all
		if j < len(c.cur) && c.cur[j] != nil {
			col = c.cur[j]
			for _, r := range runs {
				copy(col[r.t:r.t+r.n], col[r.o:r.o+r.n])
			}
			missing = fresh
		} else if k := len(free) - 1; k >= 0 {
			col, free = free[k], free[:k]
		}
		if cap(col) < l {
			grown := make([]float32, l, l+l/8)
			copy(grown, col[:min(len(col), l)])
			col = grown
		}
		col = col[:l]
		if len(missing) > 0 {
			buf := c.buf[:len(missing)]
			kr.column(buf, j, missing)
			for k, t := range missing {
				col[t] = buf[k]
			}
			evals += int64(len(missing))
		}
		of[j] = col
		n++
	}
	c.hash = append(c.hash[:0], rowHash[:l]...)
	c.of = of
	c.bytes = 4 * n * int64(l)
	c.oldOf, c.cur = c.oldOf[:0], c.cur[:0]
	return evals
}

// fill sets data[t] = K(x_{index[i]}, x_{index[t]}) for t in [have,
// length) from the kept column of variable i's row where it has the row,
// and reports whether it had a column; the entries it lacks are listed in
// missing (positions t), their rows in rows, for the caller to compute.
func (c *keptColumns) fill(data []float32, index []int32, i, have, length int, missing, rows []int32) (bool, []int32, []int32) {
	src := c.cur[index[i]]
	if src == nil {
		return false, missing, rows
	}
	missing, rows = missing[:0], rows[:0]
	for t := have; t < length; t++ {
		if o := c.oldOf[index[t]]; o >= 0 {
			data[t] = src[o]
		} else {
			missing = append(missing, int32(t))
			rows = append(rows, index[t])
		}
	}
	return true, missing, rows
}
