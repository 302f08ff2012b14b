package core_test

import (
	"bytes"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
)

// TestKeptColumnsModelFilesIdentical streams digits (ten classes, 45
// pairs) through a trainer keeping kernel columns (KeepMB) on four
// workers, a cold Train and warm retrains each removing the oldest rows
// and appending new ones, several times over: every run's model file must
// be the same bytes each time. The pairs solved at once share the kept
// columns of their common class's rows, and which of them computes an
// entry depends on timing; the kernel evaluation counts the file records
// (Result.KernelEvals, per subproblem and in total) must not.
func TestKeptColumnsModelFilesIdentical(t *testing.T) {
	full, err := data.ReadFile(filepath.Join("testdata", "digits.train"), data.ReadOptions{ClassLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const store, batch, retrains = 600, 12, 5
	reps := 8
	if testing.Short() {
		reps = 4
	}
	for _, c := range []struct {
		name   string
		keepMB float64
	}{
		{"room for every column", 64},
		{"room for 60 columns", 60 * 4 * float64(store+batch) / (1 << 20)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := core.DefaultKernelParams()
			p.KeepMB = c.keepMB
			var first [][]byte
			for rep := range reps {
				files := streamModelFiles(t, full, p, store, batch, retrains)
				if rep == 0 {
					first = files
					continue
				}
				for k := range files {
					if !bytes.Equal(files[k], first[k]) {
						t.Fatalf("repetition %d: run %d's model file differs from the first repetition's", rep, k)
					}
				}
			}
		})
	}
}

// streamModelFiles trains p on the first store rows of full with one
// trainer, then retrains warm retrains times, each after removing the
// oldest batch rows and appending the next batch, and returns each run's
// model file.
func streamModelFiles(t *testing.T, full *data.Dataset, p core.KernelParams, store, batch, retrains int) [][]byte {
	t.Helper()
	tr, err := core.NewKernelTrainer(p, store+batch, full.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	ds := data.NewSparse(store+batch, full.Nonzeros(), full.NumFeatures())
	if full.IsDense() {
		ds = data.NewDense(store+batch, full.NumFeatures())
	}
	next := 0
	add := func(n int) {
		for range n {
			if err := ds.AppendRowOf(full, next); err != nil {
				t.Fatal(err)
			}
			next++
		}
	}
	add(store)
	oldest := make([]int, batch)
	for k := range oldest {
		oldest[k] = k
	}
	var files [][]byte
	var warm *core.KernelDual
	for run := range retrains + 1 {
		if run > 0 {
			if err := ds.DeleteRows(oldest); err != nil {
				t.Fatal(err)
			}
			if err := warm.DeleteRows(oldest); err != nil {
				t.Fatal(err)
			}
			add(batch)
			warm = (&core.Dual{Kernel: warm}).Extended(ds.Len()).Kernel
		}
		m, d, err := tr.Train(ds, warm)
		if err != nil {
			t.Fatal(err)
		}
		b, err := modelfile.MarshalKernel(m)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
		warm = d
	}
	return files
}
