package core

import "sync"

// Kernel columns on more than one core. One subproblem (binary C-SVC,
// ε-SVR, one-class, or the last pair of a one-vs-one run) is a sequence of
// SMO iterations, each needing a column or two of Q; the iterations cannot
// overlap, but a column's entries are independent. So a Train starts
// GOMAXPROCS−1 helper goroutines for its duration, and a matrix whose
// column is long enough hands half of it to a helper that is idle (waiting
// on the pool's channel), computes the other half and waits for the
// helper. A helper busy elsewhere (another pair's solver holds every core)
// is not waited for: the column is computed whole. Each entry is computed
// as alone, so the columns, and the solution, do not depend on the split.
//
// The gradient update and the working-set scans were tried the same way:
// at these sizes (≤ 50,000 variables, a few µs a scan) the hand-off costs
// as much as it saves.

// columnWorkMin is the least work, in row·feature units (a column's length
// times the features plus a constant for exp and bookkeeping), worth
// splitting: a hand-off costs a few µs, about 2¹⁷ such units.
const columnWorkMin = 1 << 17

// columnJob is half a column handed to a helper.
type columnJob struct {
	dst  []float32
	i    int
	rows []int32
	done chan struct{} // the helper sends once the entries are written
}

// columnPool is the helpers of one Train call. A nil pool computes every
// column on the calling goroutine.
type columnPool struct {
	jobs chan *columnJob
	wg   sync.WaitGroup
}

// startColumnPool starts one helper per kernelRows of helpers (each owns
// its scratch; their data set and kernel must be the trainer's for this
// run) and returns the pool, or nil for no helpers.
func startColumnPool(helpers []*kernelRows) *columnPool {
	if len(helpers) == 0 {
		return nil
	}
	p := &columnPool{jobs: make(chan *columnJob)}
	for _, kr := range helpers {
		p.wg.Go(func() {
			for job := range p.jobs {
				kr.column(job.dst, job.i, job.rows)
				job.done <- struct{}{}
			}
		})
	}
	return p
}

// stop ends the helpers and waits for them.
func (p *columnPool) stop() {
	if p == nil {
		return
	}
	close(p.jobs)
	p.wg.Wait()
}

// columnSplitter computes kernel columns for one solver, with a pool's
// help when a helper is idle. The zero value (no pool) computes alone.
type columnSplitter struct {
	pool *columnPool
	job  columnJob // reused: one column at a time per solver
}

// column is kr.column(dst, i, rows), split with an idle helper when the
// column is long enough. It allocates nothing.
func (c *columnSplitter) column(kr *kernelRows, dst []float32, i int, rows []int32) {
	n := len(rows)
	if p := c.pool; p != nil && n >= 64 && n*(kr.ds.NumFeatures()+16) >= columnWorkMin {
		h := n / 2
		job := &c.job
		if job.done == nil {
			job.done = make(chan struct{}, 1)
		}
		job.dst, job.i, job.rows = dst[h:n], i, rows[h:]
		select {
		case p.jobs <- job:
			kr.column(dst[:h], i, rows[:h])
			<-job.done
			job.dst, job.rows = nil, nil
			return
		default: // no helper idle
		}
	}
	kr.column(dst, i, rows)
}
