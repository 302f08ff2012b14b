package solve

import (
	"sync/atomic"
	"testing"
)

// halfJob counts its runs and which goroutine ran it.
type halfJob struct {
	runs atomic.Int32
	done chan struct{}
}

func (j *halfJob) Run()                { j.runs.Add(1) }
func (j *halfJob) Done() chan struct{} { return j.done }

// TestLender: a nil Lender and one with no idle core lend nothing; an idle
// core takes a job, runs it once and is idle again after it.
func TestLender(t *testing.T) {
	j := &halfJob{done: make(chan struct{}, 1)}
	var none *Lender
	if none.Lend(j) {
		t.Fatal("a nil Lender lent a job")
	}
	c := NewLender()
	c.Start(1, 0)
	defer c.Stop(1)
	if c.Lend(j) {
		t.Fatal("lent a job with no idle core")
	}
	c.Free()
	for k := 1; k <= 3; k++ {
		if !c.Lend(j) {
			t.Fatalf("job %d: an idle core took nothing", k)
		}
		<-j.Done()
		if n := j.runs.Load(); n != int32(k) {
			t.Fatalf("job %d: %d runs", k, n)
		}
	}
}
