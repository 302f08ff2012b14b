//go:build race

package store

// raceEnabled: the race detector's shadow memory and instrumentation change
// resident memory and allocation counts, so the tests that assert them skip
// under it; make test runs them without it.
const raceEnabled = true
