package core

import (
	"runtime"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/internal/solve"
)

// A training that runs one solver at a time (a binary C-SVC, one-class,
// ε-SVR) holds its thread on one CPU while it solves (internal/pin), and
// gives the caller's thread its affinity back; a multi-class training on
// two workers or more pins nothing. The solver's progress callback runs
// on its thread, so it sees the mask.
func TestTrainPinsSolverThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Fatal(err)
	}
	if before.Count() < 2 || runtime.GOMAXPROCS(0) < 2 {
		t.Skipf("%d CPUs, GOMAXPROCS %d: nothing to pin", before.Count(), runtime.GOMAXPROCS(0))
	}
	// Noisy labels and targets: thousands of SMO iterations, so that
	// progress is reported (every smoProgressEvery).
	const l, n = 1000, 4
	rng := solve.NewRNG(11)
	ds := data.NewDense(l, n)
	row := make([]float32, n)
	for range l {
		for k := range row {
			row[k] = float32(rng.Next()>>40) / (1 << 24)
		}
		y := []float64{-1, 1, 1, -1, 2}[rng.Next()%5] // noise: labels at random
		if err := ds.AppendDense(y, row); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name    string
		svm     SVMType
		classes int // labels in use: −1, +1, or −1, +1 and the extra ones
		pinned  bool
	}{
		{"binary C-SVC", CSVC, 2, true},
		{"multi-class C-SVC", CSVC, 3, false},
		{"one-class", OneClass, 0, true},
		{"ε-SVR", EpsSVR, 0, true},
	} {
		set := ds
		if c.classes == 2 {
			set = data.NewDense(l, n)
			for i := range l {
				y := ds.Label(i)
				if y != 1 {
					y = -1
				}
				if err := set.AppendDense(y, ds.DenseRow(i)); err != nil {
					t.Fatal(err)
				}
			}
		}
		p := DefaultKernelParams()
		p.SVMType, p.C, p.Nu = c.svm, 100, 0.5
		p.Kernel.Gamma = 50
		// Counted atomically: a multi-class training's workers report
		// from their goroutines at once.
		var events, onOne atomic.Int64
		progress := func(ProgressEvent) {
			var m unix.CPUSet
			if unix.SchedGetaffinity(0, &m) == nil && m.Count() == 1 {
				onOne.Add(1)
			}
			events.Add(1)
		}
		if _, err := trainKernelModel(set, p, progress); err != nil {
			t.Fatal(c.name, err)
		}
		if events.Load() == 0 {
			t.Fatalf("%s: no progress reported: the test's problem is too easy", c.name)
		}
		if n, on := events.Load(), onOne.Load(); c.pinned && on != n || !c.pinned && on != 0 {
			t.Errorf("%s: %d of %d progress reports on one CPU, want %v pinned", c.name, on, n, c.pinned)
		}
		var after unix.CPUSet
		if err := unix.SchedGetaffinity(0, &after); err != nil {
			t.Fatal(err)
		}
		if after != before {
			t.Errorf("%s: the caller's mask is %v after training, want %v", c.name, after, before)
		}
	}
}
