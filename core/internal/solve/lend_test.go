package solve

import (
	"sync/atomic"
	"testing"
	"time"
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
	c := NewLender(1)
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
		c.Wait(j)
		if n := j.runs.Load(); n != int32(k) {
			t.Fatalf("job %d: %d runs", k, n)
		}
	}
}

// TestReceive: Receive returns what was sent, whether it arrives while it
// polls or after it has gone to sleep, and reports a closed channel as a
// receive does.
func TestReceive(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 1
	if v, ok := Receive(ch); v != 1 || !ok {
		t.Fatalf("buffered value: got %d, %v", v, ok)
	}
	go func() {
		time.Sleep(5 * spinWait) // past the polling, into the blocking receive
		ch <- 2
		close(ch)
	}()
	if v, ok := Receive(ch); v != 2 || !ok {
		t.Fatalf("late value: got %d, %v", v, ok)
	}
	if v, ok := Receive(ch); v != 0 || ok {
		t.Fatalf("closed channel: got %d, %v", v, ok)
	}
}

// sumJob sums its slice: a pass's half.
type sumJob struct {
	x    []float64
	sum  float64
	done chan struct{}
}

func (j *sumJob) Run() {
	var s float64
	for _, v := range j.x {
		s += v
	}
	j.sum = s
}
func (j *sumJob) Done() chan struct{} { return j.done }

// BenchmarkLend: a pass of 2 × 32k additions (about 25 µs a half) in halves,
// the second lent to an idle core, as the primal Newton method's passes
// are; "alone" runs both halves on the caller's core, the floor the
// lending has to beat by its hand-offs.
func BenchmarkLend(b *testing.B) {
	x := make([]float64, 1<<16)
	for i := range x {
		x[i] = float64(i)
	}
	first, second := &sumJob{x: x[:len(x)/2]}, &sumJob{x: x[len(x)/2:], done: make(chan struct{}, 1)}
	b.Run("alone", func(b *testing.B) {
		for range b.N {
			first.Run()
			second.Run()
		}
	})
	b.Run("lent", func(b *testing.B) {
		c := NewLender(1)
		c.Start(1, 1)
		defer c.Stop(1)
		for range b.N {
			if !c.Lend(second) {
				b.Fatal("not lent")
			}
			first.Run()
			c.Wait(second)
		}
	})
}
