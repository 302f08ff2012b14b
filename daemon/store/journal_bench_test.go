//go:build unix

package store

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
)

// processCPU returns the process's user and system CPU time in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkCommit measures a daemon batch's store work on a full store of
// shuttle's shape (9 features, a 21-pair C-SVC dual): the oldest 1% of
// the rows retired by the window, 1% added, a dual with 1% of its values
// changed recorded, committed; then the publication recorded and
// committed. "journal" is Commit (an append; a compaction when the
// journal outgrows the snapshot), "snapshot" the whole rewrite every
// Commit did before the journal (Compact). ns/op is wall time, which the
// syncs' waits for the disk dominate; cpu-ns/op the process's CPU time.
func BenchmarkCommit(b *testing.B) {
	for _, rows := range []int{10_000, 40_000, 160_000} {
		for _, mode := range []string{"journal", "snapshot"} {
			b.Run(fmt.Sprintf("rows=%d/%s", rows, mode), func(b *testing.B) {
				per := rows / 100
				cfg := Config{Capacity: rows + per, CapacityNonzeros: (rows + per) * 9, MaxFeatures: 9, Window: rows}
				s := open(b, b.TempDir(), cfg)
				rng := rand.New(rand.NewPCG(1, 2))
				batchOf := func() []row {
					rs := make([]row, per)
					for i := range rs {
						rs[i] = row{label: float64(1 + rng.IntN(7))}
						for j := range 9 {
							rs[i].idx = append(rs[i].idx, int32(j))
							rs[i].val = append(rs[i].val, float32(rng.NormFloat64()))
						}
					}
					return rs
				}
				var pairs [][2]int32
				for c1 := int32(1); c1 <= 7; c1++ {
					for c2 := c1 + 1; c2 <= 7; c2++ {
						pairs = append(pairs, [2]int32{c1, c2})
					}
				}
				full := batchOf()
				for len(full) < rows {
					full = append(full, batchOf()...)
				}
				if _, err := s.Add(hashOf("first"), batch(b, full[:rows]...)); err != nil {
					b.Fatal(err)
				}
				alpha := make([][]float64, len(pairs))
				for k := range alpha {
					alpha[k] = randomAlpha(rng, rows, true)
				}
				if err := setKernelDual(s, &core.KernelDual{SVMType: core.CSVC, Pairs: pairs, Alpha: alpha}); err != nil {
					b.Fatal(err)
				}
				commit := s.Commit
				if mode == "snapshot" {
					commit = s.Compact
				}
				if err := commit(); err != nil {
					b.Fatal(err)
				}
				batches := make([]*data.Dataset, 8)
				for i := range batches {
					batches[i] = batch(b, batchOf()...)
				}
				cpu0 := processCPU()
				b.ResetTimer()
				for i := range b.N {
					if _, err := s.Add(hashOf(fmt.Sprint(i)), batches[i%len(batches)]); err != nil {
						b.Fatal(err)
					}
					d := s.Dual().Extended(s.Len())
					for _, a := range d.Vectors() {
						for range rows / 100 {
							a[rng.IntN(len(a))] = rng.Float64()
						}
					}
					if err := s.SetDual(d); err != nil {
						b.Fatal(err)
					}
					if err := commit(); err != nil {
						b.Fatal(err)
					}
					s.SetPublished(s.Generation())
					if err := commit(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(s.Compactions())/float64(b.N), "compactions/op")
			})
		}
	}
}
