package solve

import "sync"

// Parallel runs fn(g, k) for every k in [0, n) on min(workers, n)
// goroutines: goroutine g takes the next k as it frees, so that worker
// g's state (a trainer, a solver's buffers) serves one k at a time. With
// one worker it runs in order on the caller's goroutine.
func Parallel(n, workers int, fn func(g, k int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for k := range n {
			fn(0, k)
		}
		return
	}
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				k := next
				next++
				mu.Unlock()
				if k >= n {
					return
				}
				fn(g, k)
			}
		})
	}
	wg.Wait()
}
