package core

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// Kernel columns on more than one core. One subproblem (binary C-SVC,
// ε-SVR, one-class, or the last pair of a one-vs-one run) is a sequence of
// SMO iterations, each needing a column or two of Q; the iterations cannot
// overlap, but a column's entries are independent. So a Train starts
// GOMAXPROCS−1 helper goroutines for its duration, and a matrix whose
// column is long enough offers it, in columnChunks chunks, to a helper
// that is idle. The solver then claims and computes chunks itself; the
// helper claims chunks once it runs. The solver waits for the helper only
// while the helper is computing a chunk it claimed: a helper that has not
// started by the time the solver has claimed the last chunk (its thread
// not yet scheduled, or the other core busy with another process) costs
// the solver one channel send and is never waited for. A helper busy
// elsewhere (another pair's solver holds every core) is not offered the
// column at all. Each entry is computed as alone, so the columns, and the
// solution, do not depend on the split.
//
// Both sides poll rather than sleep: an idle helper polls for the next
// offer for a while (solve.Receive) and the solver polls for the helper's
// last chunk, each yielding its P at every poll. An SMO iteration's columns
// come a few µs apart, and a sleeping helper's thread took tens of µs to
// wake on this 2-vCPU VM, as long as a 150 µs column's half saves: with a
// sleeping helper debdesc_bin's first 10,000 rows (6 nonzeros a row) took
// 1.034× the pinned wall on two cores (quiet machine, 2026-11-28, 0 of 5
// rounds ≤ 1); with polling, BenchmarkColumnSplitSparse's column of that
// shape takes 0.56 of its time alone (55 against 99 µs, 3 runs at load 14,
// autogroup nice −20). The price is CPU on the second core while a
// training offers columns, not on the first.
//
// Whether to offer at all is measured, not assumed from the size: each
// solver times its columns, offered and alone, and offers only while
// offering has been faster (offerChoice), so a second core that does not
// pay for its hand-off is left alone.
//
// Before this protocol a column was halved and the solver waited for the
// helper's half: on a 57-feature, 3,680-row binary RBF set a train took
// 1.3× the wall time on two cores that it took on one, because waking the
// helper's thread and waiting for it took as long as the half it saved
// (examples/bench/cores.sh).
//
// The gradient update and the working-set scans were tried the same way:
// at these sizes (≤ 50,000 variables, a few µs a scan) the hand-off costs
// as much as it saves.

// columnWorkMin is the least work, in row·feature units (a column's length
// times rowWork plus a constant for exp and bookkeeping), worth
// offering to a helper: a column must be long enough for the helper's
// chunks to pay for the hand-off and for the imbalance of the last one.
// 2^17: debdesc_bin's first 10,000 rows (10,000 × (6 + 16) = 220,000, a
// column of about 150 µs) offer theirs and take 0.76–0.86 of the pinned
// wall on two cores (C-SVC, one-class, ε-SVR: medians of 7 alternated
// rounds of cores.sh, load 10–14, autogroup nice −20); spamlike (3,680
// rows of 17 nonzeros, 121,440, about 70 µs) does not, as before, since
// offering measured no gain there (1.05–1.10, 5 rounds at load 14). It
// was 2^18 while helpers slept.
const columnWorkMin = 1 << 17

// worthOffering reports whether a column of n entries over ds's rows is
// long enough to offer to a helper (columnWorkMin). A data set none of
// whose columns is (n = ds.Len()) starts no helpers at all: a small set
// never pays for a second core.
func worthOffering(n int, ds *data.Dataset) bool {
	return longEnough(n, rowWork(ds))
}

// longEnough reports whether a column of n entries of work each (rowWork)
// is long enough to offer to a helper (columnWorkMin).
func longEnough(n, work int) bool {
	return n >= 64*columnChunks && n*(work+16) >= columnWorkMin
}

// BestOnOneP reports whether a batch program had best run TrainModel(ds,
// p) with Go's scheduler on one processor (runtime.GOMAXPROCS(1)), as
// svmgo train does: a kernel training of one subproblem (one-class, the
// SVRs, or a C-SVC or ν-SVC of two classes) without probability estimates
// (whose folds run in parallel), whose kernel columns are too short to
// offer to a helper (worthOffering), so that its solver is the one
// goroutine that runs, and whose whole kernel matrix costs at least
// onePWorkMin, so that it runs for more than a few scheduler ticks. A
// linear training is not judged here (solve.Lender decides by its
// nonzeros) and gives false.
//
// With a second, idle P the scheduler wakes an idle thread each time it
// preempts the solver (every 10 ms) and, as often as not, that thread
// takes the solver over on the other CPU: on a 57-feature, 3,680-row
// binary set (where the issue measured two cores at 1.10× the wall of one
// CPU on a quiet machine; its columns are too short to offer, see
// sparseEntryWork) perf found the solver's samples split about evenly
// between two threads. One P keeps the solver on one thread (95–97%
// of the samples), as a pinned run does, without pinning it: the
// operating system still moves that thread to the other CPU when another
// process takes its CPU (a pin cost 1.8× then). A training shorter than a
// few ticks is never handed over, and setting GOMAXPROCS and back costs
// two stops of the world: heart_scale, 20 runs alternated at load 31,
// took 0.41 s on two cores with the switch, 0.37 s without.
//
// With --scale (p.Scale) the scaled rows' nonzeros are not known before
// scaling, so each row is taken as all its features, the most work a
// column can be.
func BestOnOneP(ds *data.Dataset, p TrainParams) bool {
	if !p.IsKernel() || p.Kernel.Probability || ds.Len() == 0 {
		return false
	}
	if p.Kernel.SVMType.IsSVC() && classCount(ds.Labels()) > 2 {
		return false
	}
	l, work := ds.Len(), rowWork(ds)
	if p.Scale.Enabled || wantsDenseView(ds) {
		work = ds.NumFeatures() // the rows as the kernels would read them
	}
	return !longEnough(l, work) && float64(l)*float64(l)*float64(work+16) >= onePWorkMin
}

