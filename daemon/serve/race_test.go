//go:build race

package serve

// raceEnabled: the race detector's instrumentation changes allocation
// counts, so the allocation test skips under it; make test runs it without.
const raceEnabled = true
