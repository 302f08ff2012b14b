//go:build race

package linear

// raceEnabled: the race detector makes sync.Pool drop a quarter of the
// buffers put back, so allocation counts of pooled paths are not
// meaningful under it.
const raceEnabled = true