// onePWorkMin is the least work, in columnWorkMin's units over the whole
// kernel matrix (rows² × (rowWork + 16)), of a training BestOnOneP runs on
// one P: 2^26, between the shared data's small sets (heart_scale 2.1 M,
// breast_cancer 9.5 M, diabetes 3.2 M), which take a few milliseconds,
// and the 57-feature, 3,680-row binary set (447 M).
const onePWorkMin = 1 << 26

// classCount is the number of distinct values of labels.
func classCount(labels []float64) int {
	seen := make(map[float64]struct{})
	for _, v := range labels {
		seen[v] = struct{}{}
	}
	return len(seen)
}

// rowWork is the cost of one kernel entry of ds in columnWorkMin's units:
// its features when dense, sparseEntryWork a nonzero of its mean row when
// sparse (a sparse entry gathers the row's nonzeros, whatever the number
// of features).
func rowWork(ds *data.Dataset) int {
	if ds.IsDense() || ds.Len() == 0 {
		return ds.NumFeatures()
	}
	return sparseEntryWork * ds.Nonzeros() / ds.Len()
}

// sparseEntryWork is what a nonzero of a sparse row adds to a kernel
// entry, in dense features. A sparse nonzero costs more than a dense
// feature (an indexed load, a conversion and a scalar multiply-add against
// a lane of a vectorized product: one core at load 12-14, a column of
// debdesc_bin's shape, 10,000 rows of 6 nonzeros, took 150-212 us, one of
// 4,000 dense rows of 57 features 64-119 us), but columnWorkMin is set in
// these units for sparse rows: one a nonzero puts debdesc_bin 10k above
// it and spamlike below. (Counting 4 while helpers slept offered
// debdesc_bin 10k's columns for no wall time and 1.35-1.44x the CPU,
// quiet machine, 2026-11-28.)
const sparseEntryWork = 1

// columnChunks is how many pieces an offered column is cut into; the
// solver and the helper claim them in order.
const columnChunks = 8

// columnOffer is a column a solver offers: gen tells a helper whether the
// job still holds that column (a helper may take an offer from its channel
// after the solver has finished that column and moved on).
type columnOffer struct {
	job *columnJob
	gen uint32
}

// columnJob is a column shared by a solver and a helper.
type columnJob struct {
	dst   []float32
	i     int
	rows  []int32
	chunk int // rows a chunk
	// state is gen<<32 | the next unclaimed chunk. A chunk is claimed by a
	// compare-and-swap that also checks gen, so a stale offer claims
	// nothing and never reads the fields above.
	state atomic.Uint64
	// computed counts the chunks whose entries are written: the solver,
	// out of chunks to claim, polls it until it reaches columnChunks.
	computed atomic.Int32
}

// claim returns the next chunk of gen's column, or −1 when none is left
// or the job has moved on to another column.
func (j *columnJob) claim(gen uint32) int {
	for {
		s := j.state.Load()
		c := int(uint32(s))
		if uint32(s>>32) != gen || c >= columnChunks {
			return -1
		}
		if j.state.CompareAndSwap(s, s+1) {
			return c
		}
	}
}

// compute writes chunk c's entries.
func (j *columnJob) compute(kr *kernelRows, c int) {
	lo := min(c*j.chunk, len(j.rows))
	hi := min(lo+j.chunk, len(j.rows))
	kr.column(j.dst[lo:hi], j.i, j.rows[lo:hi])
	j.computed.Add(1)
}

// columnPool is the helpers of one Train call. A nil pool computes every
// column on the calling goroutine.
type columnPool struct {
	idle   atomic.Int32     // helpers free to take an offer
	offers chan columnOffer // buffered: an offer never waits for its helper
	wg     sync.WaitGroup
}

