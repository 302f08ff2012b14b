package core

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ParallelChunks calls rows(from, to) for consecutive chunks of [0, n) of
// chunk rows each (the last may be shorter), from workers goroutines
// (0: GOMAXPROCS), and returns when every chunk is done. Workers take the
// next chunk as they finish one, so rows of uneven cost still keep every
// worker busy. Each chunk is given to exactly one call; calls run
// concurrently, so rows must only touch what its range owns. It allocates
// the goroutines. It panics if chunk < 1.
func ParallelChunks(n, chunk, workers int, rows func(from, to int)) {
	if chunk < 1 {
		panic("core: ParallelChunks: chunk < 1")
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, (n+chunk-1)/chunk) {
		wg.Go(func() {
			for {
				from := int(next.Add(int64(chunk))) - chunk
				if from >= n {
					return
				}
				rows(from, min(from+chunk, n))
			}
		})
	}
	wg.Wait()
}
