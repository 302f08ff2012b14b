package core

import (
	"math"
	"sync"
	"testing"

	"github.com/libsvmgo/libsvmgo/core/linear"
)

// progressLog collects the events of a run by subproblem.
type progressLog struct {
	mu sync.Mutex
	by map[[2]int32][]ProgressEvent
}

func (l *progressLog) add(e ProgressEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := [2]int32{e.Subproblem, e.Second}
	if e.Classes == 0 {
		k = [2]int32{-1, -1}
	}
	l.by[k] = append(l.by[k], e)
}

// TestProgressReports: every solver family reports its iterations as they
// go, per subproblem, with the figures its result ends with.
func TestProgressReports(t *testing.T) {
	ds := readTestdata(t, "digits.train")
	linearRun := func(s linear.LinearSolver) *progressLog {
		p := linear.DefaultLinearParams()
		p.Solver, p.Eps = s, linear.DefaultEps(s)
		tr, err := linear.NewLinearTrainer(p, ds.Len(), ds.NumFeatures())
		if err != nil {
			t.Fatal(err)
		}
		log := &progressLog{by: map[[2]int32][]ProgressEvent{}}
		tr.SetProgress(log.add)
		m, _, err := tr.Train(ds, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range m.Result.Subproblems {
			key := [2]int32{r.Label, 0}
			if s.IsMultinomial() {
				key = [2]int32{-1, -1}
			}
			ev := log.by[key]
			if len(ev) == 0 || len(ev) > r.Iterations {
				t.Fatalf("%v class %d: %d events for %d iterations", s, r.Label, len(ev), r.Iterations)
			}
			for q, e := range ev {
				if q > 0 && e.Iteration <= ev[q-1].Iteration || !(e.Violation >= 0) || math.IsNaN(e.Objective) {
					t.Fatalf("%v class %d: event %d %+v after %+v", s, r.Label, q, e, ev[max(q-1, 0)])
				}
			}
			last := ev[len(ev)-1]
			if s.IsPrimal() || s.IsMultinomial() {
				// One event per Newton step; the last is the result's.
				if last.Iteration != r.NewtonIterations || math.Abs(last.Objective-r.PrimalObjective) > 1e-9*r.PrimalObjective {
					t.Errorf("%v class %d: last event %+v, result %d iterations, P = %v", s, r.Label, last, r.NewtonIterations, r.PrimalObjective)
				}
				if last.Violation > p.Eps {
					t.Errorf("%v class %d: converged at relative gradient %v > eps", s, r.Label, last.Violation)
				}
			}
		}
		return log
	}
	linearRun(linear.L2LossSVCPrimal)
	linearRun(linear.L2LossSVCDual)
	linearRun(linear.L2Logistic)
	mlog := linearRun(linear.L2LogisticMultinomial)
	if len(mlog.by) != 1 {
		t.Errorf("-s 40 reported %d subproblems, want 1", len(mlog.by))
	}

	// A hard problem (large C, small tolerance) runs thousands of SMO
	// iterations on 455 rows (2,056 at these settings).
	hs := readTestdata(t, "breast_cancer.train")
	kp := DefaultKernelParams()
	kp.Kernel.Gamma, kp.C, kp.Eps = 0.1, 1000, 1e-6
	kt, err := NewKernelTrainer(kp, hs.Len(), hs.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	klog := &progressLog{by: map[[2]int32][]ProgressEvent{}}
	kt.SetProgress(klog.add)
	km, _, err := kt.Train(hs, nil)
	if err != nil {
		t.Fatal(err)
	}
	reported := 0
	for _, sub := range km.Result.Subproblems {
		ev := klog.by[[2]int32{sub.Pos, sub.Neg}]
		if want := sub.Iterations / smoProgressEvery; len(ev) != want {
			t.Errorf("pair %d-%d: %d events for %d iterations, want %d", sub.Pos, sub.Neg, len(ev), sub.Iterations, want)
		}
		for q, e := range ev {
			if e.Iteration != (q+1)*smoProgressEvery || !(e.Violation > 0) {
				t.Errorf("pair %d-%d: event %d %+v", sub.Pos, sub.Neg, q, e)
			}
		}
		reported += len(ev)
	}
	if reported == 0 {
		t.Error("no SMO subproblem ran 1000 iterations: the test checks nothing")
	}
}