// startColumnPool starts one helper per kernelRows of helpers (each owns
// its scratch; their data set and kernel must be the trainer's for this
// run) and returns the pool, or nil for no helpers. A helper polls for
// the next offer (solve.Receive) before it sleeps: the gaps between an SMO
// iteration's columns are a few µs, and waking a sleeping thread costs
// tens.
func startColumnPool(helpers []*kernelRows) *columnPool {
	if len(helpers) == 0 {
		return nil
	}
	p := &columnPool{offers: make(chan columnOffer, len(helpers))}
	p.idle.Store(int32(len(helpers)))
	for _, kr := range helpers {
		p.wg.Go(func() {
			for o, ok := solve.Receive(p.offers); ok; o, ok = solve.Receive(p.offers) {
				for c := o.job.claim(o.gen); c >= 0; c = o.job.claim(o.gen) {
					o.job.compute(kr, c)
				}
				p.idle.Add(1)
			}
		})
	}
	return p
}

// offer hands o to an idle helper, if one is, and reports whether it did.
func (p *columnPool) offer(o columnOffer) bool {
	for v := p.idle.Load(); v > 0; v = p.idle.Load() {
		if p.idle.CompareAndSwap(v, v-1) {
			p.offers <- o
			return true
		}
	}
	return false
}

// stop ends the helpers and waits for them.
func (p *columnPool) stop() {
	if p == nil {
		return
	}
	close(p.offers)
	p.wg.Wait()
}

// columnSplitter computes kernel columns for one solver, with a pool's
// help when a helper is idle and offering has measured faster. The zero
// value (no pool) computes alone.
type columnSplitter struct {
	pool  *columnPool
	job   columnJob // reused: one column at a time per solver
	gen   uint32    // the job's current column
	offer offerChoice
}

// column is kr.column(dst, i, rows), offered to an idle helper when the
// column is long enough and offering has measured faster than computing
// alone (offerChoice). It allocates nothing.
func (c *columnSplitter) column(kr *kernelRows, dst []float32, i int, rows []int32) {
	if c.pool == nil || !worthOffering(len(rows), kr.ds) {
		kr.column(dst, i, rows)
		return
	}
	offered := c.offer.choose()
	start := time.Now()
	if offered {
		c.share(kr, dst, i, rows)
	} else {
		kr.column(dst, i, rows)
	}
	c.offer.record(offered, time.Since(start), len(rows))
}

// offerChoice decides, column by column, whether a solver offers its
// columns to a helper, from the solver's own wall time per entry of the
// columns it offered and of those it computed alone (moving averages).
// Size alone cannot tell: whether the helper's half arrives in time
// depends on how soon its thread runs (the other core may be busy with
// another process) and on what a chunk costs on this data, and an offer
// that the helper does not take costs the solver the hand-off. So it
// measures: the first long-enough column is computed alone, the second
// offered, and after that each column goes the way that has been faster,
// except every offerProbe-th, which goes the other way so that both
// averages follow the run (the active set shrinks; the load changes). A
// wrong choice costs at most one column in offerProbe the difference.
type offerChoice struct {
	alone, offered float64 // ns a column entry, moving averages; 0: none yet
	n              uint32  // choices made
}

// offerProbe is how often a column goes the way that has measured slower.
const offerProbe = 16

// choose reports whether the next column is to be offered.
func (o *offerChoice) choose() bool {
	o.n++
	switch {
	case o.alone == 0:
		return false
	case o.offered == 0:
		return true
	}
	better := o.offered < o.alone
	if o.n%offerProbe == 0 {
		return !better
	}
	return better
}

// record adds the time a column of n entries took, offered or alone.
func (o *offerChoice) record(offered bool, d time.Duration, n int) {
	if n == 0 {
		return
	}
	v := max(float64(d.Nanoseconds()), 1) / float64(n)
	avg := &o.alone
	if offered {
		avg = &o.offered
	}
	if *avg == 0 {
		*avg = v
	} else {
		// A sample counts for at most twice the average: one column
		// whose thread lost its core to another process must not flip
		// the choice.
		*avg += (min(v, 2**avg) - *avg) / 8
	}
}

// share is kr.column(dst, i, rows) offered to an idle helper of c's pool
// (computed alone when none is idle).
func (c *columnSplitter) share(kr *kernelRows, dst []float32, i int, rows []int32) {
	job := &c.job
	c.gen++
	gen := c.gen
	job.dst, job.i, job.rows = dst[:len(rows)], i, rows
	job.chunk = (len(rows) + columnChunks - 1) / columnChunks
	job.computed.Store(0)
	job.state.Store(uint64(gen) << 32)        // publishes the fields above
	if !c.pool.offer(columnOffer{job, gen}) { // no helper idle
		kr.column(dst, i, rows)
		return
	}
	for ch := job.claim(gen); ch >= 0; ch = job.claim(gen) {
		job.compute(kr, ch)
	}
	// The helper is writing its last chunk: a few µs, polled (a receive
	// that slept would wait for the helper's thread to wake this one).
	for job.computed.Load() < columnChunks {
		runtime.Gosched()
	}
	job.dst, job.rows = nil, nil
}
