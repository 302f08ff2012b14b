package solve

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Lender lends the cores on which no task of a Parallel run works to the
// tasks still working, for passes they split (a job's second half): a
// task offers its half with Lend and, when it was taken, waits for it
// with Wait. Its helpers run between Start and Stop; without them (a nil
// Lender, or no idle core) Lend takes nothing and the task runs the half
// itself.
//
// A helper that has run a job polls for the next one for spinWait before
// it sleeps, and Wait polls for the job's end as long, yielding the core
// to any other goroutine at each poll: waking a sleeping thread cost more
// than a small half saves (BenchmarkLend, halves of 25 µs: 55 µs a pass
// lent to a sleeping helper, 50 µs both halves alone, 25 µs lent to a
// polling one; SCHED_FIFO on the 2-vCPU VM at load 20).
type Lender struct {
	idle    atomic.Int32 // cores free to take a half
	jobs    chan Job     // buffered: a lent job never waits for its helper
	running sync.WaitGroup
}

// Job is a half a task lends: Run runs it; Done, a channel of capacity
// one, receives once it has run.
type Job interface {
	Run()
	Done() chan struct{}
}

// spinWait is how long a helper polls for the next job, and Wait for a
// job's end, before sleeping: longer than the gaps between the primal
// Newton method's passes (a CG step's vector updates: debdesc_bin ~40 µs),
// shorter than a half of them (0.3–0.6 ms).
const spinWait = 200 * time.Microsecond

// NewLender returns a Lender for up to helpers helpers; Start runs them.
func NewLender(helpers int) *Lender { return &Lender{jobs: make(chan Job, helpers)} }

// Lend hands j to an idle core, if one is, and reports whether it did.
func (c *Lender) Lend(j Job) bool {
	if c == nil {
		return false
	}
	for v := c.idle.Load(); v > 0; v = c.idle.Load() {
		if c.idle.CompareAndSwap(v, v-1) {
			c.jobs <- j
			return true
		}
	}
	return false
}

// Wait returns once j, lent by Lend, has run.
func (c *Lender) Wait(j Job) { Receive(j.Done()) }

// Start runs helpers goroutines (at most NewLender's) that take lent
// jobs, idle cores free at first; Stop(helpers) ends them.
func (c *Lender) Start(helpers, idle int) {
	c.idle.Store(int32(idle))
	c.running.Add(helpers)
	for range helpers {
		go func() {
			defer c.running.Done()
			for j := <-c.jobs; j != nil; j, _ = Receive(c.jobs) {
				j.Run()
				c.idle.Add(1)
				j.Done() <- struct{}{}
			}
		}()
	}
}

// Receive returns the next value from ch (ok false once ch is closed and
// empty, as a receive's second result), polling for it for spinWait
// before it blocks, yielding the core to any other goroutine at each
// poll: for a helper between short jobs, or a job's end, on another core
// (waking a sleeping thread costs tens of µs on this VM).
func Receive[T any](ch chan T) (v T, ok bool) {
	for start := time.Now(); time.Since(start) < spinWait; runtime.Gosched() {
		select {
		case v, ok = <-ch:
			return v, ok
		default:
		}
	}
	v, ok = <-ch
	return v, ok
}

// Free adds a core to the idle ones: a task's worker that has no task
// left.
func (c *Lender) Free() { c.idle.Add(1) }

// Stop ends the helpers of Start, and returns once they have ended.
func (c *Lender) Stop(helpers int) {
	for range helpers {
		c.jobs <- nil
	}
	c.running.Wait()
}
