package solve

import "sync/atomic"

// Lender lends the cores on which no task of a Parallel run works to the
// tasks still working, for passes they split (a job's second half): a
// task offers its half with Lend and, when it was taken, waits for Done.
// Its helpers run between Start and Stop; without them (a nil Lender,
// or no idle core) Lend takes nothing and the task runs the half itself.
type Lender struct {
	idle atomic.Int32 // cores free to take a half
	jobs chan Job
}

// Job is a half a task lends: Run runs it; Done, a channel of capacity
// one, receives once it has run.
type Job interface {
	Run()
	Done() chan struct{}
}

// NewLender returns a Lender; Start runs its helpers.
func NewLender() *Lender { return &Lender{jobs: make(chan Job)} }

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

// Start runs helpers goroutines that take lent jobs, idle cores free at
// first; Stop(helpers) ends them.
func (c *Lender) Start(helpers, idle int) {
	c.idle.Store(int32(idle))
	for range helpers {
		go func() {
			for j := <-c.jobs; j != nil; j = <-c.jobs {
				j.Run()
				c.idle.Add(1)
				j.Done() <- struct{}{}
			}
		}()
	}
}

// Free adds a core to the idle ones: a task's worker that has no task
// left.
func (c *Lender) Free() { c.idle.Add(1) }

// Stop ends the helpers of Start.
func (c *Lender) Stop(helpers int) {
	for range helpers {
		c.jobs <- nil
	}
}
